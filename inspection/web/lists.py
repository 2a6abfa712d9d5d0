"""The list pages' query arguments, order and links.

Each list names the keys it sorts by, its query schema accepts only those
(`key` ascending, `-key` descending), and the order is the database's ORDER BY with the record's id
as the tiebreak, so a page boundary never splits or repeats rows that compare equal.

A sort the schema refuses is dropped with the other malformed filters and the list keeps its default
order (the pages never refuse a hand-edited address; the headers only ever link valid keys).
"""
from urllib.parse import urlencode

from flask import request
from marshmallow import ValidationError, fields, validate


def list_args(schema, skip=("lang",)) -> dict:
    """The query arguments a list's schema accepts; a malformed one is dropped rather than refusing the page."""
    raw = {key: value for key, value in request.args.items() if value != "" and key not in skip}
    try:
        return schema.load(raw)
    except ValidationError as error:
        return schema.load({key: value for key, value in raw.items() if key not in error.messages})


def sort_field(keys, default: str):
    """The `sort` query argument of a list: one of `keys`, optionally prefixed with "-" (descending)."""
    return fields.String(load_default=default, validate=validate.OneOf([*keys, *(f"-{key}" for key in keys)]),
                         metadata={"description": "Orden: una clave, o -clave para descendente"})


def sorted_by(query, sort: str, columns: dict, tiebreak):
    """`query` in the order `sort` names (a key of `columns`), then by `tiebreak` in the same direction."""
    descending = sort.startswith("-")
    column = columns[sort.removeprefix("-")]
    return query.order_by(None).order_by(*(c.desc() if descending else c.asc() for c in (column, tiebreak)))


def list_url(**changes) -> str:
    """This list's address with some query arguments changed (None drops one): filters and sort are kept."""
    args = request.args.to_dict()
    args.update(changes)
    return "?" + urlencode({key: value for key, value in args.items() if value is not None and value != ""})


def sort_link(key: str, current: str) -> dict:
    """A sortable header's link and aria-sort: a click on the active key flips it; on another key sorts it
    ascending; the page goes back to the first."""
    active = current.removeprefix("-") == key
    descending = active and current.startswith("-")
    return {"url": list_url(sort=key if descending or not active else f"-{key}", page=None),
            "aria": ("descending" if descending else "ascending") if active else None}
