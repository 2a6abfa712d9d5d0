"""inspection/core/extensions.py: SQLite's transactions by the request's method; a pooled PostgreSQL connection is
tested before use only when it sat idle."""
import os

import pytest
from sqlalchemy import create_engine, text

from inspection.core import extensions

URL = os.environ.get("BALIZA_TEST_DATABASE_URL") or ""
needs_postgresql = pytest.mark.skipif(not URL.startswith("postgresql"), reason="needs PostgreSQL (BALIZA_TEST_DATABASE_URL)")


@pytest.mark.parametrize("method, begin", [("GET", "BEGIN"), ("HEAD", "BEGIN"), ("OPTIONS", "BEGIN"),
                                           ("POST", "BEGIN IMMEDIATE"), ("PATCH", "BEGIN IMMEDIATE"),
                                           ("DELETE", "BEGIN IMMEDIATE")])
def test_on_sqlite_a_request_that_may_write_takes_the_database_at_once(app, db, sql_statements, method, begin):
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's BEGIN")
    with app.test_request_context(method=method):
        sent = sql_statements(lambda: db.session.execute(text("SELECT 1")))
        db.session.rollback()
    assert sent[0] == begin


def backend_pid(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(text("SELECT pg_backend_pid()")).scalar_one()


def terminate(pid: int) -> None:
    with create_engine(URL, isolation_level="AUTOCOMMIT").connect() as admin:
        admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})


@pytest.fixture
def engine():
    engine = create_engine(URL, pool_size=1, max_overflow=0)
    extensions.ping_when_idle(engine)
    yield engine
    engine.dispose()


@needs_postgresql
def test_an_idle_connection_the_server_dropped_is_replaced_before_use(engine, monkeypatch):
    monkeypatch.setattr(extensions, "IDLE_BEFORE_PING", 0)  # every pooled connection counts as idle
    first = backend_pid(engine)
    terminate(first)
    assert backend_pid(engine) != first  # the ping found it dead; the pool opened another and the query ran


@needs_postgresql
def test_a_connection_in_steady_use_is_not_pinged(engine, monkeypatch):
    monkeypatch.setattr(extensions, "IDLE_BEFORE_PING", 3600)
    terminate(backend_pid(engine))
    with pytest.raises(Exception, match="terminat|closed|server"):  # no ping: the dead connection was used
        backend_pid(engine)
    assert backend_pid(engine) > 0  # the failure invalidated the pool; the next checkout connects afresh


@pytest.mark.parametrize("page, shown, total, counted", [
    (1, 3, 3, False),    # a short first page is the whole list
    (1, 0, 0, False),    # an empty first page: nothing at all
    (3, 4, 24, False),   # a short later page: the offset and its rows
    (1, 10, 99, True),   # a full page may have more after it
    (5, 0, 99, True),    # past the end: the pager needs the real total
])
def test_a_page_is_counted_only_when_it_must_be(page, shown, total, counted):
    asked = []
    assert extensions.page_total(page, 10, shown, lambda: asked.append(1) or 99) == total
    assert bool(asked) == counted


def test_db_paginate_counts_a_full_page_and_not_the_last(app, db, make_vessel, count_queries):
    from inspection.core.models import Vessel

    for _ in range(3):
        make_vessel()
    query = db.select(Vessel).order_by(Vessel.id)
    full, last = {}, {}
    db.session.scalar(db.select(Vessel.id).limit(1))  # the transaction begun: only the pages' own statements count
    assert count_queries(lambda: full.update(page=db.paginate(query, page=1, per_page=2))) == 2
    assert count_queries(lambda: last.update(page=db.paginate(query, page=2, per_page=2))) == 1
    assert (full["page"].total, last["page"].total, len(last["page"].items), last["page"].pages) == (3, 3, 1, 2)
