"""Inspection pages for the office: list and schedule, a read-only view while it runs, the report and its follow-up.

The assigned inspector works on the tablet screen (views/tablet.py, static/js/tablet), which writes
through the API. Each POST here validates with the API's schema, calls one operation, commits once
and redirects; a domain refusal comes back into the same page, in the user's language, with its own
status code.
"""
import uuid
from datetime import datetime

from flask import Blueprint, Response, redirect, render_template, request, url_for
from flask_login import current_user
from marshmallow import ValidationError
from sqlalchemy.orm import aliased, contains_eager, joinedload

from inspection.accounts.access import get_deficiency_for, get_vessel_for, vessel_scope
from inspection.accounts.auth import require_page
from inspection.certificates.operations import inspection_certificate
from inspection.core.clock import office_now, office_today, office_zone, zone_city
from inspection.core.exceptions import DomainError, Invalid, NotFound
from inspection.core.extensions import db
from inspection.core.models import (
    ACTIONS,
    DEFICIENCY_STATUSES,
    INSPECTION_STATUSES,
    KINDS,
    RESULTS,
    Deficiency,
    Detention,
    Inspection,
    User,
    Vessel,
)
from inspection.core.office import current_office
from inspection.cycle.billing import charges_of
from inspection.documents.exports import csv_response, streamed
from inspection.i18n.formats import format_moment
from inspection.i18n.labels import standing_key
from inspection.i18n.language import current_language, gettext, localize, restriction, term
from inspection.i18n.messages import Msg
from inspection.inspections.operations import (
    DEFICIENCY_DUES,
    add_repair_evidence,
    cancel_inspection,
    close_deficiency,
    deficiency_list,
    detain_vessel,
    filter_inspections,
    get_detention,
    get_inspection_for,
    inspection_scope,
    interrupt_inspection,
    lift_detention,
    open_detention_of,
    photos_of,
    report_fixed,
    schedule_inspection,
)
from inspection.inspections.reports import fee_statement_pdf, inspection_detail, pdf_headers, photo_stamps, report_pdf
from inspection.inspections.schemas import (
    DeficiencyQuery,
    DetentionInSchema,
    InspectionCreateSchema,
    InspectionListQuery,
)
from inspection.media.configured import PhotoRefused, media_storage, photo_limits, process_upload, refuse_oversize
from inspection.registry.forms import typed_vessel, with_vessel
from inspection.registry.vessel_checklists import deficiency_items, group_by_topic, localized_description, localized_item
from inspection.registry.vessels import vessel_label
from inspection.web.acts import ask_confirmation, confirmed, report_done
from inspection.web.forms import domain_errors, list_args, load_form, sorted_by
from inspection.web.pwa import tablet_page
from inspection.web.schemas import NoteSchema

bp = Blueprint("inspections", __name__)
READERS = ("admin", "inspector", "owner", "reviewer")  # police see no inspections, as in the API
STAFF = ("admin", "inspector")

CHOICES = {"kind": KINDS, "status": INSPECTION_STATUSES, "result": RESULTS, "action": ACTIONS}


bp.app_template_global("term")(term)
bp.app_template_global("restriction")(restriction)
bp.app_template_global("standing_key")(standing_key)


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
    raw = {k: v for k, v in request.args.items() if v != "" and k not in ("lang", "programar", "vessel")}
    typed, vessel_errors = request.args.get("vessel", "").strip(), {}
    if typed and "vessel_id" not in raw:  # the filter's search box: a registration or name, resolved here
        vessel, messages = typed_vessel(typed, current_user)
        if vessel is None:
            vessel_errors = {"vessel": messages}
        else:
            raw["vessel_id"] = str(vessel.id)
    try:
        return InspectionListQuery().load(raw), vessel_errors
    except ValidationError as error:
        kept = {k: v for k, v in raw.items() if k not in error.messages}
        reported = {k: v for k, v in error.messages.items() if k != "sort"}  # an unknown order: the default, silently
        return InspectionListQuery().load(kept), {**localize(reported), **vessel_errors}


def _sorted(query, args: dict):
    """The list in the order the page asks (filter_inspections' own is newest date first), ties by number."""
    vessel, inspector = aliased(Vessel), aliased(User)  # the CSV's query joins the tables themselves
    columns = {"scheduled_on": Inspection.scheduled_on, "kind": Inspection.kind, "port": Inspection.port,
               "status": Inspection.status,
               "vessel": db.select(vessel.registration_key).where(vessel.id == Inspection.vessel_id).scalar_subquery(),
               "inspector": db.select(db.func.coalesce(inspector.full_name, inspector.username))
               .where(inspector.id == Inspection.inspector_id).scalar_subquery()}
    return sorted_by(query, args["sort"], columns, Inspection.id)


def _label_of(vessel_id) -> str:
    """A linked vessel (?vessel_id=) as its search box shows it; another owner's is not found (404)."""
    return vessel_label(get_vessel_for(current_user, int(vessel_id))) if str(vessel_id or "").isdigit() else ""


def _list_page(values: dict, errors: dict, status: int = 200, open_id: int | None = None):
    args, filter_errors = _query_args()
    query = _sorted(filter_inspections(inspection_scope(db.select(Inspection), current_user), args), args).options(
        joinedload(Inspection.vessel), joinedload(Inspection.inspector))
    page = db.paginate(query, page=args["page"], per_page=args["per_page"], error_out=False)
    inspectors = []
    if current_user.role == "inspector":
        inspectors = [current_user]  # an inspector schedules only for themselves
    elif current_user.role == "admin":
        inspectors = db.session.scalars(db.select(User).filter_by(role="inspector", active=True)
                                        .order_by(User.full_name, User.username)).all()
    linked = _label_of(args.get("vessel_id"))
    defaults = {"scheduled_on": office_today().isoformat(), "inspector_id": str(current_user.id),
                "vessel": linked, "kind": request.args.get("kind", "")}
    return render_template("inspections/list.html", page=page, args=args, filter_errors=filter_errors,
                           vessel_filter=request.args.get("vessel") or linked, inspectors=inspectors,
                           choices=CHOICES, values={**defaults, **values}, errors=errors, open_id=open_id), status


@bp.route("/inspecciones")
@require_page(*READERS)
def inspection_list():
    """Inspections by date with filters, scoped like the API; staff also get the scheduling form."""
    return _list_page({}, {})


@bp.route("/inspecciones.csv")
@require_page(*READERS)
def inspection_csv():
    """The inspection list with the page's filters, as CSV streamed from the cursor."""
    args, _ = _query_args()
    query = filter_inspections(vessel_scope(  # READERS: no police; the owner's scope on the joined vessel
        db.select(Inspection.id, Inspection.scheduled_on, Inspection.kind, Inspection.status, Inspection.outcome,
                  Inspection.port, Vessel.registration, Vessel.name, User.full_name, User.username)
        .join(Vessel, Vessel.id == Inspection.vessel_id).join(User, User.id == Inspection.inspector_id),
        current_user), args)
    header = [gettext("Número"), gettext("Fecha"), gettext("Matrícula"), gettext("Buque"), gettext("Tipo"),
              gettext("Inspector"), gettext("Puerto"), gettext("Estado"), gettext("Resultado")]
    rows = ((row.id, row.scheduled_on.isoformat(), row.registration, row.name, row.kind, row.full_name or row.username,
             row.port, row.status, row.outcome) for row in streamed(_sorted(query, args), db.session))
    return csv_response(f"inspecciones-{office_today().isoformat()}.csv", header, rows)


@bp.route("/inspecciones", methods=["POST"])
@require_page(*STAFF)
def inspection_schedule():
    """Schedule an inspection (admins for any inspector, inspectors for themselves)."""
    values, vessel_errors = with_vessel(request.form, current_user)
    data, errors = load_form(values, InspectionCreateSchema())
    if errors or vessel_errors:
        return _list_page(values, {**errors, **vessel_errors}, 422)

    def schedule():
        vessel = get_vessel_for(current_user, data["vessel_id"])
        inspector = db.session.get(User, data["inspector_id"])
        if inspector is None:
            raise Invalid(errors={"inspector_id": [Msg("No existe ese inspector.")]})
        return schedule_inspection(current_user, vessel, data["kind"], inspector, data["scheduled_on"],
                                   data["port"], office_today())

    inspection, error = _attempt(schedule)
    if error:
        # the vessel's open inspection of the kind is linked: there it is done, or cancelled if booked wrong
        return _list_page(values, domain_errors(error), error.status, error.extra.get("inspection_id"))
    report_done(Msg("Inspección n.º {id} programada para el {on}.", id=inspection.id, on=inspection.scheduled_on))
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
    stamps = photo_stamps(inspection, photos_of(inspection), current_language(), office_zone())
    return {"detail": detail, "groups": group_by_topic(detail["items"]), "photos_by_item": photos_by_item,
            "stamps": stamps,
            "missing_by_item": missing_by_item, "answered": len(detail["items"]) - len(unanswered),
            "unanswered": unanswered,
            "item_titles": {item["id"]: item["title"] for item in detail["items"]},
            # interrupting or cancelling: the assigned inspector or an admin (operations.py decides again)
            "can_stop": current_user.id == inspection.inspector_id or current_user.role == "admin"}


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
    certificate = inspection_certificate(inspection.id)
    state.setdefault("errors", {})
    state["open_detention"] = open_detention_of(inspection.vessel_id)  # this inspection's or another decision's
    state.setdefault("values", {})
    return render_template("inspections/report.html", inspection=inspection, detentions=detentions,
                           certificate=certificate, fees=charges_of(inspection, current_language()),
                           limits=photo_limits(), **_view_model(inspection),
                           **state), status


@bp.route("/inspecciones/<int:inspection_id>")
@require_page(*READERS)
def inspection_page(inspection_id):
    """The assigned inspector's tablet screen until it is closed; a read-only view for others; then the report."""
    inspection = get_inspection_for(current_user, inspection_id)
    if inspection.status in ("scheduled", "in_progress") and current_user.id == inspection.inspector_id:
        return tablet_page("tablet/inspection.html")
    return _inspection_page(inspection)


@bp.route("/inspecciones/<int:inspection_id>/informe")
@require_page(*READERS)
def inspection_report(inspection_id):
    """The printable report of a closed inspection (the work page until then)."""
    inspection = get_inspection_for(current_user, inspection_id)
    if inspection.status != "submitted":
        return redirect(url_for(".inspection_page", inspection_id=inspection.id))
    return _report_page(inspection)


@bp.route("/inspecciones/<int:inspection_id>/informe.pdf")
@require_page(*READERS)
def inspection_report_pdf(inspection_id):
    """The closed inspection's report as a PDF, in the page's language (?lang=en, else the user's choice)."""
    inspection = get_inspection_for(current_user, inspection_id)
    data = report_pdf(inspection, current_language(), media_storage(), current_office().name, office_zone())
    return Response(data, mimetype="application/pdf", headers=pdf_headers(inspection, "informe"))


@bp.route("/inspecciones/<int:inspection_id>/aranceles.pdf")
@require_page(*READERS)
def inspection_fees_pdf(inspection_id):
    """The inspection's fee statement as a PDF: both printed figures per line, fines and what is owed."""
    inspection = get_inspection_for(current_user, inspection_id)
    data = fee_statement_pdf(inspection, current_language(), current_office().name, office_zone())
    return Response(data, mimetype="application/pdf", headers=pdf_headers(inspection, "aranceles"))


def _back(inspection: Inspection, anchor: str | None = None):
    return redirect(url_for(".inspection_page", inspection_id=inspection.id, _anchor=anchor))


# What each act on these pages asks before it acts (only where it cannot be undone) and says after.
ASK = {
    "cancel": (Msg("¿Cancelar la inspección n.º {id}?"),
               Msg("La cancelación no se deshace: la inspección queda cancelada con el motivo y la solicitud que "
                   "atendía vuelve a quedar pendiente."), Msg("Sí, cancelar la inspección")),
    "interrupt": (Msg("¿Interrumpir la inspección n.º {id}?"),
                  Msg("La interrupción no se deshace: la inspección queda sin resultado con lo respondido hasta "
                      "ahora, y habrá que programar otra."), Msg("Sí, interrumpir la inspección")),
    "close": (Msg("¿Cerrar la deficiencia «{title}»?"),
              Msg("El cierre no se deshace: la deficiencia queda verificada y cerrada con su nota."),
              Msg("Sí, cerrar la deficiencia")),
}
DONE = {"cancel": Msg("Inspección n.º {id} cancelada."), "interrupt": Msg("Inspección n.º {id} interrumpida."),
        "close": Msg("Deficiencia «{title}» cerrada."),
        "report": Msg("Deficiencia «{title}» informada subsanada; un inspector la verificará.")}


def _ask(act: str, back_url: str, **params):
    """The confirmation page of an act that cannot be undone."""
    question, consequence, button = ASK[act]
    return ask_confirmation(Msg(question.template, **params), consequence, button, back_url)


def _inspection_decision(inspection_id: int, key: str, operation):
    """A decision with a reason on the inspection, asked once: back to its page saying so; bad input at form `key`,
    a refusal atop it."""
    inspection = get_inspection_for(current_user, inspection_id)
    data, errors = load_form(request.form, NoteSchema())
    values = {key: request.form.to_dict()}
    if errors:
        return _inspection_page(inspection, 422, errors={key: errors}, values=values)
    if not confirmed():
        return _ask(key, url_for(".inspection_page", inspection_id=inspection.id), id=inspection.id)
    _, error = _attempt(lambda: operation(current_user, inspection, data["reason"], office_now()))
    if error is None:
        report_done(Msg(DONE[key].template, id=inspection.id))
        return _back(inspection)
    # the form may be gone by now (an inspection started meanwhile is interrupted, no longer cancelled)
    return _inspection_page(inspection, error.status, errors=_placed(error, key), values=values)


@bp.route("/inspecciones/<int:inspection_id>/interrumpir", methods=["POST"])
@require_page(*STAFF)
def inspection_interrupt(inspection_id):
    """Interrupt an inspection that cannot be finished, with the reason; it gets no outcome."""
    return _inspection_decision(inspection_id, "interrupt", interrupt_inspection)


@bp.route("/inspecciones/<int:inspection_id>/cancelar", methods=["POST"])
@require_page(*STAFF)
def inspection_cancel(inspection_id):
    """Cancel a scheduled inspection booked wrong, with the reason; its page then shows when and why."""
    return _inspection_decision(inspection_id, "cancel", cancel_inspection)


# --- deficiencies and detention (on the report) ----------------------------------------------------

def _deficiency_decision(deficiency_id: int, act: str, operation):
    """A deficiency's follow-up with a note, from the report: asked once where it cannot be undone, said after; bad
    input and refusals come back at the deficiency with the note as typed (a refused photo at its field)."""
    deficiency = get_deficiency_for(current_user, deficiency_id)
    inspection = get_inspection_for(current_user, deficiency.inspection_id)
    key = f"def-{deficiency.id}"
    title = _deficiency_title(inspection, deficiency)
    data, errors = load_form(request.form, NoteSchema())
    status = 422
    if not errors:
        if act in ASK and not confirmed():
            return _ask(act, url_for(".inspection_report", inspection_id=inspection.id, _anchor=key), title=title)
        _, error = _attempt(lambda: operation(current_user, deficiency, data["reason"], office_now()))
        if error is None:
            report_done(Msg(DONE[act].template, title=title))
            return redirect(url_for(".inspection_report", inspection_id=inspection.id, _anchor=key))
        photo = isinstance(error, PhotoRefused) or error.status in (413, 415)
        errors = {"file": [localize(error.detail or error.title)]} if photo else domain_errors(error)
        status = error.status
    return _inspection_page(inspection, status, errors={key: errors}, values={key: request.form.to_dict()})


def _deficiency_title(inspection: Inspection, deficiency) -> str:
    """The deficiency as its report names it: the pinned item's title in the reader's language, else its description."""
    pinned = next((item for item in inspection.items or () if item["id"] == deficiency.item_id), None)
    return localized_item(pinned, current_language())["title"] if pinned else deficiency.description


def _photo_of(upload, limits) -> bytes:
    """The uploaded photo's bytes; one over the limit is refused naming its size and the limit, before it is read."""
    upload.stream.seek(0, 2)
    refuse_oversize(upload.stream.tell(), limits)
    upload.stream.seek(0)
    return upload.read()


@bp.route("/deficiencias/<int:deficiency_id>/subsanada", methods=["POST"])
@require_page("owner")
def deficiency_report_fixed(deficiency_id):
    """The owner reports a deficiency put right, with an optional photo; an inspector still has to close it."""
    upload = request.files.get("file")

    def report(actor, deficiency, reason, now):
        photo = None
        if upload and upload.filename:
            limits = photo_limits()
            processed = process_upload(_photo_of(upload, limits), limits)
            photo = add_repair_evidence(actor, deficiency, str(uuid.uuid4()), processed, media_storage(), now)
        return report_fixed(actor, deficiency, reason, now, photo)

    return _deficiency_decision(deficiency_id, "report", report)


@bp.route("/deficiencias/<int:deficiency_id>/cerrar", methods=["POST"])
@require_page("inspector")
def deficiency_close(deficiency_id):
    """An inspector closes a deficiency after verifying the repair (asked once: it cannot be undone)."""
    return _deficiency_decision(deficiency_id, "close", close_deficiency)


def _detention_answer(inspection: Inspection, key: str, schema, act, done: Msg):
    """Detain or lift from the report (reversible, so not asked): back to the detention saying so, or the page with
    the refusal at the form and the reason as typed."""
    data, errors = load_form(request.form, schema)
    status = 422
    if not errors:
        _, error = _attempt(lambda: act(data))
        if error is None:
            report_done(done)
            return redirect(url_for(".inspection_report", inspection_id=inspection.id, _anchor="detencion"))
        errors, status = domain_errors(error), error.status
    return _inspection_page(inspection, status, errors={key: errors}, values={key: request.form.to_dict()})


@bp.route("/inspecciones/<int:inspection_id>/detener", methods=["POST"])
@require_page(*STAFF)
def inspection_detain(inspection_id):
    """Detain the inspected vessel (art. 208), with the reason."""
    inspection = get_inspection_for(current_user, inspection_id)
    return _detention_answer(
        inspection, "detain", DetentionInSchema(),
        lambda data: detain_vessel(current_user, inspection.vessel, data["reason"], office_now(), inspection),
        Msg("Buque {registration} detenido (art. 208).", registration=inspection.vessel.registration))


@bp.route("/inspecciones/<int:inspection_id>/detenciones/<int:detention_id>/levantar", methods=["POST"])
@require_page(*STAFF)
def detention_lift(inspection_id, detention_id):
    """Lift the vessel's detention shown on the report, with the reason (the API's lift, from the page)."""
    inspection = get_inspection_for(current_user, inspection_id)
    detention = get_detention(detention_id)
    if detention.vessel_id != inspection.vessel_id:
        raise NotFound()
    return _detention_answer(
        inspection, "lift", NoteSchema(),
        lambda data: lift_detention(current_user, detention, data["reason"], office_now()),
        Msg("Detención del buque {registration} levantada.", registration=inspection.vessel.registration))


# --- the deficiency list --------------------------------------------------------------------------

def _deficiency_args() -> tuple[dict, dict]:
    """The deficiency list's query arguments, the vessel box (?vessel=) resolved to vessel_id, and its error."""
    args, typed = list_args(DeficiencyQuery(), skip=("lang", "vessel")), request.args.get("vessel", "").strip()
    if typed and not args.get("vessel_id"):
        vessel, messages = typed_vessel(typed, current_user)
        if vessel is None:
            return args, {"vessel": messages}
        args["vessel_id"] = vessel.id
    return args, {}


@bp.route("/deficiencias")
@require_page(*READERS)
def deficiency_list_page():
    """The deficiencies to follow up (owners: their fleet's), searched, filtered and sorted as the API lists them;
    each links to its place on the report, where the owner reports it put right and an inspector closes it."""
    args, filter_errors = _deficiency_args()
    today, lang = office_today(), current_language()
    query = deficiency_list(current_user, args, today).options(contains_eager(Deficiency.vessel))
    page = db.paginate(query, page=args["page"], per_page=args["per_page"], error_out=False)
    titled = deficiency_items(page.items) if lang != "es" else {}
    rows = [{"d": d, "title": localized_description(d.description, titled.get((d.inspection_id, d.item_id)), lang),
             "overdue": d.overdue_on(today)} for d in page.items]
    return render_template("inspections/deficiencies.html", page=page, rows=rows, args=args,
                           filter_errors=filter_errors, statuses=DEFICIENCY_STATUSES, dues=DEFICIENCY_DUES,
                           vessel_filter=request.args.get("vessel") or _label_of(args.get("vessel_id")))


@bp.route("/deficiencias.csv")
@require_page(*READERS)
def deficiency_csv():
    """The deficiency list as CSV with the page's search, filters and order, streamed; titles in the page's language
    (the pinned items looked up once per batch of rows)."""
    args, _ = _deficiency_args()
    today, lang = office_today(), current_language()
    query = deficiency_list(current_user, args, today, Deficiency.id, Deficiency.inspection_id, Deficiency.item_id,
                            Deficiency.description, Deficiency.source, Deficiency.article, Deficiency.action,
                            Deficiency.due_on, Deficiency.status, Vessel.registration, Vessel.name)
    header = [gettext("Número"), gettext("Matrícula"), gettext("Buque"), gettext("Deficiencia"), gettext("Norma"),
              gettext("Artículo"), gettext("Acción"), gettext("Plazo"), gettext("Estado"), gettext("Inspección")]

    def rows():
        for batch in _batches(streamed(query, db.session), 500):
            titled = deficiency_items(batch) if lang != "es" else {}
            for row in batch:
                yield (row.id, row.registration, row.name,
                       localized_description(row.description, titled.get((row.inspection_id, row.item_id)), lang),
                       row.source, row.article, row.action, row.due_on.isoformat() if row.due_on else "", row.status,
                       row.inspection_id)

    return csv_response(f"deficiencias-{today.isoformat()}.csv", header, rows())


def _batches(rows, size: int):
    """`rows` in lists of at most `size`."""
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
