"""The planning board (/planificacion): what is pending, expiring and overdue, each inspector's week, and
assigning an application or waiving a fine in one form. Admins act; inspectors read."""
from flask import Blueprint, redirect, render_template, request, url_for
from flask_login import current_user

from inspection.accounts.access import get_vessel_for
from inspection.accounts.auth import require_page
from inspection.core.clock import office_now, office_today
from inspection.core.exceptions import DomainError, Invalid
from inspection.core.extensions import db
from inspection.core.models import User
from inspection.cycle.applications import get_fine, waive_fine
from inspection.cycle.schemas import ApplicationInSchema, WaiveInSchema
from inspection.i18n.language import localize
from inspection.i18n.messages import Msg
from inspection.planning.board import (
    ASSIGNERS,
    READERS,
    assign_application,
    assign_vessel,
    get_application_for,
    planning_board,
)
from inspection.planning.schemas import AssignInSchema
from inspection.web.forms import domain_errors, load_form

bp = Blueprint("planning", __name__)
PAGES = {"pending": "solicitudes", "expiring": "vencimientos", "overdue": "atrasados"}  # each list's page argument


def _board(status: int = 200, errors: dict | None = None, values: dict | None = None, target: str | None = None):
    """The board, with a refused form's errors and values shown beside the row `target` names."""
    pages = {key: max(1, request.args.get(arg, 1, type=int)) for key, arg in PAGES.items()}
    inspectors = []
    if current_user.role in ASSIGNERS:
        inspectors = db.session.scalars(db.select(User).filter_by(role="inspector", active=True)
                                        .order_by(User.full_name, User.username)).all()
    return render_template("planning/board.html", board=planning_board(office_today(), pages), pages=PAGES,
                           inspectors=inspectors, can_assign=current_user.role in ASSIGNERS,
                           errors=errors or {}, values=values or {}, target=target,
                           today=office_today()), status


def _done(operation, target: str, schema):
    """Validate the form, run one operation, commit once; a refusal comes back into the board at its row."""
    data, errors = load_form(request.form, schema)
    if errors:
        return _board(422, errors, request.form.to_dict(), target)
    try:
        operation(data)
        db.session.commit()
    except DomainError as error:
        db.session.rollback()
        return _board(error.status, domain_errors(error), request.form.to_dict(), target)
    return redirect(url_for(".board", **request.args))


def _inspector(data: dict) -> User:
    inspector = db.session.get(User, data["inspector_id"])
    if inspector is None:
        raise Invalid(errors={"inspector_id": [Msg("No existe ese inspector.")]})
    return inspector


@bp.route("/planificacion")
@require_page(*READERS)
def board():
    """The planning board for the authority's staff."""
    return _board()


@bp.route("/planificacion/solicitudes/<int:application_id>/asignar", methods=["POST"])
@require_page(*ASSIGNERS)
def assign(application_id):
    """Assign a pending application: inspector, date and port in one step."""
    application = get_application_for(current_user, application_id)
    return _done(lambda data: assign_application(current_user, application, _inspector(data), data["scheduled_on"],
                                                 data["port"], office_today()),
                 f"application-{application_id}", AssignInSchema())


@bp.route("/planificacion/buques/<int:vessel_id>/asignar", methods=["POST"])
@require_page(*ASSIGNERS)
def assign_unapplied(vessel_id):
    """For an expiring or overdue vessel with no application: file one on the owner's behalf and assign it."""
    vessel = get_vessel_for(current_user, vessel_id)
    kind = request.form.get("kind", "")
    kind_errors = ApplicationInSchema(only=("kind",)).validate({"kind": kind})
    if kind_errors:
        return _board(422, localize(kind_errors), request.form.to_dict(), f"vessel-{vessel_id}-{kind}")
    return _done(lambda data: assign_vessel(current_user, vessel, kind, _inspector(data), data["scheduled_on"],
                                            data["port"], office_today()),
                 f"vessel-{vessel_id}-{kind}", AssignInSchema())


@bp.route("/multas/<int:fine_id>/condonar", methods=["POST"])
@require_page("admin")
def waive(fine_id):
    """Waive a fine with its reason (audited)."""
    fine = get_fine(fine_id)
    return _done(lambda data: waive_fine(current_user, fine, data["reason"], office_now()), f"fine-{fine_id}",
                 WaiveInSchema())
