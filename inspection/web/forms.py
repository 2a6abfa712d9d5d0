"""Turning an HTML form into schema input, and schema errors back into the form."""
from marshmallow import Schema, ValidationError, fields

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
