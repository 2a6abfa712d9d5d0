"""Per-client rate limits on sign-in and public verification, shared by every app server through the database.

Why a counter table of our own and not Flask-Limiter: the limits must hold across app servers, and
the one store they all share is the database (no Redis in this deployment; a new service to run,
watch and back up for one counter was not worth it). A `limits` storage backed by it would still need
the atomic upsert written here (one that works on SQLite and PostgreSQL), it reads `time.time()` where
every other window here reads the office's one clock (inspection/core/clock.py, which tests set), and
its windows would live outside our migrations. So: one row per (scope, client address) holding a fixed
window's start and its hit count, counted in ONE statement (INSERT ... ON CONFLICT DO UPDATE ...
RETURNING), before any other hook of the request (so a refused or read-only request still counts).
The per-username sign-in lockout (auth.py) is counted the same way, in the same table.

What a count costs (issue 22: a durable commit per police scan held verification to 0.07 of a bare
app). Sign-in attempts are few, so each is counted in the database, exact across servers: on PostgreSQL
the table is UNLOGGED and each count is its own autocommitted statement on a connection of its own with
`synchronous_commit=off` (the row lock serialises concurrent hits; one round trip, no WAL flush); on
SQLite (the embedded, single-machine default) the count runs in the request's own session and commits at
once, since a second connection would wait on the request's write lock. Police scans are many, so they are
counted in the server's shared memory (core/shared_counts.py: exact across its workers, a few
microseconds), and on PostgreSQL, once a second, one statement adds the server's new hits to the same
table and brings back every server's totals: exact on one server, within a second's hits across several.
A police scan answered from the kept verdicts then makes no statement at all (its stamps are heard,
core/stamp_feed.py). A crash of the database server empties the counters, which only restarts every window.

The per-client limit sits in front of the per-account lockout (auth.py): the lockout stops many
guesses at one username, this stops one address trying many usernames. Verification is generous:
the police scan a lot, and offline verifiers cache `/api/v1/keys` and `/api/v1/status-list`, which
are not limited. The client address is `request.remote_addr`, corrected by ProxyFix only for
the declared proxies (security.py). The table stays bounded: at most once a minute each process deletes
every window that ended before the longest limit's window.
"""
import functools
import hashlib
import math
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from flask import current_app, request
from sqlalchemy import create_engine, update
from sqlalchemy.dialects import postgresql

from inspection.core.clock import office_now
from inspection.core.exceptions import DomainError
from inspection.core.extensions import db, ping_when_idle
from inspection.core.models import RateCounter, UTCDateTime
from inspection.core.readcache import STAMPS_TABLE, note_stamps, raw_rows
from inspection.core.shared_counts import SharedCounts
from inspection.i18n.messages import Msg

UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
_LIMIT = re.compile(r"^\s*(\d+)\s*(?:/|per)\s*(\d*)\s*(second|minute|hour|day)s?\s*$")

# Which endpoints count against which limit (and for which methods); the setting that sets it.
SCOPES = {
    "pages.login": ("login", {"POST"}),
    "api_auth.create_token": ("login", {"POST"}),
    "certificates.verify_page": ("verify", {"GET", "HEAD"}),
    "api_certificates.get_verify": ("verify", {"GET", "HEAD"}),
}
SETTINGS = {"login": "RATE_LIMIT_LOGIN", "verify": "RATE_LIMIT_VERIFY"}


@dataclass(frozen=True)
class Limit:
    """At most `count` requests per client in each fixed window of `window`."""

    count: int
    window: timedelta


def parse_limit(text) -> Limit | None:
    """'120/minute', '30 per minute', '100/10minutes'; None, '' or 0 turn the limit off."""
    if text in (None, "", 0, "0", False):
        return None
    match = _LIMIT.match(str(text))
    if not match:
        raise ValueError(f"rate limit {text!r}: write it as N/unit, such as '120/minute' (units: {', '.join(UNITS)})")
    count, times, unit = int(match[1]), int(match[2] or 1), match[3]
    return Limit(count, timedelta(seconds=times * UNITS[unit])) if count else None


# Ten failed sign-ins for one username in fifteen minutes lock it out for the rest of that window
# (auth.authenticate), counted in the same table under "user:<name>", whatever the address.
USER_LOCKOUT = Limit(10, timedelta(minutes=15))


def kept_for() -> timedelta:
    """The longest window any counter uses: a window that started longer ago than this has ended."""
    limits = current_app.extensions.get("baliza.rate_limits", {})
    return max([USER_LOCKOUT.window, *(limit.window for limit in limits.values())])


def clear_hits(bucket: str, now: datetime) -> None:
    """Start `bucket`'s window afresh at `now` with no hits (a successful sign-in clears its username's count)."""
    db.session.execute(update(RateCounter).where(RateCounter.bucket == bucket).values(hits=0, window_started_at=now))


class RateLimited(DomainError):
    """Too many requests from one client in the current window."""

    status, code, title = 429, "rate-limited", Msg("Demasiadas solicitudes")


# One statement counts a hit, the same on SQLite and PostgreSQL: a new bucket starts at 1, an ended window
# restarts at 1, else the count goes up; the row lock makes concurrent hits count one after another.
_COUNT = sa.text(
    "INSERT INTO rate_counters (bucket, window_started_at, hits) VALUES (:bucket, :now, 1) "
    "ON CONFLICT (bucket) DO UPDATE SET "
    "hits = CASE WHEN rate_counters.window_started_at <= :ended THEN 1 ELSE rate_counters.hits + 1 END, "
    "window_started_at = CASE WHEN rate_counters.window_started_at <= :ended THEN :now "
    "ELSE rate_counters.window_started_at END "
    "RETURNING hits, window_started_at"
).bindparams(sa.bindparam("now", type_=UTCDateTime), sa.bindparam("ended", type_=UTCDateTime)
             ).columns(hits=sa.Integer, window_started_at=UTCDateTime)
_PURGE = sa.text("DELETE FROM rate_counters WHERE window_started_at < :before").bindparams(
    sa.bindparam("before", type_=UTCDateTime))


def count_hit(bucket: str, now: datetime, window: timedelta, stamps: bool = False) -> tuple[int, datetime]:
    """Count one request in `bucket`'s window (a new one once `window` has passed): (hits so far, window start).

    One upsert, committed at once (module docstring: how, on each database): it runs first in the request,
    and a request refused later, or one that only reads, must still have counted. `stamps`: on PostgreSQL
    the same round trip reads the data stamps for the request (readcache.note_stamps), for a count made before
    the request read anything else.
    """
    params = {"bucket": bucket, "now": now, "ended": now - window}
    purge = _purge_due(now)
    if db.engine.dialect.name != "postgresql":
        hits, started = db.session.execute(_COUNT, params).one()
        if purge is not None:
            db.session.execute(_PURGE, {"before": purge})
        db.session.commit()
        return hits, started
    # Below SQLAlchemy's Connection: building and running the statement through it cost more than the round trip.
    engine = _counting_engine()
    rows = raw_rows(_count_and_stamps() if stamps else _compiled(_COUNT), params, engine)
    if stamps:
        note_stamps(row[2:] for row in rows if row[2] is not None)
    if purge is not None:
        raw_rows(_compiled(_PURGE), {"before": purge}, engine)
    return rows[0][0], rows[0][1]


@functools.cache
def _compiled(statement) -> str:
    """A fixed statement's SQL in psycopg's parameter style (timestamps bind as aware datetimes as they are)."""
    return str(statement.compile(dialect=postgresql.dialect()))


@functools.cache
def _count_and_stamps() -> str:
    """The count, and every data stamp beside it in one row each (a police scan's one round trip)."""
    # Fixed statements only, the values bound: nothing from a request is written into this SQL.
    return (f"WITH hit AS ({_compiled(_COUNT)}) SELECT hit.hits, hit.window_started_at, "  # nosec B608
            f"stamp.name, stamp.stamp FROM hit LEFT JOIN {STAMPS_TABLE} stamp ON true")


PURGE_EVERY = timedelta(minutes=1)


def _purge_due(now: datetime) -> datetime | None:
    """Before when windows are purged (those older than the longest limit's), once a minute per process; else None.

    A clock set back (tests, or a corrected server) counts as due, so the table never outlives its windows.
    """
    state = current_app.extensions.setdefault("baliza.rate_purge", {})
    last = state.get("at")
    if last is not None and last <= now < last + PURGE_EVERY:
        return None
    state["at"] = now
    return now - kept_for()


def _counting_engine():
    """This process's autocommit engine for counts on PostgreSQL (made after the fork: engines are per process)."""
    state = current_app.extensions.setdefault("baliza.rate_engine", {})
    if state.get("pid") != os.getpid():
        engine = create_engine(db.engine.url, isolation_level="AUTOCOMMIT", pool_size=2, max_overflow=8,
                               connect_args={"options": "-c synchronous_commit=off"})
        ping_when_idle(engine)
        state.update(pid=os.getpid(), engine=engine)
    return state["engine"]


# The police scan's limit is counted per server in shared memory (core/shared_counts.py), the database told once
# a second; sign-in stays counted in the database on every attempt, exact across servers for the lockout.
HOST_COUNTED = {"verify"}
SHARE_EVERY = timedelta(seconds=1)
_ADD = ("INSERT INTO rate_counters (bucket, window_started_at, hits) "
        "SELECT * FROM unnest(%(buckets)s::text[], %(starts)s::timestamptz[], %(hits)s::integer[]) "
        "ON CONFLICT (bucket) DO UPDATE SET "
        "hits = CASE WHEN rate_counters.window_started_at <= %(ended)s THEN excluded.hits "
        "ELSE rate_counters.hits + excluded.hits END, "
        "window_started_at = CASE WHEN rate_counters.window_started_at <= %(ended)s "
        "THEN excluded.window_started_at ELSE rate_counters.window_started_at END "
        "RETURNING bucket, hits")


def host_counts_path(config) -> str:
    """Where this server's workers share their counts: the setting, else a file in memory (/dev/shm) named after
    the database and the instance folder, so the workers of one server share it and two servers on one host too."""
    if config.get("RATE_COUNTS_FILE"):
        return config["RATE_COUNTS_FILE"]
    seed = f"{config.get('SQLALCHEMY_DATABASE_URI')}|{config.get('INSTANCE_PATH', '')}"
    folder = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()  # nosec B108 (memory, mode 0600)
    return os.path.join(folder, f"baliza-counts-{hashlib.sha256(seed.encode()).hexdigest()[:16]}")


def count_on_host(bucket: str, now: datetime, window: timedelta) -> tuple[int, datetime]:
    """Count one hit in this server's shared memory (hits on every server as last heard, window start); on
    PostgreSQL, once a second, tell the database this server's new hits and hear every server's totals."""
    counts = current_app.extensions["baliza.host_counts"]
    found = counts.hit(bucket, now, window)
    if counts.shared and (unsent := counts.take_unsent(now, SHARE_EVERY)):
        try:
            counts.hear(_share(unsent, now, window))
        except sa.exc.DBAPIError:  # the scan does not wait on the others' counts; the next share tells them
            current_app.logger.warning("rate limits: this server's counts could not be shared", exc_info=True)
    return found


def _share(unsent: list[tuple[str, datetime, int]], now: datetime, window: timedelta) -> dict[str, int]:
    """Add this server's new hits to the database's windows (one statement): the totals on every server of the
    buckets whose window there holds more than what was just sent (a window the database starts holds only these)."""
    added: dict[str, list] = {}
    for bucket, started, hits in unsent:  # one row per bucket: an upsert may not touch a row twice
        kept = added.setdefault(bucket, [started, 0])
        kept[0], kept[1] = min(kept[0], started), kept[1] + hits
    engine = _counting_engine()
    rows = raw_rows(_ADD, {"buckets": list(added), "starts": [v[0] for v in added.values()],
                           "hits": [v[1] for v in added.values()], "ended": now - window}, engine)
    if (purge := _purge_due(now)) is not None:
        raw_rows(_compiled(_PURGE), {"before": purge}, engine)
    return {bucket: total for bucket, total in rows if total > added[bucket][1]}  # others counted there too


def limits_in(config) -> dict[str, Limit]:
    """Each scope's limit from the settings (a scope whose setting is off is absent)."""
    found = {scope: parse_limit(config.get(key)) for scope, key in SETTINGS.items()}
    return {scope: limit for scope, limit in found.items() if limit}


def check_rate_limit():
    """before_request: refuse (429 with Retry-After) a client past its limit for this endpoint."""
    scoped = SCOPES.get(request.endpoint)
    if scoped is None or request.method not in scoped[1]:
        return None
    limits = current_app.extensions["baliza.rate_limits"]
    limit = limits.get(scoped[0])
    if limit is None:
        return None
    now = office_now()
    bucket = f"{scoped[0]}:{request.remote_addr or '-'}"[:120]
    if scoped[0] in HOST_COUNTED:
        hits, started = count_on_host(bucket, now, limit.window)
    else:
        hits, started = count_hit(bucket, now, limit.window, stamps=True)
    if hits <= limit.count:
        return None
    wait = max(1, math.ceil((started + limit.window - now).total_seconds()))
    raise RateLimited(Msg("Demasiadas solicitudes desde esta dirección. Vuelva a intentarlo en {seconds} s.",
                          seconds=wait), headers={"Retry-After": str(wait)})


def init_rate_limits(app) -> None:
    """Read the limits once (a malformed setting stops the app here) and count before any other hook."""
    app.extensions["baliza.rate_limits"] = limits_in(app.config)
    # Several servers share a server database (PostgreSQL); SQLite is one machine's, its servers share the file.
    app.extensions["baliza.host_counts"] = SharedCounts(
        host_counts_path({**app.config, "INSTANCE_PATH": app.instance_path}),
        shared=str(app.config.get("SQLALCHEMY_DATABASE_URI", "")).startswith("postgresql"))
    app.before_request_funcs.setdefault(None, []).insert(0, check_rate_limit)
