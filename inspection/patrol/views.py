"""Patrol checks as pages (issue 23): the list each role may see and one check, for staff reading a retention's
notice, police looking back at their unit's work and owners at what patrols found on their vessels."""
from flask import Blueprint, jsonify, render_template, request
from flask_login import current_user
from sqlalchemy.orm import selectinload

from inspection.accounts.access import get_vessel_for, patrol_scope, vessel_scope
from inspection.accounts.auth import require_page
from inspection.core.exceptions import NotFound
from inspection.core.extensions import db
from inspection.core.models import PATROL_OUTCOMES, PatrolCheck, Vessel
from inspection.i18n.language import current_language
from inspection.i18n.messages import Msg
from inspection.patrol.checks import check_view, get_check_for, photos_of, vessel_of_token
from inspection.patrol.kit import craft_types, lists_for, patrol_kit
from inspection.registry.vessels import filter_vessels, particulars_of, vessel_label
from inspection.web.pwa import SCRIPTS, tablet_page

bp = Blueprint("patrol", __name__)
PER_PAGE = 30


@bp.route("/patrullas")
@require_page()
def check_list():
    """The patrol checks the user may see, newest first (owners: their vessels' closed ones)."""
    query = (db.select(PatrolCheck).options(selectinload(PatrolCheck.answers))
             .order_by(PatrolCheck.checked_at.desc(), PatrolCheck.id.desc()))
    page = db.paginate(patrol_scope(query, current_user), page=request.args.get("page", 1, type=int),
                       per_page=PER_PAGE, error_out=False)
    lang = current_language()
    return render_template("patrol/list.html", page=page, checks=[check_view(c, [], lang) for c in page.items])


@bp.route("/patrullas/<int:check_id>")
@require_page()
def check_page(check_id):
    """One patrol check: the craft, where and when, each item with its article and answer, the outcome, photos."""
    check = get_check_for(current_user, check_id)
    view = check_view(check, photos_of([check.id])[check.id], current_language())
    answers = {a.item_id: a for a in check.answers}
    return render_template("patrol/check.html", check=view, answers=answers, officer=check.officer)


# --- the police phone (issue 23): a shell the device fills from its store, and what it asks with signal ---------

SUGGESTIONS = 8
PHONE_SCRIPTS = SCRIPTS + ("js/patrol/phone.js", "js/patrol/flow.js", "js/verdicts.js")


@bp.route("/patrulla")
@require_page("police")
def phone():
    """The officer's patrol check on the phone: works offline (static/sw.js keeps it), with the lists of every
    vessel the officer may see; a verifier's verdict opens it with the scanned token (?t=, &verdict=, &age=)."""
    vessels = db.session.scalars(vessel_scope(db.select(Vessel), current_user).order_by(Vessel.registration_key)).all()
    return tablet_page("patrol/phone.html", scripts=PHONE_SCRIPTS, kit=patrol_kit(vessels), craft_types=craft_types(),
                       outcomes=PATROL_OUTCOMES)


@bp.route("/patrulla/buques")
@require_page("police")
def vessel_matches():
    """The first registered vessels whose registration or name contains ?q=, as JSON, for the phone's search."""
    args = {"q": request.args.get("q", "")[:200]}
    query = filter_vessels(vessel_scope(db.select(Vessel), current_user), args).order_by(Vessel.registration_key)
    vessels = db.session.scalars(query.limit(SUGGESTIONS)).all() if args["q"].strip() else []
    return jsonify({"items": [{"id": v.id, "label": vessel_label(v)} for v in vessels]})


@bp.route("/patrulla/listas")
@require_page("police")
def vessel_lists():
    """A registered vessel's patrol lists (?vessel_id=, or ?t= its certificate's scanned token), as JSON."""
    vessel_id = request.args.get("vessel_id", type=int)
    if vessel_id is None and request.args.get("t"):
        vessel_id = vessel_of_token(request.args["t"][:4000])
    if vessel_id is None:
        raise NotFound(Msg("No se encontró el buque: búsquelo por su matrícula."))
    vessel = get_vessel_for(current_user, vessel_id)
    return jsonify({"vessel": {"id": vessel.id, "label": vessel_label(vessel)}, "lists": lists_for(particulars_of(vessel))})
