"""Hostile text refused at the request's edge, before a view or a query sees it: the same 4xx on SQLite and PostgreSQL.

PostgreSQL refuses a NUL (U+0000) in text, so one reaching a query was a 500 there while SQLite stored
it; Python's json reads what no client of ours sends: unpaired surrogates (text that is not Unicode),
nesting that ends in RecursionError, integers past int()'s digit limit, NaN and Infinity. Two hooks:

- `refuse_hostile_url` runs ahead of authorization, which looks records up by the path's arguments:
  a NUL in a path segment or a query parameter (percent-decoded, %00 arrives as a NUL);
- `refuse_hostile_body` runs after authorization and the CSRF check (which only compare a token), so a
  caller who is refused anyway never has a body parsed: a JSON body's strings, keys, nesting and
  numbers, or a form's field names, values and file names. File contents and other bodies (a
  resumable upload's chunk) are bytes, not text, and are not read here.

A NUL, a number longer than `MAX_DIGITS` digits or one that is not finite is a refused value (422); an
unpaired surrogate or nesting deeper than `MAX_DEPTH` is malformed text (400). The answer names each
field (JSON fields by their path, such as `answers.0.note`). A body that is not JSON at all is left to
the view's parser, which answers it as before. docs/security.md: Hostile input.
"""
import json
import math
import re
from itertools import chain

from flask import request

from inspection.core.exceptions import DomainError, Invalid
from inspection.i18n.messages import Msg

MAX_DEPTH = 32  # our deepest body (a sync batch's answer's photos) is four levels
MAX_DIGITS = 30  # a bounded id has 10 digits, a fee or a length far fewer
MAX_NAMED = 10  # fields named in one answer: enough to act on, and the answer stays small
FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})

NUL = Msg("Contiene un carácter no admitido (NUL).")
SURROGATE = Msg("Contiene un carácter Unicode no válido (un sustituto sin pareja).")
TOO_DEEP = Msg("El JSON está anidado a más de {depth} niveles.", depth=MAX_DEPTH)
TOO_LONG = Msg("El número tiene más de {digits} cifras.", digits=MAX_DIGITS)
NOT_FINITE = Msg("El número no es finito.")
MALFORMED = (SURROGATE, TOO_DEEP)  # 400; the others are 422

_HOSTILE = re.compile("[\x00\ud800-\udfff]")


def _fault(text: str) -> Msg | None:
    """What is wrong with a text, if anything."""
    found = _HOSTILE.search(text)
    if found is None:
        return None
    return NUL if found.group() == "\x00" else SURROGATE


def _shown(name) -> str:
    """A field's name fit to echo: hostile characters as escapes, at most 64 characters."""
    return _HOSTILE.sub(lambda found: f"\\u{ord(found.group()):04x}", str(name)[:64])


def _in_pairs(pairs):
    """(field, message) for each name or text value of (name, value) pairs at fault."""
    for name, value in pairs:
        fault = _fault(name) or (isinstance(value, str) and _fault(value))
        if fault:
            yield _shown(name), fault


class _Refused:
    """A number the parser will not keep, left in its place so that the walk names its field."""

    __slots__ = ("fault",)

    def __init__(self, fault: Msg):
        self.fault = fault


def _parse_int(literal: str):
    """The parser's reading of an integer, refused past MAX_DIGITS (before int() would raise past 4,300)."""
    return _Refused(TOO_LONG) if len(literal.lstrip("-")) > MAX_DIGITS else int(literal)


def _parse_float(literal: str):
    """The parser's reading of a decimal, refused past MAX_DIGITS or when it overflows to infinity."""
    if sum(char.isdigit() for char in literal) > MAX_DIGITS:
        return _Refused(TOO_LONG)
    number = float(literal)
    return number if math.isfinite(number) else _Refused(NOT_FINITE)  # 1e400 reads as inf


def _name(path: tuple) -> str:
    """A JSON field's name: its path joined by dots (`answers.0.note`), the whole body as `body`."""
    return ".".join(_shown(key) for key in path) or "body"


def _in_json(value, texts: bool, path: tuple = (), depth: int = 0):
    """(field, message) for each number at fault in a parsed body, each string or key at fault when `texts`
    (the body has an escape that could make one), and for nesting too deep; names are built only for a fault."""
    if type(value) is _Refused:
        yield _name(path), value.fault
    elif type(value) is str:
        if texts and (fault := _fault(value)):
            yield _name(path), fault
    elif type(value) is dict or type(value) is list:
        if depth == MAX_DEPTH:
            yield "body", TOO_DEEP
            return
        for key, item in value.items() if type(value) is dict else enumerate(value):
            if texts and type(key) is str and (fault := _fault(key)):
                yield _name((*path, key)), fault
            kind = type(item)
            if kind is dict or kind is list or kind is _Refused:
                yield from _in_json(item, texts, (*path, key), depth + 1)
            elif texts and kind is str and (fault := _fault(item)):
                yield _name((*path, key)), fault


# In JSON text a NUL or a surrogate can only be written as an escape (raw, the one is not JSON and the
# other not UTF-8): a body without one has no string to search.
_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")


def _json_faults(data: bytes):
    """(field, message) for what is wrong in a JSON body; nothing for a body that is not JSON (the view's
    parser answers that as it always has)."""
    try:
        text = data.decode()
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float,
                           parse_constant=lambda _: _Refused(NOT_FINITE))
    except RecursionError:  # the parser's own bound on nesting, far past MAX_DEPTH
        yield "body", TOO_DEEP
        return
    except ValueError:  # JSONDecodeError, UnicodeDecodeError
        return
    yield from _in_json(value, bool(_ESCAPE.search(text)))


def _refuse(found) -> None:
    """Raise the problem naming the first MAX_NAMED fields at fault: 400 if any text is malformed, else 422."""
    errors = {}
    for name, fault in found:
        if name not in errors and len(errors) == MAX_NAMED:
            break
        messages = errors.setdefault(name, [])
        if fault not in messages:
            messages.append(fault)
    if errors:
        malformed = any(fault in MALFORMED for messages in errors.values() for fault in messages)
        raise (DomainError if malformed else Invalid)(errors=errors)


def refuse_hostile_url() -> None:
    """before_request, ahead of authorization: a NUL in the path's segments or the query's names and values."""
    in_path, query = _HOSTILE.search(request.path), request.query_string
    if b"%00" not in query and b"\x00" not in query:
        query = b""  # decoded, only these make a NUL (bad UTF-8 reads as U+FFFD, never a surrogate): not parsed
    if in_path is None and not query:
        return  # the common case, such as the police's verification: one search of a short path
    found = []
    if in_path:
        found = list(_in_pairs((request.view_args or {}).items())) or [("path", _fault(request.path))]
    if query:
        found.extend(_in_pairs(request.args.items(multi=True)))
    _refuse(found)


def refuse_hostile_body() -> None:
    """before_request, after authorization and CSRF: a JSON body, or a form's fields and file names."""
    if not request.environ.get("CONTENT_TYPE"):
        return  # no body this hook reads
    if request.is_json:
        _refuse(_json_faults(request.get_data(cache=True)))
    elif request.mimetype in FORM_TYPES:
        files = ((name, upload.filename or "") for name, upload in request.files.items(multi=True))
        _refuse(chain(_in_pairs(request.form.items(multi=True)), _in_pairs(files)))
