"""Applications for inspection, their fines and fee lines on the wire, and the fleet's query arguments."""
from marshmallow import fields, validate

from inspection.core.models import APPLICATION_STATUSES, HULLS, KINDS
from inspection.web.forms import sort_field
from inspection.web.schemas import BaseSchema, Integer, PageArgs, Text, choice_field, id_field, metres_field, money_field


class FeeLineSchema(BaseSchema):
    """One row of the law's fee scale charged for an inspection, with both printed figures."""

    source = fields.String(metadata={"description": "Instrumento, p. ej. «Ley 928/1927»"})
    article = fields.String(metadata={"description": "Artículo de la escala (209, 233)"})
    description = fields.String(metadata={"description": "La fila de la escala, textual"})
    quantity = Integer()
    amount = money_field("Importe cobrado (la cifra que fija `charged`)")
    amount_first = money_field("Primera cifra impresa («$ 150.-»)")
    amount_cl = money_field("Cifra «c/l.» (curso legal)")


class FeeNoteSchema(BaseSchema):
    """What is not charged, and why: the article and the reason (a raft is not measured, art. 234)."""

    source = fields.String()
    article = fields.String()
    reason = fields.String()


class FeeStatementSchema(BaseSchema):
    """The fees of one inspection: the lines of arts. 209 and 233, their total, what is not charged and why, and the
    fines of the inspection and of the linked application."""

    lines = fields.List(fields.Nested(FeeLineSchema))
    total = money_field()
    charged = fields.String(metadata={"description": "Qué cifra se cobra: amount_cl (curso legal) o amount"})
    notes = fields.List(fields.Nested(FeeNoteSchema), metadata={
        "description": "Lo que la escala no cobra a este buque y por qué, con su artículo (arts. 194, 233, 234)"})
    fines = fields.List(fields.Nested(lambda: FineSchema()), metadata={
        "description": "Multas de la inspección (art. 232) y de la solicitud que atendió (arts. 204, 225)"})
    fines_total = money_field("Multas no condonadas")
    owed = money_field("Aranceles más multas no condonadas")


class ApplicationInSchema(BaseSchema):
    """A solicitud de inspección: vessel, kind, port and preferred date (art. 222)."""

    vessel_id = id_field(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    port = Text(required=True, validate=validate.Length(min=2, max=120))
    preferred_on = fields.Date(required=True)
    client_id = fields.UUID(load_default=None, metadata={"description": "Reintento sin duplicar (opcional)"})


class ApplicationQuery(PageArgs):
    """Filters for the application list."""

    vessel_id = id_field()
    kind = fields.String(validate=validate.OneOf(KINDS))
    status = fields.String(validate=validate.OneOf(APPLICATION_STATUSES))


class ApplicationListQuery(ApplicationQuery):
    """The application page's filters and order (newest first by default)."""

    sort = sort_field(("applied_on", "preferred_on", "vessel"), "-applied_on")


class FineSchema(BaseSchema):
    """A fine or surcharge, with its article and reason."""

    id = Integer(allow_none=True, metadata={"description": "null en la vista previa"})
    code = fields.String(metadata={"description": "late_application (art. 225), double_fee o late_hull (art. 204), "
                                                  "plans (art. 232), unmeasured (art. 200)"})
    source = fields.String()
    article = fields.String()
    amount = money_field("Importe (art. 225: pesos moneda nacional de curso legal)")
    reason = fields.String()
    waived_at = fields.AwareDateTime(allow_none=True)
    waived_by_id = Integer(allow_none=True, metadata={"description": "Quién la condonó (usuario)"})
    waived_reason = fields.String(allow_none=True)


class ApplicationSchema(BaseSchema):
    """An application for inspection (or its preview: no id or status), with its lateness and fines."""

    id = Integer(allow_none=True)
    vessel_id = Integer()
    registration = fields.String()
    kind = fields.String()
    port = fields.String()
    preferred_on = fields.Date()
    applied_on = fields.Date(metadata={"description": "Fecha de presentación (fecha de la oficina)"})
    apply_by = fields.Date(allow_none=True, metadata={
        "description": "Último día para solicitar a tiempo (art. 222); null sin certificado anterior"})
    late = fields.Boolean()
    status = fields.String(allow_none=True, validate=validate.OneOf(APPLICATION_STATUSES))
    inspection_id = Integer(allow_none=True)
    fines = fields.List(fields.Nested(FineSchema))


class WaiveInSchema(BaseSchema):
    """Waive a fine: the reason, kept and audited."""

    reason = Text(required=True, validate=validate.Length(min=3, max=2000))


class FleetQuery(PageArgs):
    """?owner_id= for staff; owners always see their own fleet."""

    owner_id = id_field()


class ArqueoInSchema(BaseSchema):
    """An arqueo: the dimensions measured and the hull (art. 195); they become the vessel's."""

    hull_material = choice_field(HULLS, "Material del casco (art. 195)", required=True)
    length_m = metres_field("Eslora medida, en metros (art. 195)")
    beam_m = metres_field("Manga en el fuerte, en metros (art. 195)")
    girth_m = metres_field("Contorno exterior bajo la quilla, en metros (art. 195)")
    client_id = fields.UUID(load_default=None, metadata={"description": "Reintento sin duplicar (opcional)"})


class ArqueoSchema(BaseSchema):
    """An arqueo recorded (arts. 194-198) and what it charges: art. 199's row, its fines (art. 200), what is owed."""

    id = Integer()
    vessel_id = Integer()
    measured_on = fields.Date(metadata={"description": "Fecha en que se arquea (art. 197), fecha de la oficina"})
    measured_by_id = Integer(metadata={"description": "Quién arqueó (usuario)"})
    hull_material = fields.String()
    length_m = fields.Float()
    beam_m = fields.Float()
    girth_m = fields.Float()
    gross_tonnage = fields.Float(metadata={"description": "Arqueo (art. 195), redondeado a 2 decimales"})
    charges = fields.Nested(FeeStatementSchema)


class ArqueosSchema(BaseSchema):
    """A vessel's arqueos, newest first, and why the law does not measure it, if it does not."""

    items = fields.List(fields.Nested(ArqueoSchema))
    exemption = fields.Nested(FeeNoteSchema, allow_none=True, metadata={
        "description": "Por qué la ley no arquea este buque (arts. 194, 210, 234); null si lo arquea"})
