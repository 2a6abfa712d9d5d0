"""The daily run (`flask --app app reminders send`): the fine sweep of art. 225, then every notice due today.

Which notices are due is a pure function of dates (the `*_kind` and `*_due` functions below); the run
loads the records they need in a fixed number of queries and keeps the notices (notices.py). A run
for `today` catches up on the days it missed: each rule holds over a window of days, not on one day,
so a notice whose day passed is still found while it is relevant, and the notice key keeps it once.

- Owners: 30 and 7 days before apply_by (art. 222 for seguridad; the hull by practice): the 30-day
  notice from apply_by−30 until the 7-day one takes over at apply_by−7, that one until apply_by, and
  neither once an application or an inspection of that kind is open. On expiry (the first day past
  valid_until) while nothing has replaced the certificate. Three days before a deficiency is due,
  until its due date, while it is open. A certificate suspended by decision, and a detention (which
  suspends them all, art. 208), while they stand; a revoked certificate until another replaces it or
  it would have expired. A fine assessed by the sweep, unless waived. A scheduled inspection the
  Prefectura cancelled, until its date (with the reason).
- Inspectors: each scheduled inspection assigned to them, once per date (a rescheduled one again); an
  assignment they were told of and someone else called off, until its date.
- The sweep: a seguridad certificate past expiry with no application is the art. 225 fine
  (assess_application reads the law), one per certificate (the FineAssessment key).
"""
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import joinedload

from inspection.core.audit import record_event
from inspection.core.clock import local_date_at
from inspection.core.extensions import db
from inspection.core.models import (
    OPEN_INSPECTIONS,
    Application,
    AuditEvent,
    Certificate,
    Deficiency,
    Detention,
    FineAssessment,
    Inspection,
    Notice,
    Owner,
    User,
    Vessel,
)
from inspection.i18n.messages import Msg
from inspection.law.cycle import KINDS, add_months, apply_by, assess_application
from inspection.law.legal_terms import application_months
from inspection.notices.mail import MailSettings
from inspection.notices.notices import Draft, deliver_notices, record_notices
from inspection.registry.vessels import needs_cached

APPLY_BY_DAYS = (30, 7)  # the reminders before apply_by (a service, not a figure of the law)
DEFICIENCY_DAYS = 3
OPEN_APPLICATIONS = ("pending", "scheduled")


# --- the rules: dates in, a notice kind (or None) out -----------------------------------------------

def apply_by_kind(apply_by_on: date, today: date) -> str | None:
    """apply_by_30 or apply_by_7 when today is in that reminder's window before apply_by, else None."""
    for days in sorted(APPLY_BY_DAYS):  # the nearest reminder wins: a missed 30-day one is not sent at 5 days
        if apply_by_on - timedelta(days=days) <= today <= apply_by_on:
            return f"apply_by_{days}"
    return None


def expiry_due(valid_until: date, today: date) -> bool:
    """The expiry notice from the first day the certificate is no longer valid."""
    return valid_until < today


def deficiency_due(due_on: date | None, today: date) -> bool:
    """The deficiency notice from DEFICIENCY_DAYS before its due date until that date."""
    return due_on is not None and due_on - timedelta(days=DEFICIENCY_DAYS) <= today <= due_on


def horizon(today: date) -> date:
    """The latest expiry a reminder can concern today: apply_by within the longest reminder, for any kind."""
    months = max(application_months(kind) for kind in KINDS)
    return add_months(today + timedelta(days=max(APPLY_BY_DAYS)), months)


# --- the run -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RunResult:
    """What one run did: fines assessed, notices found new, emails sent and failed."""

    fines: int
    notices: int
    sent: int = 0
    failed: int = 0


def sweep_fines(today: date, now: datetime) -> list[FineAssessment]:
    """Assess art. 225 on each current seguridad certificate past expiry with no application for it (once each)."""
    applied = db.select(Application.id).where(Application.certificate_id == Certificate.id,
                                              Application.status != "cancelled").exists()
    charged = db.select(FineAssessment.id).where(FineAssessment.certificate_id == Certificate.id).exists()
    candidates = db.session.scalars(
        db.select(Certificate).options(joinedload(Certificate.vessel))
        .where(Certificate.kind == "seguridad", Certificate.superseded_by_id.is_(None),
               Certificate.revoked_at.is_(None), Certificate.valid_until < today, ~applied, ~charged)
        .order_by(Certificate.id)).all()
    assessed = []
    for certificate in candidates:
        if "seguridad" not in needs_cached(certificate.vessel, {}):
            continue  # exempt now (art. 211): nothing to renew
        _late, fines = assess_application("seguridad", today, certificate.valid_until)
        reason = Msg("No se solicitó la inspección antes del vencimiento del certificado N.º {number} el {until}; "
                     "la solicitud correspondía hasta el {deadline} (arts. 222 y 225).", number=certificate.number,
                     until=certificate.valid_until.isoformat(),
                     deadline=apply_by(certificate.valid_until, "seguridad").isoformat())
        for fine in fines:  # the figure and article as assess_application reads them; the reason says no one applied
            record = FineAssessment(vessel_id=certificate.vessel_id, certificate_id=certificate.id, code=fine.code,
                                    source=fine.source, article=fine.article, amount=fine.amount,
                                    reason_es=reason.in_language("es"), reason_en=reason.in_language("en"),
                                    assessed_on=today)
            try:
                with db.session.begin_nested():  # another run assessed it first: the key keeps one
                    db.session.add(record)
                    db.session.flush()
            except IntegrityError:
                continue
            record_event(None, "fine.assessed", "fine", record.id, details={
                "vessel_id": certificate.vessel_id, "certificate": certificate.number, "article": fine.article,
                "code": fine.code, "amount": str(fine.amount), "by": "reminders"}, at=now)
            assessed.append(record)
    return assessed


def _vessel_params(vessel: Vessel) -> dict:
    return {"vessel": vessel.name, "registration": vessel.registration}


def _owner_drafts(today: date, zone: ZoneInfo) -> list[tuple[int, str, int, date, Vessel, dict]]:
    """(owner_id, kind, subject_id, due_on, vessel, params) of every owner notice due today."""
    found = []
    certificates = db.session.scalars(
        db.select(Certificate).options(joinedload(Certificate.vessel))
        .where(Certificate.superseded_by_id.is_(None), Certificate.revoked_at.is_(None),
               (Certificate.valid_until <= horizon(today)) | Certificate.suspended_at.is_not(None))
        .order_by(Certificate.id)).all()
    vessel_ids = {c.vessel_id for c in certificates}
    open_kinds = set(db.session.execute(
        db.select(Application.vessel_id, Application.kind)
        .where(Application.vessel_id.in_(vessel_ids), Application.status.in_(OPEN_APPLICATIONS))
        .union(db.select(Inspection.vessel_id, Inspection.kind)
               .where(Inspection.vessel_id.in_(vessel_ids), Inspection.status.in_(OPEN_INSPECTIONS)))).all())
    needs: dict[int, tuple[str, ...]] = {}
    for c in certificates:
        vessel = c.vessel
        if vessel.id not in needs:
            needs[vessel.id] = needs_cached(vessel, {})
        params = {**_vessel_params(vessel), "kind": c.kind, "number": c.number,
                  "valid_until_on": c.valid_until.isoformat()}
        if c.suspended_at is not None and c.valid_until >= today:
            suspended_on = local_date_at(c.suspended_at, zone)
            found.append((vessel.owner_id, "suspended", c.id, suspended_on, vessel,
                          {**params, "suspended_on": suspended_on.isoformat(), "reason": c.suspended_reason or ""}))
        if c.kind not in needs[vessel.id]:
            continue
        if expiry_due(c.valid_until, today):
            found.append((vessel.owner_id, "expired", c.id, c.valid_until, vessel, params))
            continue
        deadline = apply_by(c.valid_until, c.kind)
        kind = apply_by_kind(deadline, today)
        if kind and (vessel.id, c.kind) not in open_kinds:
            found.append((vessel.owner_id, kind, c.id, deadline, vessel, {
                **params, "apply_by_on": deadline.isoformat(), "days": (deadline - today).days,
                "articles": c.kind}))
    for c in db.session.scalars(db.select(Certificate).options(joinedload(Certificate.vessel))
                                .where(Certificate.revoked_at.is_not(None), Certificate.superseded_by_id.is_(None),
                                       Certificate.valid_until >= today).order_by(Certificate.id)):
        revoked_on = local_date_at(c.revoked_at, zone)
        found.append((c.vessel.owner_id, "revoked", c.id, revoked_on, c.vessel, {
            **_vessel_params(c.vessel), "kind": c.kind, "number": c.number, "revoked_on": revoked_on.isoformat(),
            "reason": (c.revoked_reason or "").rstrip(".")}))
    for d, vessel in db.session.execute(db.select(Deficiency, Vessel).join(Vessel, Vessel.id == Deficiency.vessel_id).where(
            Deficiency.status == "open", Deficiency.due_on >= today,
            Deficiency.due_on <= today + timedelta(days=DEFICIENCY_DAYS)).order_by(Deficiency.id)):
        if deficiency_due(d.due_on, today):
            found.append((vessel.owner_id, "deficiency_due", d.id, d.due_on, vessel, {
                **_vessel_params(vessel), "due_on": d.due_on.isoformat(), "description": d.description,
                "source": d.source, "article": d.article}))
    for detention, vessel in db.session.execute(db.select(Detention, Vessel).join(Vessel, Vessel.id == Detention.vessel_id)
                                                .where(Detention.lifted_at.is_(None)).order_by(Detention.id)):
        decided_on = local_date_at(detention.decided_at, zone)
        found.append((vessel.owner_id, "detained", detention.id, decided_on, vessel, {
            **_vessel_params(vessel), "decided_on": decided_on.isoformat(), "reason": detention.reason}))
    for inspection, vessel in db.session.execute(
            db.select(Inspection, Vessel).join(Vessel, Vessel.id == Inspection.vessel_id)
            .where(Inspection.status == "cancelled", Inspection.scheduled_on >= today).order_by(Inspection.id)):
        found.append((vessel.owner_id, "inspection_cancelled", inspection.id, inspection.scheduled_on, vessel, {
            **_vessel_params(vessel), "kind": inspection.kind, "scheduled_on": inspection.scheduled_on.isoformat(),
            "port": inspection.port, "reason": (inspection.cancellation_reason or "").rstrip(".")}))
    for fine, vessel, kind in db.session.execute(
            db.select(FineAssessment, Vessel, Certificate.kind)
            .join(Vessel, Vessel.id == FineAssessment.vessel_id)
            .join(Certificate, Certificate.id == FineAssessment.certificate_id)
            .where(FineAssessment.application_id.is_(None), FineAssessment.waived_at.is_(None))
            .order_by(FineAssessment.id)):
        found.append((vessel.owner_id, "fine", fine.id, fine.assessed_on, vessel, {
            **_vessel_params(vessel), "kind": kind, "amount": str(fine.amount), "source": fine.source,
            "article": fine.article, "reason": fine.reason_es, "reason_en": fine.reason_en}))
    return found


def due_drafts(today: date, zone: ZoneInfo, mail: bool) -> tuple[list[Draft], dict[int, str | None]]:
    """Every notice due today for its users, and each user's email address (None when `mail` is off)."""
    owner_found = _owner_drafts(today, zone)
    owner_ids = {row[0] for row in owner_found}
    owners = db.session.execute(
        db.select(User, Owner.email).join(Owner, Owner.id == User.owner_id)
        .where(User.role == "owner", User.active.is_(True), User.owner_id.in_(owner_ids))
        .order_by(User.id)).all()  # notices are written, and so sent, in a fixed order
    users_of: dict[int, list[User]] = {}
    addresses: dict[int, str | None] = {}
    for user, owner_email in owners:
        users_of.setdefault(user.owner_id, []).append(user)
        addresses[user.id] = (user.email or owner_email) if mail else None
    drafts = [Draft(user.id, kind, subject_id, due_on, vessel.id, params)
              for owner_id, kind, subject_id, due_on, vessel, params in owner_found
              for user in users_of.get(owner_id, [])]
    for kind, rows in (("assignment", _assigned(today, Inspection.status == "scheduled")),
                       ("cancelled", _assigned(today, *_CALLED_OFF))):
        for inspection, inspector in rows:
            addresses[inspector.id] = inspector.email if mail else None
            params = {**_vessel_params(inspection.vessel), "kind": inspection.kind,
                      "scheduled_on": inspection.scheduled_on.isoformat(), "port": inspection.port}
            if kind == "cancelled":
                params["reason"] = (inspection.cancellation_reason or "").rstrip(".")
            drafts.append(Draft(inspector.id, kind, inspection.id, inspection.scheduled_on, inspection.vessel_id,
                                params))
    return drafts, addresses


# An assignment the inspector was told of and someone else cancelled: who cancelled their own knows it already.
_CALLED_OFF = (
    Inspection.status == "cancelled",
    db.select(Notice.id).where(Notice.user_id == Inspection.inspector_id, Notice.kind == "assignment",
                               Notice.subject_id == Inspection.id).exists(),
    db.select(AuditEvent.id).where(AuditEvent.inspection_id == Inspection.id,
                                   AuditEvent.action == "inspection.cancelled",
                                   AuditEvent.user_id != Inspection.inspector_id).exists(),
)


def _assigned(today: date, *conditions) -> list:
    """(inspection, its active inspector) for each inspection dated from `today` on that meets `conditions`."""
    return db.session.execute(
        db.select(Inspection, User).options(joinedload(Inspection.vessel))
        .join(User, User.id == Inspection.inspector_id)
        .where(Inspection.scheduled_on >= today, User.active.is_(True), *conditions)
        .order_by(Inspection.id)).all()


def run_reminders(today: date, now: datetime, zone: ZoneInfo, mail: MailSettings | None,
                  public_url: str) -> RunResult:
    """The sweep, the notices of `today` and their emails, each step committed: a second run sends nothing new."""
    fines = sweep_fines(today, now)
    db.session.commit()
    drafts, addresses = due_drafts(today, zone, mail is not None)
    new = record_notices(drafts, addresses, today, now)
    db.session.commit()
    sent, failed = deliver_notices(mail, public_url, now) if mail else (0, 0)
    return RunResult(len(fines), new, sent, failed)
