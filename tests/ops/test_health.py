"""GET /healthz: 200 when the database, the photo storage and the signing keys answer; 503 naming what fails."""
import shutil
from datetime import datetime, timezone

import pytest

from app import create_app
from inspection.media.storage import LocalStorage, StorageError

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def own_dirs(app, monkeypatch, tmp_path):
    """This test's own media root and KEYS_DIR, so breaking them touches no other test."""
    storage = LocalStorage(tmp_path / "media")
    monkeypatch.setitem(app.extensions, "baliza.media", storage)
    monkeypatch.setitem(app.config, "KEYS_DIR", str(tmp_path / "keys"))
    return storage


def _signing_key(app):
    from inspection.certificates.keys import create_signing_key
    from inspection.core.extensions import db

    record = create_signing_key(app.config["OFFICE_CODE"], NOW)
    db.session.commit()
    return record


def test_a_healthy_server_answers_200_uncached_without_a_cookie(app, client, own_dirs):
    _signing_key(app)
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json == {"status": "ok", "checks": {"database": "ok", "storage": "ok", "signing_keys": "ok"}}
    assert response.headers["Cache-Control"] == "no-store"
    assert "Set-Cookie" not in response.headers and "Retry-After" not in response.headers


def test_an_office_without_a_key_yet_is_healthy(client, own_dirs):
    assert client.get("/healthz").status_code == 200


def test_a_missing_media_root_is_503_naming_the_storage(app, client, own_dirs):
    shutil.rmtree(own_dirs.root)
    response = client.get("/healthz")
    assert response.status_code == 503 and response.headers["Retry-After"].isdigit()
    assert response.json == {"status": "fail", "checks": {"database": "ok", "storage": "fail", "signing_keys": "ok"}}
    assert response.headers["Cache-Control"] == "no-store"


def test_local_storage_ping_refuses_a_root_that_is_not_a_directory(tmp_path):
    storage = LocalStorage(tmp_path / "media")
    storage.ping()
    storage.root.rmdir()
    storage.root.write_text("not a directory")
    with pytest.raises(StorageError):
        storage.ping()


def test_a_current_key_whose_private_file_is_gone_is_503(app, client, own_dirs, tmp_path):
    record = _signing_key(app)
    (tmp_path / "keys" / f"{record.kid}.pem").unlink()
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json["checks"] == {"database": "ok", "storage": "ok", "signing_keys": "fail"}


def test_a_damaged_private_key_file_is_503(app, client, own_dirs, tmp_path):
    record = _signing_key(app)
    (tmp_path / "keys" / f"{record.kid}.pem").write_bytes(b"-----BEGIN PRIVATE KEY-----\nbroken\n")
    assert client.get("/healthz").json["checks"]["signing_keys"] == "fail"


def test_a_published_key_that_does_not_load_is_503(app, client, own_dirs, db):
    from inspection.core.models import SigningKey

    db.session.add(SigningKey(kid="k-broken", office_code="OTRA", public_jwk={"kty": "EC"}, created_at=NOW))
    db.session.commit()
    response = client.get("/healthz")
    assert response.status_code == 503 and response.json["checks"]["signing_keys"] == "fail"


def test_an_unreachable_database_is_503_naming_it(tmp_path):
    """A real refused connection (nothing listens on port 1), not a mock."""
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "MEDIA_DIR": str(tmp_path / "media"),
                      "KEYS_DIR": str(tmp_path / "keys"),
                      "DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1:1/none?connect_timeout=2"})
    response = app.test_client().get("/healthz")
    assert response.status_code == 503 and response.headers["Retry-After"].isdigit()
    assert response.json["checks"]["database"] == "fail" and response.json["checks"]["storage"] == "ok"


def test_a_bucket_that_is_not_there_is_503_naming_the_storage(app, client, s3_media):
    """Photos in S3 (the real SeaweedFS): healthy on the bucket, 503 naming storage once the bucket is gone."""
    assert client.get("/healthz").json["checks"]["storage"] == "ok"
    s3_media.server.client().delete_bucket(Bucket=s3_media.name)
    response = client.get("/healthz")
    assert response.status_code == 503 and response.headers["Retry-After"].isdigit()
    assert response.json["checks"] == {"database": "ok", "storage": "fail", "signing_keys": "ok"}

