"""The planning board (/planificacion): what is pending, expiring and overdue, each inspector's week, and
assigning an application or waiving a fine in one form. Admins act; inspectors read."""
from flask import Blueprint, redirect, render_template, request, url_for
from flask_login import current_user

from inspection.accounts.access import get_vessel_for
from inspection.accounts.auth import require_page
from inspection.core.clock import office_now, office_today
from inspection.core.exceptions import DomainError, Invalid
from inspection.core.extensions import db
from inspection.core.models import Application, FineAssessment, User, Vessel
from inspection.cycle.applications import get_fine, waive_fine
from inspection.cycle.schemas import ApplicationInSchema, WaiveInSchema
from inspection.i18n.labels import TERMS
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
from inspection.web.acts import ask_confirmation, confirmed, report_done
from inspection.web.forms import domain_errors, load_form

bp = Blueprint("planning", __name__)
PAGES = {"pending": "solicitudes", "expiring": "vencimientos", "overdue": "atrasados"}  # each list's page argument


def _board(status: int = 200, errors: dict | None = None, values: dict | None = None, target: str | None = None):
    """The board, with a refused form's errors and values shown beside the row `target` names."""
    pages = {key: max(1, request.args.get(arg, 1, type=int)) for key, arg in PAGES.items()}
    board = planning_board(office_today(), pages)
    inspectors = [row["inspector"] for row in board["load"]["rows"]] if current_user.role in ASSIGNERS else []
    return render_template("planning/board.html", board=board, pages=PAGES,
                           inspectors=inspectors, can_assign=current_user.role in ASSIGNERS,
                           errors=errors or {}, values=values or {}, target=target,
                           today=office_today()), status


def _done(operation, target: str, schema, report, taken=lambda: None, ask=None):
    """Validate the form, ask first where `ask` is given, run one operation, commit once and say what it did
    (`report(data)`, a Msg). A refusal comes back into the board at its row; where the row no longer offers the
    act (`taken()` says why: someone else assigned or waived it meanwhile) that is said atop the board instead."""
    data, errors = load_form(request.form, schema)
    if errors:
        return _board(422, errors, request.form.to_dict(), target)
    if ask is not None and taken() is None and not confirmed():
        return ask()
    try:
        operation(data)
        db.session.commit()
    except DomainError as error:
        db.session.rollback()
        why = taken()
        if why is not None:
            report_done(why, "warn")
            return redirect(url_for(".board", **request.args))
        return _board(error.status, domain_errors(error), request.form.to_dict(), target)
    report_done(report(data))
    return redirect(url_for(".board", **request.args))


def _assigned(vessel: Vessel, kind: str):
    """What an assignment says it did: which inspection, to whom, when and where."""
    def report(data: dict) -> Msg:
        inspector = db.session.get(User, data["inspector_id"])
        return Msg("Inspección de {kind} de {registration} asignada a {inspector} para el {day} en {port}.",
                   kind=localize(TERMS["kind"][kind]).lower(), registration=vessel.registration,
                   inspector=inspector.full_name or inspector.username, day=data["scheduled_on"], port=data["port"])
    return report


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
                 f"application-{application_id}", AssignInSchema(), _assigned(application.vessel, application.kind),
                 taken=lambda: None if db.session.get(Application, application_id).status == "pending" else Msg(
                     "La solicitud de {registration} ya no está pendiente: nada cambió.",
                     registration=application.vessel.registration))


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
                 f"vessel-{vessel_id}-{kind}", AssignInSchema(), _assigned(vessel, kind))


@bp.route("/multas/<int:fine_id>/condonar", methods=["POST"])
@require_page("admin")
def waive(fine_id):
    """Waive a fine with its reason (audited), after asking: a waiver cannot be undone."""
    fine = get_fine(fine_id)
    registration = db.session.get(Vessel, fine.vessel_id).registration
    return _done(lambda data: waive_fine(current_user, fine, data["reason"], office_now()), f"fine-{fine_id}",
                 WaiveInSchema(),
                 lambda data: Msg("Multa del art. {article} de {registration} condonada.", article=fine.article,
                                  registration=registration),
                 taken=lambda: None if db.session.get(FineAssessment, fine_id).waived_at is None else Msg(
                     "La multa del art. {article} de {registration} ya estaba condonada: nada cambió.",
                     article=fine.article, registration=registration),
                 ask=lambda: ask_confirmation(
                     Msg("¿Condonar la multa del art. {article} de {registration}?", article=fine.article,
                         registration=registration),
                     Msg("La condonación no se puede deshacer: la multa queda condonada para siempre, con este motivo "
                         "y a su nombre."),
                     Msg("Sí, condonar la multa"), url_for(".board", **request.args, _anchor=f"fine-{fine_id}")))
