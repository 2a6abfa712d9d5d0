"""The authority's dashboard: the fleet's certificates over a year, what falls due, what fails, who inspects.

Read models only. Every figure is aggregated in SQL (GROUP BY, COUNT over CASE) with the month
boundaries computed here and passed as parameters, so the same statements run on SQLite and
PostgreSQL; each chart is one query whatever the fleet's size (the share: one for its cache's data version,
and one more when that version moved). `today` is the office's date.

- Share with valid certificates, per month end (the last 11 month ends and today): of the vessels
  needing a kind (not exempt: art. 210 for the hull, art. 211 for machinery, as the checklists'
  exemptions decide, stored on the vessel by needs.py), those with a certificate of that kind in force that day: issued on or before
  it, valid until it or later (arts. 207, 211) and not revoked by then. A suspension is a present
  fact without a history (reinstating clears it), so it counts only in today's point.
- Due and overdue: current certificates (not superseded, not revoked) that expire within the next
  30/60/90 days, and those already expired with no renewal.
- Articles most often failed: current answers "fail" of submitted inspections held in the last 12
  months, counted per source and article of the item (an article with several items adds them).
- Inspections per inspector per month: submitted inspections by the month of their date.
- Patrol checks (issue 23, inspection/patrol/figures.py): closed checks per month and per place, the articles
  most often infringed, and the vessels found infringing more than once, over the same 12 months.
"""
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal

import sqlalchemy as sa

from checklists import exemption_particulars, load_catalog
from inspection.core.extensions import db
from inspection.core.models import Answer, Certificate, Inspection, User, Vessel
from inspection.core.readcache import cached
from inspection.law.cycle import KINDS, add_months
from inspection.registry.needs import COLUMNS, exemption_for, needs_basis

MONTHS = 12
HORIZONS = (30, 60, 90)
TOP_ARTICLES = 10


def month_ends(today: date, months: int = MONTHS) -> list[date]:
    """The ends of the months of month_starts but today's, then today (its month so far)."""
    starts = month_starts(today, months)
    return [add_months(start, 1) - timedelta(days=1) for start in starts[:-1]] + [today]


def month_starts(today: date, months: int = MONTHS) -> list[date]:
    """The first day of each of the last `months` months, today's month last."""
    first = today.replace(day=1)
    return [add_months(first, -n) for n in range(months - 1, -1, -1)]


def patrol_window(today: date, zone) -> tuple[list[date], list[datetime], datetime]:
    """The last 12 months for patrol figures: their first days, their office midnights, and tomorrow's (the end)."""
    starts = month_starts(today)
    return starts, [_start_of(day, zone) for day in starts], _start_of(today + timedelta(days=1), zone)


def _start_of(day: date, zone) -> datetime:
    """The office's midnight opening `day`, as an aware datetime (timestamps are compared in UTC)."""
    return datetime.combine(day, time(0), zone)


# --- share of the fleet with valid certificates --------------------------------------------------

@dataclass(frozen=True)
class SharePoint:
    """One month end of one kind: vessels needing the kind, those holding it in force, the share (0..1)."""

    kind: str
    on: date
    needing: int
    certified: int

    @property
    def share(self) -> float:
        return self.certified / self.needing if self.needing else 0.0


def _exemption_columns() -> dict[str, list]:
    """Per kind, the vessel columns its exemptions read (checklists.exemption_particulars)."""
    catalog = load_catalog()
    return {kind: sorted(exemption_particulars(catalog.get(kind))) for kind in KINDS}


def fleet_validity(today: date, zone) -> list[SharePoint]:
    """The share of vessels needing each kind that held a certificate of it in force, per month end.

    Counted by share_points (one query) and kept in the process's cache (readcache) under the month
    ends, the needs' basis and `validity_version`, which moves with every write the points read.
    """
    ends = month_ends(today)
    key = (tuple(ends), str(zone), needs_basis(), validity_version())
    return cached("fleet_validity", key, lambda: share_points(ends, today, zone))


def validity_version() -> tuple:
    """One query of counts and maxima (index lookups) that move with every write the share points read.

    A certificate is inserted (count and latest id move) and never edited but for revoked_at (set once, to
    the moment it happens), suspended_at (set to the moment, or cleared by reinstating: the count drops)
    and superseded_by_id (not read here); every write of a vessel's particulars or needs sets updated_at
    to its moment, and adding or removing one moves the count. As those moments only grow, a count and a
    latest moment equal to an earlier pair mean the same rows (a later one would raise the latest).
    """
    c, v = Certificate, Vessel
    count = sa.func.count()  # COUNT(*), and WHERE column IS NOT NULL: what SQLite answers from an index alone
    parts = [sa.select(count).select_from(c), sa.select(sa.func.max(c.id)),
             sa.select(count).where(c.revoked_at.is_not(None)), sa.select(sa.func.max(c.revoked_at)),
             sa.select(count).where(c.suspended_at.is_not(None)), sa.select(sa.func.max(c.suspended_at)),
             sa.select(count).select_from(v), sa.select(sa.func.max(v.id)), sa.select(sa.func.max(v.updated_at))]
    return tuple(db.session.execute(sa.select(*[part.scalar_subquery() for part in parts])).one())


def share_points(ends: list[date], today: date, zone) -> list[SharePoint]:
    """The share points of both kinds at `ends`, in one query.

    Per vessel, whether any certificate of each kind was in force at each end (MAX over CASE); then
    vessels grouped by their stored needs (needs.py) and the flags summed. A vessel whose stored needs
    are stale (decided under other rules) is grouped instead by the particulars the exemptions read,
    and each such group decided here by the checklists' own exemptions.
    """
    kinds, basis = _exemption_columns(), needs_basis()
    columns = sorted({name for names in kinds.values() for name in names})
    held = _held_per_vessel(ends, today, zone)
    fresh = Vessel.needs_basis == basis
    # in a subquery, so PostgreSQL groups by the labels rather than CASEs with their own parameters
    keyed = sa.select(Vessel.id, *[sa.case((fresh, getattr(Vessel, COLUMNS[kind]))).label(COLUMNS[kind]) for kind in kinds],
                      *[sa.case((fresh, None), else_=getattr(Vessel, name)).label(name) for name in columns]
                      ).subquery("keyed")
    group = [keyed.c[COLUMNS[kind]] for kind in kinds] + [keyed.c[name] for name in columns]
    flags = [f"{kind}_{n}" for kind in kinds for n in range(len(ends))]
    rows = db.session.execute(
        sa.select(*group, sa.func.count().label("n"), *[sa.func.coalesce(sa.func.sum(held.c[f]), 0).label(f) for f in flags])
        .select_from(keyed).outerjoin(held, held.c.vessel_id == keyed.c.id).group_by(*group)).all()
    needing = dict.fromkeys(kinds, 0)
    certified = {kind: [0] * len(ends) for kind in kinds}
    for row in rows:  # a row per stored answer (needs both, one, none), plus one per particulars of stale vessels
        values = row._mapping
        particulars = {name: float(values[name]) if isinstance(values[name], Decimal) else values[name]
                       for name in columns}
        for kind in kinds:
            stored = values[COLUMNS[kind]]
            if not (bool(stored) if stored is not None else not exemption_for(kind)(particulars)):
                continue
            needing[kind] += row.n
            certified[kind] = [a + int(values[f"{kind}_{n}"]) for n, a in enumerate(certified[kind])]
    return [SharePoint(kind, end, needing[kind], certified[kind][n]) for kind in kinds for n, end in enumerate(ends)]


def _held_per_vessel(ends: list[date], today: date, zone):
    """Subquery: per vessel, 1 or 0 for each kind and end: a certificate of that kind in force that day."""
    flags = []
    for kind in KINDS:
        for n, end in enumerate(ends):
            condition = sa.and_(Certificate.kind == kind, Certificate.issued_on <= end, Certificate.valid_until >= end,
                                sa.or_(Certificate.revoked_at.is_(None),
                                       Certificate.revoked_at >= _start_of(end + timedelta(days=1), zone)))
            if end == today:  # suspensions have no history: they count today only
                condition = sa.and_(condition, Certificate.suspended_at.is_(None))
            flags.append(sa.func.max(sa.case((condition, 1), else_=0)).label(f"{kind}_{n}"))
    return (sa.select(Certificate.vessel_id, *flags)
            .where(Certificate.kind.in_(KINDS), Certificate.valid_until >= ends[0], Certificate.issued_on <= today)
            .group_by(Certificate.vessel_id).subquery("held"))


# --- due and overdue ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class DueCount:
    """Current certificates of a kind expiring within `days` (None: already expired, overdue)."""

    kind: str
    days: int | None
    count: int


def due_counts(today: date) -> list[DueCount]:
    """Certificates falling due in the next 30/60/90 days and those overdue, per kind: one query."""
    current = sa.and_(Certificate.superseded_by_id.is_(None), Certificate.revoked_at.is_(None))
    sums = [sa.func.sum(sa.case((Certificate.valid_until.between(today, today + timedelta(days=days)), 1), else_=0))
            .label(f"d{days}") for days in HORIZONS]
    overdue = sa.func.sum(sa.case((Certificate.valid_until < today, 1), else_=0)).label("overdue")
    rows = {row.kind: row for row in db.session.execute(
        sa.select(Certificate.kind, *sums, overdue).where(current).group_by(Certificate.kind))}
    counts = []
    for kind in KINDS:
        row = rows.get(kind)
        counts += [DueCount(kind, days, int(getattr(row, f"d{days}") or 0) if row else 0) for days in HORIZONS]
        counts.append(DueCount(kind, None, int(row.overdue or 0) if row else 0))
    return counts


# --- articles most often failed ----------------------------------------------------------------------

@dataclass(frozen=True)
class FailedArticle:
    """An article of a source and how many failed answers its items had."""

    source: str
    article: str
    count: int


def _item_citations() -> dict[str, tuple[str, str]]:
    """Item id -> (source, article) across the catalog's checklists (ids are stable across versions)."""
    catalog = load_catalog()
    return {item.id: (item.source, item.article) for kind in catalog.kinds for item in catalog.get(kind).items}


def submitted_version(since: date, today: date) -> tuple:
    """A count and the latest id of the inspections submitted with a date in [since, today]: one query.

    A submitted inspection is final: its answers are frozen (record_answer needs in_progress), its date
    and inspector do not change and it never leaves "submitted", so only a new submission changes what the
    charts read from submitted inspections, and it moves the count.
    """
    window = (Inspection.status == "submitted", Inspection.scheduled_on.between(since, today))
    return tuple(db.session.execute(sa.select(sa.func.count(), sa.func.max(Inspection.id)).where(*window)).one())


def failed_articles(today: date, limit: int = TOP_ARTICLES) -> list[FailedArticle]:
    """The `limit` articles most often failed in the last 12 months' submitted inspections.

    Counted in one query, kept in the process's cache (readcache) under submitted_version().
    """
    since = month_starts(today)[0]
    return cached("failed_articles", (today, limit, submitted_version(since, today)),
                  lambda: _failed_articles(since, today, limit))


def _failed_articles(since: date, today: date, limit: int) -> list[FailedArticle]:
    rows = db.session.execute(
        sa.select(Answer.item_id, sa.func.count().label("n")).join(Inspection, Inspection.id == Answer.inspection_id)
        .where(Answer.current, Answer.result == "fail", Inspection.status == "submitted",  # the partial index's terms
               Inspection.scheduled_on.between(since, today))
        .group_by(Answer.item_id)).all()
    citations, totals = _item_citations(), {}
    for row in rows:  # one row per distinct item, a few hundred at most: the catalog's size, not the data's
        key = citations.get(row.item_id, ("?", row.item_id))
        totals[key] = totals.get(key, 0) + row.n
    ranked = sorted(totals.items(), key=lambda entry: (-entry[1], entry[0]))
    return [FailedArticle(source, article, n) for (source, article), n in ranked[:limit]]


# --- inspections per inspector per month -------------------------------------------------------------

@dataclass(frozen=True)
class InspectorMonth:
    """How many inspections an inspector submitted in the month starting `month`."""

    inspector_id: int
    inspector: str
    month: date
    count: int


def inspections_per_inspector(today: date) -> list[InspectorMonth]:
    """Submitted inspections per inspector and month over the last 12 months.

    The counts are one query kept in the process's cache under submitted_version(); the names are read
    fresh (one query), so renaming an inspector shows at once.
    """
    starts = month_starts(today)
    counts = cached("inspections_per_inspector", (today, submitted_version(starts[0], today)),
                    lambda: _inspector_counts(starts, today))
    ids = sorted({inspector_id for inspector_id, _, _ in counts})
    names = {row.id: row.full_name or row.username for row in db.session.execute(
        sa.select(User.id, User.full_name, User.username).where(User.id.in_(ids)))} if ids else {}
    months = [InspectorMonth(inspector_id, names.get(inspector_id, "?"), starts[bucket], n)
              for inspector_id, bucket, n in counts]
    return sorted(months, key=lambda m: (m.inspector, m.inspector_id, m.month))


def _inspector_counts(starts: list[date], today: date) -> list[tuple[int, int, int]]:
    """(inspector_id, month bucket, count) of submitted inspections: one query.

    The month bucket is a CASE over boundaries computed here (no dialect's date functions), grouped
    in an outer query so PostgreSQL sees one expression.
    """
    bounds = [(start, add_months(start, 1) - timedelta(days=1)) for start in starts]
    bucket = sa.case(*[(Inspection.scheduled_on.between(first, last), n) for n, (first, last) in enumerate(bounds)])
    inner = (sa.select(Inspection.inspector_id, bucket.label("bucket"))
             .where(Inspection.status == "submitted", Inspection.scheduled_on.between(starts[0], today)).subquery())
    rows = db.session.execute(
        sa.select(inner.c.inspector_id, inner.c.bucket, sa.func.count().label("n"))
        .group_by(inner.c.inspector_id, inner.c.bucket)).all()
    return [(row.inspector_id, row.bucket, row.n) for row in rows]
