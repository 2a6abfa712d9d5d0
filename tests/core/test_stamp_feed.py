"""The data stamps heard from PostgreSQL's notices (inspection/core/stamp_feed.py)."""
import os

import psycopg
import pytest

from inspection.core.readcache import STAMPS_TABLE, _listen_url, data_stamp
from inspection.core.stamp_feed import CHANNEL, StampFeed
from tests.tablet_rig import wait_until

pytestmark = pytest.mark.skipif(not (os.environ.get("BALIZA_TEST_DATABASE_URL") or "").startswith("postgresql"),
                                reason="PostgreSQL only: SQLite has no notices (its stamps are read, ~20 µs)")


@pytest.fixture
def server(db):
    """Another server's connection to the same database: what it writes and announces."""
    with psycopg.connect(_listen_url(db.engine.url), autocommit=True) as connection:
        yield connection


def put(connection, name: str, stamp: int, announce: str | None = None) -> None:
    connection.execute(f"INSERT INTO {STAMPS_TABLE} (name, stamp) VALUES (%s, %s) "
                       "ON CONFLICT (name) DO UPDATE SET stamp = excluded.stamp", (name, stamp))
    if announce is not None:
        connection.execute("SELECT pg_notify(%s, %s)", (CHANNEL, announce))


def test_a_notice_from_another_server_is_heard_without_a_read(db, server, sql_statements):
    put(server, "registry", 1)
    feed = StampFeed(_listen_url(db.engine.url), STAMPS_TABLE)
    assert feed.current()["registry"] == 1
    put(server, "registry", 2, "registry:2")
    assert wait_until(lambda: feed.current()["registry"] == 2, timeout=5, every=0.01, what="the notice")
    put(server, "registry", 3)  # written without a notice: not heard...
    put(server, "certificates", 4, "*")  # ...until a notice says to read them all
    assert wait_until(lambda: feed.current() == {"registry": 3, "certificates": 4}, timeout=5, every=0.01,
                      what="the read after `*`")


def test_a_lost_connection_is_not_vouched_for_and_is_made_again(db, server):
    put(server, "registry", 1)
    feed = StampFeed(_listen_url(db.engine.url), STAMPS_TABLE)
    assert feed.current()["registry"] == 1
    server.execute("SELECT pg_terminate_backend(%s)", (feed.connection.info.backend_pid,))
    put(server, "registry", 5)  # written while the feed was gone, never announced
    assert wait_until(lambda: feed.current() is None, timeout=5, every=0.01, what="the loss noticed")
    assert feed.current() is None and feed.connection is None  # not tried again on every request
    feed.retry_at = 0  # RETRY seconds later
    assert feed.current()["registry"] == 5  # connected again, every stamp read afresh


def test_a_read_takes_heard_stamps_and_a_write_reads_who_may_act(app, db, server):
    """`access` (bearer tokens) is heard by a read and read by a write: a revocation holds on the next write even
    before its notice lands."""
    put(server, "registry", 7, "registry:7")
    put(server, "access", 8, "access:8")

    def heard():
        with app.test_request_context():
            return data_stamp("registry") == 7

    wait_until(heard, timeout=5, every=0.01, what="the notice")
    put(server, "registry", 9)  # no notice: the request takes what it heard
    put(server, "access", 10)
    with app.test_request_context():
        assert (data_stamp("registry"), data_stamp("access")) == (7, 8)
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        with app.test_request_context(method=method):
            assert (data_stamp("access"), data_stamp("registry")) == (10, 9)  # one read: every stamp as written
