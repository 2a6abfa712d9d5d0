"""The benchmark scripts' helpers behave: seeding, payload builders, status checks (no timing, no gunicorn).

Everything runs against `create_app({...})` on a temp SQLite file through the Flask test client,
with the same `Caller` interface the scripts use over loopback.
"""
import hashlib
import json
from datetime import datetime

import pytest

from app import create_app
from bench.fixtures import (
    CAMERA_MODEL,
    batches,
    bench_config,
    client_ids,
    flask_caller,
    multipart,
    seed,
    start_inspection,
    sync_entries,
    vary_jpeg,
)
from bench.photos_pipeline import make_sample_jpeg
from bench.sync import SyncFailed, build_plan, check_stored, run_sync


@pytest.fixture
def bench_app(tmp_path):
    """A seeded bench database and an app on it; yields (caller, ids, app)."""
    config = bench_config(str(tmp_path))
    ids = seed(config)
    app = create_app({**config, "TESTING": True})
    yield flask_caller(app.test_client()), ids, app
    from inspection.core.extensions import db
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture(scope="module")
def small_photos():
    """Three distinct small camera-like JPEGs (same generator as the benches, tiny size)."""
    return [make_sample_jpeg(96, 72, quality=80, orientation=6 if n % 2 else 1, seed=n) for n in range(3)]


def test_seed_builds_a_startable_inspection_with_many_items(bench_app):
    call, ids, _ = bench_app
    inspection_id, items, auth = start_inspection(call, ids)
    assert inspection_id > 0 and auth["Authorization"].startswith("Bearer ")
    assert len(items) >= 50  # the big mixed vessel: several revisions per item make up 200 answers
    assert {i["checklist"] for i in items} == {"seguridad", "documentacion"}
    assert sum(1 for i in items if i["evidence_required"]) >= 20
    again, _, _ = start_inspection(call, ids)  # a second inspection of the same vessel starts too
    assert again != inspection_id


def test_client_ids_are_distinct_uuid4_and_reproducible():
    ids = client_ids(500, seed=3)
    assert len(set(ids)) == 500
    assert all(len(i) == 36 and i[14] == "4" for i in ids)
    assert client_ids(500, seed=3) == ids and client_ids(500, seed=4) != ids


def test_sync_entries_are_distinct_valid_revisions(bench_app):
    call, ids, app = bench_app
    _, items, _ = start_inspection(call, ids)
    sha = "ab" * 32
    photo_item = next(i["id"] for i in items if i["evidence_required"])
    entries = sync_entries(items, 200, photos={photo_item: [sha]})
    assert len(entries) == 200 and len({e["client_id"] for e in entries}) == 200
    from inspection.inspections.operations import check_answer
    from inspection.inspections.schemas import SyncEntrySchema
    by_id = {i["id"]: i for i in items}
    with app.app_context():
        for entry in entries:
            loaded = SyncEntrySchema().load(entry)  # raises on an invalid entry
            check_answer(by_id[entry["item_id"]], loaded)  # the law's checks too
    per_item = {}
    for entry in entries:
        per_item.setdefault(entry["item_id"], []).append(entry)
    assert set(per_item) == set(by_id)  # 200 > 56 items: every item answered, several times
    for revisions in per_item.values():
        times = [datetime.fromisoformat(e["recorded_at"]) for e in revisions]
        assert times == sorted(times) and len(set(times)) == len(times)
        assert [e["result"] for e in revisions] == ["fail"] * (len(revisions) - 1) + ["pass"]
    assert per_item[photo_item][-1]["photos"] == [sha]
    assert [len(b) for b in batches(entries, 50)] == [50, 50, 50, 50]
    assert [len(b) for b in batches(entries, 60)] == [60, 60, 60, 20]


def test_fewer_answers_than_items_answer_each_once():
    items = [{"id": f"x.{n}", "required": None} for n in range(10)]
    entries = sync_entries(items, 4)
    assert [e["item_id"] for e in entries] == ["x.0", "x.1", "x.2", "x.3"]
    assert all(e["result"] == "pass" for e in entries)


def test_vary_jpeg_changes_hash_not_pixels(small_photos):
    import io

    from PIL import Image
    data = small_photos[0]
    a, b = vary_jpeg(data, 1), vary_jpeg(data, 2)
    assert len({hashlib.sha256(x).hexdigest() for x in (data, a, b)}) == 3
    assert len(a) == len(data) and CAMERA_MODEL not in a
    assert Image.open(io.BytesIO(a)).tobytes() == Image.open(io.BytesIO(data)).tobytes()


def test_the_benchs_tablet_photo_is_kept_as_sent_and_varies_without_metadata():
    import io

    from PIL import Image

    from bench.photos_pipeline import tablet_photo, vary_density
    from inspection.media.photos import process_photo
    photo = tablet_photo(make_sample_jpeg(800, 600), 400, 70)
    other = vary_density(photo, 7)
    assert hashlib.sha256(other).digest() != hashlib.sha256(photo).digest() and len(other) == len(photo)
    assert Image.open(io.BytesIO(other)).tobytes() == Image.open(io.BytesIO(photo)).tobytes()
    assert Image.open(io.BytesIO(photo)).size == (300, 400)  # upright: the sample says "rotate 90°"
    assert process_photo(other).kept_as_display


def test_the_load_runs_photos_are_what_a_tablet_sends():
    """bench/load.py uploads photos the server keeps as their own display copies (no re-encoding), as the tablet's."""
    from bench.photos_pipeline import tablet_photos, vary_density
    from inspection.media.photos import process_photo

    photos = tablet_photos(3, 320, 240, 70)
    assert len({hashlib.sha256(photo).digest() for photo in photos}) == 3
    for n, photo in enumerate(photos):
        processed = process_photo(vary_density(photo, n))
        assert processed.kept_as_display and max(processed.width, processed.height) <= 320


def test_the_label_crops_are_written_for_each_tablet_setting(tmp_path):
    from bench.photos_pipeline import LABEL_TEXT_PX, TABLET_SETTINGS, write_crops
    written = write_crops(tmp_path)
    assert len(written) == len(LABEL_TEXT_PX) * (1 + len(TABLET_SETTINGS))
    assert all(name.endswith(".png") for name in written) and (tmp_path / "label_16px_2048_q70.png").exists()


def test_plan_syncs_then_replays_with_the_scripts_checks(bench_app, small_photos):
    call, ids, _ = bench_app
    inspection_id, items, auth = start_inspection(call, ids)
    plan = build_plan(items, small_photos, n_answers=70, batch_size=30, seed_=1)
    assert [len(json.loads(b)["answers"]) for b in plan["batches"]] == [30, 30, 10]
    hashes = {hashlib.sha256(p).hexdigest() for p in small_photos}
    named = {h for e in plan["entries"] for h in e.get("photos", [])}
    assert named == hashes  # the answers name exactly the photos that follow
    first = run_sync(call, inspection_id, auth, plan, replay=False)
    again = run_sync(call, inspection_id, auth, plan, replay=True)
    assert set(first) == set(again) == {"answers_s", "photos_s", "total_s"}
    check_stored(call, inspection_id, auth, plan)
    with pytest.raises(SyncFailed, match="applied"):  # a second "first" sync is all duplicates
        run_sync(call, inspection_id, auth, plan, replay=False)
    fresh = build_plan(items, [], n_answers=5, batch_size=5, seed_=2)
    with pytest.raises(SyncFailed, match="duplicate"):  # never sent before: not a replay
        run_sync(call, inspection_id, auth, fresh, replay=True)


def test_multipart_body_is_what_the_upload_endpoint_reads(bench_app, small_photos):
    call, ids, _ = bench_app
    inspection_id, items, auth = start_inspection(call, ids)
    body, content_type = multipart({"item_id": items[0]["id"], "client_id": client_ids(1)[0]}, small_photos[1])
    reply = call("POST", f"/api/v1/inspections/{inspection_id}/photos", body, {**auth, "Content-Type": content_type})
    assert reply.status == 201, reply.body
    assert reply.body["sha256"] == hashlib.sha256(small_photos[1]).hexdigest()
    assert reply.headers["idempotent-replayed"] == "false"


def test_echo_baseline_reads_the_body():
    from bench.echo import app
    client = app.test_client()
    body, content_type = multipart({"a": "1"}, b"\xff\xd8" + b"x" * 5000)
    response = client.post("/echo", data=body, content_type=content_type)
    assert response.status_code == 201 and response.json == {"ok": True, "bytes": len(body)}
    assert client.get("/").status_code == 200


def test_photo_rows_have_ratios_and_memory():
    from bench.photos import build_rows
    samples = {"direct": [0.1, 0.2, 0.3], "process_photo": [0.2, 0.2, 0.2], "endpoint": [0.3, 0.4, 0.5],
               "upload only (echo)": [0.01, 0.01, 0.01]}
    memory = {w: {"maxrss_delta_mb": 30.0, "tracemalloc_peak_mb": 0.5} for w in ("direct", "process_photo")}
    rows = build_rows(samples, memory, {1: {"VmHWM": 100.0, "VmRSS": 90.0}}, {1: {"VmHWM": 150.0, "VmRSS": 120.0}}, 4)
    by_name = {r["name"]: r for r in rows}
    assert by_name["endpoint"]["ratio_vs_direct"] == 2.0 and by_name["endpoint"]["peak_mem_mb"] == 50.0
    assert by_name["direct"]["peak_mem_mb"] == 30.0
