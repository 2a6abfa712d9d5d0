"""One marshmallow schema per resource, plus its query arguments; the OpenAPI document comes from these."""
from decimal import Decimal

from marshmallow import Schema, ValidationError, fields, post_dump, validate, validates_schema

from .i18n import Msg
from .models import COOKING, FLAGS, HULLS, PROPULSIONS, ROLES, SERVICES
from .tonnage import round_tonnage
from .vessels import particular_errors


def _count(description: str, **kw):
    return fields.Integer(
        load_default=0, validate=validate.Range(min=0, max=100_000), metadata={"description": description}, **kw
    )


def _metres(description: str):
    return fields.Decimal(
        required=True, places=2, as_string=False,
        validate=validate.Range(min=Decimal("0.1"), max=Decimal("500"), min_inclusive=True),
        metadata={"description": description},
    )


def _choice(values, description, **kw):
    return fields.String(validate=validate.OneOf(values), metadata={"description": description}, **kw)


class BaseSchema(Schema):
    """Unknown fields are refused (marshmallow's default), so a typo never silently drops data."""


class OwnerSchema(BaseSchema):
    """An owner (armador)."""

    id = fields.Integer(dump_only=True)
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

    id = fields.Integer(dump_only=True)
    registration = fields.String(required=True, validate=validate.Length(min=2, max=40),
                                 metadata={"description": "Matrícula (art. 66)"})
    name = fields.String(required=True, validate=validate.Length(min=1, max=120))
    owner_id = fields.Integer(required=True)
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
    created_at = fields.AwareDateTime(dump_only=True)
    updated_at = fields.AwareDateTime(dump_only=True)

    def dump_tonnage(self, vessel) -> float:
        return float(round_tonnage(vessel.gross_tonnage))

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


class VesselPatchSchema(VesselSchema):
    """The same fields, all optional, for PATCH."""


class PageArgs(BaseSchema):
    """?page=1&per_page=50."""

    page = fields.Integer(load_default=1, validate=validate.Range(min=1))
    per_page = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class VesselQuery(PageArgs):
    """Filters for the vessel list."""

    owner_id = fields.Integer()
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
            "page": fields.Integer(),
            "per_page": fields.Integer(),
            "total": fields.Integer(),
        },
        name=name,
    )


class TokenRequest(BaseSchema):
    """Credentials for a bearer token."""

    username = fields.String(required=True, validate=validate.Length(min=1, max=80))
    password = fields.String(required=True, load_only=True, validate=validate.Length(min=1, max=200))


class MeSchema(BaseSchema):
    """The caller's identity."""

    user_id = fields.Integer()
    role = fields.String(validate=validate.OneOf(ROLES))
    username = fields.String()


class TokenResponse(BaseSchema):
    """A new bearer token."""

    token = fields.String()
    role = fields.String(validate=validate.OneOf(ROLES))
    user_id = fields.Integer()
    expires_at = fields.AwareDateTime()


class UserSchema(BaseSchema):
    """A user account (admins manage them)."""

    id = fields.Integer(dump_only=True)
    username = fields.String(required=True, validate=validate.Regexp(r"^[a-z0-9_.-]{3,80}$"))
    full_name = fields.String(load_default="", validate=validate.Length(max=200))
    role = _choice(ROLES, "Rol", required=True)
    owner_id = fields.Integer(allow_none=True, load_default=None)
    language = fields.String(load_default="es", validate=validate.OneOf(("es", "en")))
    active = fields.Boolean(dump_only=True)
    password = fields.String(load_only=True, required=True, validate=validate.Length(min=10, max=200))

    @validates_schema
    def _owner_link(self, data, **kwargs):
        if data.get("role") == "owner" and not data.get("owner_id"):
            raise ValidationError({"owner_id": [Msg("Un usuario armador debe estar vinculado a un armador.")]})
        if data.get("role") != "owner" and data.get("owner_id"):
            raise ValidationError({"owner_id": [Msg("Solo un usuario armador se vincula a un armador.")]})
