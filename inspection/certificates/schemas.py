"""Certificates on the wire: the holder's view, the public verdict, the key set and the status list."""
from marshmallow import fields, validate

from inspection.certificates.operations import COMPARED_CLAIMS, STATUSES, VERDICTS
from inspection.core.models import KINDS
from inspection.web.schemas import BaseSchema, Integer, PageArgs, id_field
from inspection.web.forms import sort_field

CERTIFICATE_SORTS = ("number", "vessel", "kind", "valid_until", "status", "issued_on")


class CertificateQuery(PageArgs):
    """Filters for the certificate list."""

    vessel_id = id_field()
    kind = fields.String(validate=validate.OneOf(KINDS))


class CertificateListQuery(CertificateQuery):
    """The certificate page's search, status filter and order (newest issued first by default)."""

    q = fields.String(validate=validate.Length(max=100))
    status = fields.String(validate=validate.OneOf(STATUSES))
    sort = sort_field(CERTIFICATE_SORTS, "-issued_on")


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
    countersigned_on = fields.Date(allow_none=True, metadata={
        "description": "Día en que el Prefecto (o su delegado) refrendó el certificado (art. 221); null si pendiente"})
    countersign_due_on = fields.Date(allow_none=True, metadata={
        "description": "Emitido al cierre y pendiente de refrendo: vale hasta este día sin él, luego queda suspendido"})
    replaces = fields.String(allow_none=True, metadata={
        "description": "Número del certificado de la misma inspección que este reemplaza: revocado al devolverla el "
                       "revisor para su corrección (art. 221); null si no reemplaza a ninguno"})


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


class RestrictionSchema(BaseSchema):
    """A restriction the certificate carries instead of a detention (checklists/restrictions.toml)."""

    code = fields.String(metadata={"description": "Su código en el token firmado (claim -7), p. ej. D"})
    name = fields.String(allow_none=True, metadata={"description": "p. ej. daylight_only; null si esta instalación "
                                                                   "no conoce el código"})
    label = fields.String(metadata={"description": "En palabras, en el idioma pedido (p. ej. solo navegación diurna)"})
    source = fields.String(allow_none=True)
    article = fields.String(allow_none=True, metadata={"description": "El artículo que la ordena, p. ej. 73"})


class PublicCertificateSchema(BaseSchema):
    """What the police may see of a certificate: its particulars, days left and restrictions, nothing personal."""

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
    restrictions = fields.List(fields.Nested(RestrictionSchema), metadata={
        "description": "Lo que el buque debe observar en lugar de una detención (p. ej. Ley 928 art. 73: solo "
                       "navegación diurna); vacío si nada"})
    countersigned_on = fields.Date(allow_none=True, metadata={
        "description": "Refrendado por el Prefecto (art. 221) ese día; null si pendiente o si su clase no se refrenda"})
    countersign = fields.String(validate=validate.OneOf(("countersigned", "pending", "not_required")), metadata={
        "description": "Estado del refrendo del art. 221"})
    countersign_due_on = fields.Date(allow_none=True, metadata={
        "description": "Pendiente de refrendo: el último día en que vale sin él"})


class VerificationSchema(BaseSchema):
    """The verdict on a QR token, with the certificate's particulars (none when there are none to trust or show)."""

    verdict = fields.String(validate=validate.OneOf(VERDICTS), metadata={"description": (
        "valid, expired, suspended, revoked, superseded: el estado del certificado registrado; mismatch: firmado con "
        "la clave de la oficina, pero no es el certificado registrado con ese número; invalid_signature, "
        "unknown_issuer: la firma no es de la Prefectura")})
    certificate = fields.Nested(PublicCertificateSchema, allow_none=True, metadata={"description": (
        "Los datos del registro cuando el token es nuestro (también en mismatch, nunca los del token); "
        "los del token, sin verificar, en invalid_signature y unknown_issuer")})
    mismatched = fields.List(fields.String(validate=validate.OneOf((*COMPARED_CLAIMS, "kid"))), metadata={
        "description": "En mismatch, los datos en que el token difiere del registro ('number' si no hay tal número)"})
