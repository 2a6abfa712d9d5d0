"""Signing keys under several processes: a rotation made anywhere is seen by every worker on its next request."""
import base64
import json

import pytest

from app import create_app
from inspection.keys import create_first_signing_key, create_signing_key
from inspection.models import SigningKey, utcnow
from inspection.signing import decode_token
from tests.test_inspections_api import answer_all, crew, schedule, submit  # noqa: F401 (fixtures)

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
