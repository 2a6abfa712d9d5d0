"""The owner's fleet at a glance on the wire: certificates, what is due, open deficiencies, fees owed."""
from marshmallow import fields, validate

from inspection.cycle.schemas import FineSchema
from inspection.inspections.schemas import DeficiencySchema, PhotoSchema
from inspection.media.places import FLAGS
from inspection.patrol.schemas import InfringementSchema
from inspection.tablet.schemas import MarksLayerSchema
from inspection.web.schemas import BaseSchema, Integer, money_field


class FleetCertificateSchema(BaseSchema):
    """A vessel's current certificate of one kind."""

    number = fields.String()
    status = fields.String(validate=validate.OneOf(("valid", "expired", "suspended", "revoked", "superseded")))
    valid_until = fields.Date()
    apply_by = fields.Date(metadata={"description": "Solicitar la próxima inspección hasta esta fecha (art. 222)"})
    days_left = Integer()


class FleetCertificatesSchema(BaseSchema):
    """The vessel's current certificate per kind, null where it has none."""

    navegabilidad = fields.Nested(FleetCertificateSchema, allow_none=True)
    seguridad = fields.Nested(FleetCertificateSchema, allow_none=True)


class NextInspectionSchema(BaseSchema):
    """The next inspection: scheduled, or the window a certificate opens (apply_by..due_on)."""

    kind = fields.String()
    apply_by = fields.Date(allow_none=True)
    due_on = fields.Date(allow_none=True)
    inspection_id = Integer(allow_none=True)
    scheduled_on = fields.Date(allow_none=True)
    port = fields.String(allow_none=True)
    status = fields.String(allow_none=True)


class MarkedLayerSchema(BaseSchema):
    """The current layer of marks over a photo (issue 24): its version, its own SHA-256 and the layer itself."""

    version = Integer(metadata={"description": "1 la primera capa; cada reemplazo suma uno"})
    sha256 = fields.String(metadata={"description": "SHA-256 de los bytes canónicos de la capa"})
    layer = fields.Nested(MarksLayerSchema)


class MarkedPhotoSchema(PhotoSchema):
    """A photo of the deficiency's item with the inspector's marks: the photo's hash, time, place and flags, as in
    every photo JSON, its display copy and the layer drawn over it (never burned into it)."""

    class Meta:
        fields = ("id", "sha256", "width", "height", "taken_at", "latitude", "longitude", "accuracy_m",
                  "position_source", "flags", "urls", "marks")

    flags = fields.List(fields.String(validate=validate.OneOf(FLAGS)),
                        metadata={"description": "Señales para quien revisa; nunca rechazan la foto"})
    urls = fields.Dict(keys=fields.String(), values=fields.String(), metadata={"description": "display: la copia"})
    marks = fields.Nested(MarkedLayerSchema)


class FleetDeficiencySchema(DeficiencySchema):
    """An open deficiency on the fleet page: the deficiency's fields it carries, days left to its due date, and the
    photos of its item the inspector marked (issue 24)."""

    days_left = Integer(allow_none=True)
    marked_photos = fields.List(fields.Nested(MarkedPhotoSchema))


class PendingApplicationSchema(BaseSchema):
    """A pending application's id and kind."""

    id = Integer()
    kind = fields.String()


class PlannedInspectionSchema(BaseSchema):
    """An inspection already on the calendar (scheduled or in progress): nothing to apply for."""

    id = Integer()
    kind = fields.String()
    scheduled_on = fields.Date()


class FleetFeeSchema(BaseSchema):
    """The fee total (arts. 209, 233) of an inspection scheduled, or applied for and not yet scheduled."""

    kind = fields.String()
    inspection_id = Integer(allow_none=True)
    application_id = Integer(allow_none=True)
    total = money_field()


class FleetReportSchema(BaseSchema):
    """The newest closed inspection of a kind: its report."""

    inspection_id = Integer()
    kind = fields.String()
    submitted_at = fields.AwareDateTime(allow_none=True)
    outcome = fields.String(allow_none=True)


class PatrolFindingSchema(BaseSchema):
    """An infraction or retention a patrol found on the vessel: when, where, each article and its fine."""

    check_id = Integer()
    checked_at = fields.AwareDateTime()
    checked_on = fields.Date(metadata={"description": "El día del control en la oficina"})
    outcome = fields.String(validate=validate.OneOf(("infraccion", "retencion")))
    place = fields.String(allow_none=True)
    infringements = fields.List(fields.Nested(InfringementSchema))


class FleetVesselSchema(BaseSchema):
    """One vessel of the fleet at a glance (field names fixed by api.md)."""

    vessel_id = Integer()
    registration = fields.String()
    name = fields.String()
    state = fields.String(validate=validate.OneOf(("ok", "due_soon", "overdue", "suspended", "missing")))
    needs = fields.List(fields.String(), metadata={"description": "Certificados que el buque necesita (arts. 210, 211)"})
    certificates = fields.Nested(FleetCertificatesSchema)
    next_inspection = fields.Nested(NextInspectionSchema, allow_none=True)
    open_deficiencies = fields.List(fields.Nested(FleetDeficiencySchema))
    pending_applications = fields.List(fields.Nested(PendingApplicationSchema))
    planned_inspections = fields.List(fields.Nested(PlannedInspectionSchema))
    earliest_due_on = fields.Date(allow_none=True, metadata={
        "description": "Próxima fecha en que el armador debe actuar: solicitud (art. 222) o deficiencia"})
    fees = fields.List(fields.Nested(FleetFeeSchema))
    fees_total = money_field("Aranceles de las inspecciones programadas o solicitadas")
    fines = fields.List(fields.Nested(FineSchema), metadata={"description": "Multas no condonadas (arts. 204, 225)"})
    fines_total = money_field()
    reports = fields.List(fields.Nested(FleetReportSchema))
    patrol_infractions = fields.List(fields.Nested(PatrolFindingSchema), metadata={
        "description": "Infracciones y retenciones halladas por patrullas en los últimos doce meses (issue 23)"})
