"""Assigning an application to an inspector, as the API and the board's form read it."""
from marshmallow import fields, validate

from inspection.web.schemas import BaseSchema, _id


class AssignInSchema(BaseSchema):
    """Assign a pending application: the inspector, the date and the port of its inspection."""

    inspector_id = _id(required=True)
    scheduled_on = fields.Date(required=True)
    port = fields.String(required=True, validate=validate.Length(min=2, max=120))
    client_id = fields.UUID(load_default=None, metadata={"description": "Reintento sin duplicar (opcional)"})
