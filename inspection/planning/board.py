"""The planning board for the authority's staff, and assigning an application in one step.

The board reads four lists, each in a fixed number of queries whatever its rows: pending applications
(art. 222), certificates expiring within the horizon that nobody has applied for, overdue vessels (a
needed certificate expired, never issued, revoked or suspended) and each inspector's load per ISO week. Assigning an
application schedules its inspection (conflicts of interest refused there, art. 214) and marks the
application scheduled; the operations only flush, the request boundary commits once.
"""
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import and_, or_
from sqlalchemy.orm import aliased, joinedload, selectinload

from inspection.core.audit import record_event
from inspection.core.exceptions import Conflict, Forbidden, NotFound
from inspection.core.extensions import db, page_total
from inspection.core.models import OPEN_INSPECTIONS, Application, Certificate, FineAssessment, Inspection, User, Vessel
from inspection.cycle.applications import apply_for_inspection
from inspection.i18n.messages import Msg
from inspection.inspections.operations import schedule_inspection
from inspection.law.cycle import KINDS, apply_by
from inspection.registry.needs import COLUMNS, any_stale
from inspection.registry.vessels import needs_cached

ASSIGNERS = ("admin",)  # the Prefectura hands out the work; inspectors read the board
READERS = ("admin", "inspector")
HORIZON_DAYS = 60  # the board's look-ahead for expiries (issue 11), not a legal term
LOAD_WEEKS = 8  # weeks of each inspector's load shown
ANSWERED = ("pending", "scheduled")  # an application in these states already answers an expiry


# --- assigning -------------------------------------------------------------------------------------

def get_application_for(user: User, application_id: int) -> Application:
    """The application if `user` may see it (staff: any), else 404."""
    application = db.session.get(Application, application_id)
    if application is None or (user.role == "owner" and application.vessel.owner_id != user.owner_id):
        raise NotFound()
    return application


def assign_application(actor: User, application: Application, inspector: User, scheduled_on: date, port: str,
                       today: date) -> Inspection:
    """Schedule the inspection a pending application asks for and link it: one step, decided once.

    The application's row is held (SELECT ... FOR UPDATE) until the request commits, so of two staff
    assigning it at once the second sees it scheduled and is refused. SQLite has no row locks: a
    writing request already holds the whole database (extensions.py).
    """
    if actor.role not in ASSIGNERS:
        raise Forbidden(Msg("Solo la Prefectura asigna las solicitudes de inspección."))
    db.session.refresh(application, with_for_update=True)
    if application.status != "pending":
        raise Conflict(Msg("La solicitud ya fue asignada o cerrada (estado «{status}»).", status=application.status),
                       extra={"inspection_id": application.inspection_id} if application.inspection_id else None)
    inspection = schedule_inspection(actor, application.vessel, application.kind, inspector, scheduled_on, port, today)
    application.inspection_id, application.status = inspection.id, "scheduled"
    record_event(actor, "application.assigned", "application", application.id, inspection_id=inspection.id,
                 details={"inspector_id": inspector.id, "scheduled_on": scheduled_on.isoformat(), "port": port})
    return inspection


def assign_vessel(actor: User, vessel: Vessel, kind: str, inspector: User, scheduled_on: date, port: str,
                  today: date) -> Inspection:
    """For a vessel nobody applied for: file the application on the owner's behalf today (art. 222, with its
    art. 225 or 204 fine if the term has passed), then assign it as above."""
    if actor.role not in ASSIGNERS:
        raise Forbidden(Msg("Solo la Prefectura asigna las solicitudes de inspección."))
    application = apply_for_inspection(actor, vessel, kind, port, scheduled_on, today)
    return assign_application(actor, application, inspector, scheduled_on, port, today)


# --- the board -------------------------------------------------------------------------------------

@dataclass
class Listing:
    """One page of a board list that is paged in Python (the pager's names, as db.paginate's)."""

    items: list
    page: int
    per_page: int
    total: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def has_prev(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.pages

    @property
    def prev_num(self) -> int:
        return self.page - 1

    @property
    def next_num(self) -> int:
        return self.page + 1


def pending_applications(page: int, per_page: int):
    """Pending applications, earliest preferred date first, with vessel, fines and who waived them (2 queries,
    and a count when the page is full or past the end: page_total)."""
    query = (db.select(Application).where(Application.status == "pending")
             .options(joinedload(Application.vessel),
                      selectinload(Application.fines).joinedload(FineAssessment.waived_by))
             .order_by(Application.preferred_on, Application.id))
    return db.paginate(query, page=page, per_page=per_page, error_out=False)


def expiring_unanswered(today: date, page: int, per_page: int):
    """Current certificates expiring within HORIZON_DAYS that no pending or scheduled application answers
    and no open inspection renews, soonest first (1 query, and a count as pending_applications')."""
    answered = db.select(Application.id).where(Application.vessel_id == Certificate.vessel_id,
                                               Application.kind == Certificate.kind,
                                               Application.status.in_(ANSWERED))
    planned = db.select(Inspection.id).where(Inspection.vessel_id == Certificate.vessel_id,
                                             Inspection.kind == Certificate.kind,
                                             Inspection.status.in_(OPEN_INSPECTIONS))
    query = (db.select(Certificate).options(joinedload(Certificate.vessel))
             .where(Certificate.superseded_by_id.is_(None), Certificate.revoked_at.is_(None),
                    Certificate.valid_until >= today, Certificate.valid_until <= today + timedelta(days=HORIZON_DAYS),
                    ~answered.exists(), ~planned.exists())
             .order_by(Certificate.valid_until, Certificate.id))
    return db.paginate(query, page=page, per_page=per_page, error_out=False)


def expiry_entry(certificate: Certificate, today: date) -> dict:
    """A row of the expiries list: the certificate, its art. 222 date and the days left."""
    return {"certificate": certificate, "vessel": certificate.vessel, "kind": certificate.kind,
            "valid_until": certificate.valid_until, "apply_by": apply_by(certificate.valid_until, certificate.kind),
            "days_left": (certificate.valid_until - today).days}


def overdue_vessels(today: date, page: int, per_page: int) -> Listing:
    """Vessels lacking a certificate they need (expired, never issued, revoked or suspended), with what is
    already planned (3 queries, and a count when the page is full or past the end).

    Filtered and paged in SQL on the needs stored on each vessel (needs.py, arts. 210, 211); while any
    vessel's stored needs are stale (decided under other rules), the list is decided in Python instead.
    """
    if any_stale():
        return overdue_deciding(today, page, per_page)
    def current(kind, *terms):  # the vessel's current (not superseded) certificates of the kind
        return (Certificate.vessel_id == Vessel.id, Certificate.kind == kind, Certificate.superseded_by_id.is_(None),
                *terms)

    # needing a kind and holding no current certificate of it in force today: an index probe per vessel and kind
    lacking = [and_(getattr(Vessel, COLUMNS[kind]), ~db.select(Certificate.id).where(
        *current(kind, *_in_force(Certificate, today))).exists()) for kind in KINDS]
    page_ids = (db.select(Vessel.id).where(or_(*lacking)).order_by(Vessel.registration_key, Vessel.id)
                .limit(per_page).offset((page - 1) * per_page)).subquery("page_ids")
    newest = [db.select(column).where(*current(kind)).order_by(Certificate.id.desc()).limit(1)
              .scalar_subquery().label(f"{kind}_{n}")
              for kind in KINDS for n, column in enumerate(_FACTS)]
    rows = db.session.execute(db.select(Vessel, *newest).join(page_ids, page_ids.c.id == Vessel.id)
                              .order_by(Vessel.registration_key, Vessel.id)).all()
    entries = []
    for vessel, *facts in rows:
        by_kind = dict(zip(KINDS, (facts[i:i + len(_FACTS)] for i in range(0, len(facts), len(_FACTS)))))
        entries.append(_overdue_entry(vessel, [(kind, *by_kind[kind]) for kind in KINDS
                                               if getattr(vessel, COLUMNS[kind])], today))
    _add_plans(entries)
    total = page_total(page, per_page, len(rows),
                       lambda: db.session.scalar(db.select(db.func.count(Vessel.id)).where(or_(*lacking))))
    return Listing(entries, page, per_page, total)


# What the list says of a vessel's newest current certificate of a kind: until when, revoked, suspended.
_FACTS = (Certificate.valid_until, Certificate.revoked_at.is_not(None), Certificate.suspended_at.is_not(None))


def _in_force(cert, today: date) -> tuple:
    """The terms of a certificate that holds today: unexpired, not revoked, not suspended."""
    return cert.valid_until >= today, cert.revoked_at.is_(None), cert.suspended_at.is_(None)


def lacking_state(valid_until: date | None, revoked: bool, suspended: bool, today: date) -> str | None:
    """Why a needed kind is lacking (missing, revoked, suspended, overdue), or None when its certificate holds."""
    if valid_until is None:
        return "missing"
    if revoked:
        return "revoked"
    if valid_until < today:
        return "overdue"
    if suspended:
        return "suspended"
    return None


def _overdue_entry(vessel: Vessel, kinds: list[tuple], today: date) -> dict:
    """A row of the overdue list: the vessel and each needed kind it lacks, from (kind, valid until or None,
    revoked, suspended) of its newest current certificate; None when it lacks none."""
    lacking = []
    for kind, until, revoked, suspended in kinds:
        state = lacking_state(until, bool(revoked), bool(suspended), today)
        if state:
            lacking.append({"kind": kind, "valid_until": until, "state": state,
                            "days_late": (today - until).days if state == "overdue" else None})
    return {"vessel": vessel, "kinds": lacking} if lacking else None


def overdue_deciding(today: date, page: int, per_page: int) -> Listing:
    """The overdue list with the needs decided here (stored ones stale): every candidate loaded (2 queries).

    The candidates (a kind without a current certificate in force) come from SQL; the kinds a vessel
    does not need (arts. 210, 211) are dropped here, once per set of particulars.
    """
    current = {kind: aliased(Certificate, name=f"current_{kind}") for kind in KINDS}
    query = db.select(Vessel, *[column for kind in KINDS for column in (
        current[kind].valid_until, current[kind].revoked_at.is_not(None), current[kind].suspended_at.is_not(None))]
    ).order_by(Vessel.registration_key, Vessel.id)
    lacking = []
    for kind, cert in current.items():
        query = query.outerjoin(cert, and_(cert.vessel_id == Vessel.id, cert.kind == kind,
                                           cert.superseded_by_id.is_(None)))
        lacking += [cert.id.is_(None), ~and_(*_in_force(cert, today))]
    rows, needs_cache, found = db.session.execute(query.where(or_(*lacking))).all(), {}, {}
    for vessel, *facts in rows:
        needs = needs_cached(vessel, needs_cache)
        entry = _overdue_entry(vessel, [(kind, *facts[3 * i:3 * i + 3]) for i, kind in enumerate(KINDS)
                                        if kind in needs], today)
        if entry and vessel.id not in found:  # two current certificates of a kind repeat the vessel: keep one row
            found[vessel.id] = entry
    entries = list(found.values())
    listing = Listing(entries[(page - 1) * per_page: page * per_page], page, per_page, len(entries))
    _add_plans(listing.items)
    return listing


def _add_plans(entries: list[dict]) -> None:
    """Mark each overdue kind with its pending application or open inspection, in one query per list."""
    ids = [entry["vessel"].id for entry in entries]
    if not ids:
        return
    applications = db.session.execute(db.select(Application.vessel_id, Application.kind, Application.id)
                                      .where(Application.vessel_id.in_(ids), Application.status.in_(ANSWERED))).all()
    planned = {(row.vessel_id, row.kind): row.id for row in applications}
    for entry in entries:
        for kind in entry["kinds"]:
            kind["application_id"] = planned.get((entry["vessel"].id, kind["kind"]))


def week_starts(today: date) -> list[date]:
    """The Mondays of the LOAD_WEEKS ISO weeks from this one."""
    monday = today - timedelta(days=today.weekday())
    return [monday + timedelta(weeks=n) for n in range(LOAD_WEEKS)]


def inspector_load(today: date) -> dict:
    """Open inspections per active inspector per ISO week, this week and the next ones (2 queries)."""
    weeks = week_starts(today)
    inspectors = db.session.scalars(db.select(User).filter_by(role="inspector", active=True)
                                    .order_by(User.full_name, User.username)).all()
    counts = db.session.execute(
        db.select(Inspection.inspector_id, Inspection.scheduled_on, db.func.count(Inspection.id))
        .where(Inspection.status.in_(OPEN_INSPECTIONS), Inspection.scheduled_on >= weeks[0],
               Inspection.scheduled_on < weeks[-1] + timedelta(weeks=1))
        .group_by(Inspection.inspector_id, Inspection.scheduled_on)).all()
    load: dict[int, list[int]] = {inspector.id: [0] * len(weeks) for inspector in inspectors}
    for inspector_id, scheduled_on, n in counts:
        if inspector_id in load:
            load[inspector_id][(scheduled_on - weeks[0]).days // 7] += n
    return {"weeks": [{"monday": monday, "label": "{}-W{:02d}".format(*monday.isocalendar()[:2])} for monday in weeks],
            "rows": [{"inspector": inspector, "counts": load[inspector.id], "total": sum(load[inspector.id])}
                     for inspector in inspectors]}


def planning_board(today: date, pages: dict[str, int], per_page: int = 25) -> dict:
    """Everything /planificacion shows, each list paged by its own page number."""
    expiring = expiring_unanswered(today, pages.get("expiring", 1), per_page)
    return {"pending": pending_applications(pages.get("pending", 1), per_page),
            "expiring": expiring, "expiries": [expiry_entry(c, today) for c in expiring.items],
            "overdue": overdue_vessels(today, pages.get("overdue", 1), per_page),
            "load": inspector_load(today), "horizon_days": HORIZON_DAYS}
