"""Assigning an application to an inspector, as the API and the board's form read it."""
from marshmallow import fields, validate

from inspection.web.schemas import BaseSchema, Text, id_field


class AssignInSchema(BaseSchema):
    """Assign a pending application: the inspector, the date and the port of its inspection."""

    inspector_id = id_field(required=True)
    scheduled_on = fields.Date(required=True)
    port = Text(required=True, validate=validate.Length(min=2, max=120))
    client_id = fields.UUID(load_default=None, metadata={"description": "Reintento sin duplicar (opcional)"})
