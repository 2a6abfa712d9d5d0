"""Page sessions end server-side: logout, password change, a disabled account, idle and absolute limits."""
from datetime import timedelta

import pytest

from inspection.accounts.sessions import standing_session, start_session, touch_session
from inspection.core.models import UserSession, utcnow
from tests.conftest import PASSWORD

IDLE, LIFETIME = timedelta(hours=8), timedelta(days=7)


def signed_in(app, user):
    """A browser signed in as `user`, and a second one holding a copy of its session cookie."""
    browser = app.test_client()
    assert browser.post("/login", data={"username": user.username, "password": PASSWORD}).status_code == 302
    thief = app.test_client()
    thief.set_cookie("session", browser.get_cookie("session").value)
    return browser, thief


def reads(client) -> bool:
    """True when the client's cookie still opens a page and reads the API."""
    page, api = client.get("/cuenta"), client.get("/api/v1/auth/me")
    assert (page.status_code == 200) == (api.status_code == 200)
    return page.status_code == 200


@pytest.fixture
def clock(set_clock):
    """Move the app's one clock: clock(hours=9) is nine hours from now."""
    start = utcnow()

    def move(**delta):
        set_clock(start + timedelta(**delta))

    return move


def test_the_cookie_carries_a_session_id_not_the_user_id(app, make_user, db):
    user = make_user("inspector")
    browser, _ = signed_in(app, user)
    from flask.sessions import SecureCookieSessionInterface

    data = SecureCookieSessionInterface().get_signing_serializer(app).loads(browser.get_cookie("session").value)
    assert data["_user_id"] != str(user.id) and len(data["_user_id"]) >= 40
    record = db.session.scalar(db.select(UserSession).filter_by(user_id=user.id))
    assert record.session_hash != data["_user_id"]  # only its digest is stored
    assert record.user_agent.startswith("Werkzeug")


def test_a_copied_cookie_dies_with_logout(app, make_user):
    browser, thief = signed_in(app, make_user("owner"))
    assert reads(thief)
    browser.post("/logout")
    assert not reads(browser) and not reads(thief)


def test_a_copied_cookie_dies_with_a_password_change(app, make_user):
    browser, thief = signed_in(app, make_user("inspector"))
    assert reads(thief)
    response = browser.post("/cuenta", data={"current": PASSWORD, "new": "otra-clave-larga"})
    assert response.status_code == 302
    assert not reads(thief)
    assert reads(browser)  # the browser that changed it gets a new session


def test_a_copied_cookie_dies_when_an_admin_disables_the_account(app, make_user, token_for, db):
    user = make_user("inspector")
    bearer = token_for(user)
    _, thief = signed_in(app, user)
    admin, _ = signed_in(app, make_user("admin"))
    assert reads(thief)
    assert admin.post(f"/usuarios/{user.id}/activo", data={"active": "0"}).status_code == 302
    assert not reads(thief)
    assert admin.get("/api/v1/auth/me", headers=bearer).status_code == 401
    assert admin.post(f"/usuarios/{user.id}/activo", data={"active": "1"}).status_code == 302
    assert not reads(thief)  # enabling the account again does not bring its old sessions back
    assert db.session.get(UserSession, db.session.scalar(db.select(UserSession.id).filter_by(user_id=user.id))
                          ).revoked_at is not None


def test_an_admin_cannot_disable_their_own_account(app, make_user):
    me = make_user("admin")
    admin, _ = signed_in(app, me)
    assert admin.post(f"/usuarios/{me.id}/activo", data={"active": "0"}).status_code == 409
    assert reads(admin)


def test_idle_sessions_end_after_the_idle_limit(app, make_user, clock):
    browser, _ = signed_in(app, make_user("admin"))
    clock(hours=7, minutes=59)
    assert reads(browser)  # used: the idle clock starts again
    clock(hours=15, minutes=58)
    assert reads(browser)
    clock(hours=24)
    assert not reads(browser)


def test_sessions_end_after_the_absolute_limit_however_busy(app, make_user, clock):
    browser, _ = signed_in(app, make_user("admin"))
    for hours in range(7, 7 * 24, 7):
        clock(hours=hours)
        assert reads(browser)
    clock(days=7, minutes=1)
    assert not reads(browser)


def test_last_seen_is_written_at_most_once_a_minute(app, make_user, db):
    user = make_user("admin")
    now = utcnow()
    raw = start_session(user, now)
    record = standing_session(raw, now + timedelta(seconds=59), IDLE, LIFETIME)
    assert not touch_session(record, now + timedelta(seconds=59)) and record.last_seen_at == now
    assert touch_session(record, now + timedelta(seconds=60)) and record.last_seen_at == now + timedelta(seconds=60)


def test_standing_session_limits(app, make_user, db):
    user = make_user("admin")
    now = utcnow()
    raw = start_session(user, now)
    assert standing_session(raw, now + IDLE, IDLE, LIFETIME).user == user
    assert standing_session(raw, now + IDLE + timedelta(seconds=1), IDLE, LIFETIME) is None
    assert standing_session(raw, now + timedelta(hours=2), IDLE, timedelta(hours=1)) is None
    assert standing_session("not-a-session", now, IDLE, LIFETIME) is None


def test_requests_without_a_cookie_never_read_sessions(client, make_user, sql_statements):
    """The police endpoint and API calls bring no cookie: no session lookup at all."""
    seen = sql_statements(lambda: [client.get(path) for path in ("/api/v1/keys", "/login", "/api/v1/auth/me")])
    assert any(seen)  # the keys are read, so the listener was there
    assert not [s for s in seen if "user_sessions" in s]
