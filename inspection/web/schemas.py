"""One marshmallow schema per resource, plus its query arguments; the OpenAPI document comes from these."""
import math
from decimal import Decimal

from marshmallow import INCLUDE, Schema, ValidationError, fields, validate, validates_schema

from inspection.i18n.messages import Msg


class Integer(fields.Integer):
    """marshmallow's Integer, except that 2.5 is refused instead of read as 2: a count typed wrong is an error, not a smaller count."""

    def _validated(self, value):
        if isinstance(value, (float, Decimal)) and not (math.isfinite(value) and value == int(value)):
            raise self.make_error("invalid")
        return super()._validated(value)


def id_field(**kw):
    """A record id as input: positive and within 32 bits (a larger number would overflow the database)."""
    return Integer(validate=validate.Range(min=1, max=2**31 - 1), **kw)


def count_field(description: str, **kw):
    return Integer(
        load_default=0, validate=validate.Range(min=0, max=100_000), metadata={"description": description}, **kw
    )


def decimal_between(low, high, low_inclusive: bool):
    """A Decimal range check whose bounds the OpenAPI document shows as numbers (apispec would print
    validate.Range's Decimal bounds as strings)."""

    def check(value):
        if value > high or value < low or (value == low and not low_inclusive):
            if low_inclusive:
                raise ValidationError(Msg("Debe ser mayor o igual que {low} y menor o igual que {high}.", low=low, high=high))
            raise ValidationError(Msg("Debe ser mayor que {low} y menor o igual que {high}.", low=low, high=high))

    bounds = {"minimum": low, "maximum": high, **({} if low_inclusive else {"exclusiveMinimum": True})}
    return check, bounds


def metres_field(description: str):
    """A measurement in metres to the centimetre, the register's 2 decimals: 8.125 is refused, never stored as 8.12."""
    check, bounds = decimal_between(0, 500, low_inclusive=False)

    def centimetres(value):
        if value.normalize().as_tuple().exponent < -2:
            raise ValidationError(Msg("Admite como mucho 2 decimales: las medidas se registran al centímetro."))

    return fields.Decimal(required=True, as_string=False, validate=[check, centimetres],
                          metadata={"description": f"{description}, al centímetro (como mucho 2 decimales)", **bounds})


def choice_field(values, description, **kw):
    return fields.String(validate=validate.OneOf(values), metadata={"description": description}, **kw)


class Text(fields.String):
    """Text a person types (a name, a port, a reason, a note), its surrounding whitespace trimmed.

    Only spaces is blank: refused where the field is required or has a minimum length, and elsewhere read as
    empty (null where the field takes null, else the empty text), so an empty optional note stays allowed.
    Page forms trim their boxes already (web/forms.py); this holds the API to the same.
    """

    def deserialize(self, value, attr=None, data=None, **kwargs):
        if isinstance(value, str) and not value.strip():
            if self.required or any(isinstance(rule, validate.Length) and rule.min for rule in self.validators):
                raise ValidationError(Msg("Este campo no puede quedar en blanco."))
            if self.allow_none:
                return None
        return super().deserialize(value, attr, data, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs) -> str:
        return super()._deserialize(value, attr, data, **kwargs).strip()


class BaseSchema(Schema):
    """Unknown fields are refused (marshmallow's default), so a typo never silently drops data."""

    @validates_schema
    def _changes_something(self, data, partial=None, **kwargs):
        """A partial load (a PATCH) with no field at all is a mistake, not a successful no-op."""
        if partial is True and not data:
            raise ValidationError(Msg("Indique al menos un campo que cambiar."))


















class PageArgs(BaseSchema):
    """?page=1&per_page=50."""

    page = Integer(load_default=1, validate=validate.Range(min=1, max=1_000_000))
    per_page = Integer(load_default=50, validate=validate.Range(min=1, max=200))






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
















# --- inspections ----------------------------------------------------------------------------------











































class NoteSchema(BaseSchema):
    """A reason or note for a decision."""

    reason = Text(required=True, validate=validate.Length(min=3, max=2000))




























# --- certificates -----------------------------------------------------------------------------------





# --- public: what a verifier caches, and verification -----------------------------------------------











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





# --- fees ------------------------------------------------------------------------------------------

def money_field(description: str | None = None):
    """An exact amount, sent as a decimal string so no client rounds it through a float."""
    return fields.Decimal(as_string=True, metadata={"type": "string", "format": "decimal",
                                                    **({"description": description} if description else {})})






# --- the semestral cycle: applications (art. 222), fines (arts. 204, 225), the fleet ----------------



































