"""Per-client rate limits on sign-in and public verification, counted in the database (inspection/web/rate_limits.py)."""
import os
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import text

from inspection.core.models import RateCounter
from inspection.web.rate_limits import Limit, limits_in, parse_limit
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


def test_old_windows_are_purged(app, client, limited, set_clock, db):
    for n in range(4):
        client.get("/api/v1/verify/AAAA", environ_base=from_ip(f"10.0.2.{n}"))
    assert db.session.query(RateCounter).count() == 4
    set_clock(T0 + timedelta(minutes=2))  # ended for the minute's limit, not for the sign-in lockout's 15 minutes
    client.get("/api/v1/verify/AAAA", environ_base=from_ip("10.0.2.98"))
    assert db.session.query(RateCounter).count() == 5  # the table's windows are kept as long as its longest
    set_clock(T0 + timedelta(minutes=16))
    client.get("/api/v1/verify/AAAA", environ_base=from_ip("10.0.2.99"))  # a new client's first hit purges
    assert sorted(row.bucket for row in db.session.query(RateCounter)) == ["verify:10.0.2.98", "verify:10.0.2.99"]


def test_failed_sign_ins_are_counted_per_username_in_the_same_table_and_purged_with_it(client, set_clock, db):
    set_clock(T0)
    for n in range(3):
        client.post("/api/v1/auth/token", json={"username": " Nadie ", "password": "x"}, environ_base=from_ip(f"10.0.3.{n}"))
    assert db.session.get(RateCounter, "user:nadie").hits == 3  # whatever the address
    set_clock(T0 + timedelta(minutes=16))
    client.get("/api/v1/verify/AAAA", environ_base=from_ip("10.0.3.99"))
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
    assert db.session.get(RateCounter, "verify:10.0.9.9").hits == 130


@pytest.mark.skipif(not POSTGRES, reason="PostgreSQL only: SQLite has no unlogged tables")
def test_counters_are_kept_out_of_the_write_ahead_log_on_postgresql(app, db):
    persistence = db.session.execute(text("SELECT relpersistence FROM pg_class WHERE relname = 'rate_counters'"))
    assert persistence.scalar_one() == "u"


@pytest.mark.skipif(not POSTGRES, reason="PostgreSQL only: SQLite counts in the request's own session")
def test_the_count_brings_the_stamps_so_a_kept_verdict_costs_no_other_read(app, client, crew, issued, db,
                                                                           count_queries):
    url = f"/api/v1/verify/{issued['token']}"
    assert client.get(url, environ_base=from_ip("10.0.3.1")).json["verdict"] == "valid"  # kept from here on
    served = []
    assert count_queries(lambda: served.append(client.get(url, environ_base=from_ip("10.0.3.1")))) == 0
    assert served[0].json["verdict"] == "valid"
    revoked = client.post(f"/api/v1/certificates/{issued['number']}/revoke", json={"reason": "Datos falsos"},
                          headers=crew["admin"])
    assert revoked.status_code == 200
    assert client.get(url, environ_base=from_ip("10.0.3.1")).json["verdict"] == "revoked"  # the count's stamps moved
