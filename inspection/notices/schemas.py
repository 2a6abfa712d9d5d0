"""The private calendar feed's URL on the wire."""
from marshmallow import fields

from inspection.web.schemas import BaseSchema


class CalendarSchema(BaseSchema):
    """The caller's private iCalendar feed (RFC 5545): subscribe from a phone; renew it on /cuenta."""

    url = fields.Url(metadata={"description": "URL secreta del archivo .ics; funciona sin sesión"})
