"""Turning an HTML form into schema input, and schema errors back into the form."""
from marshmallow import Schema, ValidationError, fields

from ..access import vessel_scope
from ..exceptions import DomainError
from ..extensions import db
from ..i18n import localize
from ..messages import Msg
from ..models import Vessel
from ..vessels import match_vessels, vessel_label


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


def typed_vessel(text: str, user) -> tuple[Vessel | None, list[str]]:
    """The one vessel of the user's scope that a typed registration or name (or a form's label) names, else
    the message to show: none matches, or several do. Forms use it instead of a list of every vessel."""
    found = match_vessels(vessel_scope(db.select(Vessel), user), text)
    if len(found) == 1:
        return found[0], []
    if not found:
        return None, [localize(Msg("Ningún buque coincide con «{text}».", text=text))]
    return None, [localize(Msg("Varios buques coinciden con «{text}»: escriba la matrícula completa.", text=text))]


def with_vessel(form, user) -> tuple[dict, dict]:
    """The form's fields with `vessel_id` from its `vessel` text box (a posted vessel_id wins), and its errors."""
    values = form.to_dict()
    text = values.get("vessel", "").strip()
    if values.get("vessel_id") or not text:
        return values, {}
    vessel, messages = typed_vessel(text, user)
    if vessel is None:
        return values, {"vessel_id": messages}
    return {**values, "vessel_id": str(vessel.id), "vessel": vessel_label(vessel)}, {}


def domain_errors(error: DomainError) -> dict:
    """A domain refusal as form errors (field -> messages)."""
    return localize(error.errors) if error.errors else {"_": [localize(error.detail or error.title)]}
