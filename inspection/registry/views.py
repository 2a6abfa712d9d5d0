"""Pages of the fleet registry: vessel list and detail, vessel and owner forms for admins."""
from flask import Blueprint, jsonify, redirect, render_template, request, url_for
from flask_login import current_user

from inspection.accounts.access import get_owner_for, get_vessel_for, owner_scope, vessel_scope
from inspection.accounts.auth import require_page
from inspection.core.exceptions import DomainError
from inspection.core.extensions import db
from inspection.core.models import (
    COOKING,
    FLAGS,
    HULLS,
    ITINERARY_CATEGORIES,
    PRACTICAJE,
    PROPULSIONS,
    SERVICES,
    Owner,
    Vessel,
)
from inspection.i18n.language import current_language
from inspection.law.tonnage import tonnage_formula
from inspection.registry.schemas import OwnerSchema, VesselListQuery, VesselSchema
from inspection.registry.vessel_checklists import CHECKLIST_KINDS, group_by_topic, law_coverage, vessel_checklist
from inspection.registry.vessels import (
    create_owner,
    create_vessel,
    filter_vessels,
    update_owner,
    update_vessel,
    vessel_label,
)
from inspection.i18n.messages import N_, Msg
from inspection.web.acts import report_done
from inspection.web.forms import domain_errors, list_args, load_form, sorted_by

bp = Blueprint("registry", __name__)
CHOICES = {"flag": FLAGS, "propulsion": PROPULSIONS, "service": SERVICES, "hull_material": HULLS, "cooking": COOKING,
           "itinerary_category": ITINERARY_CATEGORIES, "practicaje": PRACTICAJE}


@bp.route("/buques")
@require_page("admin", "inspector", "owner", "police")
def vessel_list():
    """Vessels with search and filters, paginated."""
    args = list_args(VesselListQuery())
    columns = {"registration": Vessel.registration_key, "name": Vessel.name, "propulsion": Vessel.propulsion,
               "service": Vessel.service, "gross_tonnage": Vessel.gross_tonnage}
    query = sorted_by(filter_vessels(vessel_scope(db.select(Vessel), current_user), args), args["sort"], columns,
                      Vessel.id)
    page = db.paginate(query, page=args["page"], per_page=args["per_page"], error_out=False)
    return render_template("vessels/list.html", page=page, args=args, choices=CHOICES)


SUGGESTIONS = 10


@bp.route("/buques/buscar")
@require_page("admin", "inspector", "owner")
def vessel_search():
    """The first vessels of one's scope whose registration or name contains ?q=, as JSON, for the forms'
    search boxes (static/js/vessel-search.js): the registry search, at most SUGGESTIONS."""
    args = {"q": request.args.get("q", "")[:200]}
    query = filter_vessels(vessel_scope(db.select(Vessel), current_user), args).order_by(Vessel.registration_key)
    vessels = db.session.scalars(query.limit(SUGGESTIONS)).all() if args["q"].strip() else []
    return jsonify({"items": [{"id": v.id, "label": vessel_label(v)} for v in vessels]})


@bp.route("/buques/<int:vessel_id>")
@require_page("admin", "inspector", "owner", "police")
def vessel_detail(vessel_id):
    """A vessel's particulars and its tonnage with the formula of art. 195."""
    vessel = get_vessel_for(current_user, vessel_id)
    length, beam, girth = (value.normalize() for value in (vessel.length_m, vessel.beam_m, vessel.girth_m))
    formula = tonnage_formula(length, beam, girth, vessel.hull_material, lang=current_language())
    return render_template("vessels/detail.html", vessel=vessel, formula=formula)


def _owners():
    return db.session.scalars(db.select(Owner).order_by(Owner.name)).all()


@bp.route("/buques/nuevo", methods=["GET", "POST"])
@require_page("admin")
def vessel_new():
    """Register a vessel."""
    return _vessel_form(None)


@bp.route("/buques/<int:vessel_id>/editar", methods=["GET", "POST"])
@require_page("admin")
def vessel_edit(vessel_id):
    """Edit a vessel's particulars."""
    return _vessel_form(get_vessel_for(current_user, vessel_id))


def _vessel_form(vessel):
    errors, values = {}, (VesselSchema().dump(vessel) if vessel else {})
    if request.method == "POST":
        values = request.form.to_dict()
        data, errors = load_form(request.form, VesselSchema())
        if not errors:
            try:
                done = N_("Buque {registration} actualizado.") if vessel else N_("Buque {registration} registrado.")
                vessel = update_vessel(vessel, data) if vessel else create_vessel(data)
                db.session.commit()
                report_done(Msg(done, registration=vessel.registration))
                return redirect(url_for("registry.vessel_detail", vessel_id=vessel.id))
            except DomainError as error:
                db.session.rollback()
                errors = domain_errors(error)
    status = 422 if errors else 200
    return render_template("vessels/form.html", vessel=vessel, values=values, errors=errors,
                           owners=_owners(), choices=CHOICES), status


@bp.route("/armadores")
@require_page("admin", "inspector", "owner")
def owner_list():
    """Owners (armadores)."""
    query = owner_scope(db.select(Owner), current_user).order_by(Owner.name)
    q = request.args.get("q", "").strip()
    if q:
        query = query.where(Owner.name.ilike(f"%{q}%") | Owner.tax_id.ilike(f"%{q}%"))
    page = db.paginate(query, page=request.args.get("page", 1, type=int), per_page=50, error_out=False)
    return render_template("owners/list.html", page=page, q=q)


@bp.route("/armadores/nuevo", methods=["GET", "POST"])
@require_page("admin")
def owner_new():
    """Register an owner."""
    return _owner_form(None)


@bp.route("/armadores/<int:owner_id>/editar", methods=["GET", "POST"])
@require_page("admin")
def owner_edit(owner_id):
    """Edit an owner."""
    return _owner_form(get_owner_for(current_user, owner_id))


def _owner_form(owner):
    errors, values = {}, (OwnerSchema().dump(owner) if owner else {})
    if request.method == "POST":
        values = request.form.to_dict()
        data, errors = load_form(request.form, OwnerSchema())
        if not errors:
            try:
                done = N_("Armador {name} actualizado.") if owner else N_("Armador {name} registrado.")
                owner = update_owner(owner, data) if owner else create_owner(data)
                db.session.commit()
                report_done(Msg(done, name=owner.name))
                return redirect(url_for("registry.owner_list"))
            except DomainError as error:
                db.session.rollback()
                errors = domain_errors(error)
    status = 422 if errors else 200
    return render_template("owners/form.html", owner=owner, values=values, errors=errors), status


# The law's checklists as pages: one vessel's, grouped by topic, and the coverage of the law's articles.
checklists_bp = Blueprint("checklists", __name__)




@checklists_bp.route(f"/buques/<int:vessel_id>/listas/<any({', '.join(CHECKLIST_KINDS)}):kind>")
@require_page("admin", "inspector", "owner", "police")
def vessel_checklist_page(vessel_id, kind):
    """A vessel's checklist of one kind (owners only their own vessels'; 404 otherwise)."""
    vessel = get_vessel_for(current_user, vessel_id)
    checklist = vessel_checklist(vessel, kind, current_language())
    return render_template("checklists/vessel.html", vessel=vessel, kind=kind, kinds=CHECKLIST_KINDS,
                           checklist=checklist, groups=group_by_topic(checklist["items"]))


@checklists_bp.route("/listas/cobertura")
@require_page("admin")
def coverage_page():
    """Per text and article: the items covering it or why it is left out; each checklist's version."""
    return render_template("checklists/coverage.html", **law_coverage())
