"""What patrols found, for the people it concerns: an owner's infractions (the fleet) and the authority's
figures (the dashboard): checks per month and per place, the articles most often infringed, repeat offenders.

Read models only; each figure is one query aggregated in SQL, with the time boundaries given by the caller (the
office's month starts as aware datetimes), so the same statements run on SQLite and PostgreSQL.
"""
from datetime import datetime

import sqlalchemy as sa

from checklists import load_catalog
from inspection.core.extensions import db
from inspection.core.models import PatrolAnswer, PatrolCheck, Vessel

INFRINGING = ("infraccion", "retencion")
TOP = 10


def _closed_between(first: datetime, end: datetime) -> tuple:
    """Closed checks made (by the phone's time) in [first, end)."""
    return PatrolCheck.closed_at.is_not(None), PatrolCheck.checked_at >= first, PatrolCheck.checked_at < end


def vessel_infractions(vessel_ids: list[int], since: datetime) -> dict[int, list[dict]]:
    """Each vessel's infractions and retentions found by patrols since `since`, newest first: one query."""
    found: dict[int, list[dict]] = {vessel_id: [] for vessel_id in vessel_ids}
    if not vessel_ids:
        return found
    rows = db.session.scalars(
        sa.select(PatrolCheck).where(PatrolCheck.vessel_id.in_(vessel_ids), PatrolCheck.outcome.in_(INFRINGING),
                                     PatrolCheck.checked_at >= since)
        .order_by(PatrolCheck.checked_at.desc(), PatrolCheck.id.desc()))
    for check in rows:
        found[check.vessel_id].append({"check_id": check.id, "checked_at": check.checked_at, "outcome": check.outcome,
                                       "place": check.place, "infringements": check.infringements})
    return found


def checks_per_month(starts: list[datetime], end: datetime) -> list[tuple[int, int, int]]:
    """(month bucket, checks, infractions) of closed checks, the buckets being `starts` (then `end`): one query."""
    bounds = list(zip(starts, [*starts[1:], end]))
    bucket = sa.case(*[(sa.and_(PatrolCheck.checked_at >= a, PatrolCheck.checked_at < b), n)
                       for n, (a, b) in enumerate(bounds)])
    inner = (sa.select(bucket.label("bucket"), PatrolCheck.outcome.in_(INFRINGING).label("infringing"))
             .where(*_closed_between(starts[0], end)).subquery())
    rows = db.session.execute(
        sa.select(inner.c.bucket, sa.func.count().label("n"),
                  sa.func.sum(sa.case((inner.c.infringing, 1), else_=0)).label("bad"))
        .group_by(inner.c.bucket)).all()
    counts = {row.bucket: (row.n, int(row.bad or 0)) for row in rows}
    return [(n, *counts.get(n, (0, 0))) for n in range(len(starts))]


def checks_per_place(first: datetime, end: datetime, limit: int = TOP) -> list[tuple[str | None, int]]:
    """The places (named place or river kilometre; None: only the phone's position) with most closed checks."""
    rows = db.session.execute(
        sa.select(PatrolCheck.place, sa.func.count().label("n")).where(*_closed_between(first, end))
        .group_by(PatrolCheck.place).order_by(sa.func.count().desc(), PatrolCheck.place).limit(limit)).all()
    return [(row.place, row.n) for row in rows]


def infringed_articles(first: datetime, end: datetime, limit: int = TOP) -> list[tuple[str, str, int]]:
    """(source, article, count) of the failed items of infractions and retentions, most infringed first."""
    rows = db.session.execute(
        sa.select(PatrolAnswer.item_id, sa.func.count().label("n"))
        .join(PatrolCheck, PatrolCheck.id == PatrolAnswer.check_id)
        .where(PatrolAnswer.result == "fail", PatrolCheck.outcome.in_(INFRINGING), *_closed_between(first, end))
        .group_by(PatrolAnswer.item_id)).all()
    catalog = load_catalog()
    citations = {item.id: (item.source, item.article) for kind in catalog.kinds for item in catalog.get(kind).items}
    totals: dict[tuple[str, str], int] = {}
    for row in rows:  # one row per distinct item: the catalog's size, not the data's
        key = citations.get(row.item_id, ("?", row.item_id))
        totals[key] = totals.get(key, 0) + row.n
    ranked = sorted(totals.items(), key=lambda entry: (-entry[1], entry[0]))
    return [(source, article, n) for (source, article), n in ranked[:limit]]


def repeat_offenders(first: datetime, end: datetime, limit: int = TOP) -> list[tuple[int, str, str, int]]:
    """(vessel id, registration, name, infractions) of the vessels patrols found infringing more than once."""
    n = sa.func.count(PatrolCheck.id)
    rows = db.session.execute(
        sa.select(Vessel.id, Vessel.registration, Vessel.name, n.label("n"))
        .join(PatrolCheck, PatrolCheck.vessel_id == Vessel.id)
        .where(PatrolCheck.outcome.in_(INFRINGING), *_closed_between(first, end))
        .group_by(Vessel.id, Vessel.registration, Vessel.name).having(n >= 2)
        .order_by(n.desc(), Vessel.registration).limit(limit)).all()
    return [(row.id, row.registration, row.name, row.n) for row in rows]
