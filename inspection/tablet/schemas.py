"""The resumable upload protocol's requests and answers."""
from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate, validates_schema

from inspection.i18n.messages import Msg
from inspection.inspections.schemas import HEX64, PhotoFormSchema, PhotoSchema
from inspection.media.marks import COORDINATES, KINDS, LABEL_CHARS, MAX_SHAPES, VERSION
from inspection.media.photos import SUPPORTED_MIMES
from inspection.web.schemas import BaseSchema, Integer, Text


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


def _fraction(description: str, positive: bool = False):
    """A coordinate as a fraction of the picture's width or height (media/marks.py); a radius is above 0."""
    return fields.Float(allow_nan=False, validate=validate.Range(min=0, max=1, min_inclusive=not positive),
                        metadata={"description": description})


class MarkShapeSchema(BaseSchema):
    """One mark: a circle, an arrow or a label, with exactly its kind's fields (media/marks.py)."""

    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    x = _fraction("Centro del círculo o inicio del rótulo, fracción del ancho (0..1)")
    y = _fraction("Centro del círculo o línea base del rótulo, fracción del alto (0..1)")
    rx = _fraction("Radio horizontal del círculo, fracción del ancho", positive=True)
    ry = _fraction("Radio vertical del círculo, fracción del alto", positive=True)
    x1 = _fraction("Cola de la flecha, fracción del ancho")
    y1 = _fraction("Cola de la flecha, fracción del alto")
    x2 = _fraction("Punta de la flecha (señala el defecto), fracción del ancho")
    y2 = _fraction("Punta de la flecha, fracción del alto")
    text = Text(validate=validate.Length(min=1, max=LABEL_CHARS), metadata={"description": "El rótulo"})

    @validates_schema
    def _fields_of_its_kind(self, data, **kwargs):
        """A circle has its centre and radii, an arrow its two ends, a label its place and text; nothing else."""
        kind = data.get("kind")
        if kind not in COORDINATES:
            return
        wanted = set(COORDINATES[kind]) | ({"text"} if kind == "label" else set())
        errors = {key: [Msg("Falta este dato.")] for key in sorted(wanted - set(data))}
        errors.update({key: [Msg("No corresponde a esta forma.")] for key in sorted(set(data) - wanted - {"kind"})})
        if errors:
            raise ValidationError(errors)


class MarksLayerSchema(BaseSchema):
    """A layer of marks over one photo, format version 1 (docs/api.md): coordinates 0..1 of the picture."""

    version = Integer(required=True, validate=validate.Equal(VERSION),
                      metadata={"description": "Versión del formato de la capa"})
    photo_sha256 = fields.String(required=True, validate=HEX64,
                                 metadata={"description": "SHA-256 de la foto sobre la que se dibuja"})
    shapes = fields.List(fields.Nested(MarkShapeSchema), required=True, validate=validate.Length(max=MAX_SHAPES))


class MarksInSchema(BaseSchema):
    """PUT …/marks: the layer, idempotent by client_id; an empty list of shapes clears the marks."""

    client_id = fields.UUID(required=True)
    marks = fields.Nested(MarksLayerSchema, required=True)


class MarksSchema(BaseSchema):
    """A photo's current layer, its own SHA-256 and the photo's it is linked to; earlier versions by hash."""

    photo_id = Integer()
    photo_sha256 = fields.String()
    version = Integer(metadata={"description": "1 la primera capa; cada reemplazo suma uno y guarda la anterior"})
    sha256 = fields.String(metadata={"description": "SHA-256 de los bytes canónicos de la capa"})
    marks = fields.Dict(metadata={"description": "La capa (formato versión 1)"})
    client_id = fields.String()
    drawn_by = fields.String()
    created_at = fields.AwareDateTime()
    earlier = fields.List(fields.Dict(), metadata={"description": "Versiones anteriores: version, sha256, created_at"})
