"""Tokens, roles and passwords."""
import os
from datetime import timedelta

import pytest
from werkzeug.security import check_password_hash

from inspection.core.models import ApiToken, User, utcnow
from tests.conftest import all_at_once


def test_token_round_trip_and_revocation(client, make_user, token_for):
    user = make_user("inspector")
    headers = token_for(user)
    assert client.get("/api/v1/auth/me", headers=headers).json == {"user_id": user.id, "role": "inspector",
                                                                   "username": user.username}
    assert client.delete("/api/v1/auth/token", headers=headers).status_code == 204
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 401


@pytest.fixture
def other_server(app):
    """A second app on the same database, with its own process caches: another app server."""
    from app import create_app

    settings = {key: app.config[key] for key in ("SECRET_KEY", "MEDIA_DIR", "KEYS_DIR", "PUBLIC_URL", "PASSWORD_METHOD")}
    other = create_app({"TESTING": True, "DATABASE_URL": app.config["SQLALCHEMY_DATABASE_URI"], **settings})

    def get(path, headers):
        with other.app_context():
            return other.test_client().get(path, headers=headers)

    yield get
    with other.app_context():
        from inspection.core.extensions import db

        db.engine.dispose()


@pytest.mark.parametrize("refusal", ["revoked", "deactivated"])
def test_a_token_another_server_knows_is_refused_there_at_once(client, make_user, token_for, other_server, db,
                                                               refusal):
    """The other server keeps the token in its cache, yet a revocation or deactivation here holds there at once."""
    from inspection.accounts.users import set_active

    admin, user = make_user("admin"), make_user("inspector")
    headers = token_for(user)
    assert other_server("/api/v1/auth/me", headers).status_code == 200  # now in the other server's cache
    if refusal == "revoked":
        assert client.delete("/api/v1/auth/token", headers=headers).status_code == 204
    else:
        set_active(admin, db.session.get(User, user.id), False, utcnow())
        db.session.commit()
    response = other_server("/api/v1/auth/me", headers)
    assert response.status_code == 401
    assert "vencido" in response.json["detail"]  # deactivating revokes the user's tokens too


def test_token_response_fields(client, make_user):
    user = make_user("owner")
    body = client.post("/api/v1/auth/token", json={"username": user.username, "password": "correct-horse-battery"}).json
    assert set(body) == {"token", "role", "user_id", "expires_at"}
    assert body["role"] == "owner"


def test_expired_token_is_refused(client, make_user, token_for, db):
    user = make_user("admin")
    headers = token_for(user)
    record = db.session.scalar(db.select(ApiToken).filter_by(user_id=user.id))
    record.expires_at = utcnow() - timedelta(seconds=1)
    db.session.commit()
    response = client.get("/api/v1/auth/me", headers=headers)
    assert response.status_code == 401
    assert "vencido" in response.json["detail"]


def test_wrong_password_and_unknown_user(client, make_user):
    user = make_user("admin")
    assert client.post("/api/v1/auth/token", json={"username": user.username, "password": "nope"}).status_code == 401
    assert client.post("/api/v1/auth/token", json={"username": "ghost", "password": "nope"}).status_code == 401


def test_garbage_bearer_is_401(client):
    assert client.get("/api/v1/auth/me", headers={"Authorization": "Bearer garbage"}).status_code == 401


def test_inspector_cannot_create_users(client, as_role, db):
    _, headers = as_role("inspector")
    before = db.session.scalar(db.select(db.func.count(User.id)))
    response = client.post("/api/v1/users", json={"username": "nuevo", "role": "admin", "password": "x" * 12},
                           headers=headers)
    assert response.status_code == 403
    assert db.session.scalar(db.select(db.func.count(User.id))) == before


def test_admin_creates_owner_user_linked_to_owner(client, as_role, make_owner):
    _, headers = as_role("admin")
    owner = make_owner()
    response = client.post("/api/v1/users", json={"username": "capitan", "role": "owner", "password": "x" * 12},
                           headers=headers)
    assert response.status_code == 422 and "owner_id" in response.json["errors"]
    response = client.post("/api/v1/users", json={"username": "capitan", "role": "owner", "owner_id": owner.id,
                                                  "password": "x" * 12}, headers=headers)
    assert response.status_code == 201
    assert "password" not in response.json


def test_passwords_are_slow_hashed_in_production(app):
    from inspection.accounts.auth import hash_password

    app.config["PASSWORD_METHOD"] = "scrypt"
    try:
        digest = hash_password("baliza-demo")
    finally:
        app.config["PASSWORD_METHOD"] = "pbkdf2:sha256:1000"
    assert digest.startswith("scrypt:") and "baliza-demo" not in digest


def test_api_writes_need_a_bearer_token_even_with_a_session(client, make_user, make_owner):
    from tests.conftest import PASSWORD
    user = make_user("admin")
    client.post("/login", data={"username": user.username, "password": PASSWORD})
    assert client.get("/api/v1/auth/me").status_code == 200  # reads with the page session work
    response = client.post("/api/v1/owners", json={"name": "Flota Sur", "tax_id": "80055555-5"})
    assert response.status_code == 401


def test_security_headers(client):
    response = client.get("/login")
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Referrer-Policy"] == "no-referrer"


def test_password_guessing_is_locked_out_per_username(client, make_user):
    user = make_user("admin")
    for _ in range(10):
        assert client.post("/api/v1/auth/token", json={"username": user.username, "password": "guess"}).status_code == 401
    response = client.post("/api/v1/auth/token", json={"username": user.username, "password": "correct-horse-battery"})
    assert response.status_code == 429 and "15 minutos" in response.json["detail"]
    page = client.post("/login", data={"username": user.username, "password": "correct-horse-battery"})
    assert page.status_code == 429
    other = make_user("inspector")
    assert client.post("/api/v1/auth/token", json={"username": other.username,
                                                   "password": "correct-horse-battery"}).status_code == 201


def test_a_success_clears_earlier_failures(client, make_user):
    user = make_user("admin")
    for _ in range(9):
        client.post("/api/v1/auth/token", json={"username": user.username, "password": "guess"})
    assert client.post("/api/v1/auth/token", json={"username": user.username,
                                                   "password": "correct-horse-battery"}).status_code == 201
    for _ in range(9):
        client.post("/api/v1/auth/token", json={"username": user.username, "password": "guess"})
    assert client.post("/api/v1/auth/token", json={"username": user.username,
                                                   "password": "correct-horse-battery"}).status_code == 201


POSTGRES = (os.environ.get("BALIZA_TEST_DATABASE_URL") or "").startswith("postgresql")


@pytest.mark.skipif(not POSTGRES, reason="needs PostgreSQL (BALIZA_TEST_DATABASE_URL): SQLite runs one writer "
                                         "at a time, so parallel sign-ins cannot race there")
def test_parallel_guesses_check_at_most_max_failures_passwords(app, make_user, db, monkeypatch):
    """40 wrong guesses at once: exactly MAX_FAILURES passwords are checked, the rest are refused (429)."""
    import inspection.accounts.auth as auth

    username = make_user("admin").username
    checks, results = [], []

    def counting_check(stored, password):
        checks.append(1)
        return check_password_hash(stored, password)

    monkeypatch.setattr(auth, "check_password_hash", counting_check)

    def guess(n):
        with app.app_context():
            response = app.test_client().post("/api/v1/auth/token", json={"username": username,
                                                                          "password": f"guess-{n}"})
            results.append(response.status_code)
            db.session.remove()

    db.session.remove()
    all_at_once(guess, 40)
    assert len(checks) == auth.MAX_FAILURES
    assert sorted(results) == [401] * auth.MAX_FAILURES + [429] * (40 - auth.MAX_FAILURES)


def test_the_lockout_window_ends(client, make_user, set_clock):
    user = make_user("admin")
    for _ in range(10):
        client.post("/api/v1/auth/token", json={"username": user.username, "password": "guess"})
    body = {"username": user.username, "password": "correct-horse-battery"}
    assert client.post("/api/v1/auth/token", json=body).status_code == 429
    later = utcnow() + timedelta(minutes=15, seconds=1)
    set_clock(later)
    assert client.post("/api/v1/auth/token", json=body).status_code == 201


def _kept_users(app) -> list:
    """The Users this process keeps with their bearer tokens."""
    return [token.user for token in app.extensions["baliza_readcache"]["bearer_tokens"].values()]


def _read_routes(app) -> list[str]:
    """Every GET route of the API, its integer arguments filled with `1` and its others with `x`."""
    import re

    paths = []
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/v1/") and "GET" in rule.methods:
            paths.append(re.sub(r"<(?:(\w+):)?\w+>", lambda m: "1" if m[1] == "int" else "x", rule.rule))
    return sorted(set(paths))


@pytest.mark.parametrize("role", ["admin", "owner", "inspector", "police"])
def test_a_read_is_served_by_the_kept_user_and_never_changes_or_attaches_it(app, client, as_role, make_vessel, role):
    """Issue 22: a read's caller is the User kept with the token, in no session; every read of the API leaves it
    as it was (no attribute changed, loaded or expired, no session holds it), so the next request finds it whole."""
    from sqlalchemy import inspect

    make_vessel()
    user, headers = as_role(role)
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 200
    [kept] = [u for u in _kept_users(app) if u.id == user.id]
    before = {key: value for key, value in vars(kept).items() if not key.startswith("_sa_")}
    for path in _read_routes(app):
        status = client.get(path, headers=headers).status_code
        assert status < 500, path
        state = inspect(kept)
        assert state.detached and state.session_id is None, path
        assert {key: value for key, value in vars(kept).items() if not key.startswith("_sa_")} == before, path
    assert client.delete("/api/v1/auth/token", headers=headers).status_code == 204  # a write: its own copy
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 401
