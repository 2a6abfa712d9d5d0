"""The owner's fleet at a glance: each vessel's certificates, what is due, what is owed and what is planned."""
from datetime import date, datetime, time, timezone
from decimal import Decimal

from sqlalchemy.orm import load_only

from inspection.accounts.access import vessel_scope
from inspection.certificates.operations import derive_status, facts_of, status_facts_query
from inspection.core.clock import office_date
from inspection.core.extensions import db
from inspection.core.models import (
    OPEN_INSPECTIONS,
    Application,
    Certificate,
    Deficiency,
    FineAssessment,
    Inspection,
    User,
    Vessel,
)
from inspection.cycle.billing import CENTS, fee_statement_of, fine_json
from inspection.law.cycle import KINDS, CertificateFacts, Window, add_months, next_inspection_window, vessel_state
from inspection.law.fees import fee_statement, inspection_fees
from inspection.registry.vessel_checklists import deficiency_items, localized_description
from inspection.patrol.checks import localized_infringements
from inspection.patrol.figures import vessel_infractions
from inspection.registry.vessels import needs_cached, particulars_of
from inspection.tablet.marks import marked_photos

PATROL_MONTHS = 12  # how far back the fleet shows what patrols found


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

    Eight queries whatever the fleet's size: vessels, current certificates with their status facts,
    open deficiencies, pending applications, open inspections, unwaived fines, the latest reports and the
    patrols' infractions of the last PATROL_MONTHS; in English a ninth, the pinned items the deficiencies were
    found on (their titles' translation).
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
                                                Inspection.port, Inspection.status, Inspection.particulars,
                                                Inspection.reports, Inspection.valve_reseals))
        .where(Inspection.vessel_id.in_(ids), Inspection.status.in_(OPEN_INSPECTIONS))
        .order_by(Inspection.scheduled_on, Inspection.id)).all()
    fines = db.session.scalars(db.select(FineAssessment).where(FineAssessment.vessel_id.in_(ids),
                                                               FineAssessment.waived_at.is_(None))
                               .order_by(FineAssessment.assessed_on, FineAssessment.id)).all()
    reports = db.session.execute(_latest_reports(ids)).all()
    patrols = vessel_infractions(ids, datetime.combine(add_months(today, -PATROL_MONTHS), time(0), timezone.utc))
    titled = deficiency_items(deficiencies) if lang != "es" else {}
    marked = marked_photos(deficiencies)  # the inspector's marks on each defect (issue 24)
    grouped = {name: _by_vessel(rows) for name, rows in (
        ("certificates", certificates), ("deficiencies", deficiencies), ("pending", pending),
        ("inspections", inspections), ("fines", fines), ("reports", reports))}
    needs_cache: dict[tuple, tuple[str, ...]] = {}
    return [{**_fleet_entry(vessel, today, needs_cache, lang, titled, marked, **{name: rows.get(vessel.id, [])
                                                                 for name, rows in grouped.items()}),
             "patrol_infractions": [{**f, "checked_on": office_date(f["checked_at"]),
                                     "infringements": localized_infringements(f["infringements"], lang)}
                                    for f in patrols[vessel.id]]}
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


def _fleet_entry(vessel, today, needs_cache, lang, titled, marked, *, certificates, deficiencies, pending, inspections, fines,
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
        if status == "revoked":  # it will never be renewed: a new inspection is due now (the owner's today)
            window = Window(kind, today, today)
        entries[kind] = {"number": row.number, "status": status, "valid_until": row.valid_until,
                         "apply_by": window.opens_on, "days_left": (row.valid_until - today).days}
        if kind in needs:
            windows.append(window)
    open_inspections = {row.kind: row for row in reversed(inspections)}  # the earliest of a kind wins
    return {
        "vessel_id": vessel.id, "registration": vessel.registration, "name": vessel.name,
        "state": vessel_state(needs, facts, today), "needs": list(needs), "certificates": entries,
        "next_inspection": _next_inspection(windows, open_inspections, needs),
        "open_deficiencies": [{"id": d.id, "article": d.article, "action": d.action,
                               "description": localized_description(d.description,
                                                                    titled.get((d.inspection_id, d.item_id)), lang),
                               "detainable": d.detainable, "due_on": d.due_on, "status": d.status,
                               "days_left": (d.due_on - today).days if d.due_on else None,
                               "marked_photos": marked.get((d.inspection_id, d.item_id), [])} for d in deficiencies],
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
