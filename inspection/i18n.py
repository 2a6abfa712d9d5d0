"""Spanish first, English second: Spanish strings are the source, gettext catalogs give the English.

Every user-facing string is written in Spanish in code and templates (`_("...")`, `Msg("...")`,
`N_("...")` where a string is only marked); `pybabel extract -F babel.cfg` collects them and
`translations/<lang>/LC_MESSAGES/messages.po` translate them, so translators' tools read the
catalogs (README: Translations). The language is chosen per request: `?lang=`, then the session,
then the user's preference, then `Accept-Language`; Spanish by default. Flask-Babel formats
numbers and dates in the same language (es_PY, en).
"""
import io
import re
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations
from flask import has_request_context, request, session

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


def locale_code(lang: str | None = None) -> str:
    """The Babel locale of a language, for numbers and dates (the request's when not given)."""
    return LOCALES[lang or current_language()]


def current_language() -> str:
    """The language of the current request (Spanish outside a request)."""
    if not has_request_context():
        return "es"
    cache = request.environ  # per request; `g` lives as long as the app context
    if "baliza.lang" not in cache:
        cache["baliza.lang"] = _pick_language()
    return cache["baliza.lang"]


def _pick_language() -> str:
    """Pages: ?lang=, the session, the user's preference, else Spanish (a phone set to English still
    gets Spanish first). The API: ?lang=, then Accept-Language, else Spanish."""
    asked = request.args.get("lang")
    api = request.path.startswith("/api/")
    if asked in LANGUAGES:
        if not api:
            session["lang"] = asked
        return asked
    if api:
        return request.accept_languages.best_match(LANGUAGES, default="es") or "es"
    if session.get("lang") in LANGUAGES:
        return session["lang"]
    from flask_login import current_user

    if current_user and current_user.is_authenticated and current_user.language in LANGUAGES:
        return current_user.language
    return "es"


def gettext(text: str, **params) -> str:
    """Translate a Spanish source string for the current request and fill its parameters."""
    out = translate(text, current_language())
    return out.format(**params) if params else out


class Msg(str):
    """A message kept as its Spanish template plus parameters, translated when it is shown.

    It is a `str` (the Spanish text) so marshmallow and logs treat it as an ordinary message.
    """

    def __new__(cls, template: str, **params):
        obj = super().__new__(cls, template.format(**params) if params else template)
        obj.template = template
        obj.params = params
        return obj

    def __reduce__(self):
        return (_rebuild_msg, (self.template, self.params))

    def in_language(self, lang: str) -> str:
        """This message in `lang`."""
        text = translate(self.template, lang)
        return text.format(**self.params) if self.params else text


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


def localize(message, lang: str | None = None):
    """Translate a message, or every message inside a list or dict (marshmallow's error shape)."""
    lang = lang or current_language()
    if isinstance(message, (Msg, Localized)):
        return message.in_language(lang)
    if isinstance(message, str):
        return _marshmallow_message(message).in_language(lang)
    if isinstance(message, dict):
        return {key: localize(value, lang) for key, value in message.items()}
    if isinstance(message, (list, tuple)):
        return [localize(value, lang) for value in message]
    return message


# marshmallow's built-in English messages, mapped to Spanish sources (translated back if asked).
_MARSHMALLOW = {
    "Missing data for required field.": N_("Este campo es obligatorio."),
    "Field may not be null.": N_("Este campo no puede quedar vacío."),
    "Unknown field.": N_("Campo desconocido."),
    "Invalid value.": N_("Valor no válido."),
    "Not a valid integer.": N_("Debe ser un número entero."),
    "Not a valid number.": N_("Debe ser un número."),
    "Not a valid string.": N_("Debe ser un texto."),
    "Not a valid boolean.": N_("Debe ser verdadero o falso."),
    "Not a valid date.": N_("Debe ser una fecha (AAAA-MM-DD)."),
    "Not a valid datetime.": N_("Debe ser una fecha y hora ISO 8601."),
    "Not a valid email address.": N_("No es un correo electrónico válido."),
    "Not a valid UUID.": N_("Debe ser un UUID."),
    "Not a valid list.": N_("Debe ser una lista."),
    "Not a valid mapping type.": N_("Debe ser un objeto."),
    "Invalid input type.": N_("Tipo de dato no válido."),
    "Invalid JSON body.": N_("El cuerpo de la solicitud no es JSON válido."),
    "Special numeric values (nan or infinity) are not permitted.": N_("No se admiten NaN ni infinito."),
    "Shorter than minimum length {min}.": N_("Más corto que el mínimo de {min}."),
}


def _marshmallow_message(text: str) -> Msg:
    """Map one of marshmallow's English messages to its Spanish source; unknown text stays as is."""
    if text in _MARSHMALLOW:
        return Msg(_MARSHMALLOW[text])
    if text.startswith("Must be one of: "):
        return Msg("Debe ser uno de: {choices}", choices=text[len("Must be one of: "):].rstrip("."))
    if text.startswith("Must be greater than or equal to "):
        return Msg("Debe ser mayor o igual que {min}.", min=text.rsplit(" ", 1)[-1].rstrip("."))
    if text.startswith("Must be less than or equal to "):
        return Msg("Debe ser menor o igual que {max}.", max=text.rsplit(" ", 1)[-1].rstrip("."))
    if text.startswith("Longer than maximum length "):
        return Msg("Supera el largo máximo de {max}.", max=text.rsplit(" ", 1)[-1].rstrip("."))
    match = re.fullmatch(r"Length must be between (\d+) and (\d+)\.", text)
    if match:
        return Msg("Debe tener entre {min} y {max} caracteres.", min=match[1], max=match[2])
    return Msg(text)
