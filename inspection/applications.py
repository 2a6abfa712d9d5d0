"""Applications for inspection (art. 222), their fines (arts. 204, 225) and the owner's fleet at a glance.

Operations only flush; the request boundary commits. The rules are in cycle.py; this module loads the
records they need and keeps what they decide.
"""
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from flask import current_app
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import load_only, selectinload

from .access import get_vessel_for, vessel_scope
from .audit import record_event
from .billing import CENTS, fee_statement_of, fine_json
from .certificates import derive_status, facts_of, status_facts_query
from .cycle import (
    KINDS,
    CertificateFacts,
    Fine,
    apply_by,
    assess_application,
    next_inspection_window,
    vessel_state,
)
from .exceptions import Conflict, Forbidden, Invalid, NotFound
from .extensions import db
from .fees import fee_statement, inspection_fees
from .legal_terms import hull_late_fine
from .messages import Msg
from .models import OPEN_INSPECTIONS, Application, Certificate, Deficiency, FineAssessment, Inspection, User, Vessel
from .needs import needs_of, stored_needs
from .vessels import particulars_of

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


def file_application(actor: User, data: dict, today: date) -> Application:
    """apply_for_inspection for a validated body (ApplicationInSchema): the vessel the actor may see, else 404."""
    return apply_for_inspection(actor, get_vessel_for(actor, data["vessel_id"]), data["kind"], data["port"],
                                data["preferred_on"], today)


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
             offset: int = 0, lang: str = "es") -> list[dict]:
    """GET /api/v1/fleet and the fleet page: each vessel's state, certificates, next inspection, what is owed.

    Seven queries whatever the fleet's size: vessels, current certificates with their status facts,
    open deficiencies, pending applications, open inspections, unwaived fines and the latest reports.
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
    # Whole rows (their vessel is already loaded, so billing reads it without a query), minus the heavy items.
    inspections = db.session.scalars(
        db.select(Inspection).options(load_only(Inspection.vessel_id, Inspection.kind, Inspection.scheduled_on,
                                                Inspection.port, Inspection.status, Inspection.particulars))
        .where(Inspection.vessel_id.in_(ids), Inspection.status.in_(OPEN_INSPECTIONS))
        .order_by(Inspection.scheduled_on, Inspection.id)).all()
    fines = db.session.scalars(db.select(FineAssessment).where(FineAssessment.vessel_id.in_(ids),
                                                               FineAssessment.waived_at.is_(None))
                               .order_by(FineAssessment.assessed_on, FineAssessment.id)).all()
    reports = db.session.execute(_latest_reports(ids)).all()
    grouped = {name: _by_vessel(rows) for name, rows in (
        ("certificates", certificates), ("deficiencies", deficiencies), ("pending", pending),
        ("inspections", inspections), ("fines", fines), ("reports", reports))}
    needs_cache: dict[tuple, tuple[str, ...]] = {}
    return [_fleet_entry(vessel, today, needs_cache, lang, **{name: rows.get(vessel.id, [])
                                                              for name, rows in grouped.items()})
            for vessel in vessels]


def _latest_reports(ids: list[int]):
    """The newest closed inspection of each vessel and kind: the report the owner opens from the fleet."""
    newest = db.func.row_number().over(partition_by=(Inspection.vessel_id, Inspection.kind),
                                       order_by=(Inspection.submitted_at.desc(), Inspection.id.desc()))
    ranked = (db.select(Inspection.vessel_id, Inspection.kind, Inspection.id, Inspection.submitted_at,
                        Inspection.outcome, newest.label("rank"))
              .where(Inspection.vessel_id.in_(ids), Inspection.status == "submitted").subquery())
    return (db.select(ranked.c.vessel_id, ranked.c.kind, ranked.c.id, ranked.c.submitted_at, ranked.c.outcome)
            .where(ranked.c.rank == 1).order_by(ranked.c.kind))


def needs_cached(vessel: Vessel, cache: dict) -> tuple[str, ...]:
    """The vessel's stored needs (needs.py); when stale, needs_of, computed once per set of particulars."""
    stored = stored_needs(vessel)
    if stored is not None:
        return stored
    particulars = particulars_of(vessel)
    key = tuple(sorted((name, str(value)) for name, value in particulars.items()
                       if name not in ("registration", "name", "owner_id", "home_port")))
    if key not in cache:
        cache[key] = needs_of(particulars)
    return cache[key]


def _fleet_entry(vessel, today, needs_cache, lang, *, certificates, deficiencies, pending, inspections, fines,
                 reports) -> dict:
    """One vessel of fleet_of, from its already loaded rows."""
    needs = needs_cached(vessel, needs_cache)
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
        "planned_inspections": [{"id": row.id, "kind": kind, "scheduled_on": row.scheduled_on}
                                for kind, row in open_inspections.items()],
        "earliest_due_on": _earliest_due(windows, pending_kinds, deficiencies),
        **_owed(vessel, inspections, pending, fines, lang),
        "reports": [{"inspection_id": row.id, "kind": row.kind, "submitted_at": row.submitted_at,
                     "outcome": row.outcome} for row in reports],
    }


def _owed(vessel, inspections, pending, fines, lang) -> dict:
    """What the owner owes: fines not waived (arts. 204, 225), and the fees (arts. 209, 233) of the inspections
    scheduled or applied for (an application an inspection already answers is not charged twice)."""
    fees = [{"kind": row.kind, "inspection_id": row.id, "application_id": None,
             "total": fee_statement_of(row)["total"]} for row in inspections]
    scheduled = {row.kind for row in inspections}
    fees += [{"kind": row.kind, "inspection_id": None, "application_id": row.id,
              "total": fee_statement(inspection_fees(row.kind, particulars_of(vessel)))["total"]}
             for row in pending if row.kind not in scheduled]
    owed_fines = [fine_json(fine, lang) for fine in fines]
    return {"fees": fees, "fees_total": sum((fee["total"] for fee in fees), Decimal(0)).quantize(CENTS),
            "fines": owed_fines, "fines_total": sum((f["amount"] for f in owed_fines), Decimal(0)).quantize(CENTS)}


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
