"""Signing keys under several processes: a rotation made anywhere is seen by every worker on its next request."""
import base64
import json
import os
import stat

import pytest

from app import create_app
from inspection.certificates.keys import (
    create_first_signing_key,
    create_signing_key,
    load_private_keys,
    save_private_key,
)
from inspection.certificates.signing import decode_token, generate_key, key_id
from inspection.core.models import SigningKey, utcnow
from tests.fixtures.inspections import answer_all, schedule, submit

SHARED = ("TESTING", "SECRET_KEY", "DATABASE_URL", "MEDIA_DIR", "KEYS_DIR", "PUBLIC_URL", "PASSWORD_METHOD",
          "WTF_CSRF_ENABLED", "AUTO_SIGNING_KEY")


@pytest.fixture
def other_worker(app, db):
    """A second app on the same database and key folder: another gunicorn worker, with its own caches."""
    other = create_app({key: app.config[key] for key in SHARED})
    yield other
    db.session.remove()
    with other.app_context():
        db.session.remove()
        db.engine.dispose()


def issue(client, crew):
    """Schedule, start, answer and submit a seguridad inspection through `client`; the certificate."""
    inspection_id = schedule(client, crew)
    assert client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"]).status_code == 200
    items = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json["items"]
    answer_all(client, crew, inspection_id, items)
    response = submit(client, crew, inspection_id)
    assert response.status_code == 200, response.json
    return response.json["certificate"]


def kid_of(token: str) -> str:
    return decode_token(token)[0]


def status_list_kid(client) -> str:
    response = client.get("/api/v1/status-list")
    assert response.status_code == 200, response.json
    return json.loads(base64.urlsafe_b64decode(response.json["jws"].split(".")[0] + "=="))["kid"]


def test_a_rotation_on_one_worker_is_seen_by_the_others(app, client, runner, crew, other_worker, db):
    worker = other_worker.test_client()
    first = issue(client, crew)  # the demo's first key, made on first issue
    old_kid = kid_of(first["token"])
    db.session.commit()
    assert worker.get(f"/api/v1/verify/{first['token']}").json["verdict"] == "valid"  # the worker's caches are warm
    assert status_list_kid(worker) == old_kid

    assert runner.invoke(args=["keys", "new"]).exit_code == 0  # the operator rotates from a shell
    db.session.commit()
    new_kid = db.session.scalar(db.select(SigningKey.kid).filter_by(retired_at=None))
    assert new_kid != old_kid

    assert status_list_kid(worker) == new_kid  # signs with the new key at once, no 404
    second = issue(worker, crew)  # no key of its own making: the operator's key signs
    assert kid_of(second["token"]) == new_kid
    db.session.rollback()  # the fixtures' objects were read before the worker wrote: SQLite's snapshot is stale
    third = issue(client, crew)
    db.session.commit()
    assert worker.get(f"/api/v1/verify/{third['token']}").json["verdict"] == "valid"  # not EMISOR DESCONOCIDO
    assert client.get(f"/api/v1/verify/{second['token']}").json["verdict"] == "superseded"  # known, just replaced
    assert worker.get(f"/api/v1/verify/{first['token']}").json["verdict"] == "superseded"  # retired keys still verify
    keys = db.session.scalars(db.select(SigningKey)).all()
    assert sorted((k.kid, k.retired_at is None) for k in keys) == sorted([(old_kid, False), (new_kid, True)])


def test_the_first_key_is_made_only_for_an_office_that_never_had_one(app, db, tmp_path, monkeypatch):
    monkeypatch.setitem(app.config, "KEYS_DIR", str(tmp_path))
    operator = create_signing_key("PGP-ASU", utcnow())
    assert create_first_signing_key("PGP-ASU", utcnow()) is None
    assert create_first_signing_key("PGP-CDE", utcnow()) is not None
    assert db.session.get(SigningKey, operator.kid).retired_at is None


def test_an_operators_key_missing_here_is_refused_not_replaced(client, crew, app, db, tmp_path, monkeypatch):
    """A key whose private half is not in this server's KEYS_DIR: a clear 409, never a key of our own."""
    monkeypatch.setitem(app.config, "KEYS_DIR", str(tmp_path / "elsewhere"))
    operator = create_signing_key(app.config["OFFICE_CODE"], utcnow())
    db.session.commit()
    monkeypatch.setitem(app.config, "KEYS_DIR", str(tmp_path / "here"))
    monkeypatch.delitem(app.extensions, "baliza.private_keys", raising=False)
    inspection_id = schedule(client, crew)
    client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"])
    answer_all(client, crew, inspection_id,
               client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json["items"])
    response = submit(client, crew, inspection_id)
    assert response.status_code == 409 and "keys new" in response.json["detail"]
    assert [k.kid for k in db.session.scalars(db.select(SigningKey))] == [operator.kid]
    assert client.get("/api/v1/status-list").status_code == 404


def test_automatic_keys_are_off_outside_the_demo(tmp_path):
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite'}", "SECRET_KEY": "x"})
    assert app.config["AUTO_SIGNING_KEY"] is False


def test_save_and_load_private_keys(tmp_path):
    """Keys are written 0600, never overwritten, and loaded as {kid: key}."""
    key = generate_key()
    kid = key_id(key)
    path = save_private_key(tmp_path / "keys", kid, key)
    assert path.name == f"{kid}.pem"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with pytest.raises(FileExistsError):
        save_private_key(tmp_path / "keys", kid, key)
    with pytest.raises(ValueError):
        save_private_key(tmp_path / "keys", "0" * 16, key)
    second = generate_key()
    save_private_key(tmp_path / "keys", key_id(second), second)
    loaded = load_private_keys(tmp_path / "keys")
    assert set(loaded) == {kid, key_id(second)}
    assert load_private_keys(tmp_path / "missing") == {}


def test_load_refuses_readable_or_misnamed_keys(tmp_path):
    """A key readable by others, or under another kid's name, is refused."""
    key = generate_key()
    path = save_private_key(tmp_path, key_id(key), key)
    path.chmod(0o644)
    with pytest.raises(PermissionError):
        load_private_keys(tmp_path)
    path.chmod(0o600)
    path.rename(tmp_path / ("0" * 16 + ".pem"))
    with pytest.raises(ValueError):
        load_private_keys(tmp_path)
