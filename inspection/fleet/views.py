"""The owner's fleet at a glance (where owners land) and applying for an inspection (art. 222) as pages.

Phone first. The fleet page reads the same read model as GET /api/v1/fleet; the application form
previews lateness and fines (arts. 204, 225) before confirming, and the confirmation carries a
client_id, so a form sent twice files one application (the API's once-only writes).
"""
import math
import uuid
from dataclasses import dataclass

from flask import Blueprint, redirect, render_template, request, url_for
from flask_login import current_user

from inspection.accounts.access import get_owner_for, get_vessel_for
from inspection.accounts.auth import require_page
from inspection.core.client_requests import once
from inspection.core.clock import office_today
from inspection.core.exceptions import DomainError, Forbidden, NotFound
from inspection.core.extensions import db, page_total
from inspection.core.models import APPLICATION_STATUSES, Application, Owner, Vessel
from inspection.cycle.applications import application_json, applications_query, file_application, preview_application
from inspection.cycle.schemas import ApplicationInSchema, ApplicationListQuery, ApplicationSchema, FleetQuery
from inspection.fleet.overview import fleet_of, fleet_query
from inspection.i18n.labels import TERMS
from inspection.i18n.language import current_language, localize
from inspection.i18n.messages import Msg
from inspection.law.cycle import KINDS
from inspection.registry.forms import with_vessel
from inspection.registry.vessels import vessel_label
from inspection.web.acts import report_done
from inspection.web.forms import domain_errors, list_args, load_form, sorted_by

bp = Blueprint("fleet", __name__)
APPLICANTS = ("admin", "inspector", "owner")  # as the API: staff file at the counter on an owner's behalf
FIELDS = ("vessel", "vessel_id", "kind", "port", "preferred_on")  # vessel: the typed registration or name


@dataclass(frozen=True)
class Page:
    """One page of a list for _pager.html: its number and the count of pages."""

    page: int
    pages: int

    has_prev = property(lambda self: self.page > 1)
    has_next = property(lambda self: self.page < self.pages)
    prev_num = property(lambda self: self.page - 1)
    next_num = property(lambda self: self.page + 1)


@bp.route("/flota")
@require_page(*APPLICANTS)
def fleet_page():
    """Each vessel's state, certificates, next inspection, deficiencies, what is owed, and what to do next."""
    args = list_args(FleetQuery())
    owner_id = args.get("owner_id")
    owner = get_owner_for(current_user, owner_id) if owner_id is not None else None  # another's: 404
    page, per_page = args["page"], args["per_page"]
    vessels = fleet_of(current_user, office_today(), owner_id, limit=per_page, offset=(page - 1) * per_page,
                       lang=current_language())
    total = page_total(page, per_page, len(vessels), lambda: db.session.scalar(
        db.select(db.func.count()).select_from(fleet_query(current_user, owner_id).subquery())))
    owners = [] if current_user.role == "owner" else db.session.scalars(db.select(Owner).order_by(Owner.name)).all()
    return render_template("fleet/fleet.html", vessels=vessels, owner=owner, owners=owners, total=total,
                           page=Page(page, max(1, math.ceil(total / per_page))), today=office_today())


@bp.route("/solicitudes")
@require_page(*APPLICANTS)
def application_list():
    """Applications for inspection, newest first (owners: their fleet's), with lateness and fines."""
    args = list_args(ApplicationListQuery())
    query = applications_query(current_user)
    for name in ("status", "kind"):
        if args.get(name):
            query = query.where(getattr(Application, name) == args[name])
    columns = {"applied_on": Application.applied_on, "preferred_on": Application.preferred_on,
               "vessel": Vessel.registration_key}
    found = db.paginate(sorted_by(query, args["sort"], columns, Application.id), page=args["page"],
                        per_page=args["per_page"], error_out=False)
    lang = current_language()
    return render_template("fleet/applications.html", page=found, args=args, statuses=APPLICATION_STATUSES,
                           kinds=KINDS, applications=[application_json(a, lang) for a in found.items],
                           filed=request.args.get("presentada", type=int))  # marked; the flash says it was filed


def _form(values: dict, errors: dict, status: int = 200):
    return render_template("fleet/apply.html", kinds=KINDS, values=values, errors=errors, today=office_today()), status


@bp.route("/solicitudes/nueva")
@require_page(*APPLICANTS)
def application_form():
    """The form, pre-filled from the fleet page (?vessel_id=&kind=); the port defaults to the home port."""
    values = {name: request.args.get(name, "") for name in FIELDS}
    if values["vessel_id"].isdigit():
        vessel = get_vessel_for(current_user, int(values["vessel_id"]))  # another owner's: 404
        values["port"] = values["port"] or vessel.home_port
        values["vessel"] = vessel_label(vessel)
    return _form(values, {})


def _posted(operation):
    """Validate the posted application with the API's schema, then `operation(data, values)`; a refusal comes
    back into the form in the user's language with the API's status (not found stays a 404)."""
    form, vessel_errors = with_vessel(request.form, current_user)
    values = {name: form.get(name, "") for name in FIELDS}
    data, errors = load_form(form, ApplicationInSchema())
    if errors or vessel_errors:
        return _form(values, {**errors, **vessel_errors}, 422)
    try:
        return operation(data, values)
    except DomainError as error:
        db.session.rollback()
        if isinstance(error, (NotFound, Forbidden)):
            raise
        return _form(values, domain_errors(error), error.status)


@bp.route("/solicitudes/vista-previa", methods=["POST"])
@require_page(*APPLICANTS)
def application_preview():
    """What applying today would record: apply_by, lateness and fines with their articles, before confirming."""

    def preview(data, values):
        vessel = get_vessel_for(current_user, data["vessel_id"])
        assessment = preview_application(current_user, vessel, data["kind"], data["port"], data["preferred_on"],
                                         office_today())
        return render_template("fleet/preview.html", assessment=assessment, values=values,
                               preview=application_json(assessment, current_language()), client_id=uuid.uuid4())

    return _posted(preview)


@bp.route("/solicitudes", methods=["POST"])
@require_page(*APPLICANTS)
def application_confirm():
    """File the application; the client_id of the preview makes a second submit return the first result."""
    actor, lang = current_user._get_current_object(), current_language()

    def confirm(data, values):
        def apply() -> dict:
            return ApplicationSchema().dump(application_json(file_application(actor, data, office_today()), lang))

        payload = {key: value for key, value in data.items() if key != "client_id"}
        # the same scope and body as POST /api/v1/applications, so the two faces share one record
        body, _, _ = once(actor, "application", data["client_id"], payload, apply, status=201)
        report_done(Msg("Solicitud de {kind} enviada para {registration}: la Prefectura asignará inspector y fecha.",
                        kind=localize(TERMS["kind"][body["kind"]]).lower(), registration=body["registration"]))
        return redirect(url_for(".application_list", presentada=body["id"], _anchor=f"solicitud-{body['id']}"), 303)

    return _posted(confirm)
