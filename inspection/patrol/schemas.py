"""Patrol checks on the wire: the phone's new check, its answers, photos and closing; the check as served."""
from marshmallow import ValidationError, fields, validate, validates_schema

from inspection.certificates.operations import VERDICTS
from inspection.core.models import PATROL_CHECKLISTS, PATROL_OUTCOMES, PROPULSIONS
from inspection.i18n.messages import Msg
from inspection.inspections.schemas import ItemAnswerInSchema, ItemAnswerSchema, PhotoSchema
from inspection.registry.schemas import ChecklistItemSchema, LawFineSchema
from inspection.web.schemas import BaseSchema, Integer, PageArgs, Text, decimal_between, id_field

_LENGTH = decimal_between(0, 500, low_inclusive=False)


class CraftSchema(BaseSchema):
    """An unregistered craft as the officer sees it: its marks (if any), type and length."""

    marks = Text(load_default="", validate=validate.Length(max=60),
                 metadata={"description": "Nombre o números pintados (art. 66), si los lleva"})
    type = fields.String(required=True, validate=validate.OneOf(PROPULSIONS),
                         metadata={"description": "Propulsión: rowing (bote, canoa), sail, motor, ..."})
    length_m = fields.Decimal(required=True, as_string=False, places=2, validate=_LENGTH[0],
                              metadata={"description": "Eslora estimada en metros", **_LENGTH[1]})


class ScannedQrSchema(BaseSchema):
    """The certificate's QR scanned before the check: the token, and what the phone's verifier said offline."""

    token = fields.String(required=True, validate=validate.Length(min=8, max=4000))
    verdict = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(VERDICTS))
    list_age_s = Integer(load_default=None, allow_none=True, validate=validate.Range(min=0, max=10 * 365 * 86400),
                         metadata={"description": "Edad, en segundos, de la lista de estados del teléfono"})


class VerificationField(fields.Field):
    """The token as a string, or {token, verdict, list_age_s}: either loads as the object."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str):
            value = {"token": value}
        if not isinstance(value, dict):
            raise ValidationError(Msg("Envíe el token escaneado o un objeto con token, verdict y list_age_s."))
        return ScannedQrSchema().load(value)


class PatrolCheckInSchema(BaseSchema):
    """A new patrol check from the phone; `client_id` makes retries harmless."""

    client_id = fields.UUID(required=True)
    vessel_id = id_field(load_default=None, allow_none=True)
    craft = fields.Nested(CraftSchema, load_default=None, allow_none=True)
    checked_at = fields.AwareDateTime(required=True, metadata={"description": "Hora del teléfono (UTC)"})
    latitude = fields.Float(load_default=None, allow_none=True, validate=validate.Range(min=-90, max=90))
    longitude = fields.Float(load_default=None, allow_none=True, validate=validate.Range(min=-180, max=180))
    place = Text(load_default=None, allow_none=True, validate=validate.Length(max=120),
                 metadata={"description": "Lugar con nombre o kilómetro del río, si no hay posición"})
    checklist = fields.String(required=True, validate=validate.OneOf(PATROL_CHECKLISTS))
    verification = VerificationField(load_default=None, allow_none=True, metadata={
        "description": "El token del QR escaneado, o {token, verdict, list_age_s}",
        "oneOf": [{"type": "string"}, {"type": "object", "required": ["token"], "properties": {
            "token": {"type": "string"}, "verdict": {"type": "string", "enum": list(VERDICTS), "nullable": True},
            "list_age_s": {"type": "integer", "minimum": 0, "nullable": True}}}]})

    @validates_schema
    def _one_craft(self, data, **kwargs):
        """A registered vessel or an unregistered craft (or a scanned certificate naming the vessel); and a place."""
        if data.get("vessel_id") is not None and data.get("craft") is not None:
            raise ValidationError(Msg("Indique vessel_id o craft, no ambos."), "craft")
        if data.get("vessel_id") is None and data.get("craft") is None and data.get("verification") is None:
            raise ValidationError(Msg("Indique el buque (vessel_id), la embarcación sin matrícula (craft) o el "
                                      "QR de su certificado (verification)."), "vessel_id")
        if (data.get("latitude") is None) != (data.get("longitude") is None):
            raise ValidationError(Msg("Envíe latitud y longitud juntas."), "longitude")
        if data.get("latitude") is None and not data.get("place"):
            raise ValidationError(Msg("Sin posición del teléfono, indique el lugar o el kilómetro del río."), "place")


class PatrolAnswerInSchema(ItemAnswerInSchema):
    """One answer from the phone; `client_id` makes retries harmless."""


class PatrolAnswerSchema(ItemAnswerSchema):
    """A stored answer of a patrol check."""


class PatrolCloseInSchema(BaseSchema):
    """Closing a check: the outcome and a note."""

    client_id = fields.UUID(required=True)
    outcome = fields.String(required=True, validate=validate.OneOf(PATROL_OUTCOMES))
    note = Text(load_default="", validate=validate.Length(max=2000))


class InfringementSchema(BaseSchema):
    """A failed item of a closed check: its citation and the fine its law sets, if any."""

    item_id = fields.String()
    title = fields.String()
    source = fields.String()
    article = fields.String()
    detainable = fields.Boolean()
    fine = fields.Nested(LawFineSchema, allow_none=True)


class CraftOutSchema(BaseSchema):
    """An unregistered craft as recorded."""

    marks = fields.String(allow_none=True)
    type = fields.String()
    length_m = fields.Float()


class PatrolCheckSchema(BaseSchema):
    """A patrol check as served."""

    id = Integer()
    client_id = fields.String()
    officer_id = Integer()
    unit = fields.String(allow_none=True)
    checked_at = fields.AwareDateTime()
    latitude = fields.Float(allow_none=True)
    longitude = fields.Float(allow_none=True)
    place = fields.String(allow_none=True)
    vessel_id = Integer(allow_none=True)
    registration = fields.String(allow_none=True)
    craft = fields.Nested(CraftOutSchema, allow_none=True)
    checklist = fields.String()
    checklist_version = fields.String()
    verification = fields.Dict(allow_none=True)
    items = fields.List(fields.Nested(ChecklistItemSchema))
    answers = fields.List(fields.Nested(PatrolAnswerSchema))
    photos = fields.List(fields.Nested(PhotoSchema))
    outcome = fields.String(allow_none=True)
    infringements = fields.List(fields.Nested(InfringementSchema))
    note = fields.String()
    closed_at = fields.AwareDateTime(allow_none=True)


class PatrolCheckQuery(PageArgs):
    """Filters for the patrol check list."""

    vessel_id = id_field()
    outcome = fields.String(validate=validate.OneOf(PATROL_OUTCOMES))
    unregistered = fields.Boolean(metadata={"description": "Solo embarcaciones sin matrícula (true) o solo buques"})
