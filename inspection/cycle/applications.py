"""Applications for inspection (art. 222), their fines (arts. 204, 225) and the owner's fleet at a glance.

Operations only flush; the request boundary commits. The rules are in cycle.py; this module loads the
records they need and keeps what they decide.
"""
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from flask import current_app
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload

from inspection.accounts.access import get_vessel_for, vessel_scope
from inspection.core.audit import record_event
from inspection.core.exceptions import Conflict, Forbidden, Invalid, NotFound
from inspection.core.extensions import db
from inspection.core.models import Application, Certificate, FineAssessment, Inspection, User, Vessel
from inspection.core.unique import add_unique
from inspection.cycle.billing import fine_json
from inspection.i18n.messages import Msg
from inspection.law.cycle import KINDS, Fine, apply_by, assess_application
from inspection.law.fees import fee_statement, inspection_fees
from inspection.law.legal_terms import hull_late_fine
from inspection.registry.needs import needs_of
from inspection.registry.vessels import particulars_of

APPLICANTS = ("admin", "inspector", "owner")  # staff file on an owner's behalf at the counter
WAIVERS = ("admin",)  # a fine is the Prefectura's decision, like revoking a certificate


# --- what a vessel needs ---------------------------------------------------------------------------

def current_certificate(vessel_id: int, kind: str) -> Certificate | None:
    """The vessel's certificate of `kind` that nothing has superseded (the one the next inspection renews)."""
    return db.session.scalar(db.select(Certificate).filter_by(vessel_id=vessel_id, kind=kind, superseded_by_id=None)
                             .order_by(Certificate.id.desc()).limit(1))


# --- applying --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Assessment:
    """What an application filed today would be: its deadline, lateness and fines, before anything is written."""

    vessel: Vessel
    kind: str
    port: str
    preferred_on: date
    applied_on: date
    certificate: Certificate | None
    apply_by: date | None
    late: bool
    fines: list[Fine]
    fees: dict  # the inspection's fee lines and total (arts. 209, 233), as fees.fee_statement gives them

    @property
    def owed(self) -> Decimal:
        """What filing it costs: the fees and its fines together (arts. 204, 209, 225, 233)."""
        return self.fees["total"] + sum((fine.amount for fine in self.fines), Decimal(0))


def _refuse_applicant(actor: User, vessel: Vessel) -> None:
    """Owners apply for their own vessels (another's is simply not found); police never apply."""
    if actor.role == "owner" and vessel.owner_id != actor.owner_id:
        raise NotFound()
    if actor.role not in APPLICANTS:
        raise Forbidden(Msg("Solo el armador o la Prefectura pueden solicitar una inspección."))


def preview_application(actor: User, vessel: Vessel, kind: str, port: str, preferred_on: date,
                        today: date) -> Assessment:
    """The assessment apply_for_inspection would record, shown to the owner before confirming; writes nothing."""
    _refuse_applicant(actor, vessel)
    if kind not in KINDS:
        raise Invalid(errors={"kind": [Msg("Tipo de inspección desconocido.")]})
    particulars = particulars_of(vessel)
    if kind not in needs_of(particulars):
        raise Invalid(errors={"kind": [Msg("El buque está exento de esta inspección (arts. 210, 211).")]})
    if preferred_on < today:
        raise Invalid(errors={"preferred_on": [Msg("La fecha preferida no puede ser anterior a hoy.")]})
    certificate = current_certificate(vessel.id, kind)
    valid_until = certificate.valid_until if certificate else None
    fees = fee_statement(inspection_fees(kind, particulars))
    late, fines = assess_application(kind, today, valid_until, fee=fees["total"], hull_fine=_hull_fine())
    if certificate is not None:  # "por cada vencimiento" (art. 204): an expiry already charged is not charged again
        charged = set(db.session.scalars(db.select(FineAssessment.code).filter_by(certificate_id=certificate.id)))
        fines = [fine for fine in fines if fine.code not in charged]
    return Assessment(vessel, kind, port, preferred_on, today, certificate,
                      apply_by(valid_until, kind) if valid_until else None, late, fines, fees)


def _hull_fine() -> Decimal:
    """The art. 204 amount this installation charges (BALIZA_HULL_LATE_FINE; none by default: the law names none)."""
    return hull_late_fine(current_app.config.get("HULL_LATE_FINE"))


def apply_for_inspection(actor: User, vessel: Vessel, kind: str, port: str, preferred_on: date,
                         today: date) -> Application:
    """File a solicitud de inspección dated `today` (the office's date) and record its fines with it.

    A second pending application of the same kind is refused; the schema's partial unique index
    settles two simultaneous ones.
    """
    assessment = preview_application(actor, vessel, kind, port, preferred_on, today)
    pending = db.session.scalar(db.select(Application.id).filter_by(vessel_id=vessel.id, kind=kind, status="pending"))
    if pending is not None:
        raise _pending_conflict(pending)
    application = Application(vessel=vessel, kind=kind, port=port, preferred_on=preferred_on, applied_on=today,
                              applied_by_id=actor.id, status="pending", late=assessment.late,
                              certificate_id=assessment.certificate.id if assessment.certificate else None,
                              apply_by=assessment.apply_by)
    for fine in assessment.fines:
        application.fines.append(FineAssessment(
            vessel_id=vessel.id, certificate_id=application.certificate_id, code=fine.code, source=fine.source,
            article=fine.article, amount=fine.amount, reason_es=fine.reason_es, reason_en=fine.reason_en,
            assessed_on=today))
    add_unique(application, lambda: _pending_conflict(None))
    record_event(actor, "application.filed", "application", application.id, details={
        "vessel_id": vessel.id, "kind": kind, "applied_on": today.isoformat(), "late": assessment.late,
        "fines": [{"article": f.article, "code": f.code, "amount": str(f.amount)} for f in assessment.fines]})
    return application


def file_application(actor: User, data: dict, today: date) -> Application:
    """apply_for_inspection for a validated body (ApplicationInSchema): the vessel the actor may see, else 404."""
    return apply_for_inspection(actor, get_vessel_for(actor, data["vessel_id"]), data["kind"], data["port"],
                                data["preferred_on"], today)


def _pending_conflict(application_id: int | None) -> Conflict:
    return Conflict(Msg("Ya hay una solicitud pendiente de este tipo para el buque."),
                    extra={"application_id": application_id} if application_id else None)


def get_fine(fine_id: int) -> FineAssessment:
    """A fine the Prefectura names (staff only reach it), or NotFound."""
    fine = db.session.get(FineAssessment, fine_id)
    if fine is None:
        raise NotFound()
    return fine


def waive_fine(actor: User, fine: FineAssessment, reason: str, now: datetime) -> FineAssessment:
    """Waive a fine with a reason (the Prefectura only; audited); the record stays."""
    if actor.role not in WAIVERS:
        raise Forbidden(Msg("Solo la Prefectura puede condonar una multa."))
    if not (reason or "").strip():
        raise Invalid(errors={"reason": [Msg("Indique el motivo de la condonación.")]})
    if fine.waived_at is not None:
        raise Conflict(Msg("La multa ya fue condonada."))
    fine.waived_at, fine.waived_by_id, fine.waived_reason = now, actor.id, reason.strip()
    record_event(actor, "fine.waived", "fine", fine.id, details={
        "article": fine.article, "amount": str(fine.amount), "vessel_id": fine.vessel_id, "reason": reason.strip()},
        at=now)
    return fine


def complete_applications(inspection: Inspection) -> None:
    """A certificate issued: the vessel's open applications of its kind are done, answered by this inspection."""
    for application in db.session.scalars(db.select(Application).filter_by(
            vessel_id=inspection.vessel_id, kind=inspection.kind).where(Application.status.in_(("pending", "scheduled")))):
        application.status, application.inspection_id = "done", inspection.id


def reopen_applications(inspection: Inspection) -> list[Application]:
    """A cancelled or interrupted inspection's applications ask for one again: pending and unassigned, so planning
    assigns them anew. One pending at a time (uq_applications_pending): where the vessel already has another
    pending application of the kind, that one asks for the same work and this one is closed as cancelled."""
    applications = db.session.scalars(db.select(Application).filter_by(inspection_id=inspection.id, status="scheduled")
                                      .order_by(Application.id)).all()
    for application in applications:
        try:
            with db.session.begin_nested():
                application.status, application.inspection_id = "pending", None
        except IntegrityError:  # restored as it was (still naming the cancelled inspection)
            application.status = "cancelled"
    return applications


# --- read models -----------------------------------------------------------------------------------

def applications_query(user: User):
    """Applications a user may list (owners their fleet's), newest first, with their fines in one more query."""
    query = (db.select(Application).join(Vessel, Vessel.id == Application.vessel_id)
             .options(selectinload(Application.fines), selectinload(Application.vessel))
             .order_by(Application.applied_on.desc(), Application.id.desc()))
    return vessel_scope(query, user)


def application_json(application, lang: str) -> dict:
    """An Application, or an Assessment (the preview), in the API's shape."""
    recorded = isinstance(application, Application)
    return {
        "id": application.id if recorded else None,
        "vessel_id": application.vessel.id, "registration": application.vessel.registration,
        "kind": application.kind, "port": application.port, "preferred_on": application.preferred_on,
        "applied_on": application.applied_on, "apply_by": application.apply_by, "late": application.late,
        "status": application.status if recorded else None,
        "inspection_id": application.inspection_id if recorded else None,
        "fines": [fine_json(fine, lang) for fine in application.fines],
    }




















