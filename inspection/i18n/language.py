"""The request's language: `?lang=`, then the session, then the user's preference, then
`Accept-Language`; Spanish by default. Messages themselves (`Msg`, `N_`, the catalogs) are in
`messages.py`, which needs no request; `formats.py` writes numbers and dates for a language (Babel).
`term` and `restriction` give coded inspection values in the request's language.
"""
import re

from flask import request, session
from flask.globals import _cv_request

from inspection.i18n.labels import term_label
from inspection.i18n.messages import LANGUAGES, N_, Localized, Msg, translate
from inspection.i18n.restrictions import restriction_label


def current_language() -> str:
    """The language of the current request (Spanish outside a request).

    A page asks it a few hundred times (every label, term and date), so the request is read through Flask's own
    context variable rather than the `request` proxy and has_request_context() (a third of the cost)."""
    context = _cv_request.get(None)
    if context is None:
        return "es"
    cache = context.request.environ  # per request; `g` lives as long as the app context
    lang = cache.get("baliza.lang")
    if lang is None:
        lang = cache["baliza.lang"] = _pick_language()
    return lang


def remember_asked_language() -> None:
    """before_request: a page asked with `?lang=` keeps that language in the session at once, so a page
    that answers with a redirect (`/`, the login) or a refusal still passes it on."""
    query = request.query_string
    if (b"lang" in query or b"%" in query) and "lang" in request.args:  # most queries are never parsed for this
        current_language()


def _pick_language() -> str:
    """Pages: ?lang=, the session, the user's preference, else Spanish (a phone set to English still
    gets Spanish first); only a page the reader opens keeps its ?lang= (the service worker fetches each
    language's copy of the tablet's pages). The API: ?lang=, then Accept-Language, else Spanish."""
    asked = request.args.get("lang")
    api = request.path.startswith("/api/")
    if asked in LANGUAGES:
        if not api and request.headers.get("Sec-Fetch-Mode", "navigate") == "navigate":
            session["lang"] = asked  # a page the reader opened; a script's or the worker's fetch keeps theirs
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
    match = re.fullmatch(r"Must be greater than (or equal to )?(\S+) and less than or equal to (\S+)\.", text)
    if match:  # a range with both bounds (a page size, a gauge's reading): both are named, never one for the other
        if match[1]:
            return Msg("Debe ser mayor o igual que {low} y menor o igual que {high}.", low=match[2], high=match[3])
        return Msg("Debe ser mayor que {low} y menor o igual que {high}.", low=match[2], high=match[3])
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


# Coded inspection values as people read them, in the page language (pages and tablet shells).

def term(group: str, value) -> str:
    """The label of a coded inspection value in the page language (the code itself when unknown)."""
    return term_label(group, value, current_language())


def restriction(name: str | None) -> str:
    """The words of a restriction an article orders instead of a detention, in the page language."""
    return restriction_label(name, current_language())
