"""Inspection pages for the tablet and the office: list and schedule, work through the items, report.

Each POST validates with the API's schema, calls one operation, commits once and redirects; a domain
refusal comes back into the same page, in the user's language, with its own status code. Every write
form carries a client_id made when the page is rendered (`new_client_id`), so a form sent twice (a double
tap, a reload after a lost response) is one write.
"""
import uuid
from datetime import datetime

from flask import Blueprint, redirect, render_template, request, url_for
from flask_login import current_user
from marshmallow import ValidationError
from sqlalchemy.orm import joinedload

from ..access import get_deficiency_for, get_vessel_for, vessel_scope
from ..auth import require_page
from ..billing import fee_statement_of
from ..clock import office_date, office_now, office_today, office_zone, zone_city
from ..closing import close_inspection
from ..exceptions import DomainError, Invalid
from ..extensions import db
from ..formats import format_moment
from ..i18n import current_language, gettext, localize
from ..inspections import (
    add_photo,
    add_repair_evidence,
    close_deficiency,
    detain_vessel,
    filter_inspections,
    get_inspection_for,
    inspection_scope,
    interrupt_inspection,
    record_answer,
    report_fixed,
    schedule_inspection,
    start_inspection,
)
from ..keys import signer
from ..media import media_storage, photo_limits, process_upload
from ..messages import Msg
from ..models import (
    ACTIONS,
    INSPECTION_STATUSES,
    KINDS,
    RESULTS,
    Certificate,
    Detention,
    Inspection,
    User,
    Vessel,
)
from ..office import current_office
from ..reports import inspection_detail
from ..schemas import (
    AnswerInSchema,
    DetentionInSchema,
    InspectionCreateSchema,
    InspectionQuery,
    NoteSchema,
    PhotoFormSchema,
    SubmitInSchema,
)
from .checklists import group_by_topic
from .forms import domain_errors, load_form

bp = Blueprint("inspections", __name__)
READERS = ("admin", "inspector", "owner")  # police see no inspections, as in the API
STAFF = ("admin", "inspector")

# Coded values shown to people; Msg so the catalog test sees them and they follow the page language.
TERMS = {
    "kind": {"navegabilidad": Msg("Navegabilidad"), "seguridad": Msg("Seguridad"),
             "documentacion": Msg("Documentación")},
    "status": {"scheduled": Msg("Programada"), "in_progress": Msg("En curso"), "submitted": Msg("Cerrada"),
               "interrupted": Msg("Interrumpida"), "cancelled": Msg("Cancelada")},
    "outcome": {"passed": Msg("Aprobada"), "passed_with_observations": Msg("Aprobada con observaciones"),
                "failed": Msg("No aprobada")},
    "result": {"pass": Msg("Cumple"), "fail": Msg("No cumple"), "not_applicable": Msg("No corresponde")},
    "action": {"rectified": Msg("Subsanada a bordo"), "before_departure": Msg("Antes de zarpar"),
               "within_14_days": Msg("Dentro de 14 días"), "next_port": Msg("En el próximo puerto"),
               "detained": Msg("Buque detenido")},
    "deficiency": {"open": Msg("Abierta"), "reported_fixed": Msg("Informada subsanada"), "closed": Msg("Cerrada")},
    "audit": {"inspection.scheduled": Msg("Inspección programada"), "inspection.started": Msg("Inspección comenzada"),
              "answer.recorded": Msg("Respuesta registrada"), "photo.added": Msg("Foto recibida"),
              "inspection.submitted": Msg("Inspección cerrada"),
              "inspection.interrupted": Msg("Inspección interrumpida"),
              "inspection.reinspection_scheduled": Msg("Reinspección programada (art. 206)"),
              "deficiency.reported_fixed": Msg("Deficiencia informada subsanada"),
              "deficiency.closed": Msg("Deficiencia cerrada"), "vessel.detained": Msg("Buque detenido (art. 208)"),
              "vessel.detention_lifted": Msg("Detención levantada"),
              "certificate.issued": Msg("Certificado emitido")},
}
CHOICES = {"kind": KINDS, "status": INSPECTION_STATUSES, "result": RESULTS, "action": ACTIONS}


@bp.app_template_global()
def term(group: str, value) -> str:
    """The label of a coded inspection value in the page language (the code itself when unknown)."""
    found = TERMS.get(group, {}).get(value)
    return found.in_language(current_language()) if found is not None else ("" if value is None else str(value))


@bp.app_template_global()
def new_client_id() -> str:
    """A fresh client_id for one write form, made when the page is rendered so a resent form is one write."""
    return str(uuid.uuid4())


@bp.app_template_filter()
def local_time(value) -> str:
    """A UTC timestamp (datetime or ISO text) on the office's clock: '30 nov. 2026, 22:30 (hora de Asunción)'."""
    if not value:
        return ""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    zone = office_zone()
    place = gettext("hora de {city}", city=zone_city(zone))
    return f"{format_moment(moment, zone, current_language())} ({place})"


def _attempt(operation):
    """Run one operation and commit; a domain refusal rolls back and is returned instead of raised."""
    try:
        result = operation()
        db.session.commit()
        return result, None
    except DomainError as error:
        db.session.rollback()
        return None, error


def _placed(error: DomainError, key: str, field: str | None = None) -> dict:
    """Where a refusal shows: bad input (413/415/422) at its own form, a refused action atop the page."""
    if error.status in (413, 415, 422):
        return {key: {field: [localize(error.detail or error.title)]} if field else domain_errors(error)}
    return {"_page": domain_errors(error)}


# --- list and schedule ----------------------------------------------------------------------------

def _query_args() -> tuple[dict, dict]:
    """The list filters; a malformed filter is dropped (and reported) rather than refusing the page."""
    raw = {k: v for k, v in request.args.items() if v != "" and k not in ("lang", "programar")}
    try:
        return InspectionQuery().load(raw), {}
    except ValidationError as error:
        kept = {k: v for k, v in raw.items() if k not in error.messages}
        return InspectionQuery().load(kept), localize(error.messages)


def _list_page(values: dict, errors: dict, status: int = 200):
    args, filter_errors = _query_args()
    query = filter_inspections(inspection_scope(db.select(Inspection), current_user), args).options(
        joinedload(Inspection.vessel), joinedload(Inspection.inspector))
    page = db.paginate(query, page=args["page"], per_page=args["per_page"], error_out=False)
    vessels = db.session.scalars(vessel_scope(db.select(Vessel), current_user).order_by(Vessel.registration_key)).all()
    inspectors = []
    if current_user.role == "inspector":
        inspectors = [current_user]  # an inspector schedules only for themselves
    elif current_user.role == "admin":
        inspectors = db.session.scalars(db.select(User).filter_by(role="inspector", active=True)
                                        .order_by(User.full_name, User.username)).all()
    defaults = {"scheduled_on": office_today().isoformat(), "inspector_id": str(current_user.id),
                "vessel_id": request.args.get("vessel_id", ""), "kind": request.args.get("kind", "")}
    return render_template("inspections/list.html", page=page, args=args, filter_errors=filter_errors,
                           vessels=vessels, inspectors=inspectors, choices=CHOICES,
                           values={**defaults, **values}, errors=errors), status


@bp.route("/inspecciones")
@require_page(*READERS)
def inspection_list():
    """Inspections by date with filters, scoped like the API; staff also get the scheduling form."""
    return _list_page({}, {})


@bp.route("/inspecciones", methods=["POST"])
@require_page(*STAFF)
def inspection_schedule():
    """Schedule an inspection (admins for any inspector, inspectors for themselves)."""
    data, errors = load_form(request.form, InspectionCreateSchema())
    if errors:
        return _list_page(request.form.to_dict(), errors, 422)

    def schedule():
        vessel = get_vessel_for(current_user, data["vessel_id"])
        inspector = db.session.get(User, data["inspector_id"])
        if inspector is None:
            raise Invalid(errors={"inspector_id": [Msg("No existe ese inspector.")]})
        return schedule_inspection(current_user, vessel, data["kind"], inspector, data["scheduled_on"],
                                   data["port"], office_today())

    inspection, error = _attempt(schedule)
    if error:
        return _list_page(request.form.to_dict(), domain_errors(error), error.status)
    return redirect(url_for(".inspection_page", inspection_id=inspection.id))


# --- one inspection -------------------------------------------------------------------------------

def _view_model(inspection: Inspection) -> dict:
    """The API's full view of the inspection, arranged for a page (topics, photos and gaps per item)."""
    detail = inspection_detail(inspection, current_language(), photo_limits())
    photos_by_item, missing_by_item = {}, {}
    for photo in detail["photos"]:
        photos_by_item.setdefault(photo["item_id"], []).append(photo)
    for gap in (detail["evidence"] or {}).get("missing", []):
        missing_by_item.setdefault(gap["item_id"], []).append(gap)
    unanswered = [item for item in detail["items"] if not item["answer"]]
    return {"detail": detail, "groups": group_by_topic(detail["items"]), "photos_by_item": photos_by_item,
            "missing_by_item": missing_by_item, "answered": len(detail["items"]) - len(unanswered),
            "unanswered": unanswered,
            "item_titles": {item["id"]: item["title"] for item in detail["items"]},
            "can_act": current_user.id == inspection.inspector_id,
            "can_interrupt": current_user.id == inspection.inspector_id or current_user.role == "admin"}


def _inspection_page(inspection: Inspection, status: int = 200, **state):
    """Render the work page (scheduled or in progress) or the report (submitted), with any form state."""
    if inspection.status == "submitted":
        return _report_page(inspection, status, **state)
    state.setdefault("errors", {})
    state.setdefault("values", {})
    return render_template("inspections/detail.html", inspection=inspection, choices=CHOICES,
                           limits=photo_limits(), **_view_model(inspection), **state), status


def _report_page(inspection: Inspection, status: int = 200, **state):
    detentions = db.session.scalars(db.select(Detention).filter_by(inspection_id=inspection.id)
                                    .order_by(Detention.id)).all()
    certificate = db.session.scalar(db.select(Certificate).filter_by(inspection_id=inspection.id))
    state.setdefault("errors", {})
    state.setdefault("values", {})
    return render_template("inspections/report.html", inspection=inspection, detentions=detentions,
                           certificate=certificate, fees=fee_statement_of(inspection), **_view_model(inspection),
                           **state), status


@bp.route("/inspecciones/<int:inspection_id>")
@require_page(*READERS)
def inspection_page(inspection_id):
    """The inspection on the tablet: start, answer, photos, submit; the report once it is closed."""
    return _inspection_page(get_inspection_for(current_user, inspection_id))


@bp.route("/inspecciones/<int:inspection_id>/informe")
@require_page(*READERS)
def inspection_report(inspection_id):
    """The printable report of a closed inspection (the work page until then)."""
    inspection = get_inspection_for(current_user, inspection_id)
    if inspection.status != "submitted":
        return redirect(url_for(".inspection_page", inspection_id=inspection.id))
    return _report_page(inspection)


def _back(inspection: Inspection, anchor: str | None = None):
    return redirect(url_for(".inspection_page", inspection_id=inspection.id, _anchor=anchor))


@bp.route("/inspecciones/<int:inspection_id>/comenzar", methods=["POST"])
@require_page("inspector")
def inspection_start(inspection_id):
    """Start: pin the checklist versions and the vessel's particulars."""
    inspection = get_inspection_for(current_user, inspection_id)
    _, error = _attempt(lambda: start_inspection(current_user, inspection, office_now()))
    if error:
        return _inspection_page(inspection, error.status, errors=_placed(error, "_page"))
    return _back(inspection)


@bp.route("/inspecciones/<int:inspection_id>/items/<item_id>", methods=["POST"])
@require_page("inspector")
def inspection_answer(inspection_id, item_id):
    """One item's answer from its small form; the same form sent again is the same answer."""
    inspection = get_inspection_for(current_user, inspection_id)
    form = request.form.to_dict()
    data, errors = load_form(form, AnswerInSchema())
    if errors:
        return _inspection_page(inspection, 422, errors={item_id: errors}, values={item_id: form})
    _, error = _attempt(lambda: record_answer(current_user, inspection, item_id, data, office_now()))
    if error:
        return _inspection_page(inspection, error.status, errors=_placed(error, item_id), values={item_id: form})
    return _back(inspection, f"item-{item_id}")


@bp.route("/inspecciones/<int:inspection_id>/fotos", methods=["POST"])
@require_page("inspector")
def inspection_photo(inspection_id):
    """One photo of one item, through the API's own processing (limits, hashes, thumbnails)."""
    inspection = get_inspection_for(current_user, inspection_id)
    item_id = request.form.get("item_id", "")
    form, errors = load_form(request.form, PhotoFormSchema())
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        errors = {**errors, "file": [localize(Msg("Elija o tome una foto."))]}
    if errors:
        return _inspection_page(inspection, 422, errors={item_id: errors})
    limits = photo_limits()
    data = upload.read(limits.max_bytes + 1)

    def add():
        processed = process_upload(data, limits)
        return add_photo(current_user, inspection, item_id, str(form["client_id"]), processed, media_storage(),
                         None, None, None, office_now())

    _, error = _attempt(add)
    if error:
        return _inspection_page(inspection, error.status, errors=_placed(error, item_id, "file"))
    return _back(inspection, f"item-{item_id}")


@bp.route("/inspecciones/<int:inspection_id>/cerrar", methods=["POST"])
@require_page("inspector")
def inspection_submit(inspection_id):
    """Close the inspection with the signatures; refused (409) while items are unanswered or photos missing."""
    inspection = get_inspection_for(current_user, inspection_id)
    form = request.form.to_dict()
    data, errors = load_form(form, SubmitInSchema())
    status = 422
    if not errors:
        now, office = office_now(), current_office()
        _, error = _attempt(lambda: close_inspection(current_user, inspection, data, office, signer(office, now),
                                                     office_date(now), now, media_storage()))
        if error is None:
            return _back(inspection)
        errors, status = domain_errors(error), error.status
    return _inspection_page(inspection, status, errors={"submit": errors}, values={"submit": form})


@bp.route("/inspecciones/<int:inspection_id>/interrumpir", methods=["POST"])
@require_page(*STAFF)
def inspection_interrupt(inspection_id):
    """Interrupt an inspection that cannot be finished, with the reason; it gets no outcome."""
    inspection = get_inspection_for(current_user, inspection_id)
    data, errors = load_form(request.form, NoteSchema())
    status = 422
    if not errors:
        _, error = _attempt(lambda: interrupt_inspection(current_user, inspection, data["reason"], office_now()))
        if error is None:
            return _back(inspection)
        errors, status = domain_errors(error), error.status
    return _inspection_page(inspection, status, errors={"interrupt": errors},
                            values={"interrupt": request.form.to_dict()})


# --- deficiencies and detention (on the report) ----------------------------------------------------

def _deficiency_decision(deficiency_id: int, operation):
    deficiency = get_deficiency_for(current_user, deficiency_id)
    inspection = get_inspection_for(current_user, deficiency.inspection_id)
    data, errors = load_form(request.form, NoteSchema())
    status = 422
    if not errors:
        _, error = _attempt(lambda: operation(current_user, deficiency, data["reason"], office_now()))
        if error is None:
            return redirect(url_for(".inspection_report", inspection_id=inspection.id, _anchor=f"def-{deficiency.id}"))
        errors, status = domain_errors(error), error.status
    key = f"def-{deficiency.id}"
    return _inspection_page(inspection, status, errors={key: errors}, values={key: request.form.to_dict()})


@bp.route("/deficiencias/<int:deficiency_id>/subsanada", methods=["POST"])
@require_page("owner")
def deficiency_report_fixed(deficiency_id):
    """The owner reports a deficiency put right, with an optional photo; an inspector still has to close it."""
    upload = request.files.get("file")
    data = upload.read(photo_limits().max_bytes + 1) if upload and upload.filename else b""

    def report(actor, deficiency, reason, now):
        photo = None
        if data:
            processed = process_upload(data, photo_limits())
            photo = add_repair_evidence(actor, deficiency, str(uuid.uuid4()), processed, media_storage(), now)
        return report_fixed(actor, deficiency, reason, now, photo)

    return _deficiency_decision(deficiency_id, report)


@bp.route("/deficiencias/<int:deficiency_id>/cerrar", methods=["POST"])
@require_page("inspector")
def deficiency_close(deficiency_id):
    """An inspector closes a deficiency after verifying the repair."""
    return _deficiency_decision(deficiency_id, close_deficiency)


@bp.route("/inspecciones/<int:inspection_id>/detener", methods=["POST"])
@require_page(*STAFF)
def inspection_detain(inspection_id):
    """Detain the inspected vessel (art. 208), with the reason."""
    inspection = get_inspection_for(current_user, inspection_id)
    data, errors = load_form(request.form, DetentionInSchema())
    status = 422
    if not errors:
        _, error = _attempt(lambda: detain_vessel(current_user, inspection.vessel, data["reason"], office_now(),
                                                  inspection))
        if error is None:
            return redirect(url_for(".inspection_report", inspection_id=inspection.id, _anchor="detencion"))
        errors, status = domain_errors(error), error.status
    return _inspection_page(inspection, status, errors={"detain": errors}, values={"detain": request.form.to_dict()})
