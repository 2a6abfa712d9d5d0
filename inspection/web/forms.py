"""Turning an HTML form into schema input, and schema errors back into the form; a list page's query arguments,
order and links.

Each list names the keys it sorts by, its query schema accepts only those
(`key` ascending, `-key` descending), and the order is the database's ORDER BY with the record's id
as the tiebreak, so a page boundary never splits or repeats rows that compare equal.

A sort the schema refuses is dropped with the other malformed filters and the list keeps its default
order (the pages never refuse a hand-edited address; the headers only ever link valid keys).
"""
from urllib.parse import urlencode

from flask import request
from marshmallow import Schema, ValidationError, fields, validate

from inspection.core.exceptions import DomainError
from inspection.i18n.language import localize


def form_values(form, schema: Schema) -> dict:
    """The submitted fields the schema knows; an empty box is a missing value, so the schema says
    "Este campo es obligatorio." for a required field and uses its default or None otherwise.
    A nested field gathers the boxes named `field.inner`, which its own schema checks."""
    data = {}
    for name, field in schema.load_fields.items():
        if isinstance(field, fields.Boolean):
            data[name] = name in form
            continue
        if isinstance(field, fields.Nested):  # fields named "name.inner", e.g. signatures.inspector
            inner = {key.split(".", 1)[1]: value for key, value in form.items() if key.startswith(f"{name}.")}
            if inner:
                data[name] = inner
            continue
        value = form.get(name, "").strip()
        if value:
            data[name] = value
        elif name in form and field.allow_none and not field.required:
            data[name] = None
    return data


def load_form(form, schema: Schema) -> tuple[dict | None, dict]:
    """Validate a form with a schema; returns (values, errors) with errors already translated."""
    try:
        return schema.load(form_values(form, schema)), {}
    except ValidationError as error:
        return None, localize(error.messages)






def domain_errors(error: DomainError) -> dict:
    """A domain refusal as form errors (field -> messages)."""
    return localize(error.errors) if error.errors else {"_": [localize(error.detail or error.title)]}


# --- list pages ---------------------------------------------------------------------------------

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
