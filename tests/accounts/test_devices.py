"""Device sessions: a tablet's token lasts the trip, and its user, an admin, a new password or a disabled account end it."""
import re
from datetime import datetime, timedelta, timezone

import pytest

from inspection.core.models import ApiToken, AuditEvent
from tests.conftest import PASSWORD

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
PROBLEMS = "https://baliza.example/problems/"


@pytest.fixture
def clock(set_clock):
    """The app's clock at T0 (moved by the tests)."""
    set_clock(T0)
    return set_clock


def sign_in(app, user):
    """A browser signed in to the pages as `user`."""
    browser = app.test_client()
    assert browser.post("/login", data={"username": user.username, "password": PASSWORD}).status_code == 302
    return browser


def csrf_of(browser) -> str:
    """The CSRF token a page gives its scripts (the hidden field of its forms)."""
    return re.search(r'name="csrf_token" value="([^"]+)"', browser.get("/cuenta").text)[1]


def device_token(client, user, name="Tableta 7") -> dict:
    """A device token by password: the response body."""
    response = client.post("/api/v1/auth/token", json={"username": user.username, "password": PASSWORD, "device": name})
    assert response.status_code == 201, response.json
    return response.json


def bearer(body: dict) -> dict:
    return {"Authorization": f"Bearer {body['token']}"}


def assert_signed_out(client, body: dict):
    """The token is refused with the code that tells the tablet to sign in again, and the usual message."""
    response = client.get("/api/v1/auth/me", headers=bearer(body))
    assert response.status_code == 401 and response.mimetype == "application/problem+json"
    assert response.json["type"] == PROBLEMS + "token-invalid"
    return response.json


# --- issuing --------------------------------------------------------------------------------------

def test_a_device_token_by_password_lasts_the_configured_days(client, make_user, clock, db):
    user = make_user("inspector")
    body = device_token(client, user)
    assert set(body) == {"token", "role", "user_id", "expires_at", "device_id"}
    assert datetime.fromisoformat(body["expires_at"]) == T0 + timedelta(days=30)
    record = db.session.get(ApiToken, body["device_id"])
    assert (record.kind, record.device_name, record.user_id) == ("device", "Tableta 7", user.id)
    plain = client.post("/api/v1/auth/token", json={"username": user.username, "password": PASSWORD}).json
    assert "device_id" not in plain and datetime.fromisoformat(plain["expires_at"]) == T0 + timedelta(hours=12)


def test_device_days_come_from_the_setting(client, make_user, clock, app):
    app.config["DEVICE_TOKEN_DAYS"] = 3
    try:
        body = device_token(client, make_user("inspector"))
    finally:
        app.config["DEVICE_TOKEN_DAYS"] = 30
    assert datetime.fromisoformat(body["expires_at"]) == T0 + timedelta(days=3)


def test_the_setting_is_read_from_the_environment(monkeypatch, tmp_path):
    from flask import Flask

    from inspection.core.config import load_config

    monkeypatch.setenv("BALIZA_DEVICE_TOKEN_DAYS", "45")
    app = Flask(__name__, instance_path=str(tmp_path))
    load_config(app)
    assert app.config["DEVICE_TOKEN_DAYS"] == 45


def test_the_page_session_exchanges_itself_for_a_device_token(app, make_user, clock, db):
    user = make_user("inspector")
    browser = sign_in(app, user)
    app.config["WTF_CSRF_ENABLED"] = True
    response = browser.post("/api/v1/auth/device", json={"name": "Tableta de proa"},
                            headers={"X-CSRFToken": csrf_of(browser)})
    assert response.status_code == 201, response.json
    assert set(response.json) == {"token", "role", "user_id", "expires_at", "device_id"}
    assert (response.json["role"], response.json["user_id"]) == ("inspector", user.id)
    assert db.session.get(ApiToken, response.json["device_id"]).device_name == "Tableta de proa"
    fresh = app.test_client()  # the token works on its own, with no cookie
    assert fresh.get("/api/v1/auth/me", headers=bearer(response.json)).json["user_id"] == user.id


def test_without_a_name_the_device_is_named_by_its_browser(app, make_user, clock, db):
    browser = sign_in(app, make_user("inspector"))
    response = browser.post("/api/v1/auth/device", headers={"User-Agent": "Mozilla/5.0 (Linux; Android 14; Tab S9)"})
    assert response.status_code == 201
    assert db.session.get(ApiToken, response.json["device_id"]).device_name == "Mozilla/5.0 (Linux; Android 14; Tab S9)"


@pytest.mark.parametrize("name", ["", "x" * 121])
def test_a_device_name_is_1_to_120_characters(app, make_user, clock, name):
    browser = sign_in(app, make_user("inspector"))
    response = browser.post("/api/v1/auth/device", json={"name": name})
    assert response.status_code == 422 and "name" in response.json["errors"]


@pytest.mark.parametrize("header", [None, "not-a-token"])
def test_the_exchange_needs_the_pages_csrf_token(app, make_user, clock, db, header):
    """A cookie-authenticated write: a form on another site sends the cookie but cannot read the token."""
    browser = sign_in(app, make_user("inspector"))
    app.config["WTF_CSRF_ENABLED"] = True
    response = browser.post("/api/v1/auth/device", json={"name": "x"},
                            headers={"X-CSRFToken": header} if header else {})
    assert response.status_code == 400 and response.mimetype == "application/problem+json"
    assert response.json["type"] == PROBLEMS + "csrf-invalid"
    assert "CSRF" in response.json["detail"] and "recargue la página" in response.json["detail"]
    assert db.session.scalar(db.select(db.func.count(ApiToken.id)).filter_by(kind="device")) == 0


def test_the_exchange_needs_a_page_session_not_a_bearer_token(client, make_user, token_for, clock):
    assert client.post("/api/v1/auth/device", json={}).status_code == 401
    response = client.post("/api/v1/auth/device", json={}, headers=token_for(make_user("inspector")))
    assert response.status_code == 401 and "Inicie sesión en la página" in response.json["detail"]


# --- listing and revoking --------------------------------------------------------------------------

def test_devices_list_the_callers_own_with_the_current_one_marked(client, make_user, clock):
    user, other = make_user("inspector"), make_user("inspector")
    first, second = device_token(client, user, "Proa"), device_token(client, user, "Popa")
    device_token(client, other, "Ajena")
    client.post("/api/v1/auth/token", json={"username": user.username, "password": PASSWORD})  # an API token: not listed
    listed = client.get("/api/v1/auth/devices", headers=bearer(second)).json
    assert [(d["id"], d["device_name"], d["current"]) for d in listed] == [
        (second["device_id"], "Popa", True), (first["device_id"], "Proa", False)]
    assert set(listed[0]) == {"id", "device_name", "created_at", "last_used_at", "expires_at", "current"}


def test_own_revoke_signs_that_tablet_out_only(client, make_user, clock):
    user = make_user("inspector")
    lost, kept = device_token(client, user, "Perdida"), device_token(client, user, "Mía")
    assert client.delete(f"/api/v1/auth/devices/{lost['device_id']}", headers=bearer(kept)).status_code == 204
    problem = assert_signed_out(client, lost)
    assert problem["detail"] == "El token no es válido o ha vencido. Inicie sesión de nuevo."
    assert client.get("/api/v1/auth/me", headers=bearer(kept)).status_code == 200
    assert [d["device_name"] for d in client.get("/api/v1/auth/devices", headers=bearer(kept)).json] == ["Mía"]


def test_another_users_device_or_an_api_token_is_not_found(client, make_user, token_for, clock, db):
    user, other = make_user("inspector"), make_user("admin")
    theirs = device_token(client, other)
    mine = device_token(client, user)
    headers = token_for(user)
    assert client.delete(f"/api/v1/auth/devices/{theirs['device_id']}", headers=bearer(mine)).status_code == 404
    assert client.get("/api/v1/auth/me", headers=bearer(theirs)).status_code == 200
    api_token_id = db.session.scalar(db.select(ApiToken.id).filter_by(user_id=user.id, kind="api"))
    assert client.delete(f"/api/v1/auth/devices/{api_token_id}", headers=bearer(mine)).status_code == 404
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 200


def test_admin_signs_out_every_device_of_a_user_and_it_is_audited(app, client, make_user, token_for, clock, db):
    admin, user = make_user("admin"), make_user("inspector")
    tablets = [device_token(client, user, "A"), device_token(client, user, "B")]
    api_headers = token_for(user)
    page = sign_in(app, admin)
    listing = page.get("/usuarios").text
    assert "Cerrar sesiones de dispositivos" in listing and "Dispositivos con sesión: 2" in listing
    asked = page.post(f"/usuarios/{user.id}/dispositivos/revocar")  # it cannot be undone: asked first
    assert asked.status_code == 200 and "confirmed" in asked.text
    assert client.get("/api/v1/auth/me", headers=bearer(tablets[0])).status_code == 200
    response = page.post(f"/usuarios/{user.id}/dispositivos/revocar", data={"confirmed": "1"})
    assert response.status_code == 302 and response.headers["Location"].endswith(f"#user-{user.id}")
    for tablet in tablets:
        assert_signed_out(client, tablet)
    assert client.get("/api/v1/auth/me", headers=api_headers).status_code == 200  # not a device session
    event = db.session.scalar(db.select(AuditEvent).filter_by(action="user.devices_revoked"))
    assert (event.user_id, event.entity_id, event.details) == (admin.id, str(user.id), {"devices": 2})


def test_only_an_admin_signs_out_someone_elses_devices(app, client, make_user, clock):
    user = make_user("inspector")
    tablet = device_token(client, user)
    assert sign_in(app, make_user("inspector")).post(f"/usuarios/{user.id}/dispositivos/revocar").status_code == 403
    assert client.get("/api/v1/auth/me", headers=bearer(tablet)).status_code == 200


def test_the_account_page_lists_and_revokes_own_devices(app, client, make_user, clock):
    user, other = make_user("inspector"), make_user("inspector")
    tablet, theirs = device_token(client, user, "Tableta del Paraná"), device_token(client, other, "Ajena")
    page = sign_in(app, user)
    html = page.get("/cuenta").text
    assert "Tableta del Paraná" in html and "Ajena" not in html and "Sin uso todavía" in html
    assert page.post(f"/cuenta/dispositivos/{theirs['device_id']}/revocar").status_code == 404
    response = page.post(f"/cuenta/dispositivos/{tablet['device_id']}/revocar", data={"confirmed": "1"})
    assert response.status_code == 302 and response.headers["Location"].endswith("/cuenta#dispositivos")
    assert_signed_out(client, tablet)
    assert client.get("/api/v1/auth/me", headers=bearer(theirs)).status_code == 200
    assert "No hay dispositivos con sesión abierta." in page.get("/cuenta").text


# --- what else ends a device session ---------------------------------------------------------------

def test_a_password_change_signs_every_tablet_out(app, client, make_user, clock):
    user = make_user("inspector")
    tablet = device_token(client, user)
    page = sign_in(app, user)
    assert page.post("/cuenta", data={"current": PASSWORD, "new": "otra-clave-larga"}).status_code == 302
    assert_signed_out(client, tablet)


def test_deactivation_signs_every_tablet_out(app, client, make_user, clock):
    user = make_user("inspector")
    tablet = device_token(client, user)
    assert sign_in(app, make_user("admin")).post(f"/usuarios/{user.id}/activo", data={"active": "0"}).status_code == 302
    assert assert_signed_out(client, tablet)["detail"] == "El token no es válido o ha vencido. Inicie sesión de nuevo."


def test_a_disabled_account_is_refused_with_the_same_code(client, make_user, clock, db):
    user = make_user("inspector")
    tablet = device_token(client, user)
    user.active = False  # disabled behind the API's back: the token row still stands
    db.session.commit()
    assert assert_signed_out(client, tablet)["detail"] == "La cuenta está desactivada."


def test_a_device_token_expires_after_its_days(client, make_user, clock):
    tablet = device_token(client, make_user("inspector"))
    clock(T0 + timedelta(days=29, hours=23))
    assert client.get("/api/v1/auth/me", headers=bearer(tablet)).status_code == 200  # a long trip offline
    clock(T0 + timedelta(days=30))
    assert_signed_out(client, tablet)
    clock(T0 + timedelta(hours=13))  # an API token would have died by then; back in time, the device lives
    assert client.get("/api/v1/auth/me", headers=bearer(tablet)).status_code == 200


def test_last_used_is_written_at_most_once_a_minute(client, make_user, clock, db, count_queries):
    tablet = device_token(client, make_user("inspector"))
    headers = bearer(tablet)

    def last_used():
        db.session.expire_all()
        return db.session.get(ApiToken, tablet["device_id"]).last_used_at

    assert last_used() is None
    client.get("/api/v1/auth/me", headers=headers)
    assert last_used() == T0
    clock(T0 + timedelta(seconds=59))
    quiet = count_queries(lambda: client.get("/api/v1/auth/me", headers=headers))
    assert last_used() == T0
    clock(T0 + timedelta(seconds=61))
    touching = count_queries(lambda: client.get("/api/v1/auth/me", headers=headers))
    assert last_used() == T0 + timedelta(seconds=61) and touching > quiet
