"""Taking inspections aboard: the inspector's agenda, the offline package, and starting from what was downloaded."""
import io
import uuid
from datetime import date, datetime, timedelta, timezone

import pytest

from inspection.core.extensions import db as _db
from inspection.core.models import AuditEvent, Deficiency, Inspection
from inspection.inspections.operations import interrupt_inspection, schedule_inspection, start_inspection
from inspection.inspections.pins import checklist_pin
from tests.conftest import PASSWORD
from tests.media_samples import encode, noisy_image

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)  # 09:00 in Asunción
DAY = date(2026, 12, 1)
PROBLEMS = "https://baliza.example/problems/"


@pytest.fixture
def crew(set_clock, client, as_role, make_user, make_vessel):
    """The clock at T0; an admin, an inspector with a tablet's device token, another inspector and a vessel."""
    set_clock(T0)
    admin, admin_h = as_role("admin")
    inspector = make_user("inspector")
    tablet = client.post("/api/v1/auth/token", json={"username": inspector.username, "password": PASSWORD,
                                                     "device": "Tableta"}).json
    headers = {"Authorization": f"Bearer {tablet['token']}"}
    other, other_h = as_role("inspector")
    return {"admin": admin, "admin_h": admin_h, "inspector": inspector, "ih": headers, "other": other,
            "oh": other_h, "vessel": make_vessel(), "make_vessel": make_vessel, "clock": set_clock}


def plan(crew, on=DAY, inspector=None, vessel=None) -> Inspection:
    """A scheduled seguridad inspection (made through the operation, on the office's date T0)."""
    inspection = schedule_inspection(crew["admin"], vessel or crew["vessel"], "seguridad", inspector or crew["inspector"],
                                     on, "Asunción", DAY)
    _db.session.commit()
    return inspection


def agenda(client, crew, query=""):
    response = client.get(f"/api/v1/agenda{query}", headers=crew["ih"])
    assert response.status_code == 200, response.json
    return response.json


# --- the agenda ------------------------------------------------------------------------------------

def test_the_agenda_holds_overdue_today_and_the_coming_days_in_date_order(client, crew):
    late = plan(crew, DAY)
    due, coming, edge, beyond = (plan(crew, DAY + timedelta(days=n), vessel=crew["make_vessel"]())
                                 for n in (2, 5, 9, 10))  # one open inspection per vessel and kind
    running = plan(crew, DAY + timedelta(days=3), vessel=crew["make_vessel"]())
    start_inspection(crew["inspector"], running, T0)
    stopped = plan(crew, DAY + timedelta(days=2), vessel=crew["make_vessel"]())
    start_inspection(crew["inspector"], stopped, T0)
    interrupt_inspection(crew["inspector"], stopped, "Tormenta", T0)
    plan(crew, DAY + timedelta(days=2), inspector=crew["other"], vessel=crew["make_vessel"]())
    _db.session.commit()
    crew["clock"](T0 + timedelta(days=2))
    body = agenda(client, crew)
    assert body["today"] == "2026-12-03"
    assert [(i["id"], i["bucket"]) for i in body["items"]] == [
        (late.id, "overdue"), (due.id, "today"), (running.id, "week"), (coming.id, "week"), (edge.id, "week")]
    assert body["items"][0]["vessel"] == {"registration": crew["vessel"].registration, "name": crew["vessel"].name}
    assert body["items"][2]["status"] == "in_progress"
    assert beyond.id in [i["id"] for i in agenda(client, crew, "?days=8")["items"]]


def test_the_agenda_reads_the_offices_date_not_utc(client, crew):
    tomorrow = plan(crew, DAY + timedelta(days=1))
    crew["clock"](datetime(2026, 12, 2, 2, 30, tzinfo=timezone.utc))  # 23:30 on Dec 1 in Asunción
    body = agenda(client, crew, "?days=1")
    assert body["today"] == "2026-12-01" and body["items"][0]["id"] == tomorrow.id
    assert body["items"][0]["bucket"] == "week"


@pytest.mark.parametrize("days", ["0", "61", "siete"])
def test_days_is_1_to_60(client, crew, days):
    response = client.get(f"/api/v1/agenda?days={days}", headers=crew["ih"])
    assert response.status_code == 422 and "days" in response.json["errors"]


@pytest.mark.parametrize("role", ["admin", "owner", "police"])
def test_the_agenda_is_an_inspectors(client, as_role, crew, role):
    assert client.get("/api/v1/agenda", headers=as_role(role)[1]).status_code == 403


def test_the_agenda_does_not_query_per_row(client, crew, count_queries):
    plan(crew)
    agenda(client, crew)  # the tablet's first use of the minute writes last_used_at; measure after it
    one = count_queries(lambda: agenda(client, crew))
    for n in range(5):
        plan(crew, DAY + timedelta(days=n), vessel=crew["make_vessel"]())
    assert len(agenda(client, crew)["items"]) == 6
    assert count_queries(lambda: agenda(client, crew)) == one


# --- the package -----------------------------------------------------------------------------------

def package(client, crew, inspection_id, headers=None, **kw):
    return client.get(f"/api/v1/inspections/{inspection_id}/package", headers=headers or crew["ih"], **kw)


def test_a_scheduled_inspection_carries_what_starting_it_would_pin(client, crew):
    earlier = plan(crew)
    earlier.status = "submitted"  # closed with the deficiencies below
    inspection = plan(crew)
    _db.session.add(Deficiency(inspection_id=earlier.id, vessel_id=crew["vessel"].id, item_id="seg.hoses.weekly",
                               source="Ley 928/1927", article="143", description="Mangueras", action="within_14_days",
                               due_on=DAY + timedelta(days=14), status="open"))
    _db.session.add(Deficiency(inspection_id=earlier.id, vessel_id=crew["vessel"].id, item_id="seg.x", source="s",
                               article="1", description="Cerrada", action="rectified", status="closed"))
    _db.session.commit()
    body = package(client, crew, inspection.id).json
    assert set(body) == {"inspection", "vessel", "checklist_versions", "items", "pin", "open_deficiencies",
                         "photo_limits", "answers", "photos", "evidence"}
    vessel = crew["vessel"]
    assert body["vessel"]["id"] == vessel.id and body["vessel"]["owner"] == vessel.owner.name
    assert body["vessel"]["particulars"]["fire_hydrants"] == vessel.fire_hydrants
    assert [d["description"] for d in body["open_deficiencies"]] == ["Mangueras"]
    assert (body["answers"], body["photos"], body["evidence"]) == ([], [], None)
    assert body["photo_limits"]["max_bytes"] > 0
    item = body["items"][0]
    assert {"id", "title", "topic", "source", "article", "text", "required", "unit", "evidence_required",
            "detainable", "answer"} <= set(item)
    assert client.post(f"/api/v1/inspections/{inspection.id}/start", headers=crew["ih"]).status_code == 200
    detail = client.get(f"/api/v1/inspections/{inspection.id}", headers=crew["ih"]).json
    assert body["items"] == detail["items"] and body["checklist_versions"] == detail["checklist_versions"]
    _db.session.expire_all()
    stored = _db.session.get(Inspection, inspection.id)
    assert body["pin"] == checklist_pin(stored.checklist_versions, stored.items, stored.particulars)
    assert package(client, crew, inspection.id).json["pin"] == body["pin"]


def test_the_package_is_in_the_requests_language_and_carries_the_other(client, crew):
    """In the request's language, with the other language's words beside them: the tablet can switch offline."""
    inspection = plan(crew)
    spanish = package(client, crew, inspection.id).json["items"][0]
    english = package(client, crew, inspection.id, headers={**crew["ih"], "Accept-Language": "en"}).json["items"][0]
    assert spanish["id"] == english["id"] and english["title"] == spanish["title_en"] != spanish["title"]
    assert (english["title_es"], english["topic_title_es"], english["unit_es"]) == (
        spanish["title"], spanish["topic_title"], spanish["unit"])
    assert english["topic_title"] == spanish["topic_title_en"] != spanish["topic_title"]


def test_an_inspection_in_progress_carries_its_answers_photos_and_evidence(client, crew):
    inspection = plan(crew)
    client.post(f"/api/v1/inspections/{inspection.id}/start", headers=crew["ih"])
    items = package(client, crew, inspection.id).json["items"]
    item = next(i for i in items if i["required"] is None)
    answer = {"client_id": str(uuid.uuid4()), "result": "pass"}
    assert client.put(f"/api/v1/inspections/{inspection.id}/answers/{item['id']}", json=answer,
                      headers=crew["ih"]).status_code == 200
    photo = {"item_id": item["id"], "client_id": str(uuid.uuid4()),
             "file": (io.BytesIO(encode(noisy_image((64, 48), seed=3), "JPEG", quality=80)), "foto.jpg")}
    assert client.post(f"/api/v1/inspections/{inspection.id}/photos", data=photo, headers=crew["ih"],
                       content_type="multipart/form-data").status_code == 201
    body = package(client, crew, inspection.id).json
    assert [(a["item_id"], a["client_id"]) for a in body["answers"]] == [(item["id"], answer["client_id"])]
    assert [p["item_id"] for p in body["photos"]] == [item["id"]]
    assert body["evidence"]["arrived"] == [body["photos"][0]["sha256"]]
    carried = next(i for i in body["items"] if i["id"] == item["id"])
    assert carried["answer"]["client_id"] == answer["client_id"]


def test_the_package_is_the_assigned_inspectors(client, crew, as_role):
    inspection = plan(crew)
    assert package(client, crew, inspection.id, headers=crew["oh"]).status_code == 403
    for role in ("admin", "police"):
        assert package(client, crew, inspection.id, headers=as_role(role)[1]).status_code == 403
    stranger = as_role("owner")[1]  # an owner of another fleet: the inspection does not exist for them
    assert package(client, crew, inspection.id, headers=stranger).status_code == 404


def test_a_closed_inspection_is_not_taken_aboard(client, crew):
    inspection = plan(crew)
    start_inspection(crew["inspector"], inspection, T0)
    interrupt_inspection(crew["inspector"], inspection, "Tormenta", T0)
    _db.session.commit()
    assert package(client, crew, inspection.id).status_code == 409


# --- starting from the package ----------------------------------------------------------------------

def start(client, crew, inspection_id, body=None):
    return client.post(f"/api/v1/inspections/{inspection_id}/start", json=body, headers=crew["ih"])


def test_an_offline_start_keeps_the_tablets_time(client, crew, db):
    inspection = plan(crew)
    pin = package(client, crew, inspection.id).json["pin"]
    crew["clock"](T0 + timedelta(hours=5))  # the tablet comes back into signal hours later
    body = {"client_id": str(uuid.uuid4()), "started_at": (T0 + timedelta(hours=1)).isoformat(), "pin": pin}
    response = start(client, crew, inspection.id, body)
    assert response.status_code == 200, response.json
    assert datetime.fromisoformat(response.json["started_at"]) == T0 + timedelta(hours=1)
    event = db.session.scalar(db.select(AuditEvent).filter_by(action="inspection.started", inspection_id=inspection.id))
    assert event.client_id == body["client_id"] and event.at == T0 + timedelta(hours=5)
    again = start(client, crew, inspection.id, body)  # the tablet retries
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true" and again.json == response.json
    other = {**body, "client_id": str(uuid.uuid4())}
    assert start(client, crew, inspection.id, other).status_code == 200  # a repeat start is a no-op
    assert start(client, crew, inspection.id).status_code == 200


def test_a_changed_vessel_refuses_a_start_from_an_old_download(client, crew, db):
    inspection = plan(crew)
    pin = package(client, crew, inspection.id).json["pin"]
    crew["vessel"].fire_hydrants += 2  # the registry corrected the vessel after the tablet downloaded it
    db.session.commit()
    response = start(client, crew, inspection.id, {"pin": pin})
    assert response.status_code == 409 and response.json["type"] == PROBLEMS + "checklist-changed"
    assert "descárguela de nuevo" in response.json["detail"]
    assert db.session.get(Inspection, inspection.id).status == "scheduled"
    fresh = package(client, crew, inspection.id).json["pin"]
    assert fresh != pin and start(client, crew, inspection.id, {"pin": fresh}).status_code == 200


def test_a_start_elsewhere_with_other_items_refuses_the_tablets_pin(client, crew, db):
    inspection = plan(crew)
    pin = package(client, crew, inspection.id).json["pin"]
    crew["vessel"].fire_hydrants += 2
    db.session.commit()
    assert start(client, crew, inspection.id).status_code == 200  # started from a page, with the new particulars
    assert start(client, crew, inspection.id, {"pin": pin}).status_code == 409


@pytest.mark.parametrize("started_at", [T0 + timedelta(minutes=6), T0 - timedelta(days=1, minutes=1)])
def test_a_start_time_the_tablet_cannot_have_is_refused(client, crew, db, started_at):
    inspection = plan(crew)  # created at T0 (the test's clock)
    inspection.created_at = T0
    db.session.commit()
    response = start(client, crew, inspection.id, {"started_at": started_at.isoformat()})
    assert response.status_code == 422 and "started_at" in response.json["errors"]


@pytest.mark.parametrize("started_at", [T0 + timedelta(minutes=5), T0 - timedelta(days=1)])
def test_a_start_time_within_the_bounds_is_kept(client, crew, db, started_at):
    inspection = plan(crew)
    inspection.created_at = T0
    db.session.commit()
    response = start(client, crew, inspection.id, {"started_at": started_at.isoformat()})
    assert response.status_code == 200 and datetime.fromisoformat(response.json["started_at"]) == started_at


@pytest.mark.parametrize("body, field", [({"started_at": "2026-12-01T10:00:00"}, "started_at"),
                                         ({"pin": "abc"}, "pin"), ({"client_id": "x"}, "client_id")])
def test_the_start_body_is_validated(client, crew, body, field):
    response = start(client, crew, plan(crew).id, body)
    assert response.status_code == 422 and field in response.json["errors"]


# --- the pin itself ---------------------------------------------------------------------------------

def test_the_pin_is_canonical_and_covers_every_part():
    versions, items, particulars = {"seguridad": "1", "documentacion": "2"}, [{"id": "a", "required": 2}], {"crew": 6}
    pin = checklist_pin(versions, items, particulars)
    assert len(pin) == 64 and pin == checklist_pin(dict(reversed(versions.items())), items, particulars)
    assert pin != checklist_pin({**versions, "seguridad": "2"}, items, particulars)
    assert pin != checklist_pin(versions, [{"id": "a", "required": 3}], particulars)
    assert pin != checklist_pin(versions, items, {"crew": 7})
