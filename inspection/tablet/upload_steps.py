"""The resumable upload's steps (inspection/tablet/uploads.py has the protocol) and their three routes, served for
an inspection's photos (tablet/api.py) and a patrol check's (patrol/api.py).

Unlike an operation, a step commits: between reading the declaration and reading the bytes (no transaction, nor
SQLite's write lock, stays open while they travel), and once they are kept, whatever filing the photo decides.
"""
import hashlib
from datetime import datetime

from flask import request
from werkzeug.exceptions import ClientDisconnected

from inspection.accounts.auth import api_user, require

from inspection.core.client_requests import body_hash, prior_result
from inspection.core.clock import office_now
from inspection.core.exceptions import DomainError, Invalid, TooLarge, UnsupportedMedia
from inspection.core.extensions import db
from inspection.core.models import Photo
from inspection.i18n.messages import Msg
from inspection.inspections.operations import photo_column
from inspection.inspections.photo_once import item_photo_once, item_photo_request, name_photo
from inspection.media.configured import photo_limits, refuse_oversize
from inspection.tablet.schemas import UploadInSchema, UploadOffsetSchema, UploadSchema
from inspection.tablet.uploads import (
    append_bytes,
    find_upload,
    finish_upload,
    get_upload_for,
    lock_upload,
    open_upload,
    received_bytes,
    require_offset,
    require_same_declaration,
    restart_upload,
)

OFFSET_STREAM = "application/offset+octet-stream"
PIECE = 64 * 1024  # read a PATCH's body in pieces, so a cut connection keeps all but the last piece's tail
BYTES_BODY = {"required": True, "content": {OFFSET_STREAM: {"schema": {"type": "string", "format": "binary"}}}}
OFFSET_HEADER = {"Upload-Offset": {"description": "Bytes recibidos: el próximo PATCH empieza aquí",
                                   "schema": {"type": "integer"}}}


def upload_routes(blp, base: str, role: str, record_for, refuse, add) -> None:
    """Serve the steps on `blp` under `base` (a rule naming the record's id) for `role`: `record_for(actor, id)` is
    the record the actor may see (else 404), `refuse` what its photos must pass before bytes travel, `add` its filing."""

    @blp.route(base, methods=["POST"], endpoint="post_upload")
    @blp.arguments(UploadInSchema)
    @blp.response(201, UploadSchema, headers=OFFSET_HEADER)
    @blp.alt_response(200, schema=UploadSchema, headers=OFFSET_HEADER, description="Subida ya declarada: dónde está")
    @blp.alt_response(409, response="CONFLICT")
    @blp.alt_response(413, response="REQUEST_ENTITY_TOO_LARGE")
    @require(role)
    def post_upload(data, **ids):
        """Declare a photo before sending it; a photo already stored (same item and SHA-256) is complete at once."""
        actor = api_user()
        return declare_upload(actor, record_for(actor, *ids.values()), data, refuse)

    @blp.route(f"{base}/<uuid:client_id>", methods=["PATCH"], endpoint="patch_upload")
    @blp.arguments(UploadOffsetSchema, location="headers")
    @blp.doc(requestBody=BYTES_BODY)
    @blp.response(200, UploadSchema, headers=OFFSET_HEADER)
    @blp.alt_response(201, schema=UploadSchema, headers=OFFSET_HEADER,
                      description="Último byte recibido: la foto quedó guardada")
    @blp.alt_response(409, response="CONFLICT")
    @blp.alt_response(413, response="REQUEST_ENTITY_TOO_LARGE")
    @blp.alt_response(415, response="UNSUPPORTED_MEDIA_TYPE")
    @require(role)
    def patch_upload(headers, client_id, **ids):
        """Append bytes from Upload-Offset; the last byte files the photo. A cut connection keeps what arrived."""
        actor = api_user()
        return append_upload(actor, record_for(actor, *ids.values()), str(client_id), headers["offset"], add, request)

    @blp.route(f"{base}/<uuid:client_id>", endpoint="get_upload")
    @blp.response(200, UploadSchema, headers=OFFSET_HEADER)
    @require(role)
    def get_upload(client_id, **ids):
        """Where an upload stands (also as HEAD): the device asks before it resumes."""
        actor = api_user()
        return upload_state(get_upload_for(actor, record_for(actor, *ids.values()), str(client_id)))


def declare_upload(actor, record, data: dict, refuse) -> tuple[dict, int, dict]:
    """Record a declared photo of `record`'s item; `refuse(actor, record, item_id)` raises what filing it would."""
    refuse_oversize(data["size"], photo_limits())
    upload = find_upload(actor, str(data["client_id"]))
    if upload is not None:
        require_same_declaration(upload, record, data)
        return upload_state(upload)
    scope, client_id, payload = item_photo_request(record, data, data["sha256"])
    prior = prior_result(client_id, actor, scope, body_hash(payload))  # sent before as a multipart POST
    if prior is not None:
        photo = db.session.get(Photo, prior.response["id"])
    else:
        refuse(actor, record, data["item_id"])
        photo = db.session.scalar(db.select(Photo).filter_by(**{photo_column(record): record.id},
                                                             item_id=data["item_id"], sha256=data["sha256"]))
    upload, created = open_upload(actor, record, data, office_now(), photo.id if photo else None)
    if photo is not None and prior is None:  # this client_id now names that photo, as a POST /photos would
        name_photo(actor, scope, client_id, payload, photo)
    db.session.commit()
    return upload_state(upload, 201 if created else 200)


def append_upload(actor, record, client_id: str, offset: int, add, body) -> tuple[dict, int, dict]:
    """Append `body`'s bytes (a request: its stream, mimetype and length) from `offset`; the last byte files the
    photo with `add` (the record's pipeline)."""
    upload = get_upload_for(actor, record, client_id)
    if upload.photo_id is not None:
        return upload_state(upload)
    if body.mimetype != OFFSET_STREAM:
        raise UnsupportedMedia(Msg("Envíe los bytes de la foto como {mime}.", mime=OFFSET_STREAM))
    complete = upload.received == upload.size  # a copy brought the last byte: nothing more to read
    if not complete:
        require_offset(upload, offset)
    room = upload.size - offset
    if (body.content_length or 0) > room:
        raise _too_long(room)
    db.session.commit()  # no transaction (nor SQLite's write lock) stays open while the bytes travel
    chunk = b"" if complete else read_chunk(body.stream, room)
    lock_upload(upload)
    if upload.photo_id is not None:  # a copy of this PATCH finished it while this one's bytes arrived
        return upload_state(upload)
    if upload.received < upload.size:  # else a copy brought the last byte: file what the server holds
        require_offset(upload, offset)
        append_bytes(upload, chunk, office_now())
        db.session.commit()  # what arrived is kept whatever filing the photo decides
        if upload.received < upload.size:
            return upload_state(upload)
        lock_upload(upload)
        if upload.photo_id is not None:  # a copy filed it between the commit and the lock
            return upload_state(upload)
    status = _file_photo(actor, record, upload, add)
    return upload_state(upload, status)


def read_chunk(stream, room: int) -> bytes:
    """A PATCH's body in pieces, at most `room` bytes (413 beyond); when the client drops, what arrived."""
    received = bytearray()
    try:
        while piece := stream.read(min(PIECE, room + 1 - len(received))):
            received += piece
            if len(received) > room:
                raise _too_long(room)
    except ClientDisconnected:
        pass  # the client is gone: keep what arrived, and its next PATCH goes on from there
    return bytes(received)


def _file_photo(actor, record, upload, add) -> int:
    """All bytes are in (the row is locked): check the declared hash, then file the photo; 201, or 200 for a replay."""
    now = office_now()
    data = received_bytes(upload)
    if hashlib.sha256(data).hexdigest() != upload.sha256:
        restart_upload(upload, now)
        db.session.commit()
        raise Invalid(Msg("Los bytes recibidos no coinciden con el SHA-256 declarado; envíe la foto otra vez "
                          "desde el principio."), extra={"offset": 0}, headers={"Upload-Offset": "0"})
    taken_at = upload.meta["taken_at"]
    meta = {**upload.meta, "client_id": upload.client_id, "item_id": upload.item_id,
            "taken_at": datetime.fromisoformat(taken_at) if taken_at else None}
    try:
        body, _, replayed = item_photo_once(actor, record, meta, data,
                                            on_stored=lambda photo: finish_upload(upload, photo.id, now),
                                            sha256=upload.sha256, add=add)
    except DomainError:
        db.session.commit()  # a refused photo keeps its bytes: a PATCH at the end with no body tries again
        raise
    if upload.photo_id is None:  # replayed: a POST /photos under this client_id filed it meanwhile
        finish_upload(upload, body["id"], now)
        db.session.commit()
    return 200 if replayed else 201


def upload_state(upload, status: int = 200) -> tuple[dict, int, dict]:
    """The upload's state for UploadSchema with `status`, and its offset as the Upload-Offset header."""
    photo = db.session.get(Photo, upload.photo_id) if upload.photo_id else None
    body = {"client_id": upload.client_id, "offset": upload.received, "size": upload.size, "photo": photo}
    return body, status, {"Upload-Offset": str(upload.received)}


def _too_long(room: int) -> TooLarge:
    return TooLarge(Msg("Este envío trae más bytes de los que faltan ({room}).", room=room))
