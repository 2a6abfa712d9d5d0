"""The restore drill: real state made by the operations, backed up, restored into an empty database and storage.

On PostgreSQL (the CI's second run) the target is a scratch database made and dropped here; on SQLite a new file.
The storage is a local folder on both sides, or one SeaweedFS bucket restored into an empty second one.
"""
import hashlib
import json
import secrets

import pytest
from sqlalchemy.engine import make_url

from app import create_app
from bench.seaweed import new_bucket
from inspection.core.extensions import db as _db
from inspection.core.models import Inspection, Photo
from inspection.media.storage import LocalStorage
from inspection.ops.backup import is_postgresql, table_counts
from tests.conftest import certify_for, new_staff, new_vessel, restore_rows, shared_state


def _admin_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture
def target_url(app, tmp_path):
    """An empty database of the run's kind: a scratch PostgreSQL database (dropped after), or a new SQLite file."""
    url = app.config["DATABASE_URL"]
    if not is_postgresql(url):
        yield f"sqlite:///{tmp_path / 'restored.sqlite'}"
        return
    import psycopg

    name = f"restore_{secrets.token_hex(4)}"
    with psycopg.connect(_admin_dsn(url), autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(_admin_dsn(url), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def restoring_app(target_url, tmp_path, **media):
    """A second app on the empty target database and an empty media folder (or `media` settings), as a restore runs."""
    return create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE_URL": target_url,
                       "MEDIA_DIR": str(tmp_path / "restored-media"), "KEYS_DIR": str(tmp_path / "keys"), **media})


@pytest.fixture
def restored_app(target_url, tmp_path):
    """The restoring app on a local media folder."""
    app = restoring_app(target_url, tmp_path)
    yield app
    with app.app_context():
        _db.engine.dispose()


def restore_into(app, src):
    """`flask restore SRC` run by `app` (the CLI runner would otherwise use the test's app already in context)."""
    with app.app_context():
        return app.test_cli_runner().invoke(args=["restore", str(src)])


def back_up_two_certified_vessels(runner, make_vessel, certify, dest):
    """Two certified vessels (photos, signatures, certificates; `make_vessel(name)`) and a backup of it all in `dest`."""
    for name in ("Don Ramón", "Tacuary"):
        certify(make_vessel(name))
    result = runner.invoke(args=["backup", str(dest)])
    assert result.exit_code == 0, result.output
    return dest


@pytest.fixture(scope="module")
def backup_built(_app, tmp_path_factory):
    """The state and its backup built once for the module, since the tests only read them or break a copy:
    (backup folder, rows); photos and signatures stay in the session's local media folder."""
    def build():
        return back_up_two_certified_vessels(_app.test_cli_runner(), lambda name: new_vessel(name=name),
                                             certify_for(new_staff()), tmp_path_factory.mktemp("backup") / "backup")

    return shared_state(_app, build)


@pytest.fixture
def backed_up(app, backup_built, tmp_path):
    """backup_built's rows restored for this test and a copy of its backup in tmp/backup, free to damage."""
    import shutil

    built, rows = backup_built
    restore_rows(rows)
    return shutil.copytree(built, tmp_path / "backup")


def backed_up_state(backed_up):
    """The source's photos (sha256 and keys) and signature keys, checked against the backup's summary and manifest."""
    summary = json.loads((backed_up / "backup.json").read_text())
    photos = _db.session.execute(_db.select(Photo.sha256, Photo.original_key, Photo.display_key, Photo.thumb_key)).all()
    signatures = [key for row in _db.session.execute(_db.select(Inspection.inspector_signature_key,
                                                                 Inspection.master_signature_key)) for key in row]
    assert len(photos) >= 2 and len(signatures) == 4
    assert summary["counts"]["photos"] == len(photos) and summary["counts"]["certificates"] == 2
    manifest = [json.loads(line) for line in (backed_up / "media-manifest.jsonl").read_text().splitlines()]
    assert {photo.original_key for photo in photos} <= {entry["key"] for entry in manifest}
    return photos, signatures


def assert_restored(app, restored_app, backed_up, restored):
    """Restore `backed_up` with `restored_app`; every photo's original hashes to its row in `restored`, all rows back."""
    photos, signatures = backed_up_state(backed_up)
    result = restore_into(restored_app, backed_up)
    assert result.exit_code == 0, result.output
    assert f"{len(photos)} fotos verificadas; 0 problemas" in result.output
    for sha256, original, display, thumb in photos:
        assert hashlib.sha256(restored.get(original)).hexdigest() == sha256
        assert restored.exists(display) and restored.exists(thumb)
    assert all(restored.exists(key) for key in signatures)
    tables = _db.metadata.sorted_tables
    assert table_counts(restored_app.config["DATABASE_URL"], tables) == table_counts(app.config["DATABASE_URL"], tables)


def test_the_restore_drill_gives_back_every_row_and_every_photo(app, backed_up, restored_app):
    assert_restored(app, restored_app, backed_up, LocalStorage(restored_app.config["MEDIA_DIR"]))


def test_the_restore_drill_from_a_bucket_into_an_empty_bucket(app, s3_media, runner, make_vessel, certify, target_url,
                                                              tmp_path):
    """Photos in one SeaweedFS bucket, restored into an empty second bucket and an empty database."""
    backed_up = back_up_two_certified_vessels(runner, lambda name: make_vessel(name=name), certify,
                                              tmp_path / "backup")
    assert any(key.startswith(f"{s3_media.prefix}/originals/") for key in s3_media.objects())
    empty = new_bucket(s3_media.server)
    restored_app = restoring_app(target_url, tmp_path, **empty.config())
    try:
        assert_restored(app, restored_app, backed_up, empty.storage())
        assert len(empty.objects()) == len(s3_media.objects())
    finally:
        with restored_app.app_context():
            _db.engine.dispose()


def test_a_damaged_object_in_the_backup_fails_the_restore(app, backed_up, restored_app):
    original = _db.session.scalar(_db.select(Photo.original_key).limit(1))
    (backed_up / "media" / original).write_bytes(b"bit rot")
    result = restore_into(restored_app, backed_up)
    assert result.exit_code == 1
    assert f"{original}: la copia no coincide con el manifiesto" in result.output
    assert "falta" in result.output  # and the photo whose original it was is reported


def test_restore_refuses_a_database_that_is_not_empty(app, runner, backed_up, tmp_path, monkeypatch):
    monkeypatch.setitem(app.extensions, "baliza.media", LocalStorage(tmp_path / "empty-media"))
    result = runner.invoke(args=["restore", str(backed_up)])
    assert result.exit_code != 0 and "no está vacía" in result.output


def test_restore_refuses_a_storage_that_is_not_empty(backed_up, restored_app):
    LocalStorage(restored_app.config["MEDIA_DIR"]).put("originals/aa/left-over.jpg", b"x")
    result = restore_into(restored_app, backed_up)
    assert result.exit_code != 0 and "almacenamiento" in result.output


def test_backup_refuses_a_folder_that_is_not_empty(runner, tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "x").write_text("x")
    result = runner.invoke(args=["backup", str(tmp_path / "old")])
    assert result.exit_code != 0 and "no está vacía" in result.output
