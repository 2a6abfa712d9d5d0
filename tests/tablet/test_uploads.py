"""Resumable photo uploads: declare, send in pieces, survive a cut connection, finish as POST /photos would."""
import hashlib
import socket
import threading
import time
import uuid
from datetime import timedelta

import pytest

from inspection.core.models import Photo, PhotoUpload, PhotoUploadPart
from tests.conftest import TEST_DATABASE_URL
from tests.fixtures.inspections import jpeg, schedule, upload
from tests.media_samples import encode, noisy_image

OFFSET_STREAM = "application/offset+octet-stream"
ITEM = "seg.buckets.total"


def cid() -> str:
    return str(uuid.uuid4())


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def photo() -> bytes:
    """A JPEG of a few hundred kB: several 64 KiB pieces, like a downscaled tablet photo in miniature."""
    data = encode(noisy_image((640, 480), seed=5), "JPEG", quality=90)
    assert len(data) > 4 * 64 * 1024
    return data


def uploads_url(inspection_id, client_id=None) -> str:
    base = f"/api/v1/inspections/{inspection_id}/uploads"
    return f"{base}/{client_id}" if client_id else base


def declare(client, crew, inspection_id, data, client_id=None, **overrides):
    body = {"client_id": client_id or cid(), "item_id": ITEM, "sha256": sha(data), "size": len(data),
            "mime": "image/jpeg", "taken_at": None, "latitude": -25.28, "longitude": -57.63, **overrides}
    return client.post(uploads_url(inspection_id), json=body, headers=crew["ih"])


def send(client, crew, inspection_id, client_id, offset, chunk, headers=None):
    return client.patch(uploads_url(inspection_id, client_id), data=chunk, content_type=OFFSET_STREAM,
                        headers={**crew["ih"], "Upload-Offset": str(offset), **(headers or {})})


def state(client, crew, inspection_id, client_id):
    return client.get(uploads_url(inspection_id, client_id), headers=crew["ih"])


def parts(db) -> int:
    return db.session.scalar(db.select(db.func.count()).select_from(PhotoUploadPart))


# --- the protocol ----------------------------------------------------------------------------------

def test_a_photo_sent_in_pieces_is_filed_whole(client, crew, started, photo, db):
    inspection_id, _ = started
    client_id = cid()
    created = declare(client, crew, inspection_id, photo, client_id)
    assert created.status_code == 201, created.json
    assert created.json == {"client_id": client_id, "offset": 0, "size": len(photo), "photo": None}
    assert created.headers["Upload-Offset"] == "0"
    cuts = [0, 100_000, 100_001, 250_000, len(photo)]  # pieces that straddle the 64 KiB reads, one of 1 byte
    for start, end in zip(cuts, cuts[1:-1]):
        response = send(client, crew, inspection_id, client_id, start, photo[start:end])
        assert response.status_code == 200, response.json
        assert response.json["offset"] == end and response.headers["Upload-Offset"] == str(end)
        assert response.json["photo"] is None
    assert state(client, crew, inspection_id, client_id).json["offset"] == cuts[-2]
    last = send(client, crew, inspection_id, client_id, cuts[-2], photo[cuts[-2]:])
    assert last.status_code == 201, last.json
    assert last.json["offset"] == len(photo) and last.headers["Upload-Offset"] == str(len(photo))
    filed = last.json["photo"]
    assert filed["sha256"] == sha(photo) and filed["client_id"] == client_id and filed["item_id"] == ITEM
    assert filed["latitude"] == -25.28 and filed["size_bytes"] == len(photo)
    assert client.get(filed["urls"]["original"], headers=crew["ih"]).data == photo
    assert parts(db) == 0  # the bytes now live in the media storage only
    again = send(client, crew, inspection_id, client_id, 0, photo)  # a retry of any PATCH: the photo, nothing new
    assert again.status_code == 200 and again.json["photo"]["id"] == filed["id"]
    assert again.json["offset"] == len(photo)
    assert state(client, crew, inspection_id, client_id).json["photo"]["id"] == filed["id"]
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 1


def test_the_finished_upload_is_hashed_once_to_check_it_and_not_again(client, crew, started, photo, monkeypatch):
    inspection_id, _ = started
    client_id, hashed, real = cid(), [], hashlib.sha256
    declare(client, crew, inspection_id, photo, client_id)
    send(client, crew, inspection_id, client_id, 0, photo[:100_000])

    def counting(*args):
        if args and bytes(args[0]) == photo:
            hashed.append(len(args[0]))
        return real(*args)

    monkeypatch.setattr(hashlib, "sha256", counting)
    done = send(client, crew, inspection_id, client_id, 100_000, photo[100_000:])
    assert done.status_code == 201, done.json
    assert hashed == [len(photo)]


def test_head_gives_the_offset_to_resume_from(client, crew, started, photo):
    inspection_id, _ = started
    client_id = cid()
    declare(client, crew, inspection_id, photo, client_id)
    send(client, crew, inspection_id, client_id, 0, photo[:70_000])
    head = client.head(uploads_url(inspection_id, client_id), headers=crew["ih"])
    assert head.status_code == 200 and head.headers["Upload-Offset"] == "70000" and head.data == b""
    assert state(client, crew, inspection_id, cid()).status_code == 404


def test_the_same_declaration_again_gives_the_current_offset(client, crew, started, photo):
    inspection_id, _ = started
    client_id = cid()
    assert declare(client, crew, inspection_id, photo, client_id).status_code == 201
    send(client, crew, inspection_id, client_id, 0, photo[:1000])
    again = declare(client, crew, inspection_id, photo, client_id)
    assert again.status_code == 200 and again.json["offset"] == 1000 and again.headers["Upload-Offset"] == "1000"
    for change in ({"size": len(photo) - 1}, {"sha256": sha(b"x")}, {"item_id": "seg.axes"}, {"latitude": -25.0},
                   {"taken_at": "2026-11-30T12:00:00+00:00"}, {"mime": "image/png"}):
        other = declare(client, crew, inspection_id, photo, client_id, **change)
        assert other.status_code == 409, change
    other_inspection = schedule(client, crew, kind="navegabilidad")
    assert declare(client, crew, other_inspection, photo, client_id).status_code == 409


def test_a_patch_from_another_offset_is_409_with_the_servers(client, crew, started, photo, db):
    inspection_id, _ = started
    client_id = cid()
    declare(client, crew, inspection_id, photo, client_id)
    send(client, crew, inspection_id, client_id, 0, photo[:5000])
    for offset in (0, 4999, 5001):
        response = send(client, crew, inspection_id, client_id, offset, photo[offset:offset + 10])
        assert response.status_code == 409 and response.mimetype == "application/problem+json"
        assert response.json["offset"] == 5000 and response.headers["Upload-Offset"] == "5000"
        assert response.json["type"].endswith("/upload-offset") and "5000" in response.json["detail"]
    assert state(client, crew, inspection_id, client_id).json["offset"] == 5000
    assert parts(db) == 1


def test_a_patch_needs_its_offset_header_and_media_type(client, crew, started, photo):
    inspection_id, _ = started
    client_id = cid()
    declare(client, crew, inspection_id, photo, client_id)
    url = uploads_url(inspection_id, client_id)
    missing = client.patch(url, data=photo[:10], content_type=OFFSET_STREAM, headers=crew["ih"])
    assert missing.status_code == 422 and "Upload-Offset" in missing.json["errors"]
    negative = send(client, crew, inspection_id, client_id, -1, photo[:10])
    assert negative.status_code == 422
    octets = client.patch(url, data=photo[:10], content_type="application/octet-stream",
                          headers={**crew["ih"], "Upload-Offset": "0"})
    assert octets.status_code == 415
    assert state(client, crew, inspection_id, client_id).json["offset"] == 0


def test_more_bytes_than_remain_are_refused_and_not_kept(client, crew, started, photo, db):
    inspection_id, _ = started
    client_id = cid()
    declare(client, crew, inspection_id, photo, client_id)
    response = send(client, crew, inspection_id, client_id, 0, photo + b"extra")
    assert response.status_code == 413 and str(len(photo)) in response.json["detail"]
    assert state(client, crew, inspection_id, client_id).json["offset"] == 0 and parts(db) == 0


def test_bytes_that_do_not_match_the_declared_hash_start_over(client, crew, started, photo, db):
    inspection_id, _ = started
    client_id = cid()
    tampered = photo[:-1] + bytes([photo[-1] ^ 1])
    declare(client, crew, inspection_id, photo, client_id)
    send(client, crew, inspection_id, client_id, 0, tampered[:200_000])
    response = send(client, crew, inspection_id, client_id, 200_000, tampered[200_000:])
    assert response.status_code == 422 and response.mimetype == "application/problem+json"
    assert "SHA-256" in response.json["detail"] and "desde el principio" in response.json["detail"]
    assert response.json["offset"] == 0 and response.headers["Upload-Offset"] == "0"
    assert state(client, crew, inspection_id, client_id).json["offset"] == 0 and parts(db) == 0
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 0
    assert send(client, crew, inspection_id, client_id, 0, photo).status_code == 201  # the right bytes now


def test_an_upload_over_the_limit_is_refused_before_any_byte(client, crew, started, photo, app, monkeypatch, db):
    inspection_id, _ = started
    monkeypatch.setitem(app.config, "PHOTO_MAX_BYTES", 100_000)
    response = declare(client, crew, inspection_id, photo)
    assert response.status_code == 413 and response.mimetype == "application/problem+json"
    assert response.json["limits"]["max_bytes"] == 100_000 and "97,7 kB" in response.json["detail"]
    assert db.session.scalar(db.select(db.func.count(PhotoUpload.id))) == 0
    assert declare(client, crew, inspection_id, photo, size=0).status_code == 422


def test_a_refused_photo_is_refused_as_post_photos_refuses_it(client, crew, started, db):
    """Bytes that are no image arrive whole and are refused (415) like a multipart POST; they stay for a retry."""
    inspection_id, _ = started
    client_id, data = cid(), b"esto no es una foto " * 100
    declare(client, crew, inspection_id, data, client_id)
    response = send(client, crew, inspection_id, client_id, 0, data)
    assert response.status_code == 415 and response.json["reason"] == "not_an_image"
    assert upload(client, crew, inspection_id, ITEM, data).json["reason"] == "not_an_image"
    assert state(client, crew, inspection_id, client_id).json == {"client_id": client_id, "offset": len(data),
                                                                  "size": len(data), "photo": None}
    assert send(client, crew, inspection_id, client_id, len(data), b"").status_code == 415
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 0


def test_the_limits_publish_the_bytes_per_patch(client, app, monkeypatch):
    assert client.get("/api/v1/photos/limits").json["upload_chunk_bytes"] == 1024 * 1024
    monkeypatch.setitem(app.config, "PHOTO_UPLOAD_CHUNK_BYTES", 256 * 1024)
    assert client.get("/api/v1/photos/limits").json["upload_chunk_bytes"] == 256 * 1024


# --- one pipeline with POST /photos ----------------------------------------------------------------

def test_a_photo_already_stored_needs_no_bytes(client, crew, started, db):
    inspection_id, _ = started
    data = jpeg(41)
    stored = upload(client, crew, inspection_id, ITEM, data).json
    client_id = cid()
    response = declare(client, crew, inspection_id, data, client_id, latitude=None, longitude=None)
    assert response.status_code == 201
    assert response.json["offset"] == response.json["size"] == len(data)
    assert response.json["photo"]["id"] == stored["id"]
    assert state(client, crew, inspection_id, client_id).json["photo"]["id"] == stored["id"]
    replay = upload(client, crew, inspection_id, ITEM, data, client_id)  # this client_id now names that photo
    assert replay.status_code == 201 and replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json["id"] == stored["id"]
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 1 and parts(db) == 0


def test_a_finished_upload_replays_as_post_photos(client, crew, started, photo, db):
    inspection_id, _ = started
    client_id = cid()
    declare(client, crew, inspection_id, photo, client_id, latitude=None, longitude=None)
    filed = send(client, crew, inspection_id, client_id, 0, photo).json["photo"]
    replay = upload(client, crew, inspection_id, ITEM, photo, client_id)
    assert replay.status_code == 201 and replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json == filed
    assert upload(client, crew, inspection_id, ITEM, jpeg(42), client_id).status_code == 409
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 1


def test_a_photo_posted_whole_completes_its_declared_upload(client, crew, started, photo):
    """The tablet gave up on resuming and sent the photo whole under the same client_id: both agree."""
    inspection_id, _ = started
    client_id = cid()
    declare(client, crew, inspection_id, photo, client_id, latitude=None, longitude=None)
    send(client, crew, inspection_id, client_id, 0, photo[:1000])
    whole = upload(client, crew, inspection_id, ITEM, photo, client_id).json
    finished = send(client, crew, inspection_id, client_id, 1000, photo[1000:])
    assert finished.status_code == 200 and finished.json["photo"]["id"] == whole["id"]
    after = declare(client, crew, inspection_id, photo, client_id, latitude=None, longitude=None)
    assert after.status_code == 200 and after.json["offset"] == len(photo)


def test_a_photo_posted_first_makes_a_later_declaration_complete(client, crew, started):
    inspection_id, _ = started
    client_id, data = cid(), jpeg(43)
    posted = upload(client, crew, inspection_id, ITEM, data, client_id).json
    response = declare(client, crew, inspection_id, data, client_id, latitude=None, longitude=None)
    assert response.status_code == 201 and response.json["photo"]["id"] == posted["id"]
    assert declare(client, crew, inspection_id, jpeg(44), client_id, latitude=None,
                   longitude=None).status_code == 409


# --- who may -------------------------------------------------------------------------------------

def test_only_the_assigned_inspector_uploads_to_an_inspection_in_progress(client, crew, started, photo, as_role):
    inspection_id, _ = started
    _, stranger = as_role("inspector")
    body = {"client_id": cid(), "item_id": ITEM, "sha256": sha(photo), "size": len(photo), "mime": "image/jpeg"}
    assert client.post(uploads_url(inspection_id), json=body, headers=stranger).status_code == 403
    assert client.post(uploads_url(inspection_id), json=body, headers=crew["oh"]).status_code == 403
    assert client.post(uploads_url(inspection_id), json=body, headers=crew["admin"]).status_code == 403
    assert client.post(uploads_url(inspection_id), json=body).status_code == 401
    not_started = schedule(client, crew, kind="navegabilidad")
    assert client.post(uploads_url(not_started), json=body, headers=crew["ih"]).status_code == 409
    unknown_item = client.post(uploads_url(inspection_id), json={**body, "item_id": "no.such"}, headers=crew["ih"])
    assert unknown_item.status_code == 404
    assert client.post(uploads_url(inspection_id), json=body, headers=crew["ih"]).status_code == 201
    # the upload is the inspector's own: another one cannot see, resume or finish it
    assert client.get(uploads_url(inspection_id, body["client_id"]), headers=stranger).status_code == 404
    stolen = client.patch(uploads_url(inspection_id, body["client_id"]), data=photo, content_type=OFFSET_STREAM,
                          headers={**stranger, "Upload-Offset": "0"})
    assert stolen.status_code == 404
    assert client.get(uploads_url(inspection_id, body["client_id"]), headers=crew["oh"]).status_code == 403
    assert client.get(uploads_url(not_started, body["client_id"]), headers=crew["ih"]).status_code == 404


def test_an_upload_finished_after_the_inspection_closed_is_refused_and_kept(client, crew, started, photo, db):
    from inspection.core.models import Inspection
    inspection_id, _ = started
    client_id = cid()
    declare(client, crew, inspection_id, photo, client_id)
    send(client, crew, inspection_id, client_id, 0, photo[:1000])
    db.session.get(Inspection, inspection_id).status = "interrupted"
    db.session.commit()
    assert send(client, crew, inspection_id, client_id, 1000, photo[1000:]).status_code == 409
    assert state(client, crew, inspection_id, client_id).json["offset"] == len(photo)


# --- a connection cut mid-body ---------------------------------------------------------------------

@pytest.fixture
def live_server(app, db):
    """The app behind a real werkzeug server in a thread: (host, port)."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address
    server.shutdown()
    thread.join(timeout=10)


def test_a_connection_cut_mid_body_keeps_the_bytes_that_arrived(client, crew, started, photo, live_server, db):
    inspection_id, _ = started
    client_id, cut = cid(), 150_001
    declare(client, crew, inspection_id, photo, client_id)
    db.session.remove()  # this thread's read transaction ends, as between two requests
    head = (f"PATCH {uploads_url(inspection_id, client_id)} HTTP/1.1\r\nHost: baliza.test\r\n"
            f"Authorization: {crew['ih']['Authorization']}\r\nUpload-Offset: 0\r\n"
            f"Content-Type: {OFFSET_STREAM}\r\nContent-Length: {len(photo)}\r\n\r\n").encode()
    with socket.create_connection(live_server, timeout=10) as raw:
        raw.sendall(head + photo[:cut])  # the link drops here: the server was promised len(photo) bytes
    deadline, offset = time.monotonic() + 20, None
    while time.monotonic() < deadline:
        offset = state(client, crew, inspection_id, client_id).json["offset"]
        db.session.remove()
        if offset:
            break
        time.sleep(0.05)
    assert offset == cut  # every byte that arrived, not only whole 64 KiB pieces
    resumed = send(client, crew, inspection_id, client_id, cut, photo[cut:])
    assert resumed.status_code == 201, resumed.json
    assert resumed.json["photo"]["sha256"] == sha(photo)
    assert client.get(resumed.json["photo"]["urls"]["original"], headers=crew["ih"]).data == photo


# --- the sweep -------------------------------------------------------------------------------------

def test_a_patch_marks_its_upload_as_touched(client, crew, started, photo, db, set_clock):
    from inspection.core.clock import office_now
    inspection_id, _ = started
    client_id, later = cid(), office_now() + timedelta(hours=2)
    declare(client, crew, inspection_id, photo, client_id)
    set_clock(later)
    send(client, crew, inspection_id, client_id, 0, photo[:1000])
    assert db.session.scalar(db.select(PhotoUpload.updated_at)) == later


def test_the_media_sweep_drops_uploads_left_unfinished_for_a_week(runner, client, crew, started, photo, db,
                                                                  own_media):
    from inspection.core.clock import office_now
    inspection_id, _ = started
    stale, recent, done = cid(), cid(), cid()
    for client_id in (stale, recent):
        declare(client, crew, inspection_id, photo, client_id)
        send(client, crew, inspection_id, client_id, 0, photo[:1000])
    data = jpeg(45)
    declare(client, crew, inspection_id, data, done)
    send(client, crew, inspection_id, done, 0, data)
    week = office_now() - timedelta(days=7)
    for client_id, touched in ((stale, week - timedelta(minutes=1)), (recent, week + timedelta(minutes=1)),
                               (done, week - timedelta(days=30))):
        db.session.execute(db.update(PhotoUpload).filter_by(client_id=client_id).values(updated_at=touched))
    db.session.commit()
    result = runner.invoke(args=["media", "sweep"])
    assert "1 subidas sin terminar descartadas" in result.output, result.output
    assert state(client, crew, inspection_id, stale).status_code == 404
    assert state(client, crew, inspection_id, recent).json["offset"] == 1000
    assert state(client, crew, inspection_id, done).json["photo"] is not None  # finished: it names its photo
    assert parts(db) == 1


# --- races (PostgreSQL) ----------------------------------------------------------------------------

on_postgresql = pytest.mark.skipif(
    not (TEST_DATABASE_URL or "").startswith("postgresql"),
    reason="needs PostgreSQL (BALIZA_TEST_DATABASE_URL): SQLite serializes writers, so these races cannot occur")


@on_postgresql
def test_two_copies_of_one_patch_at_once_file_one_correct_photo(app, db, crew, started, photo):
    from tests.fixtures.inspections import in_parallel
    inspection_id, _ = started
    client_id = cid()
    client = app.test_client()
    declare(client, crew, inspection_id, photo, client_id)
    send(client, crew, inspection_id, client_id, 0, photo[:100_000])
    rest = photo[100_000:]
    results = in_parallel(app, db, [lambda c: send(c, crew, inspection_id, client_id, 100_000, rest)] * 2)
    assert sorted(status for status, _ in results) == [200, 201], results  # the second waited, then found it done
    [photo_id] = {body["photo"]["id"] for _, body in results}
    stored = db.session.get(Photo, photo_id)
    assert stored.sha256 == sha(photo) and stored.size_bytes == len(photo)
    assert client.get(f"/api/v1/photos/{photo_id}/original", headers=crew["ih"]).data == photo
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 1 and parts(db) == 0


@on_postgresql
def test_copies_of_one_declaration_at_once_are_one_upload(app, db, crew, started, photo):
    from tests.fixtures.inspections import in_parallel
    inspection_id, _ = started
    client_id = cid()
    results = in_parallel(app, db, [lambda c: declare(c, crew, inspection_id, photo, client_id)] * 4)
    assert sorted(status for status, _ in results) == [200, 200, 200, 201], results
    assert db.session.scalar(db.select(db.func.count(PhotoUpload.id))) == 1
