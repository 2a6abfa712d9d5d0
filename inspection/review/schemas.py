"""The review on the wire: the countersignature (a drawn signature) and the return (a note), each with its client_id."""
from marshmallow import fields, validate

from inspection.i18n.messages import Msg
from inspection.inspections.schemas import SignatureImage
from inspection.web.schemas import BaseSchema, Text


class CountersignInSchema(BaseSchema):
    """The reviewer's countersignature (art. 221): the same client_id again is the first answer."""

    client_id = fields.UUID(required=True)
    signature = SignatureImage(required=True, error_messages={"required": Msg("Falta la firma del revisor.")},
                               metadata={"description": "Firma dibujada del Prefecto o su delegado: PNG como data URL",
                                         "example": "data:image/png;base64,iVBORw0K..."})


class ReturnInSchema(BaseSchema):
    """Back to the inspector with what to correct."""

    client_id = fields.UUID(required=True)
    note = Text(required=True, validate=validate.Length(min=3, max=2000),
                metadata={"description": "Qué debe corregir el inspector"})


class ReviewOutSchema(BaseSchema):
    """The inspection's review state after the act, and the certificate the countersignature issued or confirmed."""

    inspection_id = fields.Integer()
    review_status = fields.String()
    countersigned_on = fields.Date(allow_none=True)
    certificate = fields.Dict(allow_none=True)


class SealOutSchema(BaseSchema):
    """The countersignature's seal (compact JWS, `typ` countersign+jwt, checked with GET /api/v1/keys) and its facts."""

    inspection_id = fields.Integer()
    seal = fields.String()
    facts = fields.Dict()


class CountersignFormSchema(BaseSchema):
    """The report page's countersignature form: the pad's drawing as a data URL."""

    signature = SignatureImage(required=True, error_messages={"required": Msg("Firme en el recuadro antes de refrendar."),
                                                              "null": Msg("Firme en el recuadro antes de refrendar.")})


class ReturnFormSchema(BaseSchema):
    """The report page's return form."""

    note = Text(required=True, validate=validate.Length(min=3, max=2000))
