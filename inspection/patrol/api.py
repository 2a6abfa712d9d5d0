"""Patrol checks on the phone's terms (issue 23): start, answer, photos (whole or resumable), close; the list each
role may see."""
from flask import request
from sqlalchemy.orm import selectinload

from inspection.accounts.access import get_vessel_for, patrol_scope
from inspection.accounts.auth import api_user, require
from inspection.core.clock import office_now, office_today
from inspection.core.exceptions import Invalid
from inspection.core.extensions import db
from inspection.core.models import PatrolCheck
from inspection.i18n.language import current_language
from inspection.i18n.messages import Msg
from inspection.inspections.photo_once import item_photo_once
from inspection.inspections.schemas import PhotoFormSchema, PhotoSchema
from inspection.patrol.checks import (
    add_patrol_photo,
    check_patrol_photo,
    check_view,
    close_check,
    filter_checks,
    get_check_for,
    photos_of,
    record_patrol_answer,
    staff_to_tell,
    start_check,
    vessel_of_token,
)
from inspection.patrol.schemas import (
    PatrolAnswerInSchema,
    PatrolAnswerSchema,
    PatrolCheckInSchema,
    PatrolCheckQuery,
    PatrolCheckSchema,
    PatrolCloseInSchema,
)
from inspection.tablet.upload_steps import upload_routes
from inspection.web.api_common import (
    Blueprint, PhotoFileSchema, json_response, paginate, read_upload, run_once,
)
from inspection.web.schemas import page_schema

blp = Blueprint("api_patrol", __name__, description="Controles de patrulla (policía)")
READERS = ("admin", "inspector", "owner", "police")


@blp.route("/patrol-checks")
@blp.arguments(PatrolCheckQuery, location="query")
@blp.response(200, page_schema(PatrolCheckSchema, "PatrolCheckPage"))
@require(*READERS)
def list_checks(args):
    """Patrol checks newest first: police their own and their unit's; owners their vessels' closed ones; staff all."""
    query = (db.select(PatrolCheck).options(selectinload(PatrolCheck.answers))
             .order_by(PatrolCheck.checked_at.desc(), PatrolCheck.id.desc()))
    page = paginate(filter_checks(patrol_scope(query, api_user()), args), args)
    photos, lang = photos_of([c.id for c in page["items"]]), current_language()
    return {**page, "items": [check_view(c, photos[c.id], lang) for c in page["items"]]}


@blp.route("/patrol-checks", methods=["POST"])
@blp.arguments(PatrolCheckInSchema)
@blp.response(201, PatrolCheckSchema)
@blp.alt_response(200, schema=PatrolCheckSchema, description="El mismo control ya estaba registrado (reintento)")
@blp.alt_response(409, response="CONFLICT")
@require("police")
def post_check(data):
    """Start a patrol check on a registered vessel (by id or its certificate's QR) or an unregistered craft; its
    list's patrol items are pinned with their articles. The same client_id again is the same check."""
    actor = api_user()
    vessel_id = data.get("vessel_id")
    if vessel_id is None and data.get("craft") is None:
        vessel_id = vessel_of_token(data["verification"]["token"])
        if vessel_id is None:
            raise Invalid(errors={"verification": [Msg("El QR no es de un certificado registrado: indique el buque "
                                                       "o describa la embarcación.")]})
    vessel = get_vessel_for(actor, vessel_id) if vessel_id is not None else None
    check, created = start_check(actor, vessel, data, office_now())
    db.session.commit()
    return check_view(check, photos_of([check.id])[check.id], current_language()), 201 if created else 200


@blp.route("/patrol-checks/<int:check_id>")
@blp.response(200, PatrolCheckSchema)
@require(*READERS)
def get_check(check_id):
    """One patrol check with its items, answers, photos and outcome."""
    check = get_check_for(api_user(), check_id)
    return check_view(check, photos_of([check.id])[check.id], current_language())


@blp.route("/patrol-checks/<int:check_id>/answers/<item_id>", methods=["PUT"])
@blp.arguments(PatrolAnswerInSchema)
@blp.response(200, PatrolAnswerSchema)
@require("police")
def put_answer(data, check_id, item_id):
    """One answer; the same client_id again returns the first result, another body under it is 409."""
    actor = api_user()
    check = get_check_for(actor, check_id)

    def action():
        return PatrolAnswerSchema().dump(record_patrol_answer(actor, check, item_id, data, office_now()))

    return run_once(actor, f"patrol-answer:{check.id}:{item_id}", str(data["client_id"]), request.get_json(), action)


@blp.route("/patrol-checks/<int:check_id>/photos", methods=["POST"])
@blp.arguments(PhotoFormSchema, location="form")
@blp.arguments(PhotoFileSchema, location="files")
@blp.response(201, PhotoSchema)
@require("police")
def post_photo(form, files, check_id):
    """One photo of one item (multipart), through the inspections' pipeline: same limits, same idempotency."""
    actor = api_user()
    check = get_check_for(actor, check_id)
    return json_response(*item_photo_once(actor, check, form, read_upload(files["file"]), add=add_patrol_photo))


# A check's photos, resumable as an inspection's: the phone on a weak link goes on where it stopped.
upload_routes(blp, "/patrol-checks/<int:check_id>/uploads", "police", get_check_for, check_patrol_photo, add_patrol_photo)


@blp.route("/patrol-checks/<int:check_id>/close", methods=["POST"])
@blp.arguments(PatrolCloseInSchema)
@blp.response(200, PatrolCheckSchema)
@blp.alt_response(409, response="CONFLICT")
@require("police")
def post_close(data, check_id):
    """Close with the outcome: an infraction names each failed item's article and fine; a retention, allowed only
    where a failed item's law allows it, reaches the Prefectura's staff at once."""
    actor = api_user()
    check = get_check_for(actor, check_id)

    def action():
        closed = close_check(actor, check, data["outcome"], data["note"], office_now(), office_today(), staff_to_tell())
        return PatrolCheckSchema().dump(check_view(closed, photos_of([closed.id])[closed.id], current_language()))

    return run_once(actor, f"patrol-close:{check.id}", str(data["client_id"]), request.get_json(), action)
