"""Resumable photo uploads: a tablet on a weak link never sends a photo's bytes twice (a tus-like protocol).

The protocol (paths under `/api/v1/inspections/{id}`, and the same under `/api/v1/patrol-checks/{id}` for a
police phone's check; docs/api.md, "Resumable photo uploads"):

1. `POST /uploads` with `{"client_id", "item_id", "sha256", "size", "mime", "taken_at", "latitude",
   "longitude", "accuracy_m", "position_source"}` declares the photo: 201 `{"client_id", "offset": 0, "size", "photo": null}`. The
   same declaration again is 200 with the current offset; another one under that client_id is 409.
   When the item already has a photo with that SHA-256 (or the client_id already stored one), the
   answer comes at once with `offset == size` and the photo: no byte needs to travel. A size over
   `max_bytes` is 413; whatever `add_photo` would refuse (another inspector, an inspection not in
   progress, an item not on its list) is refused here, before any byte.
2. `PATCH /uploads/{client_id}` with `Upload-Offset: n`, `Content-Type:
   application/offset+octet-stream` and bytes from `n` on (any length up to `size - n`; the
   published `upload_chunk_bytes` is a good one): 200 with the new offset, in the body and the
   `Upload-Offset` header. An `n` other than the server's is 409 with the server's offset (body
   `offset` and header), which is where the tablet goes on from. A connection cut mid-body keeps
   the bytes that arrived. The PATCH that brings the last byte checks the SHA-256 of the whole
   (a mismatch is 422 and starts the upload again from 0), then files the photo exactly as
   `POST /photos` does, with the same refusals (413, 415, 422) and the same idempotency record:
   201 with the photo. Any PATCH after that is 200 with the photo.
3. `GET` (or `HEAD`) `/uploads/{client_id}`: the same state and header, to learn where to resume.

The bytes wait in the database (`photo_upload_parts`, one row per PATCH), which every app server
shares; the upload's row is locked while a PATCH appends, so two copies of one PATCH append once.
The sweep (`flask media sweep`) drops unfinished uploads left alone for PHOTO_UPLOAD_KEEP_DAYS.
Operations here only flush; the request boundary commits.
"""
from datetime import datetime

from sqlalchemy.exc import IntegrityError

from inspection.core.client_requests import REUSED_CLIENT_ID
from inspection.core.exceptions import Conflict, NotFound
from inspection.core.extensions import db
from inspection.core.models import Inspection, PatrolCheck, PhotoUpload, PhotoUploadPart, User
from inspection.i18n.messages import Msg
from inspection.inspections.operations import photo_column
from inspection.inspections.photo_once import declared_source

DECLARED = ("item_id", "sha256", "size", "mime")
META = ("taken_at", "latitude", "longitude", "accuracy_m", "position_source")


class OffsetMismatch(Conflict):
    """A PATCH from another offset than the server's: the problem and its Upload-Offset header name the right one."""

    code = "upload-offset"

    def __init__(self, offset: int):
        super().__init__(Msg("El servidor ya tiene {offset} bytes de esta foto: continúe el envío desde ahí.",
                             offset=offset), extra={"offset": offset}, headers={"Upload-Offset": str(offset)})


def upload_meta(data: dict) -> dict:
    """The declared capture time and position as stored (JSON), so a repeated declaration compares equal."""
    taken_at = data.get("taken_at")
    return {"taken_at": taken_at.isoformat() if taken_at else None, "latitude": data.get("latitude"),
            "longitude": data.get("longitude"), "accuracy_m": data.get("accuracy_m"), **declared_source(data)}


def find_upload(user: User, client_id: str) -> PhotoUpload | None:
    """The user's upload under this client_id, whatever its inspection."""
    return db.session.scalar(db.select(PhotoUpload).filter_by(user_id=user.id, client_id=client_id))


def belongs_to(upload: PhotoUpload, record: Inspection | PatrolCheck) -> bool:
    """Whether the upload is of a photo of `record` (an inspection, or a patrol check)."""
    return getattr(upload, photo_column(record)) == record.id


def get_upload_for(user: User, record: Inspection | PatrolCheck, client_id: str) -> PhotoUpload:
    """The user's upload of a photo of this inspection (or patrol check), or 404."""
    upload = find_upload(user, client_id)
    if upload is None or not belongs_to(upload, record):
        raise NotFound()
    return upload


def require_same_declaration(upload: PhotoUpload, record: Inspection | PatrolCheck, data: dict) -> None:
    """A repeated declaration must name the same record, item, bytes and metadata; otherwise 409."""
    same = (belongs_to(upload, record) and all(getattr(upload, key) == data[key] for key in DECLARED)
            and upload.meta == upload_meta(data))
    if not same:
        raise Conflict(REUSED_CLIENT_ID,
                       extra={"client_id": upload.client_id})


def open_upload(actor: User, record: Inspection | PatrolCheck, data: dict, now: datetime,
                photo_id: int | None = None) -> tuple[PhotoUpload, bool]:
    """Record a declared upload (complete at once when `photo_id` names the photo it would be); (upload, created).

    Two identical declarations at once race on the unique (user, client_id): the loser takes the winner's row.
    """
    upload = PhotoUpload(client_id=str(data["client_id"]), user_id=actor.id, **{photo_column(record): record.id},
                         **{key: data[key] for key in DECLARED}, meta=upload_meta(data),
                         received=data["size"] if photo_id else 0, photo_id=photo_id, created_at=now, updated_at=now)
    try:
        with db.session.begin_nested():
            db.session.add(upload)
    except IntegrityError:
        winner = find_upload(actor, upload.client_id)
        require_same_declaration(winner, record, data)
        return winner, False
    return upload, True


def lock_upload(upload: PhotoUpload) -> PhotoUpload:
    """Re-read the upload and hold its row until the request commits, so PATCHes append one at a time."""
    db.session.refresh(upload, with_for_update=True)
    return upload


def require_offset(upload: PhotoUpload, offset: int) -> None:
    """A PATCH goes on exactly where the server's bytes end (409 with that offset otherwise)."""
    if offset != upload.received:
        raise OffsetMismatch(upload.received)


def append_bytes(upload: PhotoUpload, chunk: bytes, now: datetime) -> None:
    """Keep the bytes of one PATCH after those already received (the caller holds the row's lock)."""
    if chunk:
        db.session.add(PhotoUploadPart(upload_id=upload.id, offset=upload.received, data=chunk))
        upload.received += len(chunk)
    upload.updated_at = now
    db.session.flush()


def received_bytes(upload: PhotoUpload) -> bytes:
    """The bytes received so far, in order."""
    parts = db.session.scalars(db.select(PhotoUploadPart.data).filter_by(upload_id=upload.id)
                               .order_by(PhotoUploadPart.offset))
    return b"".join(parts)


def _drop_parts(upload: PhotoUpload) -> None:
    db.session.execute(db.delete(PhotoUploadPart).filter_by(upload_id=upload.id))


def restart_upload(upload: PhotoUpload, now: datetime) -> None:
    """Forget the received bytes (they did not hash to the declared SHA-256): the next PATCH starts at 0."""
    _drop_parts(upload)
    upload.received, upload.updated_at = 0, now
    db.session.flush()


def finish_upload(upload: PhotoUpload, photo_id: int, now: datetime) -> None:
    """The upload became this photo: its bytes now live in the media storage, so its parts go."""
    _drop_parts(upload)
    upload.received, upload.photo_id, upload.updated_at = upload.size, photo_id, now
    db.session.flush()


def sweep_uploads(cutoff: datetime) -> int:
    """Delete unfinished uploads untouched since `cutoff`, with their bytes; how many went."""
    stale = db.select(PhotoUpload.id).where(PhotoUpload.photo_id.is_(None), PhotoUpload.updated_at < cutoff)
    ids = db.session.scalars(stale).all()
    if ids:
        db.session.execute(db.delete(PhotoUploadPart).where(PhotoUploadPart.upload_id.in_(ids)))
        db.session.execute(db.delete(PhotoUpload).where(PhotoUpload.id.in_(ids)))
    return len(ids)
