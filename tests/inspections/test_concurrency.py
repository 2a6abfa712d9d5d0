"""Tablets racing themselves on PostgreSQL: parallel requests released together by a barrier.

A retry that overtakes the original, two copies of one offline batch, answers to one item from
several sources at once, two submissions: each must end as if the requests had come one by one.
SQLite takes one writer at a time (BEGIN IMMEDIATE), so these races only exist on a server database.
"""
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from inspection.core.models import Answer, Deficiency, Inspection
from tests.conftest import TEST_DATABASE_URL
from tests.fixtures.inspections import answer_all, in_parallel, submit

pytestmark = pytest.mark.skipif(
    not (TEST_DATABASE_URL or "").startswith("postgresql"),
    reason="needs PostgreSQL (BALIZA_TEST_DATABASE_URL): SQLite serializes writers, so these races cannot occur")


def cid() -> str:
    return str(uuid.uuid4())




def sync(inspection_id, headers, entries):
    return lambda client: client.post(f"/api/v1/inspections/{inspection_id}/sync", json={"answers": entries},
                                      headers=headers)


def entry_for(item, result="pass", **extra):
    body = {"client_id": cid(), "item_id": item["id"], "result": result, **extra}
    if result == "pass" and item["required"] is not None:
        body.setdefault("observed", item["required"])
    return body


def test_twenty_copies_of_one_sync_entry_are_one_answer(app, db, crew, started):
    inspection_id, items = started
    entry = entry_for(items[0])
    results = in_parallel(app, db, [sync(inspection_id, crew["ih"], [entry])] * 20)
    assert [status for status, _ in results] == [200] * 20, results
    statuses = sorted(body["results"][0]["status"] for _, body in results)
    assert statuses == ["applied"] + ["duplicate"] * 19
    assert len({str(body["results"][0]["answer"]) for _, body in results}) == 1  # everyone got the winner's answer
    assert db.session.scalar(db.select(db.func.count(Answer.id))) == 1


def test_two_copies_of_one_batch_at_once_apply_each_entry_once(app, db, crew, started):
    inspection_id, items = started
    for round_ in range(3):
        batch = [entry_for(item, note=f"ronda {round_}") for item in items[:20]]
        results = in_parallel(app, db, [sync(inspection_id, crew["ih"], batch)] * 2)
        assert [status for status, _ in results] == [200, 200], results
        for n in range(len(batch)):
            assert sorted(body["results"][n]["status"] for _, body in results) == ["applied", "duplicate"]
        assert db.session.scalar(db.select(db.func.count(Answer.id))) == len(batch) * (round_ + 1)


def test_simultaneous_answers_to_one_item_leave_the_newest_current(app, db, crew, started):
    """20 answers to one item at once, each its own write: all kept, only the newest by the tablet's clock counts."""
    inspection_id, items = started
    item = next(i for i in items if i["required"] is None and not i["evidence_required"])
    answer_all(app.test_client(), crew, inspection_id, [i for i in items if i["id"] != item["id"]])
    base = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
    order = [7, 19, 3, 11, 0, 15, 8, 1, 18, 5, 12, 9, 2, 16, 4, 10, 13, 6, 14, 17]  # arrival is not clock order
    bodies = [{"client_id": cid(), "result": "fail" if minute == 19 else "pass",
               "recorded_at": (base + timedelta(minutes=minute)).isoformat(), "note": f"minuto {minute}"}
              for minute in order]
    url = f"/api/v1/inspections/{inspection_id}/answers/{item['id']}"
    results = in_parallel(app, db, [lambda c, body=body: c.put(url, json=body, headers=crew["ih"])
                                    for body in bodies])
    assert [status for status, _ in results] == [200] * 20, results
    rows = db.session.scalars(db.select(Answer).filter_by(inspection_id=inspection_id, item_id=item["id"])).all()
    assert len(rows) == 20
    [current] = [row for row in rows if row.current]
    assert current.note == "minuto 19" and current.result == "fail"
    body = submit(app.test_client(), crew, inspection_id).json
    outcome = "failed" if item["detainable"] else "passed_with_observations"
    assert body["outcome"] == outcome and [d["item_id"] for d in body["deficiencies"]] == [item["id"]]


def test_simultaneous_submissions_close_once(app, db, crew, started):
    """Two closings of one inspection at once (two client_ids): one outcome, one set of deficiencies."""
    inspection_id, items = started
    major = next(i for i in items if i["detainable"])
    answer_all(app.test_client(), crew, inspection_id, items, fail={major["id"]})
    results = in_parallel(app, db, [lambda c: submit(c, crew, inspection_id)] * 4)
    assert sorted(status for status, _ in results) == [200, 409, 409, 409], results
    assert db.session.scalar(db.select(db.func.count(Deficiency.id))) == 1
    assert db.session.scalar(db.select(db.func.count(Inspection.id)).filter_by(reinspection_of_id=inspection_id)) == 1


def test_a_tablets_offline_start_racing_its_retry_starts_once(app, db, client, crew):
    """Two starts of one inspection at once (the first try and a retry under a new client_id): one pins it."""
    from inspection.core.models import AuditEvent
    from tests.fixtures.inspections import schedule

    inspection_id = schedule(client, crew)
    now = datetime.now(timezone.utc)
    times = [now - timedelta(minutes=10), now - timedelta(minutes=9)]
    results = in_parallel(app, db, [
        (lambda at: lambda c: c.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"],
                                     json={"client_id": cid(), "started_at": at.isoformat()}))(at)
        for at in times])
    assert [status for status, _ in results] == [200, 200]
    events = db.session.scalars(db.select(AuditEvent).filter_by(action="inspection.started",
                                                                inspection_id=inspection_id)).all()
    assert len(events) == 1
    started_at = db.session.get(Inspection, inspection_id).started_at
    assert started_at in times and all(body["started_at"] == started_at.isoformat() for _, body in results)


def test_copies_of_one_submission_at_once_all_get_its_result(app, db, crew, started, own_media):
    """One closing sent four times at once (a retrying tablet): one closing, four identical answers, two files."""
    from inspection.core.models import AuditEvent
    from inspection.media.configured import media_storage

    inspection_id, items = started
    answer_all(app.test_client(), crew, inspection_id, items)
    client_id = cid()
    results = in_parallel(app, db, [lambda c: submit(c, crew, inspection_id, client_id)] * 4)
    assert [status for status, _ in results] == [200] * 4, results
    assert all(body == results[0][1] for _, body in results)
    assert db.session.scalar(db.select(db.func.count(AuditEvent.id)).filter_by(action="inspection.submitted")) == 1
    inspection = db.session.get(Inspection, inspection_id)
    assert sorted(media_storage().iter_keys("signatures/")) == sorted(
        [inspection.inspector_signature_key, inspection.master_signature_key])


def test_eight_schedules_of_one_vessel_and_kind_at_once_are_one_inspection(app, db, crew):
    """Eight staff scheduling the same work at once: one 201, seven 409 naming it, one row (uq_inspections_open)."""
    from inspection.core.clock import office_today

    body = {"vessel_id": crew["vessel"].id, "kind": "seguridad", "inspector_id": crew["inspector"].id,
            "scheduled_on": office_today().isoformat(), "port": "Asunción"}
    results = in_parallel(app, db, [lambda c: c.post("/api/v1/inspections", json=body, headers=crew["admin"])] * 8)
    assert sorted(status for status, _ in results) == [201] + [409] * 7, results
    [winner] = [body for status, body in results if status == 201]
    assert all(body["inspection_id"] == winner["id"] for status, body in results if status == 409)
    assert db.session.scalar(db.select(db.func.count(Inspection.id))) == 1


def test_eight_detentions_of_one_vessel_at_once_are_one(app, db, crew):
    """Eight staff detaining one vessel at once: one 201, seven 409 naming it, one detention (uq_detentions_open)."""
    from inspection.core.models import Detention

    url = f"/api/v1/vessels/{crew['vessel'].id}/detentions"
    results = in_parallel(app, db, [lambda c: c.post(url, json={"reason": "Casco con filtraciones"},
                                                     headers=crew["admin"])] * 8)
    assert sorted(status for status, _ in results) == [201] + [409] * 7, results
    [winner] = [body for status, body in results if status == 201]
    assert all(body["detention_id"] == winner["id"] for status, body in results if status == 409)
    assert db.session.scalar(db.select(db.func.count(Detention.id))) == 1


def test_a_cancel_racing_the_tablets_start_and_its_own_copies_settles_once(app, db, client, crew):
    """Four copies of one cancellation and the tablet's start at once: either the start wins (every cancel 409) or
    the cancellation does (the start 409, the copies all 200 with one audit event); never both."""
    from inspection.core.models import AuditEvent
    from tests.fixtures.inspections import schedule

    inspection_id = schedule(client, crew)
    cancel = (lambda c: c.post(f"/api/v1/inspections/{inspection_id}/cancel", json={"reason": "Fecha equivocada."},
                               headers=crew["admin"]))
    start = (lambda c: c.post(f"/api/v1/inspections/{inspection_id}/start", json={"client_id": cid()},
                              headers=crew["ih"]))
    results = in_parallel(app, db, [start] + [cancel] * 4)
    statuses = [status for status, _ in results]
    status = db.session.get(Inspection, inspection_id).status
    assert statuses in ([200] + [409] * 4, [409] + [200] * 4), results
    assert status == ("in_progress" if statuses[0] == 200 else "cancelled")
    cancelled = db.session.scalar(db.select(db.func.count(AuditEvent.id)).filter_by(action="inspection.cancelled"))
    assert cancelled == (status == "cancelled")
