"""A photo filed once per client_id, whichever way its bytes came: an item's (POST or a finished upload) or a repair's evidence."""
import hashlib

from inspection.core.client_requests import body_hash, first_result, prior_result
from inspection.core.clock import office_now
from inspection.inspections.operations import add_photo, photo_column
from inspection.inspections.schemas import PhotoSchema
from inspection.media.configured import media_storage, photo_limits, place_rules, process_upload


def item_photo_request(record, meta: dict, sha256: str) -> tuple[str, str, dict]:
    """An item photo's idempotency scope, client_id and payload, whichever way its bytes came (POST or resumable),
    of an inspection or of a patrol check (its own scope: the two number their records apart)."""
    extra = {"item_id": meta["item_id"], "taken_at": meta.get("taken_at"), "latitude": meta.get("latitude"),
             "longitude": meta.get("longitude"), "accuracy_m": meta.get("accuracy_m"),
             **declared_source(meta)}
    prefix = "patrol-photo" if photo_column(record) == "patrol_check_id" else "photo"
    return f"{prefix}:{record.id}", str(meta["client_id"]), {**extra, "sha256": sha256}


def declared_source(meta: dict) -> dict:
    """The position's declared source, only when one was declared: a request from before the field hashes as it did."""
    return {"position_source": meta["position_source"]} if meta.get("position_source") else {}


def item_photo_once(actor, inspection, meta: dict, data: bytes, on_stored=None,
                    sha256: str | None = None, add=add_photo) -> tuple[dict, int, bool]:
    """File an item's photo once per client_id: the one path of a multipart POST and of a finished resumable upload,
    for an inspection's item or (`add` the patrol's) a patrol check's.

    `meta` holds the form's (or the declaration's) fields; `on_stored(photo)` flushes with the new photo;
    `sha256` is the bytes' digest when the caller has checked it already (a resumable upload's), else it is computed here.
    """
    sha256 = sha256 or hashlib.sha256(data).hexdigest()
    scope, client_id, payload = item_photo_request(inspection, meta, sha256)

    def store(processed):
        photo = add(actor, inspection, meta["item_id"], client_id, processed, media_storage(),
                    meta.get("taken_at"), meta.get("latitude"), meta.get("longitude"), office_now(),
                    meta.get("accuracy_m"), place_rules(), meta.get("position_source"))
        if on_stored is not None:
            on_stored(photo)
        return photo

    return photo_once(actor, scope, client_id, data, payload, store)


def photo_once(actor, scope: str, client_id: str, data: bytes, payload: dict, store) -> tuple[dict, int, bool]:
    """Replay the first result of a photo's client_id, else process the bytes within the limits and store them once.

    `payload["sha256"]` is the bytes' digest, computed once where they arrived and not again.
    """
    prior = prior_result(client_id, actor, scope, body_hash(payload))
    if prior is not None:
        return prior.response, prior.status_code, True
    processed = process_upload(data, photo_limits(), payload["sha256"])
    return first_result(actor, scope, client_id, payload, lambda: PhotoSchema().dump(store(processed)), status=201,
                        known={client_id: None})  # just looked: not stored yet


def name_photo(actor, scope: str, client_id: str, payload: dict, photo) -> None:
    """Record that this client_id names a photo already stored, as a POST /photos of the same bytes would."""
    first_result(actor, scope, client_id, payload, lambda: PhotoSchema().dump(photo), status=201)
