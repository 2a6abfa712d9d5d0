"""Inspections on the tablet's terms: the server side of an offline, retrying, photo-taking client."""
import io
from datetime import timedelta

import pytest

from inspection.core.clock import office_today
from inspection.core.models import (
    Answer,
    Application,
    AuditEvent,
    Certificate,
    ConflictOfInterest,
    Deficiency,
    Detention,
    Inspection,
    Photo,
    utcnow,
)
from tests.fixtures.inspections import answer, answer_all, cid, jpeg, schedule, submit, upload
from tests.media_samples import (
    SIGNATURES,
    make_bomb_png,
    make_exif,
    make_flat_png,
    make_jpeg,
    make_lying_jpeg,
    make_zip,
)

# --- scheduling and conflict of interest -----------------------------------------------------------

def test_owner_sees_the_scheduled_inspection_beforehand(client, crew):
    inspection_id = schedule(client, crew, on=office_today() + timedelta(days=3))
    items = client.get("/api/v1/inspections", headers=crew["oh"]).json["items"]
    assert [i["id"] for i in items] == [inspection_id]
    assert items[0]["status"] == "scheduled" and items[0]["port"] == "Asunción"


def test_inspector_schedules_only_for_themselves(client, crew, make_user):
    other = make_user("inspector")
    body = {"vessel_id": crew["vessel"].id, "kind": "seguridad", "inspector_id": other.id,
            "scheduled_on": office_today().isoformat(), "port": "Pilar"}
    assert client.post("/api/v1/inspections", json=body, headers=crew["ih"]).status_code == 403
    body["inspector_id"] = crew["inspector"].id
    assert client.post("/api/v1/inspections", json=body, headers=crew["ih"]).status_code == 201


def test_conflict_of_interest_refuses_assignment(client, crew, db):
    db.session.add(ConflictOfInterest(user_id=crew["inspector"].id, owner_id=crew["vessel"].owner_id,
                                      reason="Maquinista de la compañía"))
    db.session.commit()
    body = {"vessel_id": crew["vessel"].id, "kind": "seguridad", "inspector_id": crew["inspector"].id,
            "scheduled_on": office_today().isoformat(), "port": "Asunción"}
    response = client.post("/api/v1/inspections", json=body, headers=crew["admin"])
    assert response.status_code == 403
    assert "art. 214" in response.json["detail"]


def test_conflict_declared_later_blocks_start_answer_and_submit(client, crew, started, db):
    inspection_id, items = started
    db.session.add(ConflictOfInterest(user_id=crew["inspector"].id, owner_id=crew["vessel"].owner_id))
    db.session.commit()
    assert answer(client, crew, inspection_id, items[0]).status_code == 403
    assert submit(client, crew, inspection_id).status_code == 403
    assert client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"]).status_code == 403


def test_exempt_vessel_cannot_be_scheduled(client, crew, make_vessel):
    canoe = make_vessel(owner_id=crew["vessel"].owner_id, propulsion="rowing", service="work", crew=1,
                        fire_hydrants=0, holds=0, boats=0, cooking="none", length_m=5, beam_m=1.2, girth_m=2)
    body = {"vessel_id": canoe.id, "kind": "navegabilidad", "inspector_id": crew["inspector"].id,
            "scheduled_on": office_today().isoformat(), "port": "Asunción"}
    response = client.post("/api/v1/inspections", json=body, headers=crew["admin"])
    assert response.status_code == 422 and "210" in response.json["detail"]


def schedule_body(crew, kind="seguridad", days=0) -> dict:
    return {"vessel_id": crew["vessel"].id, "kind": kind, "inspector_id": crew["inspector"].id,
            "scheduled_on": (office_today() + timedelta(days=days)).isoformat(), "port": "Asunción"}


def test_a_vessel_has_one_open_inspection_of_a_kind_at_a_time(client, crew, db):
    """Scheduled or in progress, an inspection is open: a second of its kind is 409 naming it, until it closes."""
    first = schedule(client, crew, on=office_today() + timedelta(days=3))
    again = client.post("/api/v1/inspections", json=schedule_body(crew, days=5), headers=crew["admin"])
    assert again.status_code == 409 and again.mimetype == "application/problem+json"
    assert again.json["inspection_id"] == first
    assert again.json["detail"].startswith(f"El buque ya tiene la inspección n.º {first} de este tipo sin cerrar")
    english = client.post("/api/v1/inspections", json=schedule_body(crew), headers={**crew["ih"], "Accept-Language": "en"})
    assert english.status_code == 409
    assert english.json["detail"].startswith(f"The vessel already has inspection no. {first} of this kind still open")
    assert client.post("/api/v1/inspections", json=schedule_body(crew, "navegabilidad"),
                       headers=crew["admin"]).status_code == 201  # the other kind is other work
    assert client.post(f"/api/v1/inspections/{first}/start", headers=crew["ih"]).status_code == 200
    assert client.post("/api/v1/inspections", json=schedule_body(crew), headers=crew["admin"]).status_code == 409
    assert client.post(f"/api/v1/inspections/{first}/interrupt", json={"reason": "Tormenta"},
                       headers=crew["ih"]).status_code == 200
    assert client.post("/api/v1/inspections", json=schedule_body(crew), headers=crew["admin"]).status_code == 201
    kinds = db.session.execute(db.select(Inspection.kind, Inspection.status).order_by(Inspection.id)).all()
    assert kinds == [("seguridad", "interrupted"), ("navegabilidad", "scheduled"), ("seguridad", "scheduled")]


def test_the_schema_holds_one_open_inspection_per_vessel_and_kind(crew, db):
    from sqlalchemy.exc import IntegrityError

    def row(status, kind="seguridad"):
        return Inspection(vessel_id=crew["vessel"].id, kind=kind, inspector_id=crew["inspector"].id,
                          scheduled_on=office_today(), port="Asunción", status=status,
                          created_by_id=crew["inspector"].id)

    db.session.add_all([row("submitted"), row("interrupted"), row("cancelled"), row("submitted"), row("scheduled"),
                        row("in_progress", "navegabilidad")])
    db.session.commit()  # closed ones are history, any number of them
    for status in ("scheduled", "in_progress"):
        db.session.add(row(status))
        with pytest.raises(IntegrityError):
            db.session.flush()
        db.session.rollback()


def miss_the_first_look(monkeypatch, check: str) -> list:
    """The operation's check (`check`) finds nothing the first time, as a race's loser finds before the winner
    commits; the calls are listed."""
    from inspection.inspections import operations

    real, looks = getattr(operations, check), []

    def look(*args):
        looks.append(args)
        return None if len(looks) == 1 else real(*args)

    monkeypatch.setattr(operations, check, look)
    return looks


def test_a_racing_schedule_that_loses_at_the_index_gets_the_same_409(client, crew, db, monkeypatch):
    """The check passed (the winner not yet committed when it looked): the unique index refuses the insert,
    and the loser answers 409 naming the winner's inspection, never a 500."""
    first = schedule(client, crew)
    looks = miss_the_first_look(monkeypatch, "open_inspection_of")
    response = client.post("/api/v1/inspections", json=schedule_body(crew), headers=crew["admin"])
    assert response.status_code == 409 and response.json["inspection_id"] == first and len(looks) == 2
    assert db.session.scalar(db.select(db.func.count(Inspection.id))) == 1


def test_a_vessel_is_detained_once_at_a_time(client, crew, db, monkeypatch):
    url = f"/api/v1/vessels/{crew['vessel'].id}/detentions"
    first = client.post(url, json={"reason": "Casco con filtraciones (art. 208)"}, headers=crew["admin"])
    assert first.status_code == 201
    again = client.post(url, json={"reason": "Extintores vencidos"}, headers={**crew["ih"], "Accept-Language": "en"})
    assert again.status_code == 409 and again.json["detention_id"] == first.json["id"]
    assert again.json["detail"] == (f"The vessel is already detained (detention no. {first.json['id']}); "
                                    "lift it before deciding another.")
    miss_the_first_look(monkeypatch, "open_detention_of")  # a race's loser: the index refuses its insert
    raced = client.post(url, json={"reason": "Extintores vencidos"}, headers=crew["admin"])
    assert raced.status_code == 409 and raced.json["detention_id"] == first.json["id"]
    monkeypatch.undo()
    assert client.post(f"/api/v1/detentions/{first.json['id']}/lift", json={"reason": "Reparado"},
                       headers=crew["admin"]).status_code == 200
    assert client.post(url, json={"reason": "Extintores vencidos"}, headers=crew["admin"]).status_code == 201
    assert db.session.scalar(db.select(db.func.count(Detention.id)).where(Detention.lifted_at.is_(None))) == 1


# --- start pins ------------------------------------------------------------------------------------

def test_start_pins_version_and_particulars(client, crew, started):
    inspection_id, items = started
    detail = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json
    assert detail["checklist_versions"]["seguridad"] and detail["checklist_versions"]["documentacion"]
    assert detail["particulars"]["crew"] == 6
    buckets = next(i for i in items if i["id"] == "seg.buckets.total")
    assert buckets["required"] == 6
    # editing the vessel afterwards changes nothing that was inspected
    client.patch(f"/api/v1/vessels/{crew['vessel'].id}", json={"crew": 20}, headers=crew["admin"])
    again = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json
    assert again["particulars"]["crew"] == 6
    assert next(i for i in again["items"] if i["id"] == "seg.buckets.total")["required"] == 6
    # a repeated start is harmless
    assert client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"]).status_code == 200


def test_only_the_assigned_inspector_starts(client, crew, as_role):
    inspection_id = schedule(client, crew)
    _, other = as_role("inspector")
    assert client.post(f"/api/v1/inspections/{inspection_id}/start", headers=other).status_code == 403


# --- answers ---------------------------------------------------------------------------------------

def test_same_answer_twice_is_one_answer(client, crew, started, db):
    inspection_id, items = started
    item = next(i for i in items if i["id"] == "seg.buckets.total")
    body = {"client_id": cid(), "result": "pass", "observed": 6}
    url = f"/api/v1/inspections/{inspection_id}/answers/{item['id']}"
    first = client.put(url, json=body, headers=crew["ih"])
    second = client.put(url, json=body, headers=crew["ih"])
    assert first.status_code == second.status_code == 200
    assert first.json == second.json
    assert second.headers["Idempotent-Replayed"] == "true"
    assert db.session.scalar(db.select(db.func.count(Answer.id))) == 1


def test_conflicting_body_under_one_client_id_is_409(client, crew, started, db):
    inspection_id, items = started
    item = next(i for i in items if i["id"] == "seg.buckets.total")
    url = f"/api/v1/inspections/{inspection_id}/answers/{item['id']}"
    client_id = cid()
    assert client.put(url, json={"client_id": client_id, "result": "pass", "observed": 6}, headers=crew["ih"]).status_code == 200
    response = client.put(url, json={"client_id": client_id, "result": "fail", "observed": 2}, headers=crew["ih"])
    assert response.status_code == 409
    assert db.session.scalar(db.select(Answer.result)) == "pass"


@pytest.mark.parametrize("body, field", [
    ({"result": "pass", "observed": 5}, "observed"),   # 6 required
    ({"result": "pass"}, "observed"),
    ({"result": "not_applicable"}, "note"),
    ({"result": "maybe"}, "result"),
    ({"result": "pass", "observed": -1}, "observed"),
    ({"result": "pass", "observed": 6, "action": "detained"}, "action"),
])
def test_invalid_answers_are_refused_and_not_stored(client, crew, started, db, body, field):
    inspection_id, items = started
    response = client.put(f"/api/v1/inspections/{inspection_id}/answers/seg.buckets.total",
                          json={"client_id": cid(), **body}, headers=crew["ih"])
    assert response.status_code == 422
    assert field in response.json["errors"]
    assert db.session.scalar(db.select(db.func.count(Answer.id))) == 0


def test_unknown_item_is_404(client, crew, started):
    inspection_id, _ = started
    response = client.put(f"/api/v1/inspections/{inspection_id}/answers/nope.item",
                          json={"client_id": cid(), "result": "pass"}, headers=crew["ih"])
    assert response.status_code == 404


def test_later_answer_replaces_earlier_and_history_stays(client, crew, started, db):
    inspection_id, items = started
    item = next(i for i in items if i["id"] == "seg.buckets.total")
    now = utcnow()
    url = f"/api/v1/inspections/{inspection_id}/answers/{item['id']}"
    client.put(url, json={"client_id": cid(), "result": "fail", "observed": 2,
                          "recorded_at": (now - timedelta(minutes=5)).isoformat()}, headers=crew["ih"])
    client.put(url, json={"client_id": cid(), "result": "pass", "observed": 6,
                          "recorded_at": now.isoformat()}, headers=crew["ih"])
    # an even older answer arriving late is history, never current
    late = client.put(url, json={"client_id": cid(), "result": "fail", "observed": 1,
                                 "recorded_at": (now - timedelta(minutes=10)).isoformat()}, headers=crew["ih"])
    assert late.json["current"] is False
    detail = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json
    current = next(i for i in detail["items"] if i["id"] == item["id"])["answer"]
    assert current["result"] == "pass"
    assert len([a for a in detail["answers"] if a["item_id"] == item["id"]]) == 3


def test_answers_before_start_are_refused(client, crew):
    inspection_id = schedule(client, crew)
    response = client.put(f"/api/v1/inspections/{inspection_id}/answers/seg.buckets.total",
                          json={"client_id": cid(), "result": "pass", "observed": 6}, headers=crew["ih"])
    assert response.status_code in (404, 409)


# --- sync ------------------------------------------------------------------------------------------

def test_sync_reports_each_entry(client, crew, started, db):
    inspection_id, items = started
    reused = cid()
    client.put(f"/api/v1/inspections/{inspection_id}/answers/seg.buckets.total",
               json={"client_id": reused, "result": "pass", "observed": 6}, headers=crew["ih"])
    batch = [
        {"item_id": "seg.hoses.total", "client_id": cid(), "result": "pass", "observed": 2},
        {"item_id": "seg.buckets.total", "client_id": reused, "result": "pass", "observed": 6},   # duplicate
        {"item_id": "seg.buckets.total", "client_id": reused, "result": "fail", "observed": 1},   # conflict
        {"item_id": "seg.hoses.total", "client_id": cid(), "result": "pass", "observed": 1},      # rejected: 2 needed
        {"item_id": "seg.hoses.total", "client_id": "not-a-uuid", "result": "pass"},              # rejected
        {"item_id": "no.such.item", "client_id": cid(), "result": "pass"},                        # rejected
    ]
    response = client.post(f"/api/v1/inspections/{inspection_id}/sync", json={"answers": batch}, headers=crew["ih"])
    assert response.status_code == 200
    statuses = [r["status"] for r in response.json["results"]]
    assert statuses == ["applied", "duplicate", "conflict", "rejected", "rejected", "rejected"]
    assert "observed" in response.json["results"][3]["reason"]
    # nothing of the rejected entries was written
    assert db.session.scalar(db.select(db.func.count(Answer.id))) == 2


def test_sync_batch_replayed_out_of_order_changes_nothing(client, crew, started, db):
    inspection_id, items = started
    now = utcnow()
    batch = [{"item_id": "seg.buckets.total", "client_id": cid(), "result": r, "observed": o,
              "recorded_at": (now + timedelta(seconds=s)).isoformat()}
             for r, o, s in [("fail", 2, 0), ("pass", 6, 10), ("fail", 3, 5)]]
    url = f"/api/v1/inspections/{inspection_id}/sync"
    first = client.post(url, json={"answers": [batch[2], batch[0], batch[1]]}, headers=crew["ih"])
    assert [r["status"] for r in first.json["results"]] == ["applied"] * 3
    replay = client.post(url, json={"answers": list(reversed(batch))}, headers=crew["ih"])
    assert [r["status"] for r in replay.json["results"]] == ["duplicate"] * 3
    assert db.session.scalar(db.select(db.func.count(Answer.id))) == 3
    current = db.session.scalar(db.select(Answer).filter_by(current=True))
    assert current.result == "pass"  # the newest by the tablet's clock wins, whatever the order


def test_one_entry_twice_in_a_batch_is_one_answer(client, crew, started, db):
    inspection_id, _ = started
    entry = {"item_id": "seg.buckets.total", "client_id": cid(), "result": "pass", "observed": 6}
    response = client.post(f"/api/v1/inspections/{inspection_id}/sync", json={"answers": [entry, entry]},
                           headers=crew["ih"])
    assert [r["status"] for r in response.json["results"]] == ["applied", "duplicate"]
    assert response.json["results"][0]["answer"] == response.json["results"][1]["answer"]
    assert db.session.scalar(db.select(db.func.count(Answer.id))) == 1


def test_a_sync_batch_costs_the_same_few_statements_whatever_its_size(client, crew, started, count_queries, db):
    """The batch reads once and writes each table once (issue 22): the row lock, the answers, the earlier results,
    its savepoint, one INSERT of its answers (the replaced ones' UPDATEs with them), one of their once-only records,
    one of their audit events. It was 5 statements an entry, and 11 before that. SQLite cannot give back the ids of a
    many-row INSERT in order, so there the answers and their audit events go a row at a time."""
    inspection_id, items = started
    counted = [item for item in items if not item.get("evidence_required")][:21]
    url = f"/api/v1/inspections/{inspection_id}/sync"

    def batch(chosen):
        return [{"item_id": i["id"], "client_id": cid(), "result": "not_applicable", "note": "sin uso"} for i in chosen]

    client.post(url, json={"answers": batch(counted[20:])}, headers=crew["ih"])  # the session's first request
    statements = {}
    for size, chosen in ((2, counted[:2]), (18, counted[2:20])):
        answers = batch(chosen)
        statements[size] = count_queries(lambda: client.post(url, json={"answers": answers}, headers=crew["ih"]))
    per_entry = 0 if db.engine.dialect.name == "postgresql" else 2
    assert statements[18] - statements[2] == 16 * per_entry, statements
    revisions = batch(counted[2:20])
    revised = count_queries(lambda: client.post(url, json={"answers": revisions}, headers=crew["ih"]))
    assert revised <= statements[18] + 1, (revised, statements)  # the replaced answers' UPDATEs: one executemany


def test_answers_to_one_item_in_one_batch_are_written_as_sent_one_after_the_other(client, crew, started, db):
    """Each result and audit event says what its entry wrote, as if the entries came one by one: the first was current
    when written, and the second, newer by the tablet's clock, replaced it."""
    inspection_id, _ = started
    now = utcnow()
    first, second = ({"item_id": "seg.buckets.total", "client_id": cid(), "result": result, "observed": observed,
                      "recorded_at": (now + timedelta(seconds=s)).isoformat()}
                     for result, observed, s in (("fail", 2, 0), ("pass", 6, 10)))
    response = client.post(f"/api/v1/inspections/{inspection_id}/sync", json={"answers": [first, second]},
                           headers=crew["ih"])
    assert [(r["status"], r["answer"]["current"]) for r in response.json["results"]] == [("applied", True)] * 2
    stored = {a.client_id: a for a in db.session.scalars(db.select(Answer))}
    assert (stored[first["client_id"]].current, stored[second["client_id"]].current) == (False, True)
    events = db.session.scalars(db.select(AuditEvent).filter_by(action="answer.recorded")
                                .order_by(AuditEvent.id)).all()
    assert [(e.client_id, e.entity_id, e.details["current"]) for e in events] == [
        (first["client_id"], str(stored[first["client_id"]].id), True),
        (second["client_id"], str(stored[second["client_id"]].id), True)]


def test_a_client_id_taken_meanwhile_refuses_that_entry_alone(client, crew, started, db, monkeypatch):
    """Another request stores one of the batch's client_ids after the batch read them (here a photo's, hidden from
    that read): the batch's single write clashes, is undone, and each entry goes again on its own, reading afresh."""
    from inspection.inspections import sync

    inspection_id, _ = started
    taken = cid()
    assert upload(client, crew, inspection_id, "seg.buckets.total", make_jpeg((320, 240)), client_id=taken)\
        .status_code == 201
    first_read = sync.prior_results
    reads = []

    def before_the_photo_committed(client_ids):
        reads.append(client_ids)
        known = first_read(client_ids)
        return {**known, taken: None} if len(reads) == 1 else known

    monkeypatch.setattr(sync, "prior_results", before_the_photo_committed)
    batch = [{"item_id": "seg.hoses.total", "client_id": cid(), "result": "pass", "observed": 2},
             {"item_id": "seg.buckets.total", "client_id": taken, "result": "pass", "observed": 6},
             {"item_id": "seg.buckets.total", "client_id": cid(), "result": "pass", "observed": 6}]
    response = client.post(f"/api/v1/inspections/{inspection_id}/sync", json={"answers": batch}, headers=crew["ih"])
    assert response.status_code == 200
    assert [r["status"] for r in response.json["results"]] == ["applied", "conflict", "applied"]
    assert "client_id" in response.json["results"][1]["reason"]
    assert len(reads) == 4  # the batch's read, then one for each entry on its own
    assert sorted(a.client_id for a in db.session.scalars(db.select(Answer))) == \
        sorted([batch[0]["client_id"], batch[2]["client_id"]])
    events = db.session.scalars(db.select(AuditEvent.client_id).filter_by(action="answer.recorded")).all()
    assert sorted(events) == sorted([batch[0]["client_id"], batch[2]["client_id"]])
    replay = client.post(f"/api/v1/inspections/{inspection_id}/sync", json={"answers": batch}, headers=crew["ih"])
    assert [r["status"] for r in replay.json["results"]] == ["duplicate", "conflict", "duplicate"]


# --- photos ----------------------------------------------------------------------------------------

def media_files(app):
    from pathlib import Path
    root = Path(app.config["MEDIA_DIR"])
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def test_photo_upload_keeps_original_and_copies(client, crew, started, app, db):
    inspection_id, _ = started
    data = make_jpeg((800, 600))
    response = upload(client, crew, inspection_id, "seg.buckets.total", data, latitude="-25.28", longitude="-57.63")
    assert response.status_code == 201, response.json
    import hashlib
    assert response.json["sha256"] == hashlib.sha256(data).hexdigest()
    assert response.json["latitude"] == -25.28
    original = client.get(response.json["urls"]["original"], headers=crew["ih"])
    assert original.data == data
    thumb = client.get(response.json["urls"]["thumb"], headers=crew["ih"])
    assert thumb.mimetype == "image/jpeg" and len(thumb.data) < len(data)


def test_a_photo_upload_reads_each_record_once(client, crew, started, sql_statements):
    """Its once-only record and the photos it could repeat are each read in one statement, the vessel not at all
    (issue 22)."""
    inspection_id, _ = started
    upload(client, crew, inspection_id, "seg.buckets.total", make_jpeg((640, 480)))  # the session's first request
    sent = sql_statements(lambda: upload(client, crew, inspection_id, "seg.buckets.total", make_jpeg((800, 600))))
    flat = [" ".join(statement.split()) for statement in sent]
    reads = [s.split(" FROM ")[1].split()[0] for s in flat if s.startswith("SELECT") and " FROM " in s]
    assert reads.count("client_requests") == 1 and reads.count("photos") == 1, reads
    assert "photo_marks" not in reads  # a new photo has none
    assert "vessels" not in reads  # art. 214's question finds the vessel's owner itself


def test_a_camera_time_without_offset_is_read_on_the_offices_clock(client, crew, started):
    inspection_id, _ = started
    data = make_jpeg((800, 600), exif=make_exif(1, "2026:11:30 22:30:00"))  # tablets are set to Asunción's time
    response = upload(client, crew, inspection_id, "seg.buckets.total", data)
    assert response.status_code == 201, response.json
    assert response.json["taken_at"] == "2026-12-01T01:30:00+00:00"


def test_same_photo_twice_is_one_photo(client, crew, started, db):
    inspection_id, _ = started
    data, client_id = jpeg(7), cid()
    first = upload(client, crew, inspection_id, "seg.buckets.total", data, client_id)
    again = upload(client, crew, inspection_id, "seg.buckets.total", data, client_id)
    other_id = upload(client, crew, inspection_id, "seg.buckets.total", data)
    assert first.status_code == again.status_code == other_id.status_code == 201
    assert first.json["id"] == again.json["id"] == other_id.json["id"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 1
    different = upload(client, crew, inspection_id, "seg.buckets.total", jpeg(8), client_id)
    assert different.status_code == 409


def test_one_picture_can_be_the_evidence_of_two_items(client, crew, started, db):
    """One photo of a shelf that shows both the buckets and the axes is evidence for each item."""
    inspection_id, items = started
    first, second = [i for i in items if i["evidence_required"]][:2]
    picture = jpeg(77)
    for_first = upload(client, crew, inspection_id, first["id"], picture)
    for_second = upload(client, crew, inspection_id, second["id"], picture)
    assert for_first.status_code == for_second.status_code == 201
    assert for_second.json["item_id"] == second["id"] and for_second.json["id"] != for_first.json["id"]
    assert for_second.json["sha256"] == for_first.json["sha256"]
    assert upload(client, crew, inspection_id, second["id"], picture).json["id"] == for_second.json["id"]
    rest = [i for i in items if i["id"] not in (first["id"], second["id"])]
    answer_all(client, crew, inspection_id, rest)
    for item in (first, second):
        assert answer(client, crew, inspection_id, item).status_code == 200
    detail = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json
    assert detail["evidence"]["missing"] == []
    assert submit(client, crew, inspection_id).status_code == 200


def test_a_client_id_stored_without_a_record_is_a_replay_or_a_conflict(client, crew, started, db, app):
    """Page forms and the demo store answers and photos with no idempotency record; their client_id
    still names that write: the same write again is a replay, another under it a 409, never a 500."""
    from inspection.inspections.operations import add_photo, record_answer
    from inspection.media.configured import media_storage, photo_limits
    from inspection.media.photos import process_photo

    inspection_id, items = started
    plain = [i for i in items if i["required"] is None]
    inspection = db.session.get(Inspection, inspection_id)
    by_page, by_demo, photo_id = cid(), cid(), cid()
    record_answer(crew["inspector"], inspection, plain[0]["id"], {"client_id": by_page, "result": "pass"}, utcnow())
    record_answer(crew["inspector"], inspection, plain[1]["id"], {"client_id": by_demo, "result": "pass"}, utcnow())
    add_photo(crew["inspector"], inspection, plain[0]["id"], photo_id, process_photo(jpeg(5), photo_limits()),
              media_storage(), None, None, None, utcnow())
    db.session.commit()

    url = f"/api/v1/inspections/{inspection_id}/answers/{plain[0]['id']}"
    assert client.put(url, json={"client_id": by_page, "result": "fail"}, headers=crew["ih"]).status_code == 409
    same = client.put(url, json={"client_id": by_page, "result": "pass"}, headers=crew["ih"])
    assert same.status_code == 200 and same.json["client_id"] == by_page

    batch = [{"client_id": by_demo, "item_id": plain[1]["id"], "result": "fail"},
             {"client_id": by_demo, "item_id": plain[1]["id"], "result": "pass"},
             {"client_id": cid(), "item_id": plain[2]["id"], "result": "pass"}]
    response = client.post(f"/api/v1/inspections/{inspection_id}/sync", json={"answers": batch}, headers=crew["ih"])
    assert response.status_code == 200
    assert [r["status"] for r in response.json["results"]] == ["conflict", "duplicate", "applied"]
    assert db.session.scalar(db.select(db.func.count(Answer.id))) == 3

    assert upload(client, crew, inspection_id, plain[0]["id"], jpeg(6), photo_id).status_code == 409
    again = upload(client, crew, inspection_id, plain[0]["id"], jpeg(5), photo_id)
    assert again.status_code == 201 and again.json["client_id"] == photo_id
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 1


BAD_UPLOADS = {
    "zero-byte": (b"", 422),
    "truncated": (jpeg(3)[:300], 422),
    "bomb": (make_bomb_png(), 413),
    "16-bit 40 MP": (make_flat_png(6000, 6600, depth=16), 422),
    "flat 40 MP": (make_flat_png(6000, 6600, depth=8, colour=2), 422),
    "5 kB JPEG claiming 40 MP": (make_lying_jpeg(), 422),
    "polyglot": (jpeg(4) + make_zip(), 422),
    "not-an-image": (b"%PDF-1.7\n" + b"x" * 500, 415),
    "html": (b"<html><script>alert(1)</script></html>", 415),
}


@pytest.mark.parametrize("name", BAD_UPLOADS)
def test_bad_uploads_are_clear_4xx_and_store_nothing(client, crew, started, app, db, name):
    inspection_id, _ = started
    before = media_files(app)
    data, status = BAD_UPLOADS[name]
    response = upload(client, crew, inspection_id, "seg.buckets.total", data)
    assert response.status_code == status, response.json
    assert response.mimetype == "application/problem+json"
    assert response.json["detail"] and response.json["limits"]["max_bytes"] > 0
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 0
    assert media_files(app) == before


def test_a_jpeg_whose_header_claims_more_than_it_carries_is_422_in_the_callers_language(client, crew, started):
    inspection_id, _ = started
    response = client.post(f"/api/v1/inspections/{inspection_id}/photos", headers={**crew["ih"], "Accept-Language": "en"},
                           data={"item_id": "seg.buckets.total", "client_id": cid(),
                                 "file": (io.BytesIO(make_lying_jpeg()), "foto.jpg")},
                           content_type="multipart/form-data")
    assert response.status_code == 422 and response.json["reason"] == "implausible_compression"
    assert response.json["detail"].startswith("The file claims 6000 × 6600 pixels (39.6 megapixels) but weighs only")


def test_oversized_upload_is_413_with_the_limits(client, crew, started, app, db):
    inspection_id, _ = started
    app.config["PHOTO_MAX_BYTES"] = 10_000
    try:
        response = upload(client, crew, inspection_id, "seg.buckets.total", make_jpeg((900, 700), quality=95))
    finally:
        app.config["PHOTO_MAX_BYTES"] = 15 * 1024 * 1024
    assert response.status_code == 413
    assert response.json["limits"]["max_bytes"] == 10_000
    assert "MB" in response.json["detail"] or "kB" in response.json["detail"]
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 0


def test_photo_limits_are_published(client):
    limits = client.get("/api/v1/photos/limits").json
    assert limits["max_bytes"] > 0 and limits["max_pixels"] > 0 and "image/jpeg" in limits["mimes"]
    assert (limits["upload_px"], limits["upload_quality"]) == (2048, 70)  # what the tablet sends


def test_a_tablet_photo_is_hashed_once_kept_as_sent_and_durable_before_the_answer(client, crew, started, app, db,
                                                                                   monkeypatch):
    """The display copy served is the tablet's bytes; the upload is hashed once; both files it needs and
    their folders are fsync'd before the row commits, and the 201 comes after that commit."""
    import hashlib
    import os

    from sqlalchemy import event
    from sqlalchemy.orm import Session

    inspection_id, _ = started
    data, events = make_jpeg((2048, 1536), quality=70), []
    real_fsync, real_sha256 = os.fsync, hashlib.sha256

    def fsync(fd):
        events.append("fsync dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "fsync file")
        real_fsync(fd)

    def sha256(*args):
        if args and len(args[0]) == len(data) and bytes(args[0]) == data:
            events.append("hash")
        return real_sha256(*args)

    def committed(session):
        events.append("commit")

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(hashlib, "sha256", sha256)
    event.listen(Session, "after_commit", committed)
    try:
        response = upload(client, crew, inspection_id, "seg.buckets.total", data)
        events.append("answer")
    finally:
        event.remove(Session, "after_commit", committed)
    monkeypatch.undo()
    assert response.status_code == 201, response.json
    assert events.count("hash") == 1 and events.count("fsync file") == 2  # the original and the thumb, no third file
    last_fsync = max(n for n, seen in enumerate(events) if seen.startswith("fsync"))
    assert events[last_fsync + 1:] == ["commit", "answer"]
    synced = " ".join(events[events.index("fsync file"):last_fsync + 1])
    assert synced.startswith("fsync file fsync dir") and "fsync dir fsync file fsync dir" in synced  # file, then its folder
    display = client.get(response.json["urls"]["display"], headers=crew["ih"])
    assert display.mimetype == "image/jpeg" and display.data == data
    assert len([path for path in media_files(app) if response.json["sha256"] in path.name]) == 2


def test_crash_between_writing_and_recording_a_photo(client, crew, started, app, db, monkeypatch):
    """Files written, then the process dies before the row commits: nothing is recorded, the retry succeeds."""
    import inspection.core.client_requests as common

    inspection_id, _ = started
    data, client_id = jpeg(11), cid()

    def crash(*args, **kwargs):
        raise RuntimeError("power cut")

    monkeypatch.setattr(common, "remember_result", crash)
    response = upload(client, crew, inspection_id, "seg.buckets.total", data, client_id)
    assert response.status_code == 500
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 0
    monkeypatch.undo()
    retry = upload(client, crew, inspection_id, "seg.buckets.total", data, client_id)
    assert retry.status_code == 201
    photo = db.session.get(Photo, retry.json["id"])
    from inspection.media.configured import media_storage
    for key in (photo.original_key, photo.display_key, photo.thumb_key):
        assert media_storage().exists(key)


def test_photos_are_served_only_to_those_who_may_see_the_inspection(client, crew, started, as_role):
    inspection_id, _ = started
    url = upload(client, crew, inspection_id, "seg.buckets.total", jpeg(12)).json["urls"]["display"]
    assert client.get(url, headers=crew["oh"]).status_code == 200
    _, stranger = as_role("owner")
    _, police = as_role("police")
    assert client.get(url, headers=stranger).status_code == 404
    assert client.get(url, headers=police).status_code == 404  # police read their patrol checks' photos, never these
    assert client.get(url).status_code == 401


# --- evidence and submit ---------------------------------------------------------------------------

def test_submission_is_blocked_until_declared_photos_arrive(client, crew, started, db):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, [i for i in items if i["id"] != "seg.buckets.total"])
    photo = jpeg(99)
    import hashlib
    sha = hashlib.sha256(photo).hexdigest()
    buckets = next(i for i in items if i["id"] == "seg.buckets.total")
    assert answer(client, crew, inspection_id, buckets, photos=[sha]).status_code == 200
    blocked = submit(client, crew, inspection_id)
    assert blocked.status_code == 409
    assert blocked.json["missing"] == [{"item_id": "seg.buckets.total", "sha256": sha}]
    assert db.session.get(Inspection, inspection_id).status == "in_progress"
    assert upload(client, crew, inspection_id, "seg.buckets.total", photo).status_code == 201
    assert submit(client, crew, inspection_id).status_code == 200


def test_evidence_item_without_any_photo_blocks(client, crew, started):
    inspection_id, items = started
    evidence = next(i for i in items if i["evidence_required"])
    answer_all(client, crew, inspection_id, items, skip={evidence["id"]})
    answer(client, crew, inspection_id, evidence)
    response = submit(client, crew, inspection_id)
    assert response.status_code == 409
    assert {"item_id": evidence["id"], "sha256": None} in response.json["missing"]


def test_all_pass_is_passed(client, crew, started, db):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    response = submit(client, crew, inspection_id)
    assert response.status_code == 200, response.json
    assert response.json["outcome"] == "passed"
    assert response.json["deficiencies"] == []
    assert set(response.json) >= {"outcome", "deficiencies", "certificate"}


def test_non_detainable_failure_passes_with_observations(client, crew, started, db):
    inspection_id, items = started
    minor = next(i for i in items if not i["detainable"])
    answer_all(client, crew, inspection_id, items, fail={minor["id"]})
    body = submit(client, crew, inspection_id).json
    assert body["outcome"] == "passed_with_observations"
    [deficiency] = body["deficiencies"]
    assert deficiency["item_id"] == minor["id"] and deficiency["article"] == minor["article"]
    assert deficiency["action"] == "within_14_days" and deficiency["status"] == "open"
    assert deficiency["due_on"] == (office_today() + timedelta(days=14)).isoformat()


def test_detainable_failure_fails_and_schedules_reinspection(client, crew, started, db):
    inspection_id, items = started
    major = next(i for i in items if i["detainable"])
    answer_all(client, crew, inspection_id, items, fail={major["id"]})
    body = submit(client, crew, inspection_id).json
    assert body["outcome"] == "failed" and body["certificate"] is None
    follow_up = db.session.get(Inspection, body["reinspection_id"])
    assert follow_up.reinspection_of_id == inspection_id and follow_up.status == "scheduled"


def test_closing_with_unanswered_items_is_409_listing_them(client, crew, started, db):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items[:3])
    refused = submit(client, crew, inspection_id)
    assert refused.status_code == 409 and refused.mimetype == "application/problem+json"
    assert refused.json["unanswered"] == [{"item_id": i["id"], "title": i["title"]} for i in items[3:]]
    english = client.post(f"/api/v1/inspections/{inspection_id}/submit", headers={**crew["ih"], "Accept-Language": "en"},
                          json={"client_id": cid(), "signature": "Insp. Demo", "master_name": "Cap. Benítez",
                                "signatures": SIGNATURES})
    assert english.json["unanswered"][0]["title"] == items[3]["title_en"] != items[3]["title"]
    inspection = db.session.get(Inspection, inspection_id)
    assert inspection.status == "in_progress" and inspection.outcome is None
    assert db.session.scalar(db.select(db.func.count(Deficiency.id))) == 0
    answer_all(client, crew, inspection_id, items[3:])
    assert submit(client, crew, inspection_id).json["missing_answers"] == []


def test_an_inspection_that_cannot_be_finished_is_interrupted(client, crew, started, db, as_role):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items[:2])
    url = f"/api/v1/inspections/{inspection_id}/interrupt"
    reason = {"reason": "El buque zarpó antes de terminar."}
    _, other_inspector = as_role("inspector")
    assert client.post(url, json=reason, headers=other_inspector).status_code == 403
    assert client.post(url, json=reason, headers=crew["oh"]).status_code == 403
    response = client.post(url, json=reason, headers=crew["ih"])
    assert response.status_code == 200, response.json
    assert response.json["status"] == "interrupted" and response.json["outcome"] is None
    assert response.json["interruption_reason"] == reason["reason"] and response.json["interrupted_at"]
    assert client.post(url, json=reason, headers=crew["ih"]).json == response.json  # a retry changes nothing
    assert client.post(url, json={"reason": "Otra razón"}, headers=crew["ih"]).status_code == 409
    assert submit(client, crew, inspection_id).status_code == 409
    assert answer(client, crew, inspection_id, items[3]).status_code == 409
    assert db.session.scalar(db.select(db.func.count(Deficiency.id))) == 0
    assert db.session.scalar(db.select(db.func.count(Certificate.id))) == 0
    assert db.session.scalar(db.select(db.func.count(Inspection.id))) == 1  # no re-inspection either
    [event] = db.session.scalars(db.select(AuditEvent).filter_by(action="inspection.interrupted")).all()
    assert event.details == {"reason": reason["reason"], "answered": 2, "items": len(items), "applications": []}
    assert client.get("/api/v1/inspections?status=interrupted", headers=crew["oh"]).json["total"] == 1


def test_an_interrupted_inspection_gives_planning_its_application_back(client, crew, db):
    """The owner applied, the Prefectura assigned, the storm stopped the inspection: the vessel still needs one, so
    the application is pending again (it stayed "scheduled" on a dead inspection) and is assigned anew."""
    application_id, inspection_id = apply_and_assign(client, crew, days=0)
    assert client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"]).status_code == 200
    response = client.post(f"/api/v1/inspections/{inspection_id}/interrupt", headers=crew["ih"],
                           json={"reason": "Tormenta: se suspende la inspección."})
    assert response.status_code == 200, response.json
    application = db.session.get(Application, application_id)
    assert (application.status, application.inspection_id) == ("pending", None)
    event = db.session.scalar(db.select(AuditEvent).filter_by(action="inspection.interrupted"))
    assert event.details["applications"] == [{"id": application_id, "status": "pending"}]
    again = client.post(f"/api/v1/applications/{application_id}/assign", headers=crew["admin"], json={
        "inspector_id": crew["inspector"].id, "scheduled_on": office_today().isoformat(), "port": "Asunción"})
    assert again.status_code == 200, again.json


def apply_and_assign(client, crew, days=3) -> tuple[int, int]:
    """The owner applies for a seguridad inspection and the Prefectura assigns it: (application id, inspection id)."""
    on = (office_today() + timedelta(days=days)).isoformat()
    filed = client.post("/api/v1/applications", headers=crew["oh"], json={
        "vessel_id": crew["vessel"].id, "kind": "seguridad", "port": "Asunción", "preferred_on": on})
    assert filed.status_code == 201, filed.json
    assigned = client.post(f"/api/v1/applications/{filed.json['id']}/assign", headers=crew["admin"],
                           json={"inspector_id": crew["inspector"].id, "scheduled_on": on, "port": "Asunción"})
    assert assigned.status_code == 200, assigned.json
    return filed.json["id"], assigned.json["inspection_id"]


def test_a_scheduled_inspection_booked_wrong_is_cancelled_and_planning_gets_its_application_back(
        client, crew, db, as_role):
    """Cancelling frees the vessel's kind (uq_inspections_open) and returns the application to pending, so the
    Prefectura assigns it again; the cancelled one leaves the inspector's agenda and the tablet."""
    application_id, inspection_id = apply_and_assign(client, crew)
    url = f"/api/v1/inspections/{inspection_id}/cancel"
    reason = {"reason": "Programada con el inspector equivocado."}
    _, other_inspector = as_role("inspector")
    _, police = as_role("police")
    for refused in (other_inspector, crew["oh"], police):
        assert client.post(url, json=reason, headers=refused).status_code == 403
    assert client.post(url, json={"reason": "no"}, headers=crew["admin"]).status_code == 422
    response = client.post(url, json=reason, headers=crew["admin"])
    assert response.status_code == 200, response.json
    assert response.json["status"] == "cancelled" and response.json["outcome"] is None
    assert response.json["cancellation_reason"] == reason["reason"] and response.json["cancelled_at"]
    assert client.post(url, json=reason, headers=crew["admin"]).json == response.json  # a retry changes nothing
    assert client.post(url, json={"reason": "Otra razón"}, headers=crew["admin"]).status_code == 409
    [event] = db.session.scalars(db.select(AuditEvent).filter_by(action="inspection.cancelled")).all()
    assert (event.entity, event.entity_id, event.inspection_id) == ("inspection", str(inspection_id), inspection_id)
    assert event.details == {"reason": reason["reason"], "applications": [{"id": application_id, "status": "pending"}]}
    application = db.session.get(Application, application_id)
    assert (application.status, application.inspection_id) == ("pending", None)
    assert client.get(f"/api/v1/inspections/{inspection_id}/package", headers=crew["ih"]).status_code == 409
    assert client.get("/api/v1/agenda", headers=crew["ih"]).json["items"] == []
    again = client.post(f"/api/v1/applications/{application_id}/assign", headers=crew["admin"], json={
        "inspector_id": crew["inspector"].id, "scheduled_on": office_today().isoformat(), "port": "Asunción"})
    assert again.status_code == 200, again.json
    assert [i["id"] for i in client.get("/api/v1/agenda", headers=crew["ih"]).json["items"]] \
        == [again.json["inspection_id"]]


def test_the_assigned_inspector_cancels_and_a_second_pending_application_stands(client, crew, db):
    """One pending application per vessel and kind: one filed while the cancelled inspection was scheduled asks for
    the same work, so it stays pending and the cancelled inspection's application is closed as cancelled."""
    application_id, inspection_id = apply_and_assign(client, crew)
    later = client.post("/api/v1/applications", headers=crew["oh"], json={
        "vessel_id": crew["vessel"].id, "kind": "seguridad", "port": "Pilar",
        "preferred_on": (office_today() + timedelta(days=9)).isoformat()})
    assert later.status_code == 201, later.json
    response = client.post(f"/api/v1/inspections/{inspection_id}/cancel", json={"reason": "Fecha equivocada."},
                           headers=crew["ih"])
    assert response.status_code == 200, response.json
    statuses = dict(db.session.execute(db.select(Application.id, Application.status)).all())
    assert statuses == {application_id: "cancelled", later.json["id"]: "pending"}
    assert db.session.get(Application, application_id).inspection_id == inspection_id
    event = db.session.scalar(db.select(AuditEvent).filter_by(action="inspection.cancelled"))
    assert event.details["applications"] == [{"id": application_id, "status": "cancelled"}]
    assert event.user_id == crew["inspector"].id


def test_an_inspection_in_progress_is_interrupted_not_cancelled(client, crew, started, db):
    inspection_id, _ = started
    url = f"/api/v1/inspections/{inspection_id}/cancel"
    response = client.post(url, json={"reason": "Fecha equivocada."}, headers=crew["admin"])
    assert response.status_code == 409
    assert response.json["detail"] == "La inspección ya comenzó: no se cancela, se interrumpe con el motivo."
    english = client.post(url, json={"reason": "Wrong date."}, headers={**crew["ih"], "Accept-Language": "en"})
    assert english.status_code == 409
    assert english.json["detail"] == "The inspection has already started: it is not cancelled but interrupted, with the reason."
    assert db.session.get(Inspection, inspection_id).status == "in_progress"
    assert db.session.scalar(db.select(db.func.count(AuditEvent.id)).filter_by(action="inspection.cancelled")) == 0


def test_submit_is_idempotent(client, crew, started, db):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    client_id = cid()
    first = submit(client, crew, inspection_id, client_id)
    second = submit(client, crew, inspection_id, client_id)
    assert first.json == second.json and second.headers["Idempotent-Replayed"] == "true"
    assert submit(client, crew, inspection_id).status_code == 409  # a new submission of a closed inspection


# --- deficiencies, detention, audit, isolation -----------------------------------------------------

def test_deficiency_follow_up(client, crew, started, as_role, db):
    inspection_id, items = started
    minor = next(i for i in items if not i["detainable"])
    answer_all(client, crew, inspection_id, items, fail={minor["id"]})
    deficiency_id = submit(client, crew, inspection_id).json["deficiencies"][0]["id"]
    _, stranger = as_role("owner")
    note = {"reason": "Se reemplazó el elemento; factura adjunta."}
    assert client.post(f"/api/v1/deficiencies/{deficiency_id}/report-fixed", json=note, headers=stranger).status_code == 404
    assert client.post(f"/api/v1/deficiencies/{deficiency_id}/close", json=note, headers=crew["oh"]).status_code == 403
    reported = client.post(f"/api/v1/deficiencies/{deficiency_id}/report-fixed", json=note, headers=crew["oh"])
    assert reported.json["status"] == "reported_fixed"
    closed = client.post(f"/api/v1/deficiencies/{deficiency_id}/close", json={"reason": "Verificado a bordo."},
                         headers=crew["ih"])
    assert closed.json["status"] == "closed"
    assert client.get("/api/v1/deficiencies?status=closed", headers=crew["oh"]).json["total"] == 1


def test_detention_is_a_separate_recorded_decision(client, crew, started):
    inspection_id, _ = started
    response = client.post(f"/api/v1/vessels/{crew['vessel'].id}/detentions",
                           json={"reason": "Casco con filtraciones (art. 208)", "inspection_id": inspection_id},
                           headers=crew["ih"])
    assert response.status_code == 201 and response.json["lifted_at"] is None
    lifted = client.post(f"/api/v1/detentions/{response.json['id']}/lift", json={"reason": "Reparado"},
                         headers=crew["admin"])
    assert lifted.json["lifted_at"] is not None
    assert client.post(f"/api/v1/vessels/{crew['vessel'].id}/detentions", json={"reason": "x" * 5},
                       headers=crew["oh"]).status_code == 403


def test_audit_trail_records_who_what_and_client_id(client, crew, started, db):
    inspection_id, items = started
    client_id = cid()
    client.put(f"/api/v1/inspections/{inspection_id}/answers/seg.buckets.total",
               json={"client_id": client_id, "result": "pass", "observed": 6}, headers=crew["ih"])
    audit = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json["audit"]
    actions = [e["action"] for e in audit]
    assert actions[:3] == ["inspection.scheduled", "inspection.started", "answer.recorded"]
    assert audit[2]["client_id"] == client_id and audit[2]["username"] == crew["inspector"].username
    event = db.session.scalar(db.select(AuditEvent).limit(1))
    event.action = "tampered"
    with pytest.raises(RuntimeError):
        db.session.flush()
    db.session.rollback()


def test_owner_isolation_for_inspections(client, crew, started, as_role):
    inspection_id, _ = started
    _, stranger = as_role("owner")
    assert client.get(f"/api/v1/inspections/{inspection_id}", headers=stranger).status_code == 404
    assert client.get("/api/v1/inspections", headers=stranger).json["total"] == 0
    assert client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["oh"]).status_code == 200


def test_list_filters(client, crew):
    early = schedule(client, crew, on=office_today() + timedelta(days=1))
    late = schedule(client, crew, kind="navegabilidad", on=office_today() + timedelta(days=20))
    get = lambda q: [i["id"] for i in client.get(f"/api/v1/inspections?{q}", headers=crew["admin"]).json["items"]]
    assert get(f"date_to={(office_today() + timedelta(days=5)).isoformat()}") == [early]
    assert get("kind=navegabilidad") == [late]
    assert get(f"vessel_id={crew['vessel'].id}&status=scheduled") == [late, early]
    assert get(f"inspector_id={crew['inspector'].id}&per_page=1") == [late]


def test_admin_declares_a_conflict_through_the_api(client, crew):
    url = f"/api/v1/users/{crew['inspector'].id}/conflicts"
    body = {"owner_id": crew["vessel"].owner_id, "reason": "Fue maquinista de la compañía"}
    assert client.post(url, json=body, headers=crew["ih"]).status_code == 403
    assert client.post(url, json=body, headers=crew["admin"]).status_code == 201
    assert [c["owner_id"] for c in client.get(url, headers=crew["admin"]).json] == [crew["vessel"].owner_id]
    schedule_body = {"vessel_id": crew["vessel"].id, "kind": "seguridad", "inspector_id": crew["inspector"].id,
                     "scheduled_on": office_today().isoformat(), "port": "Asunción"}
    assert client.post("/api/v1/inspections", json=schedule_body, headers=crew["admin"]).status_code == 403




def test_media_sweep_removes_only_unrecorded_old_files(runner, client, crew, started, app, db, own_media):
    from inspection.media.configured import media_storage
    inspection_id, _ = started
    kept = upload(client, crew, inspection_id, "seg.buckets.total", jpeg(21)).json
    orphan = "originals/ab/" + "ab" * 32 + ".jpg"
    media_storage().put(orphan, jpeg(22))
    assert "0 archivos" in runner.invoke(args=["media", "sweep"]).output  # too new: in flight, kept
    result = runner.invoke(args=["media", "sweep", "--grace-minutes", "-1"])
    assert result.output.startswith("1 archivos")
    assert not media_storage().exists(orphan)
    photo = db.session.get(Photo, kept["id"])
    assert media_storage().exists(photo.original_key) and media_storage().exists(photo.thumb_key)


def test_owner_reports_a_repair_with_a_photo(client, crew, started, db):
    inspection_id, items = started
    minor = next(i for i in items if not i["detainable"])
    answer_all(client, crew, inspection_id, items, fail={minor["id"]})
    deficiency_id = submit(client, crew, inspection_id).json["deficiencies"][0]["id"]
    fields = {"client_id": cid(), "file": (io.BytesIO(jpeg(77)), "arreglo.jpg")}
    photo = client.post(f"/api/v1/deficiencies/{deficiency_id}/evidence", data=fields, headers=crew["oh"],
                        content_type="multipart/form-data")
    assert photo.status_code == 201 and photo.json["item_id"] == minor["id"]
    assert client.post(f"/api/v1/deficiencies/{deficiency_id}/evidence",
                       data={"client_id": cid(), "file": (io.BytesIO(b"no image"), "x.jpg")}, headers=crew["oh"],
                       content_type="multipart/form-data").status_code == 415
    reported = client.post(f"/api/v1/deficiencies/{deficiency_id}/report-fixed",
                           json={"reason": "Manguera nueva", "photo_id": photo.json["id"]}, headers=crew["oh"])
    assert reported.status_code == 200 and reported.json["reported_photo_id"] == photo.json["id"]
    # the inspector sees the owner's photo on the inspection, which stays closed
    detail = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json
    assert photo.json["id"] in [p["id"] for p in detail["photos"]] and detail["status"] == "submitted"


def test_simultaneous_retries_store_one_answer(app, crew, started, db):
    """Two copies of one request arriving at once (a retry racing the original): one row, one result."""
    import threading
    inspection_id, _ = started
    body = {"client_id": cid(), "result": "pass", "observed": 6}
    url = f"/api/v1/inspections/{inspection_id}/answers/seg.buckets.total"
    results, barrier = [], threading.Barrier(4)

    def send():
        with app.app_context():
            barrier.wait()
            response = app.test_client().put(url, json=body, headers=crew["ih"])
            results.append((response.status_code, response.json))
            db.session.remove()

    db.session.remove()  # end this thread's read transaction: on SQLite it would block every writer
    threads = [threading.Thread(target=send) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert [status for status, _ in results] == [200] * 4
    assert len({r["client_id"] + str(r["received_at"]) for _, r in results}) == 1
    assert db.session.scalar(db.select(db.func.count(Answer.id))) == 1


def test_simultaneous_uploads_of_one_photo_are_one_photo(app, crew, started, db):
    import threading
    inspection_id, _ = started
    data, results, barrier = jpeg(31), [], threading.Barrier(3)

    def send():
        with app.app_context():
            barrier.wait()
            fields = {"item_id": "seg.buckets.total", "client_id": cid(), "file": (io.BytesIO(data), "f.jpg")}
            response = app.test_client().post(f"/api/v1/inspections/{inspection_id}/photos", data=fields,
                                              headers=crew["ih"], content_type="multipart/form-data")
            results.append((response.status_code, response.json))
            db.session.remove()

    db.session.remove()  # end this thread's read transaction: on SQLite it would block every writer
    threads = [threading.Thread(target=send) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert [status for status, _ in results] == [201] * 3
    assert len({body["id"] for _, body in results}) == 1
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 1
