"""Tokens, devices, users and declared conflicts of interest on the wire."""
from marshmallow import ValidationError, fields, validate, validates_schema

from inspection.core.models import ROLES
from inspection.i18n.messages import Msg
from inspection.web.schemas import BaseSchema, Integer, Text, choice_field, id_field


class TokenRequest(BaseSchema):
    """Credentials for a bearer token."""

    username = fields.String(required=True, validate=validate.Length(min=1, max=80))
    password = fields.String(required=True, load_only=True, validate=validate.Length(min=1, max=200))
    device = Text(load_default=None, validate=validate.Length(min=1, max=120),
                           metadata={"description": "Nombre de la tableta: pide un token de dispositivo (días, revocable)"})


class DeviceRequest(BaseSchema):
    """A page session asking a token for its own device."""

    name = Text(load_default=None, validate=validate.Length(min=1, max=120),
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
    owner_id = id_field(required=True)
    reason = Text(required=True, validate=validate.Length(min=3, max=300))
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
    full_name = Text(load_default="", validate=validate.Length(max=200))
    role = choice_field(ROLES, "Rol", required=True)
    owner_id = id_field(allow_none=True, load_default=None)
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
