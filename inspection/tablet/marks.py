"""Marks on the defect (issue 24): the inspector's layer over a photo, filed beside it and never over it.

A layer is replaced, never edited: each PUT adds a version and makes the earlier one not current (both kept, and
the audit trail names each one's hash). Only the assigned inspector, while the inspection is in progress, as a
photo (operations.check_photo); anyone who may see the inspection may read its marks.
"""
from datetime import datetime, timezone

from inspection.core.audit import record_event
from inspection.core.exceptions import Invalid, NotFound
from inspection.core.extensions import db
from inspection.core.models import Inspection, Photo, PhotoMarks, User
from inspection.i18n.messages import Msg
from inspection.inspections.operations import lock_inspection, require_inspector, require_status
from inspection.media.marks import layer_sha256, normalised


def photo_of(inspection: Inspection, photo_id: int) -> Photo:
    """One of the inspection's photos, else 404 (another inspection's photo is simply not found here)."""
    photo = db.session.get(Photo, photo_id)
    if photo is None or photo.inspection_id != inspection.id:
        raise NotFound()
    return photo


def put_marks(actor: User, inspection: Inspection, photo_id: int, client_id: str, layer: dict,
              now: datetime) -> PhotoMarks:
    """File a new version of the photo's layer; the earlier one stays, not current. The layer must name this
    photo's SHA-256: marks drawn over other bytes would point at nothing."""
    require_inspector(actor, inspection)
    lock_inspection(inspection)  # one writer at a time per inspection: versions in order, never against a closing
    require_status(inspection, "in_progress")
    photo = photo_of(inspection, photo_id)
    if layer["photo_sha256"] != photo.sha256:
        raise Invalid(errors={"marks": {"photo_sha256": [Msg("La capa se dibujó sobre otra foto (otro SHA-256).")]}})
    current = current_layer(photo.id)
    if current is not None:
        current.current = False
        db.session.flush()  # the partial unique index admits one current layer: retire the old one first
    kept = normalised(layer)
    marks = PhotoMarks(photo_id=photo.id, version=current.version + 1 if current else 1, client_id=client_id,
                       sha256=layer_sha256(kept), photo_sha256=photo.sha256, layer=kept, drawn_by_id=actor.id,
                       created_at=now)
    db.session.add(marks)
    record_event(actor, "marks", "photo", photo.id, inspection_id=inspection.id, client_id=client_id, at=now,
                 details={"version": marks.version, "sha256": marks.sha256, "photo_sha256": photo.sha256,
                          "replaced": current.sha256 if current else None})
    db.session.flush()
    return marks


def current_layer(photo_id: int) -> PhotoMarks | None:
    """The photo's current layer, or None."""
    return db.session.scalar(db.select(PhotoMarks).where(PhotoMarks.photo_id == photo_id, PhotoMarks.current))


def marks_body(marks: PhotoMarks) -> dict:
    """The answer of PUT and GET …/marks: the layer, its hash, the photo's, and the earlier versions' hashes."""
    earlier = db.session.scalars(db.select(PhotoMarks).where(PhotoMarks.photo_id == marks.photo_id,
                                                             PhotoMarks.version < marks.version)
                                 .order_by(PhotoMarks.version)).all()
    drawn_by = db.session.get(User, marks.drawn_by_id)
    return {"photo_id": marks.photo_id, "photo_sha256": marks.photo_sha256, "version": marks.version,
            "sha256": marks.sha256, "marks": marks.layer, "client_id": marks.client_id,
            "drawn_by": drawn_by.full_name or drawn_by.username, "created_at": marks.created_at.astimezone(timezone.utc),
            "earlier": [{"version": e.version, "sha256": e.sha256, "created_at": e.created_at.astimezone(timezone.utc).isoformat()}
                        for e in earlier]}


def marks_for(inspection: Inspection, photo_id: int) -> PhotoMarks:
    """The current layer of one of the inspection's photos; 404 when none was drawn."""
    marks = current_layer(photo_of(inspection, photo_id).id)
    if marks is None:
        raise NotFound(Msg("Esta foto no tiene marcas."))
    return marks


PLACE_COLUMNS = (Photo.taken_at, Photo.latitude, Photo.longitude, Photo.accuracy_m, Photo.position_source, Photo.flags)


def marked_photos(deficiencies) -> dict[tuple[int, str], list[dict]]:
    """The marked photos of each deficiency's item, by (inspection_id, item_id), as a page lays them out
    (templates/_marked_photo.html) and the fleet's JSON carries them (with their time, place and flags): one query
    for a whole fleet's deficiencies."""
    wanted = {(d.inspection_id, d.item_id) for d in deficiencies}
    if not wanted:
        return {}
    rows = db.session.execute(
        db.select(Photo.id, Photo.inspection_id, Photo.item_id, Photo.sha256.label("photo_sha256"), Photo.width,
                  Photo.height, *PLACE_COLUMNS, PhotoMarks.version, PhotoMarks.sha256, PhotoMarks.layer)
        .join(PhotoMarks, (PhotoMarks.photo_id == Photo.id) & PhotoMarks.current)
        .where(Photo.inspection_id.in_({inspection_id for inspection_id, _ in wanted}))
        .order_by(Photo.id)).all()
    found: dict[tuple[int, str], list[dict]] = {}
    for row in rows:
        if (row.inspection_id, row.item_id) in wanted and row.layer["shapes"]:
            found.setdefault((row.inspection_id, row.item_id), []).append({
                "id": row.id, "sha256": row.photo_sha256, "width": row.width, "height": row.height,
                **{column.key: getattr(row, column.key) for column in PLACE_COLUMNS},
                "flags": list(row.flags or []), "urls": {"display": f"/api/v1/photos/{row.id}/display"},
                "marks": {"version": row.version, "sha256": row.sha256, "layer": row.layer}})
    return found
