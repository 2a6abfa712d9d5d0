"""Per-process caches of read models, each entry keyed on a fingerprint of everything the model reads.

A reader computes a cheap fingerprint (a few counts and maxima, or the raw values themselves) on every
request and reuses a result only under the same fingerprint, so a cached answer is never stale: any
write that could change it changes the key. The cache lives on the Flask app (one per process and app),
so several app servers each keep their own and agree through the fingerprint; a few entries per name,
the oldest dropped first. The cheapest fingerprint is a stamp (data_stamp): a random number per kind of
data, redrawn by every write of that kind in the writing transaction, all read in one statement a request,
or on PostgreSQL heard from the writers (stamp_feed.py) so that a request need not read them at all.
"""
import functools
import os
import secrets
from collections import OrderedDict
from threading import Lock

import sqlalchemy as sa
from flask import current_app, has_request_context, request
from sqlalchemy import event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from inspection.core.extensions import SAFE_METHODS, db
from inspection.core.models import DataStamp
from inspection.core.stamp_feed import CHANNEL, EXACT, feed_for

SIZE = 16  # entries kept per name: a few fingerprints (languages, feeds, office days) at a time
_lock = Lock()


def _store(name: str) -> OrderedDict:
    caches = current_app.extensions.setdefault("baliza_readcache", {})
    return caches.setdefault(name, OrderedDict())


def cached(name: str, key, compute, size: int = SIZE):
    """compute() once per `key` under `name` in this process; the newest `size` keys are kept."""
    with _lock:
        store = _store(name)
        if key in store:
            store.move_to_end(key)
            return store[key]
    value = compute()
    with _lock:
        store[key] = value
        while len(store) > size:
            store.popitem(last=False)
    return value


def raw_rows(sql: str, args=(), engine=None) -> list[tuple]:
    """The rows of a statement in the driver's own SQL, run on a pooled DBAPI connection of `engine` (the app's).

    For the statements every request or police scan makes: below SQLAlchemy's Connection a read costs
    ~20 µs on SQLite and ~130 µs on PostgreSQL, where the Connection added ~125 µs and the ORM ~0.9 ms.
    On PostgreSQL it runs in autocommit, so no transaction is opened and returning the connection costs no
    ROLLBACK round trip; SQLite's connections are in autocommit already (extensions.configure_sqlite).
    The engine's statement listeners still hear it (tests and benches count statements), and a database
    error comes out as SQLAlchemy's own, so a database that went away is a 503 as anywhere else.
    """
    engine = engine or db.engine
    dbapi_error = engine.dialect.loaded_dbapi.Error
    try:
        connection = engine.raw_connection()
    except dbapi_error as error:
        raise DBAPIError.instance(sql, args, error, dbapi_error) from error
    try:
        driver = connection.driver_connection
        autocommit = getattr(driver, "autocommit", None)
        if autocommit is False:
            driver.autocommit = True
        try:
            cursor = connection.cursor()
            if engine.dispatch.before_cursor_execute:
                engine.dispatch.before_cursor_execute(None, cursor, sql, args, None, False)
            cursor.execute(sql, args)
            rows = [tuple(row) for row in cursor.fetchall()] if cursor.description else []
            cursor.close()
        finally:
            if autocommit is False and not driver.closed:
                driver.autocommit = False
    except dbapi_error as error:
        connection.invalidate()  # never back to the pool in an unknown state
        raise DBAPIError.instance(sql, args, error, dbapi_error, connection_invalidated=True) from error
    finally:
        connection.close()
    return rows


def raw_row(sql: str, args=()) -> tuple | None:
    """The first row of raw_rows, or None."""
    rows = raw_rows(sql, args)
    return rows[0] if rows else None


# --- stamps: one read a request tells every cache whether its kind of data was written ------------

# The kinds of data a cache keys on, by the model whose writes redraw their stamp. Access: who a bearer
# token is and whether it still opens anything (a new token changes no cached answer, so its insert does not).
# Keys: the published signing keys. Certificates: every record a police verdict is derived from (the
# certificate, and its vessel's detentions and deficiencies), so a revocation or suspension changes the key
# of every cached verdict in its own transaction.
STAMPED = {"Vessel": "registry", "User": "access", "ApiToken": "access", "SigningKey": "keys",
           "Certificate": "certificates", "Detention": "certificates", "Deficiency": "certificates"}
UNSTAMPED_INSERTS = {"ApiToken"}
_MEMO = "baliza.stamps"
STAMPS_TABLE = DataStamp.__tablename__
_WROTE = "baliza.stamps_written"
_DRAWN = "baliza.stamps_drawn"
_HEARD, _FEED = "baliza.stamps_heard", "baliza.stamp_feed"


def data_stamp(name: str) -> int | None:
    """The stamp of one kind of data as this request first read it (None: never written since the table was made).

    Every stamp comes in one statement, read once a request (again after the request writes), so a
    bearer token's check and the vessel list's cache cost one query between them.
    """
    memo = request.environ if has_request_context() else {}
    exact = name in EXACT and not (memo and request.method in SAFE_METHODS)  # a write reads who may act
    if not exact and _MEMO not in memo and not memo.get(_WROTE) and (heard := _heard()) is not None:
        return heard.get(name)  # pushed by the writers' notices: no read (stamp_feed.py)
    if _MEMO not in memo and memo.get(_WROTE):  # the request's own writes: only its transaction sees their stamps
        table = DataStamp.__table__
        memo[_MEMO] = dict(db.session.connection().execute(sa.select(table.c.name, table.c.stamp)).all())
    elif _MEMO not in memo:  # below the ORM: no transaction is begun for a read that needs none
        memo[_MEMO] = dict(raw_rows(f"SELECT name, stamp FROM {STAMPS_TABLE}"))  # nosec B608 (the model's table name)
    return memo[_MEMO].get(name)


def _heard() -> dict[str, int] | None:
    """The stamps this process has heard from PostgreSQL's notices, taken once a request; None outside a request,
    on SQLite, with the feed off (STAMP_FEED) or while its connection is down."""
    if not has_request_context():
        return None
    if _HEARD not in request.environ:
        state = current_app.extensions.get(_FEED)
        if state is None or state[0] != os.getpid():
            engine, wanted = db.engine, current_app.config.get("STAMP_FEED", True)
            feed = feed_for(_listen_url(engine.url), STAMPS_TABLE) if wanted and engine.dialect.name == "postgresql" \
                else None
            state = current_app.extensions[_FEED] = (os.getpid(), feed)
        request.environ[_HEARD] = state[1].current() if state[1] is not None else None
    return request.environ[_HEARD]


@functools.cache
def _listen_url(url) -> str:
    """The engine's URL as libpq takes it, for the feed's own connection."""
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def transaction_memo(name: str) -> dict:
    """A dict that lives as long as the session's transaction: what one transaction asks again and again (a sync
    batch checks art. 214 for each answer) is read once, and the next transaction asks afresh."""
    session = db.session()
    transaction = session.get_transaction()
    held = session.info.get(("memo", name))
    if held is None or held[0] is not transaction:
        held = session.info[("memo", name)] = (transaction, {})
    return held[1]


def forget_memo(name: str) -> None:
    """Drop `name`'s transaction memo: this transaction has just written what it holds."""
    db.session.info.pop(("memo", name), None)


def note_stamps(pairs) -> None:
    """Take the (name, stamp) pairs another statement of this request read before it read any data (the rate
    limit's count brings them in its round trip), so the request's data_stamp() needs no read of its own."""
    if has_request_context() and not request.environ.get(_WROTE):
        request.environ.setdefault(_MEMO, dict(pairs))


def _redraw(session, names: set[str]) -> None:
    """Give each kind in `names` a new random stamp inside the writing transaction (an upsert: a row per kind)."""
    connection = session.connection()
    insert = postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
    drawn = session.info.setdefault(_DRAWN, {})
    for name in sorted(names):  # one order for every writer, so two never wait on each other's rows
        drawn[name] = secrets.randbits(62)
        statement = insert(DataStamp.__table__).values(name=name, stamp=drawn[name])
        connection.execute(statement.on_conflict_do_update(index_elements=["name"],
                                                           set_={"stamp": statement.excluded.stamp}))
        if connection.dialect.name == "postgresql":  # heard by every process once this transaction commits
            connection.execute(sa.select(sa.func.pg_notify(CHANNEL, f"{name}:{drawn[name]}")))
    if has_request_context():
        request.environ.pop(_MEMO, None)
        request.environ[_WROTE] = True


def _stamp_flush(session, flush_context, instances) -> None:
    """A flush that writes a stamped model redraws its kind's stamp."""
    written = [(row, True) for row in session.new] + [(row, False) for row in session.deleted] + \
              [(row, False) for row in session.dirty if session.is_modified(row)]
    names = {STAMPED[model] for row, inserted in written
             if (model := type(row).__name__) in STAMPED and not (inserted and model in UNSTAMPED_INSERTS)}
    if names:
        _redraw(session, names)


def _stamp_statement(state) -> None:
    """An UPDATE, DELETE or INSERT statement on a stamped model redraws its kind's stamp, unless marked
    `unstamped` (a write no cached answer reads, as a token's last use)."""
    if not (state.is_update or state.is_delete or state.is_insert) or state.execution_options.get("unstamped"):
        return
    model = state.bind_mapper.class_.__name__ if state.bind_mapper else None
    if model in STAMPED and not (state.is_insert and model in UNSTAMPED_INSERTS):
        _redraw(state.session, {STAMPED[model]})


def _committed(session) -> None:
    """This process takes the stamps its own commit drew at once (the notices arrive a moment later)."""
    drawn = session.info.pop(_DRAWN, None)
    if drawn and (engine := session.get_bind()).dialect.name == "postgresql":
        feed_for(_listen_url(engine.url), STAMPS_TABLE).apply(drawn)


def _rolled_back(session, previous_transaction=None) -> None:
    """Stamps drawn in a transaction that did not commit were never written."""
    if previous_transaction is None or previous_transaction.parent is None:
        session.info.pop(_DRAWN, None)


def watch_writes() -> None:
    """Redraw stamps on every session's writes (once per process, whatever the number of apps)."""
    for name, listener in (("before_flush", _stamp_flush), ("do_orm_execute", _stamp_statement),
                           ("after_commit", _committed), ("after_soft_rollback", _rolled_back)):
        if not event.contains(Session, name, listener):
            event.listen(Session, name, listener)
