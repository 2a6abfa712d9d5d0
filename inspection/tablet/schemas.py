"""The resumable upload protocol's requests and answers."""
from marshmallow import EXCLUDE, Schema, fields, validate

from inspection.inspections.schemas import HEX64, PhotoFormSchema, PhotoSchema
from inspection.media.photos import SUPPORTED_MIMES
from inspection.web.schemas import BaseSchema, Integer


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










