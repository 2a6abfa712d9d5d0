"""Per-client rate limits: sign-in counted in the database, police scans in each server's shared memory and shared
through the database once a second (inspection/web/rate_limits.py, inspection/core/shared_counts.py)."""
import os
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import text

from inspection.core.models import RateCounter
from inspection.web.rate_limits import Limit, host_counts_path, limits_in, parse_limit
from tests.conftest import PASSWORD, all_at_once

POSTGRES = (os.environ.get("BALIZA_TEST_DATABASE_URL") or "").startswith("postgresql")
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("text, limit", [
    ("120/minute", Limit(120, timedelta(minutes=1))),
    ("30 per minute", Limit(30, timedelta(minutes=1))),
    ("100/10minutes", Limit(100, timedelta(minutes=10))),
    ("5/hour", Limit(5, timedelta(hours=1))),
    ("0", None), (0, None), (None, None), ("", None), ("0/minute", None),
])
def test_limits_are_read_from_settings(text, limit):
    assert parse_limit(text) == limit


def test_a_malformed_limit_stops_the_app():
    with pytest.raises(ValueError, match="N/unit"):
        limits_in({"RATE_LIMIT_LOGIN": "lots"})


@pytest.fixture
def limited(app, set_clock):
    """Small limits for this test (restored after); the clock at T0."""
    saved = app.extensions["baliza.rate_limits"]
    app.extensions["baliza.rate_limits"] = {"login": Limit(3, timedelta(minutes=1)),
                                            "verify": Limit(5, timedelta(minutes=1))}
    set_clock(T0)
    yield
    app.extensions["baliza.rate_limits"] = saved


def from_ip(address: str) -> dict:
    return {"REMOTE_ADDR": address}


def test_verification_is_limited_per_client_and_resets_after_the_window(app, client, limited, set_clock):
    for _ in range(3):
        assert client.get("/api/v1/verify/AAAA", environ_base=from_ip("10.0.0.1")).status_code == 400
    for _ in range(2):  # the page and the API share one budget
        assert client.get("/v/AAAA", environ_base=from_ip("10.0.0.1")).status_code != 429
    refused = client.get("/api/v1/verify/AAAA", environ_base=from_ip("10.0.0.1"))
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert refused.headers["Retry-After"] == "60"
    assert refused.json["detail"].startswith("Demasiadas solicitudes desde esta dirección")
    assert client.get("/api/v1/verify/AAAA", environ_base=from_ip("10.0.0.2")).status_code == 400  # another client
    assert client.get("/api/v1/keys", environ_base=from_ip("10.0.0.1")).status_code == 200  # what offline verifiers cache
    set_clock(T0 + timedelta(seconds=45))
    assert client.get("/api/v1/verify/AAAA", environ_base=from_ip("10.0.0.1")).headers["Retry-After"] == "15"
    set_clock(T0 + timedelta(seconds=60))
    assert client.get("/api/v1/verify/AAAA", environ_base=from_ip("10.0.0.1")).status_code == 400


def test_the_verification_page_refuses_in_the_users_language(app, client, limited):
    for _ in range(5):
        client.get("/v/AAAA", environ_base=from_ip("10.0.0.3"))
    page = client.get("/v/AAAA?lang=en", environ_base=from_ip("10.0.0.3"))
    assert page.status_code == 429 and page.mimetype == "text/html" and page.headers["Retry-After"] == "60"
    assert "Too many requests from this address" in page.get_data(as_text=True)
    spanish = client.get("/v/AAAA?lang=es", environ_base=from_ip("10.0.0.3"))
    assert "Demasiadas solicitudes desde esta dirección" in spanish.get_data(as_text=True)


def test_sign_in_is_limited_per_client_across_usernames(app, client, limited, make_user):
    user = make_user("admin")
    for n in range(3):  # three different usernames: the per-account lockout sees one attempt each
        response = client.post("/api/v1/auth/token", json={"username": f"nobody{n}", "password": "x"},
                               environ_base=from_ip("10.0.1.1"))
        assert response.status_code == 401
    refused = client.post("/api/v1/auth/token", json={"username": user.username, "password": PASSWORD},
                          environ_base=from_ip("10.0.1.1"))
    assert refused.status_code == 429 and refused.json["type"].endswith("/rate-limited")
    page = client.post("/login", data={"username": user.username, "password": PASSWORD},
                       environ_base=from_ip("10.0.1.1"))
    assert page.status_code == 429 and "Retry-After" in page.headers
    assert client.get("/login", environ_base=from_ip("10.0.1.1")).status_code == 200  # the form itself is not limited
    good = client.post("/login", data={"username": user.username, "password": PASSWORD},
                       environ_base=from_ip("10.0.1.2"))
    assert good.status_code == 302


def sign_in(client, address: str, username: str = "nadie"):
    return client.post("/api/v1/auth/token", json={"username": username, "password": "x"}, environ_base=from_ip(address))


def test_old_windows_are_purged(app, client, limited, set_clock, db):
    for n in range(4):
        sign_in(client, f"10.0.2.{n}", f"nadie{n}")
    assert db.session.query(RateCounter).filter(RateCounter.bucket.like("login:%")).count() == 4
    set_clock(T0 + timedelta(minutes=2))  # ended for the minute's limit, not for the sign-in lockout's 15 minutes
    sign_in(client, "10.0.2.98", "nadie98")
    assert db.session.query(RateCounter).filter(RateCounter.bucket.like("login:%")).count() == 5
    set_clock(T0 + timedelta(minutes=16))
    sign_in(client, "10.0.2.99", "nadie99")  # a new client's first attempt purges
    assert sorted(row.bucket for row in db.session.query(RateCounter).filter(RateCounter.bucket.like("login:%"))) == [
        "login:10.0.2.98", "login:10.0.2.99"]


def test_failed_sign_ins_are_counted_per_username_in_the_same_table_and_purged_with_it(client, set_clock, db):
    set_clock(T0)
    for n in range(3):
        sign_in(client, f"10.0.3.{n}", " Nadie ")
    assert db.session.get(RateCounter, "user:nadie").hits == 3  # whatever the address
    set_clock(T0 + timedelta(minutes=16))
    sign_in(client, "10.0.3.99", "otro")
    assert db.session.get(RateCounter, "user:nadie") is None


def test_a_limit_set_to_zero_is_off(app, client, set_clock):
    saved = app.extensions["baliza.rate_limits"]
    app.extensions["baliza.rate_limits"] = limits_in({"RATE_LIMIT_VERIFY": 0, "RATE_LIMIT_LOGIN": "0"})
    try:
        set_clock(T0)
        assert all(client.get("/api/v1/verify/AAAA").status_code == 400 for _ in range(150))
    finally:
        app.extensions["baliza.rate_limits"] = saved


def test_concurrent_scans_from_one_address_are_counted_exactly(app, db):
    """130 scans at once from one address under 120/minute: exactly 120 pass and 10 are refused (each count is atomic)."""
    saved = app.extensions["baliza.rate_limits"]
    app.extensions["baliza.rate_limits"] = {"verify": Limit(120, timedelta(minutes=1))}
    statuses = []

    def scan(n):
        with app.app_context():
            client = app.test_client()
            for _ in range(13):
                statuses.append(client.get("/api/v1/verify/AAAA", environ_base=from_ip("10.0.9.9")).status_code)
                db.session.remove()  # each request in a session of its own, as a server's are

    try:
        db.session.remove()
        all_at_once(scan, 10)
    finally:
        app.extensions["baliza.rate_limits"] = saved
    assert sorted(statuses) == [400] * 120 + [429] * 10


def test_police_scans_write_to_the_database_at_most_once_a_second(app, client, set_clock, db, sql_statements):
    set_clock(T0)
    client.get("/api/v1/verify/AAAA", environ_base=from_ip("10.0.4.1"))  # on PostgreSQL: this second's share

    def scans():
        for n in range(20):
            client.get("/api/v1/verify/AAAA", environ_base=from_ip(f"10.0.4.{n}"))

    writes = [s for s in sql_statements(scans) if s.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]
    assert writes == []
    assert db.session.query(RateCounter).count() == (1 if POSTGRES else 0)


@pytest.mark.skipif(not POSTGRES, reason="PostgreSQL only: servers share counts through a server database")
def test_servers_share_their_counts_through_the_database_once_a_second(app, limited, set_clock, db, tmp_path):
    """Server A counts 3 scans; B (its own shared memory, the same database) hears them at its first share."""
    from inspection.core.shared_counts import SharedCounts
    from inspection.web.rate_limits import count_on_host

    servers = {"a": app.extensions["baliza.host_counts"], "b": SharedCounts(str(tmp_path / "b"), shared=True)}

    def scan(server, at):
        app.extensions["baliza.host_counts"] = servers[server]
        try:
            with app.test_request_context():
                return count_on_host("verify:10.0.5.5", at, timedelta(minutes=1))[0]
        finally:
            app.extensions["baliza.host_counts"] = servers["a"]

    assert [scan("a", T0 + timedelta(milliseconds=n)) for n in range(3)] == [1, 2, 3]  # the first shares at once
    assert db.session.get(RateCounter, "verify:10.0.5.5").hits == 1
    assert scan("a", T0 + timedelta(seconds=1)) == 4  # a second on: A tells its four
    db.session.expire_all()
    assert db.session.get(RateCounter, "verify:10.0.5.5").hits == 4
    assert scan("b", T0 + timedelta(seconds=2)) == 1  # B's first scan: its own, then it shares and hears A's
    assert scan("b", T0 + timedelta(seconds=2, milliseconds=1)) == 6  # B's two and A's four
    db.session.expire_all()
    assert db.session.get(RateCounter, "verify:10.0.5.5").hits == 5


@pytest.mark.skipif(not POSTGRES, reason="PostgreSQL only: SQLite has no unlogged tables")
def test_counters_are_kept_out_of_the_write_ahead_log_on_postgresql(app, db):
    persistence = db.session.execute(text("SELECT relpersistence FROM pg_class WHERE relname = 'rate_counters'"))
    assert persistence.scalar_one() == "u"


@pytest.mark.skipif(not POSTGRES, reason="PostgreSQL only: the stamps are heard from its notices")
def test_a_kept_verdict_costs_no_statement_and_a_revocation_still_shows_at_once(app, client, crew, issued, db,
                                                                               count_queries):
    url = f"/api/v1/verify/{issued['token']}"
    assert client.get(url, environ_base=from_ip("10.0.3.1")).json["verdict"] == "valid"  # kept from here on
    served = []
    assert count_queries(lambda: served.append(client.get(url, environ_base=from_ip("10.0.3.1")))) == 0
    assert served[0].json["verdict"] == "valid"
    revoked = client.post(f"/api/v1/certificates/{issued['number']}/revoke", json={"reason": "Datos falsos"},
                          headers=crew["admin"])
    assert revoked.status_code == 200
    assert client.get(url, environ_base=from_ip("10.0.3.1")).json["verdict"] == "revoked"  # its stamp moved


def test_the_default_file_is_in_memory_and_one_per_database_and_instance(tmp_path):
    one = host_counts_path({"SQLALCHEMY_DATABASE_URI": "postgresql://db/a", "INSTANCE_PATH": "/srv/baliza"})
    assert one.startswith("/dev/shm/baliza-counts-")
    assert one == host_counts_path({"SQLALCHEMY_DATABASE_URI": "postgresql://db/a", "INSTANCE_PATH": "/srv/baliza"})
    assert one != host_counts_path({"SQLALCHEMY_DATABASE_URI": "postgresql://db/b", "INSTANCE_PATH": "/srv/baliza"})
    assert host_counts_path({"RATE_COUNTS_FILE": str(tmp_path / "x")}) == str(tmp_path / "x")
