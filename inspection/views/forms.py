"""Turning an HTML form into schema input, and schema errors back into the form."""
from marshmallow import Schema, ValidationError

from ..errors import DomainError
from ..i18n import localize


def form_values(form, schema: Schema) -> dict:
    """The submitted fields the schema knows, with empty optional text as None."""
    data = {}
    for name, field in schema.load_fields.items():
        if field.__class__.__name__ == "Boolean":
            data[name] = name in form
        elif name in form:
            value = form.get(name, "").strip()
            data[name] = value if value != "" else None
            if data[name] is None and field.required:
                data[name] = ""
    return {k: v for k, v in data.items() if v is not None or schema.load_fields[k].allow_none}


def load_form(form, schema: Schema) -> tuple[dict | None, dict]:
    """Validate a form with a schema; returns (values, errors) with errors already translated."""
    try:
        return schema.load(form_values(form, schema)), {}
    except ValidationError as error:
        return None, localize(error.messages)


def domain_errors(error: DomainError) -> dict:
    """A domain refusal as form errors (field -> messages)."""
    return localize(error.errors) if error.errors else {"_": [localize(error.detail or error.title)]}
