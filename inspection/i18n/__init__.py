"""Languages: Spanish first, English second. Message values that need no request (`Msg`, `N_`), the request's language,
numbers and dates in CLDR's es_PY and en formats, and the labels of coded values; the gettext catalogs live in
`translations/`.
"""
