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

from .access import vessel_scope
from .audit import record_event
from .certificates import derive_status, facts_of, status_facts_query
from .cycle import (
    KINDS,
    CertificateFacts,
    Fine,
    apply_by,
    assess_application,
    needed_kinds,
    next_inspection_window,
    vessel_state,
)
from .exceptions import Conflict, Forbidden, Invalid, NotFound
from .extensions import db
from .fees import fee_statement, inspection_fees
from .legal_terms import hull_late_fine
from .messages import Msg
from .models import Application, Certificate, Deficiency, FineAssessment, Inspection, User, Vessel
from .vessel_checklists import is_exempt
from .vessels import particulars_of

APPLICANTS = ("admin", "inspector", "owner")  # staff file on an owner's behalf at the counter
WAIVERS = ("admin",)  # a fine is the Prefectura's decision, like revoking a certificate
OPEN_INSPECTIONS = ("scheduled", "in_progress")
CENTS = Decimal("0.01")


# --- what a vessel needs ---------------------------------------------------------------------------

def needs_of(particulars: dict) -> tuple[str, ...]:
    """The certificate kinds a vessel needs, as its checklists' exemptions say (arts. 210, 211)."""
    return needed_kinds({kind: is_exempt(particulars, kind) for kind in KINDS})


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
    fee = fee_statement(inspection_fees(kind, particulars))["total"]
    late, fines = assess_application(kind, today, valid_until, fee=fee, hull_fine=_hull_fine())
    if certificate is not None:  # "por cada vencimiento" (art. 204): an expiry already charged is not charged again
        charged = set(db.session.scalars(db.select(FineAssessment.code).filter_by(certificate_id=certificate.id)))
        fines = [fine for fine in fines if fine.code not in charged]
    return Assessment(vessel, kind, port, preferred_on, today, certificate,
                      apply_by(valid_until, kind) if valid_until else None, late, fines)


def _hull_fine() -> Decimal:
    """The art. 204 amount this installation charges (BALIZA_HULL_LATE_FINE, else the practice)."""
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
    try:
        with db.session.begin_nested():
            db.session.add(application)
            db.session.flush()
    except IntegrityError:
        raise _pending_conflict(None) from None
    record_event(actor, "application.filed", "application", application.id, details={
        "vessel_id": vessel.id, "kind": kind, "applied_on": today.isoformat(), "late": assessment.late,
        "fines": [{"article": f.article, "code": f.code, "amount": str(f.amount)} for f in assessment.fines]})
    return application


def _pending_conflict(application_id: int | None) -> Conflict:
    return Conflict(Msg("Ya hay una solicitud pendiente de este tipo para el buque."),
                    extra={"application_id": application_id} if application_id else None)


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


# --- read models -----------------------------------------------------------------------------------

def applications_query(user: User):
    """Applications a user may list (owners their fleet's), newest first, with their fines in one more query."""
    query = (db.select(Application).join(Vessel, Vessel.id == Application.vessel_id)
             .options(selectinload(Application.fines), selectinload(Application.vessel))
             .order_by(Application.applied_on.desc(), Application.id.desc()))
    return vessel_scope(query, user)


def fine_json(fine, lang: str) -> dict:
    """A fine as the API shows it, its reason in `lang` (a FineAssessment or a pure Fine)."""
    recorded = isinstance(fine, FineAssessment)
    return {
        "id": fine.id if recorded else None, "code": fine.code, "source": fine.source, "article": fine.article,
        "amount": Decimal(fine.amount).quantize(CENTS), "reason": fine.reason_en if lang == "en" else fine.reason_es,
        "waived_at": fine.waived_at if recorded else None, "waived_reason": fine.waived_reason if recorded else None,
    }


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


def _by_vessel(rows, key="vessel_id") -> dict[int, list]:
    grouped: dict[int, list] = {}
    for row in rows:
        grouped.setdefault(getattr(row, key), []).append(row)
    return grouped


def fleet_query(user: User, owner_id: int | None = None):
    """The vessels of the fleet view: the user's scope, one owner's when staff ask for it."""
    query = vessel_scope(db.select(Vessel), user)
    return query if owner_id is None else query.where(Vessel.owner_id == owner_id)


def fleet_of(user: User, today: date, owner_id: int | None = None, limit: int | None = None,
             offset: int = 0) -> list[dict]:
    """GET /api/v1/fleet: each vessel's state, certificates, next inspection and open deficiencies.

    Five queries whatever the fleet's size: vessels, current certificates with their status facts,
    open deficiencies, pending applications and open inspections.
    """
    vessels = db.session.scalars(fleet_query(user, owner_id).order_by(Vessel.registration_key, Vessel.id)
                                 .limit(limit).offset(offset)).all()
    ids = [vessel.id for vessel in vessels]
    if not ids:
        return []
    certificates = db.session.execute(
        status_facts_query().add_columns(Certificate.vessel_id, Certificate.kind)
        .where(Certificate.vessel_id.in_(ids), Certificate.superseded_by_id.is_(None))
        .order_by(Certificate.id)).all()
    deficiencies = db.session.scalars(db.select(Deficiency).where(Deficiency.vessel_id.in_(ids),
                                                                  Deficiency.status != "closed")
                                      .order_by(Deficiency.due_on, Deficiency.id)).all()
    pending = db.session.execute(db.select(Application.vessel_id, Application.kind, Application.id)
                                 .where(Application.vessel_id.in_(ids), Application.status == "pending")).all()
    inspections = db.session.execute(
        db.select(Inspection.vessel_id, Inspection.kind, Inspection.id, Inspection.scheduled_on, Inspection.port,
                  Inspection.status)
        .where(Inspection.vessel_id.in_(ids), Inspection.status.in_(OPEN_INSPECTIONS))
        .order_by(Inspection.scheduled_on, Inspection.id)).all()
    certificates_of, deficiencies_of = _by_vessel(certificates), _by_vessel(deficiencies)
    pending_of, inspections_of = _by_vessel(pending), _by_vessel(inspections)
    needs_cache: dict[tuple, tuple[str, ...]] = {}
    return [_fleet_entry(vessel, today, needs_cache, certificates_of.get(vessel.id, []),
                         deficiencies_of.get(vessel.id, []), pending_of.get(vessel.id, []),
                         inspections_of.get(vessel.id, [])) for vessel in vessels]


def _needs(vessel: Vessel, cache: dict) -> tuple[str, ...]:
    """needs_of, computed once per set of particulars in a fleet (sister ships share it)."""
    particulars = particulars_of(vessel)
    key = tuple(sorted((name, str(value)) for name, value in particulars.items()
                       if name not in ("registration", "name", "owner_id", "home_port")))
    if key not in cache:
        cache[key] = needs_of(particulars)
    return cache[key]


def _fleet_entry(vessel, today, needs_cache, certificates, deficiencies, pending, inspections) -> dict:
    """One vessel of fleet_of, from its already loaded rows."""
    needs = _needs(vessel, needs_cache)
    current = {row.kind: row for row in certificates}  # ordered by id: the newest of a kind wins
    facts, entries, windows = {}, {}, []
    pending_kinds = {row.kind for row in pending}
    for kind in KINDS:
        row = current.get(kind)
        if row is None:
            entries[kind] = None
            continue
        status = derive_status(facts_of(row), today)
        facts[kind] = CertificateFacts(status, row.valid_until)
        window = next_inspection_window(row)
        entries[kind] = {"number": row.number, "status": status, "valid_until": row.valid_until,
                         "apply_by": window.opens_on, "days_left": (row.valid_until - today).days}
        if kind in needs:
            windows.append(window)
    open_inspections = {row.kind: row for row in reversed(inspections)}  # the earliest of a kind wins
    return {
        "vessel_id": vessel.id, "registration": vessel.registration, "name": vessel.name,
        "state": vessel_state(needs, facts, today), "needs": list(needs), "certificates": entries,
        "next_inspection": _next_inspection(windows, open_inspections, needs),
        "open_deficiencies": [{"id": d.id, "article": d.article, "description": d.description, "action": d.action,
                               "detainable": d.detainable, "due_on": d.due_on, "status": d.status,
                               "days_left": (d.due_on - today).days if d.due_on else None} for d in deficiencies],
        "pending_applications": [{"id": row.id, "kind": row.kind} for row in pending],
        "earliest_due_on": _earliest_due(windows, pending_kinds, deficiencies),
    }


def _next_inspection(windows, open_inspections, needs) -> dict | None:
    """The next inspection: a scheduled one if any, else the earliest certificate window (apply_by..valid_until)."""
    candidates = []
    for window in windows:
        scheduled = open_inspections.get(window.kind)
        candidates.append({"kind": window.kind, "apply_by": window.opens_on, "due_on": window.due_on,
                           **_scheduled(scheduled)})
    for kind, scheduled in open_inspections.items():
        if kind in needs and kind not in {w.kind for w in windows}:
            candidates.append({"kind": kind, "apply_by": None, "due_on": None, **_scheduled(scheduled)})
    if not candidates:
        return None
    return min(candidates, key=lambda c: (c["scheduled_on"] or c["due_on"], c["kind"]))


def _scheduled(row) -> dict:
    return {"inspection_id": row.id if row else None, "scheduled_on": row.scheduled_on if row else None,
            "port": row.port if row else None, "status": row.status if row else None}


def _earliest_due(windows, pending_kinds, deficiencies) -> date | None:
    """The next date the owner must act by: apply_by (or expiry once applied for) and open deficiencies' due dates."""
    dates = [w.due_on if w.kind in pending_kinds else w.opens_on for w in windows]
    dates += [d.due_on for d in deficiencies if d.due_on]
    return min(dates, default=None)
