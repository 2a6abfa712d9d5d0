"""Inspections on the wire: scheduling, answers, photos, signatures, submission, deficiencies, detentions, the sync batch and the tablet's agenda and package."""
import base64
import binascii

from marshmallow import ValidationError, fields, validate, validates_schema
from marshmallow.utils import get_value

from inspection.core.models import ACTIONS, DEFICIENCY_STATUSES, INSPECTION_STATUSES, KINDS, RESULTS
from inspection.i18n.language import current_language
from inspection.i18n.messages import Msg
from inspection.i18n.restrictions import restriction_label
from inspection.inspections.operations import DEFICIENCY_DUES, DEFICIENCY_SORTS
from inspection.media.places import DECLARED_SOURCES, FLAGS, SOURCES
from inspection.media.signatures import ROLES as SIGNATURE_ROLES

DRAWN_ROLES = (*SIGNATURE_ROLES, "reviewer")  # the closing's two signatures, and the countersignature (art. 221)
from inspection.web.schemas import BaseSchema, Integer, NoteSchema, PageArgs, Text, decimal_between, id_field
from inspection.web.forms import sort_field

_OBSERVED = decimal_between(0, 100_000, low_inclusive=True)


HEX64 = validate.Regexp(r"^[0-9a-f]{64}$", error=Msg("Debe ser un SHA-256 en hexadecimal (64 caracteres)."))


class InspectionCreateSchema(BaseSchema):
    """A new inspection: vessel, kind, inspector, date and port."""

    vessel_id = id_field(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    inspector_id = id_field(required=True)
    scheduled_on = fields.Date(required=True)
    port = Text(required=True, validate=validate.Length(min=2, max=120))


class InspectionQuery(PageArgs):
    """Filters for the inspection list."""

    vessel_id = id_field()
    inspector_id = id_field()
    status = fields.String(validate=validate.OneOf(INSPECTION_STATUSES))
    kind = fields.String(validate=validate.OneOf(KINDS))
    date_from = fields.Date(metadata={"description": "scheduled_on desde (incluida)"})
    date_to = fields.Date(metadata={"description": "scheduled_on hasta (incluida)"})


class InspectionListQuery(InspectionQuery):
    """The inspection page's filters and order (newest date first by default)."""

    sort = sort_field(("scheduled_on", "vessel", "kind", "inspector", "port", "status"), "-scheduled_on")


class StartInSchema(BaseSchema):
    """Starting an inspection, optionally from a tablet that started it offline."""

    client_id = fields.UUID(load_default=None)
    started_at = fields.AwareDateTime(load_default=None, metadata={"description": "Hora de la tableta al comenzar"})
    pin = fields.String(load_default=None, validate=HEX64,
                        metadata={"description": "El `pin` del paquete descargado: 409 si la lista o el buque cambiaron"})


class ItemAnswerInSchema(BaseSchema):
    """One answer to one item from a device; `client_id` makes retries harmless (a patrol check's too)."""

    client_id = fields.UUID(required=True)
    result = fields.String(required=True, validate=validate.OneOf(RESULTS))
    observed = fields.Decimal(allow_none=True, load_default=None, places=2, validate=_OBSERVED[0],
                              metadata=_OBSERVED[1])
    note = Text(load_default="", validate=validate.Length(max=2000))
    recorded_at = fields.AwareDateTime(load_default=None, metadata={"description": "Hora de la tableta (UTC)"})


class AnswerInSchema(ItemAnswerInSchema):
    """One answer from the tablet; `client_id` makes retries harmless."""

    photos = fields.List(fields.String(validate=HEX64), load_default=list, validate=validate.Length(max=20),
                         metadata={"description": "SHA-256 de las fotos tomadas para este ítem"})
    action = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(ACTIONS))


class ItemAnswerSchema(BaseSchema):
    """A stored answer to one item (an inspection's or a patrol check's)."""

    item_id = fields.String()
    client_id = fields.String()
    result = fields.String()
    observed = fields.Float(allow_none=True)
    note = fields.String()
    recorded_at = fields.AwareDateTime()


class AnswerSchema(ItemAnswerSchema):
    """A stored answer."""

    received_at = fields.AwareDateTime()
    current = fields.Boolean()
    photos = fields.List(fields.String(), attribute="photo_hashes")
    action = fields.String(allow_none=True)


class PhotoFormSchema(BaseSchema):
    """The form fields sent with a photo (multipart)."""

    item_id = fields.String(required=True, validate=validate.Length(min=1, max=120))
    client_id = fields.UUID(required=True)
    taken_at = fields.AwareDateTime(load_default=None)
    latitude = fields.Float(load_default=None, allow_none=True, validate=validate.Range(min=-90, max=90))
    longitude = fields.Float(load_default=None, allow_none=True, validate=validate.Range(min=-180, max=180))
    accuracy_m = fields.Float(load_default=None, allow_none=True, validate=validate.Range(min=0, max=1_000_000),
                              metadata={"description": "Radio de precisión de la posición, en metros"})
    position_source = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(DECLARED_SOURCES),
                                    metadata={"description": "De dónde viene la posición enviada: device (por omisión) "
                                                             "o exif (la que la cámara escribió en el archivo, leída "
                                                             "por la tableta antes de recodificar la foto)"})

    @validates_schema
    def position_whole(self, data, **kwargs):
        """A position is latitude and longitude together; its accuracy and its source only with them."""
        if (data.get("latitude") is None) != (data.get("longitude") is None):
            raise ValidationError(Msg("Envíe latitud y longitud juntas."), "longitude")
        if data.get("accuracy_m") is not None and data.get("latitude") is None:
            raise ValidationError(Msg("La precisión acompaña a una posición."), "accuracy_m")
        if data.get("position_source") is not None and data.get("latitude") is None:
            raise ValidationError(Msg("El origen acompaña a una posición."), "position_source")


class PhotoSchema(BaseSchema):
    """A stored photo and where to fetch its copies."""

    id = Integer()
    item_id = fields.String()
    client_id = fields.String()
    sha256 = fields.String()
    mime = fields.String()
    size_bytes = Integer()
    width = Integer()
    height = Integer()
    taken_at = fields.AwareDateTime(allow_none=True)
    latitude = fields.Float(allow_none=True)
    longitude = fields.Float(allow_none=True)
    accuracy_m = fields.Float(allow_none=True, metadata={"description": "Precisión en metros: la del dispositivo, o "
                                                                        "GPSHPositioningError del EXIF"})
    position_source = fields.String(metadata={"enum": list(SOURCES), "description":
                                              "De dónde viene la posición: device, exif o none"})
    flags = fields.Method("dump_flags", metadata={"type": "array", "items": {"type": "string", "enum": list(FLAGS)},
                                                  "description": "Señales para quien revisa; nunca rechazan la foto"})
    received_at = fields.AwareDateTime()
    urls = fields.Method("dump_urls")
    marks = fields.Method("dump_marks", metadata={"description": "Las marcas dibujadas sobre la foto (issue 24), "
                                                                 "una capa aparte: version, sha256 y la capa; o null"})

    def dump_marks(self, photo) -> dict | None:
        marks = getattr(photo, "marks", None)
        return {"version": marks.version, "sha256": marks.sha256, "layer": marks.layer} if marks else None

    def dump_flags(self, photo) -> list[str]:
        return list(photo.flags or [])

    def dump_urls(self, photo) -> dict:
        base = f"/api/v1/photos/{photo.id}"
        return {"original": f"{base}/original", "display": f"{base}/display", "thumb": f"{base}/thumb"}


class PhotoLimitsSchema(BaseSchema):
    """Upload limits the tablet reads before it sends (it downscales first)."""

    max_bytes = Integer()
    max_pixels = Integer()
    max_decode_bytes = Integer(metadata={"description": "Memoria máxima que puede costar decodificar una foto"})
    display_px = Integer()
    thumb_px = Integer()
    jpeg_quality = Integer()
    upload_chunk_bytes = Integer(metadata={"description": "Bytes sugeridos por PATCH de una subida reanudable"})
    upload_px = Integer(metadata={"description": "Lado mayor, en píxeles, de la foto que envía la tablet"})
    upload_quality = Integer(metadata={"description": "Calidad JPEG (1-95) con que la tablet codifica la foto"})
    mimes = fields.List(fields.String())


class SignatureImage(fields.String):
    """A drawn signature as the canvas gives it (`data:image/png;base64,...`), loaded as the PNG's bytes.

    The image itself (size, pixels, ink) is checked by inspection/media/signatures.py when the inspection closes.
    """

    PREFIX = "data:image/png;base64,"

    def _deserialize(self, value, attr, data, **kwargs) -> bytes:
        text = super()._deserialize(value, attr, data, **kwargs).strip()
        if not text:
            raise self.make_error("required")
        if text[:len(self.PREFIX)].lower() != self.PREFIX:
            raise ValidationError(Msg("La firma debe ser una imagen PNG (data:image/png;base64,...)."))
        try:
            return base64.b64decode(text[len(self.PREFIX):], validate=True)
        except (binascii.Error, ValueError):
            raise ValidationError(Msg("La imagen de la firma no está bien codificada en base64.")) from None


def _signature(missing: Msg, who: str) -> SignatureImage:
    return SignatureImage(required=True, error_messages={"required": missing, "null": missing},
                          metadata={"description": f"Firma dibujada {who}: PNG como data URL, hasta 300 KB y "
                                                   "2400 × 1200 píxeles", "example": "data:image/png;base64,iVBORw0K..."})


class SignaturesInSchema(BaseSchema):
    """The two drawn signatures taken on the tablet when the inspection closes."""

    inspector = _signature(Msg("Falta la firma del inspector."), "del inspector")
    master = _signature(Msg("Falta la firma del capitán o patrón."), "del capitán o patrón")


class SubmitInSchema(BaseSchema):
    """Closing an inspection: the inspector's signature and the master's acknowledgement."""

    client_id = fields.UUID(required=True)
    signatures = fields.Nested(SignaturesInSchema, required=True,
                               metadata={"description": "Firmas dibujadas del inspector y del capitán o patrón"})
    submitted_at = fields.AwareDateTime(load_default=None, metadata={
        "description": "Hora de cierre en la tableta (UTC); a lo sumo 5 minutos después de la del servidor"})
    signature = Text(required=True, validate=validate.Length(min=2, max=200),
                              metadata={"description": "Nombre del inspector, escrito como firma"})
    master_name = Text(required=True, validate=validate.Length(min=2, max=200),
                                metadata={"description": "Capitán o patrón que toma conocimiento"})
    reports = Integer(load_default=0, validate=validate.Range(min=0, max=99), metadata={
        "description": "Informes o peritajes de averías hechos en la inspección de seguridad (art. 233)"})
    valve_reseals = Integer(load_default=0, validate=validate.Range(min=0, max=99), metadata={
        "description": "Válvulas selladas de nuevo, cuyo corte fue autorizado (arts. 219, 233), en la de seguridad"})
    valid_until = fields.Date(load_default=None, allow_none=True,
                              metadata={"description": "Fecha anterior al término que fija el inspector al certificado "
                                                       "(navegabilidad art. 203, seguridad art. 211); nunca posterior (422)"})


class DeficiencySchema(BaseSchema):
    """A deficiency and its follow-up."""

    id = Integer()
    inspection_id = Integer()
    vessel_id = Integer()
    item_id = fields.String()
    source = fields.String()
    article = fields.String()
    description = fields.String()
    action = fields.String()
    detainable = fields.Boolean()
    practice = fields.Boolean(metadata={"description": "Del ítem de una práctica de la autoridad no declarada "
                                                      "vinculante: una observación, no causa detención"})
    standing = fields.String(metadata={"description": (
        "En qué se funda el ítem: law (la ley), o la práctica de la autoridad: foreign (instrumento extranjero), "
        "extension (deber de los vapores extendido a los buques a motor)")})
    restriction = fields.String(allow_none=True, metadata={"description": (
        "La restricción que su artículo ordena en lugar de la detención (p. ej. daylight_only, Ley 928 art. 73), "
        "o null")})
    restriction_label = fields.Function(
        lambda d: restriction_label(get_value(d, "restriction", None), current_language()) or None,
        allow_none=True, metadata={"description": "La restricción en palabras"})
    due_on = fields.Date(allow_none=True)
    status = fields.String()
    reported_at = fields.AwareDateTime(allow_none=True)
    reported_note = fields.String(allow_none=True)
    reported_photo_id = Integer(allow_none=True)
    closed_at = fields.AwareDateTime(allow_none=True)
    closing_note = fields.String(allow_none=True)


class DeficiencyQuery(PageArgs):
    """Search, filters and order of the deficiency list (API and page): by due date by default, the undated last."""

    q = fields.String(validate=validate.Length(max=100), metadata={
        "description": "Matrícula o nombre del buque, o título del ítem (en castellano o inglés)"})
    vessel_id = id_field()
    status = fields.String(validate=validate.OneOf(DEFICIENCY_STATUSES))
    due = fields.String(validate=validate.OneOf(DEFICIENCY_DUES), metadata={
        "description": "overdue: sin cerrar y con el plazo vencido; in_time: sin cerrar y dentro del plazo"})
    sort = sort_field(DEFICIENCY_SORTS, "due_on")


class ReportFixedSchema(NoteSchema):
    """The owner's report of a repair, optionally pointing at the evidence photo sent before."""

    photo_id = id_field(load_default=None, allow_none=True)


class EvidenceFormSchema(BaseSchema):
    """The form fields sent with an owner's repair photo (multipart)."""

    client_id = fields.UUID(required=True)


class DetentionInSchema(NoteSchema):
    """A detention decision (art. 208)."""

    inspection_id = id_field(load_default=None, allow_none=True)


class DetentionSchema(BaseSchema):
    """A detention and its lifting."""

    id = Integer()
    vessel_id = Integer()
    inspection_id = Integer(allow_none=True)
    reason = fields.String()
    decided_at = fields.AwareDateTime()
    lifted_at = fields.AwareDateTime(allow_none=True)
    lift_reason = fields.String(allow_none=True)


class AuditSchema(BaseSchema):
    """One audit event."""

    at = fields.AwareDateTime()
    username = fields.Function(lambda e: e.user.username if e.user else None)
    action = fields.String()
    entity = fields.String()
    entity_id = fields.String()
    client_id = fields.String(allow_none=True)
    details = fields.Dict()


class InspectionSchema(BaseSchema):
    """An inspection in lists."""

    id = Integer()
    vessel_id = Integer()
    vessel = fields.Function(lambda i: {"registration": i.vessel.registration, "name": i.vessel.name})
    kind = fields.String()
    inspector_id = Integer()
    inspector = fields.Function(lambda i: i.inspector.full_name or i.inspector.username)
    scheduled_on = fields.Date()
    port = fields.String()
    status = fields.String()
    outcome = fields.String(allow_none=True)
    checklist_versions = fields.Dict(allow_none=True)
    started_at = fields.AwareDateTime(allow_none=True)
    submitted_at = fields.AwareDateTime(allow_none=True)
    interrupted_at = fields.AwareDateTime(allow_none=True)
    interruption_reason = fields.String(allow_none=True)
    cancelled_at = fields.AwareDateTime(allow_none=True)
    cancellation_reason = fields.String(allow_none=True)
    reinspection_of_id = Integer(allow_none=True)
    master_name = fields.String(allow_none=True)
    inspector_signature = fields.String(allow_none=True)
    signatures = fields.Method("dump_signatures", metadata={
        "description": "Por rol (inspector, master, reviewer): {url, sha256} de la firma dibujada, o null"})
    review_status = fields.String(allow_none=True, metadata={
        "description": "Refrendo del art. 221: pending, returned o countersigned; null si su clase no se refrenda"})
    review_note = fields.String(allow_none=True, metadata={"description": "Lo que el revisor pidió corregir"})
    countersigned_at = fields.AwareDateTime(allow_none=True)
    countersigned_by = fields.Function(lambda i: {"name": i.countersigned_by.full_name or i.countersigned_by.username,
                                                  "title": i.countersigned_by.title} if i.countersigned_by else None)

    def dump_signatures(self, inspection) -> dict:
        base = f"/api/v1/inspections/{inspection.id}/signatures"
        return {role: {"url": f"{base}/{role}", "sha256": getattr(inspection, f"{role}_signature_sha256")}
                if getattr(inspection, f"{role}_signature_key") else None for role in DRAWN_ROLES}


class InspectionDetailSchema(InspectionSchema):
    """One inspection with its items, answers, photos, deficiencies, evidence and audit trail."""

    particulars = fields.Dict(allow_none=True)
    items = fields.List(fields.Dict())
    answers = fields.List(fields.Nested(AnswerSchema))
    photos = fields.List(fields.Nested(PhotoSchema))
    deficiencies = fields.List(fields.Nested(DeficiencySchema))
    evidence = fields.Dict(allow_none=True, metadata={"description": "null antes de comenzar"})
    audit = fields.List(fields.Nested(AuditSchema))
    photo_limits = fields.Nested(PhotoLimitsSchema)


class SubmitOutSchema(BaseSchema):
    """The result of closing an inspection."""

    outcome = fields.String()
    deficiencies = fields.List(fields.Nested(DeficiencySchema))
    missing_answers = fields.List(fields.String())
    reinspection_id = Integer(allow_none=True)
    certificate = fields.Dict(allow_none=True)


class SyncEntrySchema(AnswerInSchema):
    """An answer inside a sync batch names its item."""

    item_id = fields.String(required=True, validate=validate.Length(min=1, max=120))


class SyncInSchema(BaseSchema):
    """A batch of answers queued offline; each entry is validated and applied on its own."""

    answers = fields.List(fields.Dict(), required=True, validate=validate.Length(min=1, max=1000))


class SyncResultSchema(BaseSchema):
    """What happened to one entry of a sync batch."""

    client_id = fields.String(allow_none=True)
    item_id = fields.String(allow_none=True)
    status = fields.String(validate=validate.OneOf(("applied", "duplicate", "conflict", "rejected")))
    reason = fields.Raw(allow_none=True)
    answer = fields.Nested(AnswerSchema, allow_none=True)


class SyncOutSchema(BaseSchema):
    """Per-entry results of a sync batch."""

    results = fields.List(fields.Nested(SyncResultSchema))


class AgendaQuery(BaseSchema):
    """How far ahead the agenda looks."""

    days = Integer(load_default=7, validate=validate.Range(min=1, max=60))


class AgendaItemSchema(InspectionSchema):
    """An inspection on the inspector's agenda."""

    bucket = fields.String(validate=validate.OneOf(("overdue", "today", "week")))


class AgendaSchema(BaseSchema):
    """The inspector's scheduled and in-progress inspections up to `days` ahead, overdue ones first."""

    today = fields.Date(metadata={"description": "La fecha de la oficina"})
    items = fields.List(fields.Nested(AgendaItemSchema))


class PackageVesselSchema(BaseSchema):
    """The vessel as the tablet keeps it offline."""

    id = Integer()
    registration = fields.String()
    name = fields.String()
    owner = fields.String()
    home_port = fields.String()
    particulars = fields.Dict()


class PackageSchema(BaseSchema):
    """Everything a tablet needs to carry out one inspection offline."""

    inspection = fields.Nested(InspectionSchema)
    vessel = fields.Nested(PackageVesselSchema)
    checklist_versions = fields.Dict()
    items = fields.List(fields.Dict(), metadata={"description": "Los ítems fijados, o los que se fijarían al comenzar"})
    pin = fields.String(metadata={"description": "SHA-256 de versiones, ítems y características: envíelo al comenzar"})
    open_deficiencies = fields.List(fields.Nested(DeficiencySchema))
    photo_limits = fields.Nested(PhotoLimitsSchema)
    answers = fields.List(fields.Nested(AnswerSchema))
    photos = fields.List(fields.Nested(PhotoSchema))
    evidence = fields.Dict(allow_none=True)
