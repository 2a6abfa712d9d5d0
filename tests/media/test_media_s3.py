"""Photos in a real S3 bucket (SeaweedFS) through the app: upload and serve, sweep, migrate, and the store down (503).

Mirrors inspection/media/configured.py and inspection/ops/cli_media.py on S3 (the local store is covered by test_inspections_api.py).
"""
import hashlib

import pytest

from app import create_app
from inspection.core.models import ClientRequest, Photo
from inspection.media.configured import media_storage
from inspection.media.storage import LocalStorage, StorageUnavailable, media_key
from inspection.media.storage_s3 import BadMediaUrl, S3Storage, parse_media_url
from tests.fixtures.inspections import cid, jpeg, upload


def photo_count(db) -> int:
    return db.session.query(Photo).count()


@pytest.mark.parametrize("url, expected", [
    ("s3://baliza-media", ("baliza-media", "")),
    ("s3://baliza-media/prod/photos/", ("baliza-media", "prod/photos")),
])
def test_media_url_names_bucket_and_prefix(url, expected):
    assert parse_media_url(url) == expected


@pytest.mark.parametrize("url", ["http://bucket/x", "s3://", "s3://ab", "s3://Bucket", "s3://b_b/x",
                                 "s3://bucket/../x", "s3://user@bucket", "s3://bucket:9000/x", "bucket/x"])
def test_a_bad_media_url_stops_the_app_at_start(tmp_path, url):
    with pytest.raises(BadMediaUrl, match="BALIZA_MEDIA_URL"):
        create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/m.sqlite", "SECRET_KEY": "x", "MEDIA_URL": url})


def test_unset_media_url_keeps_the_local_directory(app):
    assert app.config["MEDIA_URL"] is None and isinstance(media_storage(), LocalStorage)


def test_a_photo_is_stored_in_the_bucket_and_served_from_it(client, crew, started, s3_media, db):
    assert isinstance(media_storage(), S3Storage)
    inspection_id, _ = started
    data = jpeg(31)
    sent = upload(client, crew, inspection_id, "seg.buckets.total", data)
    assert sent.status_code == 201
    photo = db.session.get(Photo, sent.json["id"])
    assert photo.display_key == photo.original_key  # a bare JPEG, as a tablet sends, is its own display copy
    assert s3_media.objects() == sorted(f"media/{key}" for key in (photo.original_key, photo.thumb_key))
    head = s3_media.server.client().head_object(Bucket=s3_media.name, Key=f"media/{photo.original_key}")
    assert head["Metadata"]["sha256"] == hashlib.sha256(data).hexdigest() == photo.sha256

    original = client.get(f"/api/v1/photos/{photo.id}/original", headers=crew["ih"])
    assert original.status_code == 200 and original.data == data
    assert original.headers["Content-Type"] == "image/jpeg"
    assert original.headers["Content-Length"] == str(len(data))
    assert original.headers["ETag"] == f'"{photo.sha256}-original"'
    assert original.headers["Cache-Control"] == "private, max-age=86400, immutable"
    assert original.headers["X-Content-Type-Options"] == "nosniff"
    assert client.get(f"/api/v1/photos/{photo.id}/display", headers=crew["ih"]).data == data
    thumb = client.get(f"/api/v1/photos/{photo.id}/thumb", headers=crew["ih"])
    assert thumb.data == media_storage().get(photo.thumb_key) and thumb.data[:2] == b"\xff\xd8"
    again = client.get(f"/api/v1/photos/{photo.id}/original", headers={**crew["ih"], "If-None-Match": original.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    other_owner = client.get(f"/api/v1/photos/{photo.id}/original", headers=crew["oh"])
    assert other_owner.status_code in (200, 404)  # the vessel's owner may see it; authorization stays in the app


def test_the_sweep_removes_unrecorded_objects_from_the_bucket(runner, client, crew, started, s3_media, db):
    inspection_id, _ = started
    kept = db.session.get(Photo, upload(client, crew, inspection_id, "seg.buckets.total", jpeg(32)).json["id"])
    orphan = media_key("originals", "cd" * 32)
    media_storage().put(orphan, jpeg(33))
    assert runner.invoke(args=["media", "sweep"]).output.startswith("0 archivos")  # in flight: kept
    assert runner.invoke(args=["media", "sweep", "--grace-minutes", "-1"]).output.startswith("1 archivos")
    assert s3_media.objects() == sorted({f"media/{key}" for key in (kept.original_key, kept.display_key, kept.thumb_key)})


def local_store(tmp_path, count: int) -> tuple[LocalStorage, list[str]]:
    """A local media directory with `count` originals (content-addressed) and a thumbnail each."""
    store, keys = LocalStorage(tmp_path / "old-media"), []
    for n in range(count):
        data = jpeg(40 + n)
        sha = hashlib.sha256(data).hexdigest()
        for key, body in ((media_key("originals", sha), data), (media_key("thumbs", sha), data[:200])):
            store.put(key, body)
            keys.append(key)
    return store, sorted(keys)


def test_migrate_copies_a_local_store_into_the_bucket_and_resumes(runner, s3_media, tmp_path, monkeypatch):
    source, keys = local_store(tmp_path, 3)
    real_put, puts = S3Storage.put, []

    def interrupted(self, key, data):  # the link drops after two objects
        if len(puts) == 2:
            raise StorageUnavailable("connection reset")
        puts.append(key)
        real_put(self, key, data)

    monkeypatch.setattr(S3Storage, "put", interrupted)
    first = runner.invoke(args=["media", "migrate", "--from", str(source.root)])
    assert first.exit_code != 0 and len(s3_media.objects()) == 2
    monkeypatch.setattr(S3Storage, "put", real_put)

    resumed = runner.invoke(args=["media", "migrate", "--from", str(source.root)])
    assert resumed.exit_code == 0, resumed.output
    assert "4 archivos copiados y verificados, 2 ya estaban en el bucket, 0 con hash distinto." in resumed.output
    assert s3_media.objects() == [f"media/{key}" for key in keys]
    assert all(media_storage().get(key) == source.get(key) for key in keys)
    rerun = runner.invoke(args=["media", "migrate", "--from", str(source.root)])
    assert rerun.exit_code == 0 and rerun.output.startswith("0 archivos copiados y verificados, 6 ya estaban")


def test_migrate_fails_on_any_hash_mismatch_and_overwrites_nothing(runner, s3_media, tmp_path):
    source, keys = local_store(tmp_path, 2)
    originals = [key for key in keys if key.startswith("originals/")]
    source.path_for(originals[0]).write_bytes(b"bit rot")  # no longer the bytes its name hashes
    thumb = next(key for key in keys if key.startswith("thumbs/"))
    media_storage().put(thumb, b"someone else's thumbnail")
    result = runner.invoke(args=["media", "migrate", "--from", str(source.root)])
    assert result.exit_code == 1
    assert "2 archivos copiados y verificados, 0 ya estaban en el bucket, 2 con hash distinto." in result.output
    assert f"media/{originals[0]}" not in s3_media.objects()
    assert media_storage().get(thumb) == b"someone else's thumbnail"


def test_migrate_needs_a_bucket(runner, app):
    result = runner.invoke(args=["media", "migrate"])
    assert result.exit_code == 2 and "BALIZA_MEDIA_URL" in result.output


def test_with_the_store_down_a_photo_is_refused_with_503_and_nothing_is_recorded(client, crew, started, s3_media, db):
    inspection_id, _ = started  # with botocore's 3 attempts, as in production
    data, client_id = jpeg(34), cid()
    s3_media.server.stop()
    try:
        refused = upload(client, crew, inspection_id, "seg.buckets.total", data, client_id=client_id)
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "30"
        assert refused.headers["Content-Type"] == "application/problem+json"
        assert refused.json["title"] == "Servicio no disponible por el momento"
        assert "no se guardó nada" in refused.json["detail"]
        assert photo_count(db) == 0 and db.session.get(ClientRequest, client_id) is None
    finally:
        s3_media.server.start()
    retried = upload(client, crew, inspection_id, "seg.buckets.total", data, client_id=client_id)
    assert retried.status_code == 201 and photo_count(db) == 1
    again = upload(client, crew, inspection_id, "seg.buckets.total", data, client_id=client_id)
    assert again.status_code == 201 and again.json["id"] == retried.json["id"] and photo_count(db) == 1
    assert client.get(f"/api/v1/photos/{retried.json['id']}/original", headers=crew["ih"]).data == data


def test_with_the_store_down_reading_is_503_on_the_api_and_the_pages(client, crew, certify, staff, s3_media,
                                                                      login_as, db, monkeypatch):
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")  # fail at once rather than after botocore's backoff
    inspection_id = certify(crew["vessel"]).inspection_id  # closed: photos and both signatures in the bucket
    photo_id = db.session.scalars(db.select(Photo.id).filter_by(inspection_id=inspection_id)).first()
    page = login_as(staff["admin"])
    s3_media.server.stop()
    try:
        with pytest.raises(StorageUnavailable):
            media_storage().ping()
        english = client.get(f"/api/v1/photos/{photo_id}/original", headers={**crew["admin"], "Accept-Language": "en"})
        assert english.status_code == 503 and english.headers["Retry-After"] == "30"
        assert english.json["title"] == "Service temporarily unavailable"
        assert "nothing was saved" in english.json["detail"]
        report = page.get(f"/inspecciones/{inspection_id}/informe.pdf")  # reads the signatures and display copies
        assert report.status_code == 503 and report.headers["Retry-After"] == "30"
        assert report.mimetype == "text/html" and "El almacén de fotos no responde" in report.get_data(as_text=True)
    finally:
        s3_media.server.start()
    media_storage().ping()
    assert page.get(f"/inspecciones/{inspection_id}/informe.pdf").status_code == 200
