"""One marshmallow schema per resource, plus its query arguments; the OpenAPI document comes from these."""
import base64
import binascii
import math
from decimal import Decimal
from functools import lru_cache

from marshmallow import (
    EXCLUDE,
    INCLUDE,
    Schema,
    ValidationError,
    fields,
    post_dump,
    validate,
    validates_schema,
)

from .certificates import VERDICTS
from .messages import Msg
from .models import (
    ACTIONS,
    APPLICATION_STATUSES,
    COOKING,
    DEFICIENCY_STATUSES,
    FLAGS,
    HULLS,
    INSPECTION_STATUSES,
    ITINERARY_CATEGORIES,
    KINDS,
    PRACTICAJE,
    PROPULSIONS,
    RESULTS,
    ROLES,
    SERVICES,
)
from .signatures import ROLES as SIGNATURE_ROLES
from .photos import SUPPORTED_MIMES
from .tonnage import gross_tonnage, round_tonnage
from .vessels import particular_errors


class Integer(fields.Integer):
    """marshmallow's Integer, except that 2.5 is refused instead of read as 2: a count typed wrong is an error, not a smaller count."""

    def _validated(self, value):
        if isinstance(value, (float, Decimal)) and not (math.isfinite(value) and value == int(value)):
            raise self.make_error("invalid")
        return super()._validated(value)


def _id(**kw):
    """A record id as input: positive and within 32 bits (a larger number would overflow the database)."""
    return Integer(validate=validate.Range(min=1, max=2**31 - 1), **kw)


def _count(description: str, **kw):
    return Integer(
        load_default=0, validate=validate.Range(min=0, max=100_000), metadata={"description": description}, **kw
    )


def _decimal_between(low, high, low_inclusive: bool):
    """A Decimal range check whose bounds the OpenAPI document shows as numbers (apispec would print
    validate.Range's Decimal bounds as strings)."""

    def check(value):
        if value > high or value < low or (value == low and not low_inclusive):
            if low_inclusive:
                raise ValidationError(Msg("Debe ser mayor o igual que {low} y menor o igual que {high}.", low=low, high=high))
            raise ValidationError(Msg("Debe ser mayor que {low} y menor o igual que {high}.", low=low, high=high))

    bounds = {"minimum": low, "maximum": high, **({} if low_inclusive else {"exclusiveMinimum": True})}
    return check, bounds


def _metres(description: str):
    check, bounds = _decimal_between(0, 500, low_inclusive=False)
    return fields.Decimal(required=True, places=2, as_string=False, validate=check,
                          metadata={"description": description, **bounds})


def _choice(values, description, **kw):
    return fields.String(validate=validate.OneOf(values), metadata={"description": description}, **kw)


class BaseSchema(Schema):
    """Unknown fields are refused (marshmallow's default), so a typo never silently drops data."""

    @validates_schema
    def _changes_something(self, data, partial=None, **kwargs):
        """A partial load (a PATCH) with no field at all is a mistake, not a successful no-op."""
        if partial is True and not data:
            raise ValidationError(Msg("Indique al menos un campo que cambiar."))


class OwnerSchema(BaseSchema):
    """An owner (armador)."""

    id = Integer(dump_only=True)
    name = fields.String(required=True, validate=validate.Length(min=2, max=200))
    tax_id = fields.String(required=True, validate=validate.Length(min=3, max=40),
                           metadata={"description": "RUC o CI"})
    email = fields.Email(allow_none=True, validate=validate.Length(max=200))
    phone = fields.String(allow_none=True, validate=validate.Length(max=60))
    address = fields.String(allow_none=True, validate=validate.Length(max=300))
    created_at = fields.AwareDateTime(dump_only=True)
    updated_at = fields.AwareDateTime(dump_only=True)


class VesselSchema(BaseSchema):
    """A vessel and its particulars (field names fixed by api.md)."""

    id = Integer(dump_only=True)
    registration = fields.String(required=True, validate=validate.Length(min=2, max=40),
                                 metadata={"description": "Matrícula (art. 66)"})
    name = fields.String(required=True, validate=validate.Length(min=1, max=120))
    owner_id = _id(required=True)
    flag = _choice(FLAGS, "Bandera", required=True)
    cabotage_permit = fields.String(allow_none=True, load_default=None, validate=validate.Length(max=60),
                                    metadata={"description": "Permiso de cabotaje de un buque extranjero"})
    home_port = fields.String(required=True, validate=validate.Length(min=2, max=120))
    propulsion = _choice(PROPULSIONS, "Propulsión", required=True)
    service = _choice(SERVICES, "Servicio", required=True)
    hull_material = _choice(HULLS, "Material del casco (art. 195)", required=True)
    length_m = _metres("Eslora en metros")
    beam_m = _metres("Manga en metros")
    girth_m = _metres("Contorno exterior bajo la quilla, en metros (art. 195)")
    gross_tonnage = fields.Method("dump_tonnage", dump_only=True,
                                  metadata={"description": "Arqueo (art. 195), redondeado a 2 decimales"})
    gross_tonnage_exact = fields.Method("dump_tonnage_exact", dump_only=True,
                                        metadata={"description": "Arqueo exacto (art. 195), como texto decimal"})
    crew = _count("Tripulantes")
    max_passengers = _count("Máximo de pasajeros")
    cabins = _count("Camarotes")
    fire_hydrants = _count("Grifos de incendio")
    holds = _count("Bodegas")
    boilers = _count("Calderas")
    steam_launch = fields.Boolean(load_default=False)
    boats = _count("Embarcaciones menores")
    cooking = _choice(COOKING, "Cocina a bordo", load_default="none")
    hot_climate = fields.Boolean(load_default=False, metadata={"description": "Opera con más de 20 °C"})
    flammable_cargo_kg = Integer(
        load_default=0, validate=validate.Range(min=0, max=100_000_000),
        metadata={"description": "Carga inflamable o explosiva habitual en kg, sin el combustible propio (arts. 133-140)"})
    itinerary_category = _choice(ITINERARY_CATEGORIES, "Categoría de documentación a bordo (Código, art. 23)",
                                 load_default="B")
    practicaje = _choice(PRACTICAJE, "Practicaje en la Sección Sur del Río Paraguay (Decreto 6383/1951 art. 1): unset, "
                         "none, to_angostura (un práctico), beyond_angostura (dos), fixed_itinerary",
                         load_default="unset")
    created_at = fields.AwareDateTime(dump_only=True)
    updated_at = fields.AwareDateTime(dump_only=True)

    def dump_tonnage(self, vessel) -> float:
        return float(round_tonnage(vessel.gross_tonnage))

    def dump_tonnage_exact(self, vessel) -> str:
        return exact_tonnage(vessel)

    @post_dump
    def _floats(self, data, **kwargs):
        for field in ("length_m", "beam_m", "girth_m"):
            if isinstance(data.get(field), Decimal):
                data[field] = float(data[field])
        return data

    @validates_schema
    def _coherent(self, data, partial=None, **kwargs):
        """Whole records are checked here; a PATCH is checked merged with the stored vessel."""
        if partial:
            return
        errors = particular_errors(data)
        if errors:
            raise ValidationError(errors)


def exact_tonnage(vessel) -> str:
    """The art. 195 quotient to 40 significant digits, recomputed from the measured dimensions."""
    return _exact_tonnage_text(str(vessel.length_m), str(vessel.beam_m), str(vessel.girth_m), vessel.hull_material)


@lru_cache(maxsize=8192)
def _exact_tonnage_text(length: str, beam: str, girth: str, hull_material: str) -> str:
    """gross_tonnage() as text, remembered: it is pure, and a list of 50 vessels spent a tenth of its time here.

    Keyed by the dimensions' text, not their Decimal value, so 10 and 10.00 (equal, same hash) keep
    their own exact digits.
    """
    return str(gross_tonnage(length, beam, girth, hull_material))  # it reads numbers via their text anyway


# Every column the vessel dump reads, in the schema's order: the vessel list selects only these, as rows.
VESSEL_COLUMNS = ("id", "registration", "name", "owner_id", "flag", "cabotage_permit", "home_port", "propulsion",
                  "service", "hull_material", "length_m", "beam_m", "girth_m", "gross_tonnage", "crew",
                  "max_passengers", "cabins", "fire_hydrants", "holds", "boilers", "steam_launch", "boats", "cooking",
                  "hot_climate", "flammable_cargo_kg", "itinerary_category", "practicaje", "created_at", "updated_at")


def vessel_json(vessel) -> dict:
    """VesselSchema().dump(vessel), written out: lists of 50 vessels spent most of their time in marshmallow.

    tests/test_schemas.py keeps the two identical, so the schema stays the one definition.
    """
    return _vessel_values_json({name: getattr(vessel, name) for name in VESSEL_COLUMNS})


def vessel_row_json(row) -> dict:
    """vessel_json() of a row selecting VESSEL_COLUMNS in order (no Vessel object built, no attribute lookups)."""
    return _vessel_values_json(dict(zip(VESSEL_COLUMNS, row)))


def _vessel_values_json(out: dict) -> dict:
    """The stored values of VESSEL_COLUMNS made JSON-ready in place: floats, the rounded and exact tonnage, ISO times."""
    length, beam, girth = out["length_m"], out["beam_m"], out["girth_m"]
    out.update(length_m=float(length), beam_m=float(beam), girth_m=float(girth),
               gross_tonnage=float(round_tonnage(out["gross_tonnage"])),
               gross_tonnage_exact=_exact_tonnage_text(str(length), str(beam), str(girth), out["hull_material"]),
               created_at=out["created_at"].isoformat(), updated_at=out["updated_at"].isoformat())
    return out


class PageArgs(BaseSchema):
    """?page=1&per_page=50."""

    page = Integer(load_default=1, validate=validate.Range(min=1, max=1_000_000))
    per_page = Integer(load_default=50, validate=validate.Range(min=1, max=200))


class VesselQuery(PageArgs):
    """Filters for the vessel list."""

    owner_id = _id()
    q = fields.String(validate=validate.Length(max=100), metadata={"description": "Busca en matrícula y nombre"})
    propulsion = _choice(PROPULSIONS, "Propulsión")
    service = _choice(SERVICES, "Servicio")


class OwnerQuery(PageArgs):
    """Filters for the owner list."""

    q = fields.String(validate=validate.Length(max=100))


def page_schema(item_schema, name: str):
    """The list envelope {items, page, per_page, total} around an item schema."""
    return Schema.from_dict(
        {
            "items": fields.List(fields.Nested(item_schema)),
            "page": Integer(),
            "per_page": Integer(),
            "total": Integer(),
        },
        name=name,
    )


class TokenRequest(BaseSchema):
    """Credentials for a bearer token."""

    username = fields.String(required=True, validate=validate.Length(min=1, max=80))
    password = fields.String(required=True, load_only=True, validate=validate.Length(min=1, max=200))
    device = fields.String(load_default=None, validate=validate.Length(min=1, max=120),
                           metadata={"description": "Nombre de la tableta: pide un token de dispositivo (días, revocable)"})


class DeviceRequest(BaseSchema):
    """A page session asking a token for its own device."""

    name = fields.String(load_default=None, validate=validate.Length(min=1, max=120),
                         metadata={"description": "Nombre del dispositivo; por omisión, el User-Agent"})


class DeviceSchema(BaseSchema):
    """A signed-in device: a device token, as its user sees it."""

    id = Integer()
    device_name = fields.String(allow_none=True)
    created_at = fields.AwareDateTime()
    last_used_at = fields.AwareDateTime(allow_none=True, metadata={"description": "Último uso (al minuto)"})
    expires_at = fields.AwareDateTime()
    current = fields.Boolean(metadata={"description": "El token de esta misma solicitud"})


class MeSchema(BaseSchema):
    """The caller's identity."""

    user_id = Integer()
    role = fields.String(validate=validate.OneOf(ROLES))
    username = fields.String()


class ConflictSchema(BaseSchema):
    """An inspector's declared link to an owner or company (art. 214)."""

    id = Integer(dump_only=True)
    owner_id = _id(required=True)
    reason = fields.String(required=True, validate=validate.Length(min=3, max=300))
    declared_at = fields.AwareDateTime(dump_only=True)


class TokenResponse(BaseSchema):
    """A new bearer token."""

    token = fields.String()
    role = fields.String(validate=validate.OneOf(ROLES))
    user_id = Integer()
    expires_at = fields.AwareDateTime()
    device_id = Integer(metadata={"description": "Solo en un token de dispositivo"})


class UserSchema(BaseSchema):
    """A user account (admins manage them)."""

    id = Integer(dump_only=True)
    username = fields.String(required=True, validate=validate.Regexp(r"^[a-z0-9_.-]{3,80}$"))
    full_name = fields.String(load_default="", validate=validate.Length(max=200))
    role = _choice(ROLES, "Rol", required=True)
    owner_id = _id(allow_none=True, load_default=None)
    language = fields.String(load_default="es", validate=validate.OneOf(("es", "en")))
    email = fields.Email(allow_none=True, load_default=None, validate=validate.Length(max=200),
                         metadata={"description": "Correo de los avisos (un armador sin él los recibe en el del armador)"})
    active = fields.Boolean(dump_only=True)
    password = fields.String(load_only=True, required=True, validate=validate.Length(min=10, max=200))

    @validates_schema
    def _owner_link(self, data, **kwargs):
        if data.get("role") == "owner" and not data.get("owner_id"):
            raise ValidationError({"owner_id": [Msg("Un usuario armador debe estar vinculado a un armador.")]})
        if data.get("role") != "owner" and data.get("owner_id"):
            raise ValidationError({"owner_id": [Msg("Solo un usuario armador se vincula a un armador.")]})


# --- inspections ----------------------------------------------------------------------------------

_OBSERVED = _decimal_between(0, 100_000, low_inclusive=True)
HEX64 = validate.Regexp(r"^[0-9a-f]{64}$", error=Msg("Debe ser un SHA-256 en hexadecimal (64 caracteres)."))


class InspectionCreateSchema(BaseSchema):
    """A new inspection: vessel, kind, inspector, date and port."""

    vessel_id = _id(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    inspector_id = _id(required=True)
    scheduled_on = fields.Date(required=True)
    port = fields.String(required=True, validate=validate.Length(min=2, max=120))


class InspectionQuery(PageArgs):
    """Filters for the inspection list."""

    vessel_id = _id()
    inspector_id = _id()
    status = fields.String(validate=validate.OneOf(INSPECTION_STATUSES))
    kind = fields.String(validate=validate.OneOf(KINDS))
    date_from = fields.Date(metadata={"description": "scheduled_on desde (incluida)"})
    date_to = fields.Date(metadata={"description": "scheduled_on hasta (incluida)"})


class StartInSchema(BaseSchema):
    """Starting an inspection, optionally from a tablet that started it offline."""

    client_id = fields.UUID(load_default=None)
    started_at = fields.AwareDateTime(load_default=None, metadata={"description": "Hora de la tableta al comenzar"})
    pin = fields.String(load_default=None, validate=HEX64,
                        metadata={"description": "El `pin` del paquete descargado: 409 si la lista o el buque cambiaron"})


class AnswerInSchema(BaseSchema):
    """One answer from the tablet; `client_id` makes retries harmless."""

    client_id = fields.UUID(required=True)
    result = fields.String(required=True, validate=validate.OneOf(RESULTS))
    observed = fields.Decimal(allow_none=True, load_default=None, places=2, validate=_OBSERVED[0],
                              metadata=_OBSERVED[1])
    note = fields.String(load_default="", validate=validate.Length(max=2000))
    recorded_at = fields.AwareDateTime(load_default=None, metadata={"description": "Hora de la tableta (UTC)"})
    photos = fields.List(fields.String(validate=HEX64), load_default=list, validate=validate.Length(max=20),
                         metadata={"description": "SHA-256 de las fotos tomadas para este ítem"})
    action = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(ACTIONS))


class SyncEntrySchema(AnswerInSchema):
    """An answer inside a sync batch names its item."""

    item_id = fields.String(required=True, validate=validate.Length(min=1, max=120))


class SyncInSchema(BaseSchema):
    """A batch of answers queued offline; each entry is validated and applied on its own."""

    answers = fields.List(fields.Dict(), required=True, validate=validate.Length(min=1, max=1000))


class AnswerSchema(BaseSchema):
    """A stored answer."""

    item_id = fields.String()
    client_id = fields.String()
    result = fields.String()
    observed = fields.Float(allow_none=True)
    note = fields.String()
    recorded_at = fields.AwareDateTime()
    received_at = fields.AwareDateTime()
    current = fields.Boolean()
    photos = fields.List(fields.String(), attribute="photo_hashes")
    action = fields.String(allow_none=True)


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


class PhotoFormSchema(BaseSchema):
    """The form fields sent with a photo (multipart)."""

    item_id = fields.String(required=True, validate=validate.Length(min=1, max=120))
    client_id = fields.UUID(required=True)
    taken_at = fields.AwareDateTime(load_default=None)
    latitude = fields.Float(load_default=None, allow_none=True, validate=validate.Range(min=-90, max=90))
    longitude = fields.Float(load_default=None, allow_none=True, validate=validate.Range(min=-180, max=180))


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
    received_at = fields.AwareDateTime()
    urls = fields.Method("dump_urls")

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
    mimes = fields.List(fields.String())


class SignatureImage(fields.String):
    """A drawn signature as the canvas gives it (`data:image/png;base64,...`), loaded as the PNG's bytes.

    The image itself (size, pixels, ink) is checked by inspection/signatures.py when the inspection closes.
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
class UploadInSchema(PhotoFormSchema):
    """A resumable upload's declaration: the photo's item, hash, size and type, before any byte is sent."""

    sha256 = fields.String(required=True, validate=HEX64, metadata={"description": "SHA-256 de los bytes que se enviarán"})
    size = Integer(required=True, validate=validate.Range(min=1, max=2**31 - 1),
                          metadata={"description": "Bytes de la foto; a lo sumo max_bytes de /photos/limits"})
    mime = fields.String(required=True, validate=validate.OneOf(SUPPORTED_MIMES))


class UploadSchema(BaseSchema):
    """Where a resumable upload stands: the next byte the server expects, and the photo once it is filed."""

    client_id = fields.String()
    offset = Integer(metadata={"description": "Bytes recibidos: el próximo PATCH empieza aquí"})
    size = Integer()
    photo = fields.Nested(PhotoSchema, allow_none=True)


class UploadOffsetSchema(Schema):
    """A PATCH's Upload-Offset header: where its bytes start (other headers are not this schema's business)."""

    class Meta:
        unknown = EXCLUDE

    offset = Integer(required=True, data_key="Upload-Offset", validate=validate.Range(min=0, max=2**31 - 1),
                            metadata={"description": "Posición del primer byte de este envío"})


class SubmitInSchema(BaseSchema):
    """Closing an inspection: the inspector's signature and the master's acknowledgement."""

    client_id = fields.UUID(required=True)
    signatures = fields.Nested(SignaturesInSchema, required=True,
                               metadata={"description": "Firmas dibujadas del inspector y del capitán o patrón"})
    submitted_at = fields.AwareDateTime(load_default=None, metadata={
        "description": "Hora de cierre en la tableta (UTC); a lo sumo 5 minutos después de la del servidor"})
    signature = fields.String(required=True, validate=validate.Length(min=2, max=200),
                              metadata={"description": "Nombre del inspector, escrito como firma"})
    master_name = fields.String(required=True, validate=validate.Length(min=2, max=200),
                                metadata={"description": "Capitán o patrón que toma conocimiento"})
    valid_until = fields.Date(load_default=None, allow_none=True,
                              metadata={"description": "Término que fija el inspector al certificado de navegabilidad (art. 203): "
                                                       "menor que la práctica de la Prefectura, o mayor hasta su máximo"})


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
    practice = fields.Boolean(metadata={"description": "Del ítem de un instrumento extranjero adoptado como práctica: "
                                                      "una observación, no causa detención"})
    due_on = fields.Date(allow_none=True)
    status = fields.String()
    reported_at = fields.AwareDateTime(allow_none=True)
    reported_note = fields.String(allow_none=True)
    reported_photo_id = Integer(allow_none=True)
    closed_at = fields.AwareDateTime(allow_none=True)
    closing_note = fields.String(allow_none=True)


class DeficiencyQuery(PageArgs):
    """Filters for deficiencies."""

    vessel_id = _id()
    status = fields.String(validate=validate.OneOf(DEFICIENCY_STATUSES))


class NoteSchema(BaseSchema):
    """A reason or note for a decision."""

    reason = fields.String(required=True, validate=validate.Length(min=3, max=2000))


class ReportFixedSchema(NoteSchema):
    """The owner's report of a repair, optionally pointing at the evidence photo sent before."""

    photo_id = _id(load_default=None, allow_none=True)


class EvidenceFormSchema(BaseSchema):
    """The form fields sent with an owner's repair photo (multipart)."""

    client_id = fields.UUID(required=True)


class DetentionInSchema(NoteSchema):
    """A detention decision (art. 208)."""

    inspection_id = _id(load_default=None, allow_none=True)


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
    reinspection_of_id = Integer(allow_none=True)
    master_name = fields.String(allow_none=True)
    inspector_signature = fields.String(allow_none=True)
    signatures = fields.Method("dump_signatures", metadata={
        "description": "Por rol (inspector, master): {url, sha256} de la firma dibujada, o null"})

    def dump_signatures(self, inspection) -> dict:
        base = f"/api/v1/inspections/{inspection.id}/signatures"
        return {role: {"url": f"{base}/{role}", "sha256": getattr(inspection, f"{role}_signature_sha256")}
                if getattr(inspection, f"{role}_signature_key") else None for role in SIGNATURE_ROLES}


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


class SubmitOutSchema(BaseSchema):
    """The result of closing an inspection."""

    outcome = fields.String()
    deficiencies = fields.List(fields.Nested(DeficiencySchema))
    missing_answers = fields.List(fields.String())
    reinspection_id = Integer(allow_none=True)
    certificate = fields.Dict(allow_none=True)


# --- certificates -----------------------------------------------------------------------------------

class CertificateQuery(PageArgs):
    """Filters for the certificate list."""

    vessel_id = _id()
    kind = fields.String(validate=validate.OneOf(KINDS))


class CertificateSchema(BaseSchema):
    """A certificate (field names fixed by api.md), for the OpenAPI document."""

    number = fields.String()
    kind = fields.String()
    vessel_id = Integer()
    vessel = fields.Dict()
    revision = Integer()
    issued_on = fields.Date()
    inspected_on = fields.Date(metadata={"description": "Fecha de la inspección, desde la que corre el término (art. 207)"})
    valid_until = fields.Date()
    next_inspection_on = fields.Date(allow_none=True)
    apply_by = fields.Date(metadata={"description": "Solicitar la próxima inspección antes de esta fecha (art. 222)"})
    status = fields.String(validate=validate.OneOf(("valid", "expired", "suspended", "revoked", "superseded")))
    token = fields.String()
    verify_url = fields.String()
    qr_url = fields.String()
    pdf_url = fields.String()
    qr_version = Integer()
    conditions = fields.List(fields.String())
    inspection_id = Integer()


# --- public: what a verifier caches, and verification -----------------------------------------------

class JwkSchema(BaseSchema):
    """One public signing key as a JWK (RFC 7517), with its office and whether it still signs."""

    kty = fields.String(validate=validate.Equal("EC"))
    crv = fields.String(validate=validate.Equal("P-256"))
    x = fields.String(metadata={"description": "Coordenada x, base64url"})
    y = fields.String(metadata={"description": "Coordenada y, base64url"})
    kid = fields.String()
    alg = fields.String(validate=validate.Equal("ES256"))
    use = fields.String(validate=validate.Equal("sig"))
    office = fields.String(metadata={"description": "Oficina emisora"})
    status = fields.String(validate=validate.OneOf(("current", "retired")))


class KeySetSchema(BaseSchema):
    """Every public key, current and retired (a JWK Set)."""

    keys = fields.List(fields.Nested(JwkSchema))


class StatusListSchema(BaseSchema):
    """The signed 2-bit status list of every certificate, for offline verification."""

    jws = fields.String(metadata={"description": "JWS compacto (ES256) con la lista de estados"})
    issued_at = fields.AwareDateTime()
    ttl = Integer(metadata={"description": "Segundos hasta la próxima actualización en línea"})
    count = Integer()


class PublicCertificateSchema(BaseSchema):
    """What the police may see of a certificate: the signed claims and days left, nothing personal."""

    number = fields.String()
    kind = fields.String()
    revision = Integer()
    registration = fields.String()
    vessel_name = fields.String()
    issued_on = fields.Date()
    valid_until = fields.Date()
    days_left = Integer()
    office_code = fields.String()
    office_name = fields.String()


class VerificationSchema(BaseSchema):
    """The verdict on a QR token, with the particulars it carries (none when they cannot be read)."""

    verdict = fields.String(validate=validate.OneOf(VERDICTS))
    certificate = fields.Nested(PublicCertificateSchema, allow_none=True)


class ProblemSchema(Schema):
    """Every error response: an RFC 9457 problem (application/problem+json)."""

    class Meta:
        unknown = INCLUDE  # some refusals add members: `limits`, `missing`, `client_id`, `reason`

    type = fields.String(required=True, metadata={"description": "URI que identifica el tipo de problema"})
    title = fields.String(required=True)
    status = Integer(required=True)
    detail = fields.String(required=True)
    errors = fields.Dict(keys=fields.String(), values=fields.Raw(),
                         metadata={"description": "Mensajes por campo ('body': el cuerpo entero)"})


# --- checklists ------------------------------------------------------------------------------------

class ChecklistItemSchema(BaseSchema):
    """One requirement of the law, computed for a vessel (field names fixed by api.md)."""

    id = fields.String()
    title = fields.String()
    topic = fields.String()
    topic_title = fields.String()
    source = fields.String(metadata={"description": "Instrumento, p. ej. «Ley 928/1927»"})
    article = fields.String(metadata={"description": "Número de artículo, p. ej. «143»"})
    text = fields.String(metadata={"description": "Cita textual del artículo"})
    required = Integer(allow_none=True, metadata={
        "description": "Cantidad mínima: se aprueba si lo observado es mayor o igual; null si no fija mínimo"})
    maximum = Integer(allow_none=True, metadata={
        "description": "Cantidad máxima (p. ej. pasajeros, Ley 928 art. 184): se aprueba si lo observado es menor o "
                       "igual; null si no fija máximo. Un ítem fija a lo sumo uno de los dos"})
    unit = fields.String(allow_none=True)
    evidence_required = fields.Boolean()
    detainable = fields.Boolean(metadata={"description": "Su incumplimiento causa detención (nunca en una práctica)"})
    certificate = fields.String()
    foreign = fields.Boolean(metadata={"description": "Cita un instrumento extranjero (p. ej. el decreto colombiano)"})
    practice = fields.Boolean(metadata={"description": "Instrumento extranjero no declarado vinculante: práctica "
                                                      "adoptada, su incumplimiento es una observación"})


class ChecklistSchema(BaseSchema):
    """A vessel's checklist of one kind; an exempt one says why (e.g. art. 210)."""

    kind = fields.String()
    version = fields.String()
    title_es = fields.String()
    title_en = fields.String()
    exempt = fields.Boolean()
    exemption = fields.Dict(allow_none=True)
    items = fields.List(fields.Nested(ChecklistItemSchema))


# --- fees ------------------------------------------------------------------------------------------

def _money(description: str | None = None):
    """An exact amount, sent as a decimal string so no client rounds it through a float."""
    return fields.Decimal(as_string=True, metadata={"type": "string", "format": "decimal",
                                                    **({"description": description} if description else {})})


class FeeLineSchema(BaseSchema):
    """One row of the law's fee scale charged for an inspection, with both printed figures."""

    source = fields.String(metadata={"description": "Instrumento, p. ej. «Ley 928/1927»"})
    article = fields.String(metadata={"description": "Artículo de la escala (209, 233)"})
    description = fields.String(metadata={"description": "La fila de la escala, textual"})
    quantity = Integer()
    amount = _money("Importe cobrado (la cifra que fija `charged`)")
    amount_first = _money("Primera cifra impresa («$ 150.-»)")
    amount_cl = _money("Cifra «c/l.» (curso legal)")


class FeeStatementSchema(BaseSchema):
    """The fees of one inspection: the lines of arts. 209 and 233, their total, and the linked application's fines."""

    lines = fields.List(fields.Nested(FeeLineSchema))
    total = _money()
    charged = fields.String(metadata={"description": "Qué cifra se cobra: amount_cl (curso legal) o amount"})
    fines = fields.List(fields.Nested(lambda: FineSchema()), metadata={
        "description": "Multas y recargos de la solicitud que esta inspección atendió (arts. 204, 225)"})
    fines_total = _money("Multas no condonadas")
    owed = _money("Aranceles más multas no condonadas")


# --- the semestral cycle: applications (art. 222), fines (arts. 204, 225), the fleet ----------------

class ApplicationInSchema(BaseSchema):
    """A solicitud de inspección: vessel, kind, port and preferred date (art. 222)."""

    vessel_id = _id(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    port = fields.String(required=True, validate=validate.Length(min=2, max=120))
    preferred_on = fields.Date(required=True)
    client_id = fields.UUID(load_default=None, metadata={"description": "Reintento sin duplicar (opcional)"})


class ApplicationQuery(PageArgs):
    """Filters for the application list."""

    vessel_id = _id()
    kind = fields.String(validate=validate.OneOf(KINDS))
    status = fields.String(validate=validate.OneOf(APPLICATION_STATUSES))


class FineSchema(BaseSchema):
    """A fine or surcharge for a late application, with its article and reason."""

    id = Integer(allow_none=True, metadata={"description": "null en la vista previa"})
    code = fields.String(metadata={"description": "late_application (art. 225), double_fee o late_hull (art. 204)"})
    source = fields.String()
    article = fields.String()
    amount = _money("Importe (art. 225: pesos moneda nacional de curso legal)")
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


class AssignInSchema(BaseSchema):
    """Assign a pending application: the inspector, the date and the port of its inspection."""

    inspector_id = _id(required=True)
    scheduled_on = fields.Date(required=True)
    port = fields.String(required=True, validate=validate.Length(min=2, max=120))
    client_id = fields.UUID(load_default=None, metadata={"description": "Reintento sin duplicar (opcional)"})


class WaiveInSchema(BaseSchema):
    """Waive a fine: the reason, kept and audited."""

    reason = fields.String(required=True, validate=validate.Length(min=3, max=2000))


class FleetQuery(PageArgs):
    """?owner_id= for staff; owners always see their own fleet."""

    owner_id = _id()


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


class FleetDeficiencySchema(DeficiencySchema):
    """An open deficiency on the fleet page: the deficiency's fields it carries, and days left to its due date."""

    days_left = Integer(allow_none=True)


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
    total = _money()


class FleetReportSchema(BaseSchema):
    """The newest closed inspection of a kind: its report."""

    inspection_id = Integer()
    kind = fields.String()
    submitted_at = fields.AwareDateTime(allow_none=True)
    outcome = fields.String(allow_none=True)


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
    fees_total = _money("Aranceles de las inspecciones programadas o solicitadas")
    fines = fields.List(fields.Nested(FineSchema), metadata={"description": "Multas no condonadas (arts. 204, 225)"})
    fines_total = _money()
    reports = fields.List(fields.Nested(FleetReportSchema))




class CalendarSchema(BaseSchema):
    """The caller's private iCalendar feed (RFC 5545): subscribe from a phone; renew it on /cuenta."""

    url = fields.Url(metadata={"description": "URL secreta del archivo .ics; funciona sin sesión"})
