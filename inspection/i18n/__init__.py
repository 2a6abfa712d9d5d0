"""Languages: Spanish first, English second. Message values that need no request (`Msg`, `N_`), the request's language,
numbers and dates in CLDR's es_PY and en formats, the labels of coded values and the words of the law's restrictions;
the gettext catalogs live in `translations/`.
"""
