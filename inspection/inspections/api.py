"""Inspections on the tablet's terms: schedule, start, answer, sync, photos, submit; deficiencies, detentions."""
import hashlib

from flask import Response, request
from sqlalchemy.orm import joinedload

from inspection.accounts.access import get_deficiency_for, get_vessel_for
from inspection.accounts.auth import api_user, require
from inspection.certificates.keys import signer
from inspection.certificates.operations import certificates_json
from inspection.core.clock import office_date, office_now, office_today, office_zone
from inspection.core.exceptions import Invalid, NotFound
from inspection.core.extensions import db
from inspection.core.models import Inspection, Photo, User
from inspection.core.office import current_office
from inspection.cycle.billing import charges_of
from inspection.cycle.schemas import FeeStatementSchema
from inspection.i18n.language import current_language
from inspection.i18n.messages import Msg
from inspection.inspections.aboard import agenda, package
from inspection.inspections.closing import close_inspection
from inspection.inspections.operations import (
    add_repair_evidence,
    cancel_inspection,
    close_deficiency,
    deficiency_list,
    detain_vessel,
    filter_inspections,
    get_detention,
    get_inspection_for,
    get_photo_for,
    inspection_scope,
    interrupt_inspection,
    lift_detention,
    record_answer,
    report_fixed,
    schedule_inspection,
    start_inspection,
)
from inspection.inspections.photo_once import item_photo_once, photo_once
from inspection.inspections.reports import fee_statement_pdf, inspection_detail, pdf_headers, report_pdf
from inspection.inspections.schemas import (
    DRAWN_ROLES,
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
    PackageSchema,
    PhotoFormSchema,
    PhotoLimitsSchema,
    PhotoSchema,
    ReportFixedSchema,
    StartInSchema,
    SubmitInSchema,
    SubmitOutSchema,
    SyncInSchema,
    SyncOutSchema,
)
from inspection.inspections.sync import answer_scope, apply_sync_batch
from inspection.media.configured import media_response, media_storage, photo_limits
from inspection.web.api_common import (
    Blueprint, PhotoFileSchema, binary, json_response, paginate, read_upload, run_once,
)
from inspection.web.schemas import NoteSchema, page_schema

blp = Blueprint("api_inspections", __name__, description="Inspecciones, evidencia y deficiencias")
STAFF = ("admin", "inspector")
READERS = ("admin", "inspector", "owner", "reviewer")  # the reviewer reads what he countersigns (art. 221)


# --- list, create, read ----------------------------------------------------------------------------

@blp.route("/inspections")
@blp.arguments(InspectionQuery, location="query")
@blp.response(200, page_schema(InspectionSchema, "InspectionPage"))
@require(*READERS)
def list_inspections(args):
    """Inspections by date, filtered by vessel, inspector, status, kind and date range; vessel and inspector
    joined in the same query (no query per row)."""
    query = db.select(Inspection).options(joinedload(Inspection.vessel), joinedload(Inspection.inspector),
                                          joinedload(Inspection.countersigned_by))  # art. 221, on the same row
    return paginate(filter_inspections(inspection_scope(query, api_user()), args), args)


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

    return run_once(actor, answer_scope(inspection.id, item_id), str(data["client_id"]), raw, action)


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
    results = apply_sync_batch(actor, get_inspection_for(actor, inspection_id), data["answers"])
    db.session.commit()
    return json_response({"results": results}, 200)






# --- photos ----------------------------------------------------------------------------------------



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










VARIANTS = {"original": "original_key", "display": "display_key", "thumb": "thumb_key"}


@blp.route("/photos/<int:photo_id>/<variant>")
@blp.doc(**binary("La foto: el original tal como llegó, o una copia JPEG (display, thumb)",
                  "image/jpeg", "image/png", "image/webp"))
@require(*READERS, "police")
def get_photo(photo_id, variant):
    """A photo's bytes, only for users who may see its inspection or patrol check (police: their checks')."""
    if variant not in VARIANTS:
        raise NotFound()
    photo = get_photo_for(api_user(), photo_id)
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
    """The inspector's, the master's or the reviewer's drawn signature, for users who may see the inspection."""
    inspection = get_inspection_for(api_user(), inspection_id)
    key = getattr(inspection, f"{role}_signature_key", None) if role in DRAWN_ROLES else None
    if key is None:
        raise NotFound()
    return media_response(key, "image/png", getattr(inspection, f"{role}_signature_sha256"))


@blp.route("/inspections/<int:inspection_id>/interrupt", methods=["POST"])
@blp.arguments(NoteSchema)
@blp.response(200, InspectionSchema)
@require(*STAFF)
def post_interrupt(data, inspection_id):
    """Stop an inspection that cannot be finished, with the reason: no outcome, certificate or deficiencies."""
    return _decided(interrupt_inspection, inspection_id, data["reason"])


@blp.route("/inspections/<int:inspection_id>/cancel", methods=["POST"])
@blp.arguments(NoteSchema)
@blp.response(200, InspectionSchema)
@require(*STAFF)
def post_cancel(data, inspection_id):
    """Call off a scheduled inspection, with the reason: the vessel's kind is free again, its application pending."""
    return _decided(cancel_inspection, inspection_id, data["reason"])


def _decided(operation, inspection_id: int, reason: str) -> Inspection:
    """A decision with a reason (interrupt, cancel) on an inspection the caller may see, committed."""
    actor = api_user()
    inspection = operation(actor, get_inspection_for(actor, inspection_id), reason, office_now())
    db.session.commit()
    return inspection


# --- deficiencies and detentions -------------------------------------------------------------------

@blp.route("/deficiencies")
@blp.arguments(DeficiencyQuery, location="query")
@blp.response(200, page_schema(DeficiencySchema, "DeficiencyPage"))
@require(*READERS)
def list_deficiencies(args):
    """Deficiencies by due date, undated last (search, filters and order as on /deficiencias); owners: their fleet's."""
    return paginate(deficiency_list(api_user(), args, office_today()), args)


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
    detention = get_detention(detention_id)
    lift_detention(api_user(), detention, data["reason"], office_now())
    db.session.commit()
    return detention


# What an inspection costs: the fee lines of Ley 928 arts. 209 and 233.
fees_blp = Blueprint("api_fees", __name__, description="Aranceles de inspección")


@fees_blp.route("/inspections/<int:inspection_id>/fees")
@fees_blp.response(200, FeeStatementSchema)
@require("admin", "inspector", "owner")
def get_fees(inspection_id):
    """The inspection's fee lines (source, article, the scale's row, both printed figures), total, fines and what is owed."""
    return charges_of(get_inspection_for(api_user(), inspection_id), current_language())


# An inspection on paper: its report and its fee statement as PDFs.
reports_blp = Blueprint("api_reports", __name__, description="Informes de inspección y liquidaciones en PDF")


@reports_blp.route("/inspections/<int:inspection_id>/report.pdf")
@reports_blp.doc(**binary("El informe de la inspección cerrada (A4): ítems, deficiencias, fotos, firmas y aranceles; "
                  "?lang=en o Accept-Language para inglés", "application/pdf"))
@require("admin", "inspector", "owner")
def get_report_pdf(inspection_id):
    """The closed inspection's report (409 while it is open); owners only their vessels'."""
    inspection = get_inspection_for(api_user(), inspection_id)
    data = report_pdf(inspection, current_language(), media_storage(), current_office().name, office_zone())
    return Response(data, mimetype="application/pdf", headers=pdf_headers(inspection, "informe"))


@reports_blp.route("/inspections/<int:inspection_id>/fees.pdf")
@reports_blp.doc(**binary("La liquidación de aranceles (arts. 209, 233) y multas de la solicitud (arts. 204, 225)",
                  "application/pdf"))
@require("admin", "inspector", "owner")
def get_fee_statement_pdf(inspection_id):
    """The inspection's fee statement; owners only their vessels'."""
    inspection = get_inspection_for(api_user(), inspection_id)
    data = fee_statement_pdf(inspection, current_language(), current_office().name, office_zone())
    return Response(data, mimetype="application/pdf", headers=pdf_headers(inspection, "aranceles"))
