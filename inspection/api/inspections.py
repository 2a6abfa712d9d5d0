"""Inspections on the tablet's terms: schedule, start, answer, sync, photos, submit; deficiencies, detentions."""
import hashlib

from flask import request
from flask_smorest import Blueprint
from flask_smorest.fields import Upload
from marshmallow import Schema, ValidationError
from sqlalchemy.exc import IntegrityError

from ..aboard import agenda, package
from ..access import deficiency_scope, get_deficiency_for, get_vessel_for
from ..auth import api_user, require
from ..clock import office_date, office_now, office_today, office_zone
from ..closing import close_inspection
from ..certificates import certificates_json
from ..exceptions import Conflict, DomainError, Invalid, NotFound
from ..extensions import db
from ..i18n import current_language, localize
from ..inspections import (
    add_photo,
    add_repair_evidence,
    close_deficiency,
    detain_vessel,
    filter_inspections,
    get_inspection_for,
    inspection_scope,
    interrupt_inspection,
    lift_detention,
    lock_inspection,
    record_answer,
    recorded_answer,
    report_fixed,
    schedule_inspection,
    start_inspection,
)
from ..keys import signer
from ..media import media_response, media_storage, photo_limits, process_upload
from ..messages import Msg
from ..models import Deficiency, Detention, Inspection, Photo, User
from ..office import current_office
from ..reports import inspection_detail
from ..signatures import ROLES as SIGNATURE_ROLES
from ..schemas import (
    AgendaQuery,
    AgendaSchema,
    AnswerInSchema,
    AnswerSchema,
    DeficiencyQuery,
    DeficiencySchema,
    DetentionInSchema,
    DetentionSchema,
    EvidenceFormSchema,
    InspectionCreateSchema,
    InspectionDetailSchema,
    InspectionQuery,
    InspectionSchema,
    NoteSchema,
    PackageSchema,
    PhotoFormSchema,
    PhotoLimitsSchema,
    PhotoSchema,
    ReportFixedSchema,
    StartInSchema,
    SubmitInSchema,
    SubmitOutSchema,
    SyncEntrySchema,
    SyncInSchema,
    SyncOutSchema,
    page_schema,
)
from .common import (
    binary,
    body_hash,
    first_result,
    json_response,
    paginate,
    prior_result,
    remember_result,
    run_once,
)

blp = Blueprint("api_inspections", __name__, description="Inspecciones, evidencia y deficiencias")
STAFF = ("admin", "inspector")
READERS = ("admin", "inspector", "owner")


# --- list, create, read ----------------------------------------------------------------------------

@blp.route("/inspections")
@blp.arguments(InspectionQuery, location="query")
@blp.response(200, page_schema(InspectionSchema, "InspectionPage"))
@require(*READERS)
def list_inspections(args):
    """Inspections by date, filtered by vessel, inspector, status, kind and date range."""
    return paginate(filter_inspections(inspection_scope(db.select(Inspection), api_user()), args), args)


@blp.route("/inspections", methods=["POST"])
@blp.arguments(InspectionCreateSchema)
@blp.response(201, InspectionSchema)
@require(*STAFF)
def post_inspection(data):
    """Schedule an inspection (admins for anyone, inspectors for themselves)."""
    actor = api_user()
    vessel = get_vessel_for(actor, data["vessel_id"])
    inspector = db.session.get(User, data["inspector_id"])
    if inspector is None:
        raise Invalid(errors={"inspector_id": [Msg("No existe ese inspector.")]})
    inspection = schedule_inspection(actor, vessel, data["kind"], inspector, data["scheduled_on"], data["port"],
                                     office_today())
    db.session.commit()
    return inspection


@blp.route("/inspections/<int:inspection_id>")
@blp.response(200, InspectionDetailSchema)
@require(*READERS)
def get_inspection(inspection_id):
    """One inspection with items, answers (all revisions), photos, deficiencies, evidence and audit trail."""
    return json_response(inspection_detail(get_inspection_for(api_user(), inspection_id), current_language(), photo_limits()), 200)


@blp.route("/agenda")
@blp.arguments(AgendaQuery, location="query")
@blp.response(200, AgendaSchema)
@require("inspector")
def get_agenda(args):
    """The inspector's agenda: scheduled and in-progress inspections up to `days` ahead, overdue ones included."""
    return json_response(agenda(api_user(), office_today(), args["days"]), 200)


@blp.route("/inspections/<int:inspection_id>/package")
@blp.response(200, PackageSchema)
@require("inspector")
def get_package(inspection_id):
    """Everything the assigned inspector's tablet keeps to carry out the inspection offline."""
    actor = api_user()
    return json_response(package(actor, get_inspection_for(actor, inspection_id), current_language(), photo_limits()), 200)


@blp.route("/inspections/<int:inspection_id>/start", methods=["POST"])
@blp.arguments(StartInSchema, required=False)
@blp.response(200, InspectionSchema)
@require("inspector")
def post_start(data, inspection_id):
    """Pin the checklist version and the vessel's particulars; answers come after this.

    A tablet that started offline sends its `started_at` and the package's `pin`, with a `client_id`
    that makes a retry return the first result.
    """
    actor, data = api_user(), data or {}
    inspection = get_inspection_for(actor, inspection_id)
    client_id = str(data["client_id"]) if data.get("client_id") else None

    def action():
        start_inspection(actor, inspection, office_now(), data.get("started_at"), data.get("pin"), client_id)
        return InspectionSchema().dump(inspection)

    if client_id is None:
        body = action()
        db.session.commit()
        return json_response(body, 200)
    return run_once(actor, f"start:{inspection.id}", client_id, request.get_json(), action)


# --- answers ---------------------------------------------------------------------------------------

def _answer_scope(inspection_id: int, item_id: str) -> str:
    return f"answer:{inspection_id}:{item_id}"


@blp.route("/inspections/<int:inspection_id>/answers/<item_id>", methods=["PUT"])
@blp.arguments(AnswerInSchema)
@blp.response(200, AnswerSchema)
@require("inspector")
def put_answer(data, inspection_id, item_id):
    """One answer; the same client_id again returns the first result, another body under it is 409."""
    actor = api_user()
    inspection = get_inspection_for(actor, inspection_id)
    raw = request.get_json()

    def action():
        return AnswerSchema().dump(record_answer(actor, inspection, item_id, data, office_now()))

    return run_once(actor, _answer_scope(inspection.id, item_id), str(data["client_id"]), raw, action)


@blp.route("/inspections/<int:inspection_id>/sync", methods=["POST"])
@blp.arguments(SyncInSchema)
@blp.response(200, SyncOutSchema)
@require("inspector")
def post_sync(data, inspection_id):
    """A batch of offline answers: each entry is applied on its own; none is ever half-applied.

    The inspection's row is held for the whole batch, so a copy of the batch sent at the same time
    waits and then finds every entry already applied (`duplicate`).
    """
    actor = api_user()
    inspection = lock_inspection(get_inspection_for(actor, inspection_id))
    results = [_sync_one(actor, inspection, raw) for raw in data["answers"]]
    db.session.commit()
    return json_response({"results": results}, 200)


def _sync_one(actor, inspection, raw: dict) -> dict:
    """One entry in its own savepoint: applied, duplicate, conflict or rejected, never an error for the batch."""
    client_id, item_id = raw.get("client_id"), raw.get("item_id")
    outcome = {"client_id": client_id, "item_id": item_id, "reason": None, "answer": None}
    try:
        entry = SyncEntrySchema().load(raw)
    except ValidationError as error:
        return {**outcome, "status": "rejected", "reason": localize(error.messages)}
    body = {k: v for k, v in raw.items() if k != "item_id"}
    digest, scope = body_hash(body), _answer_scope(inspection.id, entry["item_id"])
    for attempt in range(2):
        try:
            return {**outcome, **_apply_entry(actor, inspection, entry, scope, digest)}
        except IntegrityError:
            # Another request (a photo, a submission) took this client_id meanwhile: look again,
            # now that it has committed; a second clash is that other write's, not ours.
            if attempt:
                return {**outcome, "status": "conflict",
                        "reason": localize(Msg("Este client_id ya se usó con otro contenido; genere uno nuevo."))}
        except Conflict as error:
            return {**outcome, "status": "conflict", "reason": localize(error.detail or error.title)}
        except DomainError as error:
            reason = localize(error.errors) if error.errors else localize(error.detail or error.title)
            return {**outcome, "status": "rejected", "reason": reason}
    raise AssertionError("unreachable")


def _apply_entry(actor, inspection, entry: dict, scope: str, digest: str) -> dict:
    """Apply one sync entry inside a savepoint (rolled back alone on failure); its status and answer."""
    client_id = str(entry["client_id"])
    with db.session.begin_nested():
        prior = prior_result(client_id, actor, scope, digest)
        if prior is not None:
            return {"status": "duplicate", "answer": prior.response}
        stored = recorded_answer(actor, inspection, entry["item_id"], entry)  # a page form or the demo sent it
        answer = AnswerSchema().dump(stored or record_answer(actor, inspection, entry["item_id"], entry, office_now()))
        remember_result(client_id, actor, scope, digest, 200, answer)
    return {"status": "duplicate" if stored else "applied", "answer": answer}


# --- photos ----------------------------------------------------------------------------------------

class PhotoFileSchema(Schema):
    """The uploaded file (multipart)."""

    file = Upload(required=True)


@blp.route("/photos/limits")
@blp.response(200, PhotoLimitsSchema)
def get_photo_limits():
    """Upload limits (bytes, pixels, formats), public so a tablet can read them before it needs them."""
    return photo_limits().as_dict()


@blp.route("/inspections/<int:inspection_id>/photos", methods=["POST"])
@blp.arguments(PhotoFormSchema, location="form")
@blp.arguments(PhotoFileSchema, location="files")
@blp.response(201, PhotoSchema)
@require("inspector")
def post_photo(form, files, inspection_id):
    """One photo of one item (multipart), idempotent by client_id; the same bytes twice for one item are one photo."""
    actor = api_user()
    inspection = get_inspection_for(actor, inspection_id)
    return json_response(*item_photo_once(actor, inspection, form, read_upload(files["file"])))


def item_photo_request(inspection, meta: dict, sha256: str) -> tuple[str, str, dict]:
    """An item photo's idempotency scope, client_id and payload, whichever way its bytes came (POST or resumable)."""
    extra = {"item_id": meta["item_id"], "taken_at": meta.get("taken_at"), "latitude": meta.get("latitude"),
             "longitude": meta.get("longitude")}
    return f"photo:{inspection.id}", str(meta["client_id"]), {**extra, "sha256": sha256}


def item_photo_once(actor, inspection, meta: dict, data: bytes, on_stored=None) -> tuple[dict, int, bool]:
    """File an item's photo once per client_id: the one path of a multipart POST and of a finished resumable upload.

    `meta` holds the form's (or the declaration's) fields; `on_stored(photo)` flushes with the new photo.
    """
    scope, client_id, payload = item_photo_request(inspection, meta, hashlib.sha256(data).hexdigest())

    def store(processed):
        photo = add_photo(actor, inspection, meta["item_id"], client_id, processed, media_storage(),
                          meta.get("taken_at"), meta.get("latitude"), meta.get("longitude"), office_now())
        if on_stored is not None:
            on_stored(photo)
        return photo

    return photo_once(actor, scope, client_id, data, payload, store)


def read_upload(upload) -> bytes:
    """A multipart file's bytes, at most one past the limit (enough to refuse it without reading it all)."""
    return upload.read(photo_limits().max_bytes + 1)


def photo_once(actor, scope: str, client_id: str, data: bytes, payload: dict, store) -> tuple[dict, int, bool]:
    """Replay the first result of a photo's client_id, else process the bytes within the limits and store them once."""
    prior = prior_result(client_id, actor, scope, body_hash(payload))
    if prior is not None:
        return prior.response, prior.status_code, True
    processed = process_upload(data, photo_limits())
    return first_result(actor, scope, client_id, payload, lambda: PhotoSchema().dump(store(processed)), status=201)


VARIANTS = {"original": "original_key", "display": "display_key", "thumb": "thumb_key"}


@blp.route("/photos/<int:photo_id>/<variant>")
@blp.doc(**binary("La foto: el original tal como llegó, o una copia JPEG (display, thumb)",
                  "image/jpeg", "image/png", "image/webp"))
@require(*READERS)
def get_photo(photo_id, variant):
    """A photo's bytes, only for users who may see its inspection."""
    photo = db.session.get(Photo, photo_id)
    if photo is None or variant not in VARIANTS:
        raise NotFound()
    get_inspection_for(api_user(), photo.inspection_id)
    mime = photo.mime if variant == "original" else "image/jpeg"
    return media_response(getattr(photo, VARIANTS[variant]), mime, f"{photo.sha256}-{variant}")


# --- submit ----------------------------------------------------------------------------------------

@blp.route("/inspections/<int:inspection_id>/submit", methods=["POST"])
@blp.arguments(SubmitInSchema)
@blp.response(200, SubmitOutSchema)
@require("inspector")
def post_submit(data, inspection_id):
    """Close the inspection: 409 with the unanswered items, then with the missing photos; outcome computed."""
    actor = api_user()
    inspection = get_inspection_for(actor, inspection_id)

    def action():
        now = office_now()
        today, office = office_date(now), current_office()
        result = close_inspection(actor, inspection, data, office, signer(office, now), today, now, media_storage(),
                                  office_zone())
        certificate = result["certificate"]
        return {"outcome": result["outcome"], "deficiencies": DeficiencySchema(many=True).dump(result["deficiencies"]),
                "missing_answers": result["missing_answers"],
                "reinspection_id": result["reinspection"].id if result["reinspection"] else None,
                "certificate": certificates_json([certificate], today, office.public_url)[0] if certificate else None}

    return run_once(actor, f"submit:{inspection.id}", str(data["client_id"]), request.get_json(), action)


@blp.route("/inspections/<int:inspection_id>/signatures/<role>")
@blp.doc(**binary("La firma dibujada (PNG normalizado por el servidor)", "image/png"))
@require(*READERS)
def get_signature(inspection_id, role):
    """The inspector's or the master's drawn signature, for users who may see the inspection."""
    inspection = get_inspection_for(api_user(), inspection_id)
    key = getattr(inspection, f"{role}_signature_key", None) if role in SIGNATURE_ROLES else None
    if key is None:
        raise NotFound()
    return media_response(key, "image/png", getattr(inspection, f"{role}_signature_sha256"))


@blp.route("/inspections/<int:inspection_id>/interrupt", methods=["POST"])
@blp.arguments(NoteSchema)
@blp.response(200, InspectionSchema)
@require(*STAFF)
def post_interrupt(data, inspection_id):
    """Stop an inspection that cannot be finished, with the reason: no outcome, certificate or deficiencies."""
    actor = api_user()
    inspection = interrupt_inspection(actor, get_inspection_for(actor, inspection_id), data["reason"], office_now())
    db.session.commit()
    return inspection


# --- deficiencies and detentions -------------------------------------------------------------------

@blp.route("/deficiencies")
@blp.arguments(DeficiencyQuery, location="query")
@blp.response(200, page_schema(DeficiencySchema, "DeficiencyPage"))
@require(*READERS)
def list_deficiencies(args):
    """Deficiencies by due date; owners see their fleet's."""
    query = deficiency_scope(db.select(Deficiency), api_user())
    if args.get("vessel_id"):
        query = query.where(Deficiency.vessel_id == args["vessel_id"])
    if args.get("status"):
        query = query.where(Deficiency.status == args["status"])
    return paginate(query.order_by(Deficiency.due_on, Deficiency.id), args)


@blp.route("/deficiencies/<int:deficiency_id>/evidence", methods=["POST"])
@blp.arguments(EvidenceFormSchema, location="form")
@blp.arguments(PhotoFileSchema, location="files")
@blp.response(201, PhotoSchema)
@require("owner")
def post_repair_evidence(form, files, deficiency_id):
    """The owner's photo of a repair (multipart, idempotent by client_id); cite it in report-fixed."""
    actor = api_user()
    deficiency = get_deficiency_for(actor, deficiency_id)
    client_id = str(form["client_id"])

    def store(processed):
        return add_repair_evidence(actor, deficiency, client_id, processed, media_storage(), office_now())

    data = read_upload(files["file"])
    payload = {"deficiency_id": deficiency.id, "sha256": hashlib.sha256(data).hexdigest()}
    return json_response(*photo_once(actor, f"evidence:{deficiency.id}", client_id, data, payload, store))


@blp.route("/deficiencies/<int:deficiency_id>/report-fixed", methods=["POST"])
@blp.arguments(ReportFixedSchema)
@blp.response(200, DeficiencySchema)
@require("owner")
def post_report_fixed(data, deficiency_id):
    """The owner reports a deficiency put right, with the evidence photo (an inspector must still close it)."""
    deficiency = get_deficiency_for(api_user(), deficiency_id)
    photo = db.session.get(Photo, data["photo_id"]) if data.get("photo_id") else None
    if data.get("photo_id") and photo is None:
        raise Invalid(errors={"photo_id": [Msg("No existe esa foto.")]})
    report_fixed(api_user(), deficiency, data["reason"], office_now(), photo)
    db.session.commit()
    return deficiency


@blp.route("/deficiencies/<int:deficiency_id>/close", methods=["POST"])
@blp.arguments(NoteSchema)
@blp.response(200, DeficiencySchema)
@require("inspector")
def post_close(data, deficiency_id):
    """An inspector closes a deficiency after verifying the repair."""
    deficiency = close_deficiency(api_user(), get_deficiency_for(api_user(), deficiency_id), data["reason"], office_now())
    db.session.commit()
    return deficiency


@blp.route("/vessels/<int:vessel_id>/detentions", methods=["POST"])
@blp.arguments(DetentionInSchema)
@blp.response(201, DetentionSchema)
@require(*STAFF)
def post_detention(data, vessel_id):
    """Detain a vessel (art. 208), with the reason; a separate decision from deficiency actions."""
    actor = api_user()
    vessel = get_vessel_for(actor, vessel_id)
    inspection = get_inspection_for(actor, data["inspection_id"]) if data.get("inspection_id") else None
    detention = detain_vessel(actor, vessel, data["reason"], office_now(), inspection)
    db.session.commit()
    return detention


@blp.route("/detentions/<int:detention_id>/lift", methods=["POST"])
@blp.arguments(NoteSchema)
@blp.response(200, DetentionSchema)
@require(*STAFF)
def post_lift(data, detention_id):
    """Lift a detention, with the reason."""
    detention = db.session.get(Detention, detention_id)
    if detention is None:
        raise NotFound()
    lift_detention(api_user(), detention, data["reason"], office_now())
    db.session.commit()
    return detention
