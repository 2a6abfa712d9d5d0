"""Messages without a request: Spanish source strings, the gettext catalogs, and message values.

Every user-facing string is written in Spanish in code and templates (`_("...")`, `Msg("...")`,
`N_("...")` where a string is only marked); `pybabel extract -F babel.cfg` collects them and
`translations/<lang>/LC_MESSAGES/messages.po` translate them, so translators' tools read the
catalogs (docs/architecture.md: Languages). No Flask here: domain modules raise and return these values, and
the request-bound choice of language lives in `i18n.py`.
"""
import io
from datetime import date, datetime
from functools import cache
from pathlib import Path

from babel.dates import format_date
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

LANGUAGES = ("es", "en")
LOCALES = {"es": "es_PY", "en": "en"}  # Babel locales: Paraguayan Spanish formats "1.234,5"
CATALOG_DIR = Path(__file__).parent / "translations"


def N_(text: str) -> str:
    """Mark a Spanish source string for extraction; it is translated where it is shown."""
    return text


@cache
def translations(lang: str) -> NullTranslations:
    """One language's catalog, compiled in memory from its .po once per process (no stale .mo)."""
    path = CATALOG_DIR / lang / "LC_MESSAGES" / "messages.po"
    if lang == "es" or not path.exists():
        return NullTranslations()
    with path.open("rb") as source:
        compiled = io.BytesIO()
        write_mo(compiled, read_po(source, locale=lang))
    compiled.seek(0)
    return Translations(compiled)


def translate(text: str, lang: str) -> str:
    """The text in `lang`, or the Spanish source when no translation exists."""
    return translations(lang).gettext(text) if text else text


class Msg(str):
    """A message kept as its Spanish template plus parameters, translated when it is shown.

    It is a `str` (the Spanish text) so marshmallow and logs treat it as an ordinary message.
    """

    def __new__(cls, template: str, **params):
        obj = super().__new__(cls, template.format(**_shown(params, "es")) if params else template)
        obj.template = template
        obj.params = params
        return obj

    def __reduce__(self):
        return (_rebuild_msg, (self.template, self.params))

    def in_language(self, lang: str) -> str:
        """This message in `lang`."""
        text = translate(self.template, lang)
        return text.format(**_shown(self.params, lang)) if self.params else text


def _shown(params: dict, lang: str) -> dict:
    """Parameters as a reader of `lang` reads them: a date in words ("1 de diciembre de 2026")."""
    return {name: format_date(value, "long", locale=LOCALES[lang])
            if isinstance(value, date) and not isinstance(value, datetime) else value
            for name, value in params.items()}


class Localized(str):
    """A message that arrives already written in each language (e.g. from a pure module)."""

    def __new__(cls, texts: dict[str, str]):
        obj = super().__new__(cls, texts["es"])
        obj.texts = texts
        return obj

    def __reduce__(self):
        return (Localized, (self.texts,))

    def in_language(self, lang: str) -> str:
        """This message in `lang` (Spanish when that language is missing)."""
        return self.texts.get(lang, self.texts["es"])


def _rebuild_msg(template, params):
    return Msg(template, **params)
