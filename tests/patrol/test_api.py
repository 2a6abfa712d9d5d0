"""Patrol checks over the API (issue 23): start, answer, photos, close; who sees what; retries that never duplicate."""
import hashlib
import io
from datetime import timedelta

import pytest

from inspection.core.clock import system_now
from inspection.core.models import Notice, PatrolCheck, Photo
from tests.conftest import TEST_DATABASE_URL
from tests.fixtures.inspections import jpeg
from tests.fixtures.patrol import answer, cid, close, now_iso, start

CANOE = {"marks": "sin marcas", "type": "rowing", "length_m": 4.5}


def test_a_conduct_check_pins_its_items_with_their_articles(client, patrol):
    response = start(client, patrol["headers"], vessel_id=patrol["vessel"].id)
    assert response.status_code == 201, response.json
    check = response.json
    items = {i["id"]: i for i in check["items"]}
    assert check["checklist"] == "conducta" and check["checklist_version"] == "2026.1"
    assert check["unit"] == "Lancha 3" and check["registration"] == patrol["vessel"].registration
    assert items["con.lights.night"]["article"] == "68" and items["con.lights.night"]["source"] == "Ley 928/1927"
    assert items["con.passengers.within_maximum"]["maximum"] == 20
    assert items["con.passengers.all_listed"]["fine"]["min"] == 300
    assert check["outcome"] is None and check["closed_at"] is None


def test_a_retry_is_the_same_check_and_a_reused_client_id_is_409(client, patrol, db):
    body = {"client_id": cid(), "checked_at": now_iso(), "vessel_id": patrol["vessel"].id}
    first = start(client, patrol["headers"], **body)
    again = start(client, patrol["headers"], **body)
    assert (first.status_code, again.status_code) == (201, 200) and again.json["id"] == first.json["id"]
    other = start(client, patrol["headers"], **{**body, "checklist": "documentacion"})
    assert other.status_code == 409
    assert db.session.scalar(db.select(db.func.count()).select_from(PatrolCheck)) == 1


def test_an_unregistered_canoe_gets_the_small_craft_list(client, patrol):
    response = start(client, patrol["headers"], craft=CANOE, checklist="menores")
    assert response.status_code == 201, response.json
    assert response.json["vessel_id"] is None and response.json["craft"]["type"] == "rowing"
    assert {i["article"] for i in response.json["items"]} >= {"63", "65", "68"}


@pytest.mark.parametrize("body, field", [
    ({"checklist": "menores"}, "checklist"),  # a motor launch is no art. 210 small craft
    ({"checked_at": (system_now() + timedelta(hours=1)).isoformat()}, "checked_at"),
    ({"checked_at": (system_now() - timedelta(days=40)).isoformat()}, "checked_at"),
    ({"place": None}, "place"),
    ({"craft": CANOE}, "craft"),  # a vessel and a craft at once
    ({"checklist": "seguridad"}, "checklist"),
])
def test_refusals_name_the_field(client, patrol, body, field):
    response = start(client, patrol["headers"], vessel_id=patrol["vessel"].id, **body)
    assert response.status_code == 422, response.json
    assert field in response.json["errors"]


def test_only_police_start_checks(client, patrol, as_role):
    _, inspector = as_role("inspector")
    assert start(client, inspector, vessel_id=patrol["vessel"].id).status_code == 403
    assert start(client, patrol["owner_headers"], vessel_id=patrol["vessel"].id).status_code == 403


def test_an_infraction_carries_its_article_and_the_fine_the_law_sets(client, patrol):
    check = start(client, patrol["headers"], vessel_id=patrol["vessel"].id).json
    headers = patrol["headers"]
    assert answer(client, headers, check["id"], "con.lights.night").status_code == 200
    assert answer(client, headers, check["id"], "con.passengers.all_listed", "fail",
                  note="dos pasajeros fuera de la lista").status_code == 200
    refused = close(client, headers, check["id"], "sin_novedad")
    assert refused.status_code == 422 and "outcome" in refused.json["errors"]
    closed = close(client, headers, check["id"], "infraccion", note="art. 14")
    assert closed.status_code == 200, closed.json
    [found] = closed.json["infringements"]
    assert (found["article"], found["fine"]["min"], found["fine"]["max"]) == ("14", 300, 500)
    assert close(client, headers, check["id"], "infraccion").status_code == 409  # closed already


def test_a_retention_only_where_the_law_allows_it_and_staff_hear_at_once(client, patrol, staff, db):
    headers = patrol["headers"]
    check = start(client, headers, vessel_id=patrol["vessel"].id).json
    answer(client, headers, check["id"], "con.lights.night", "fail")  # art. 68: no detention
    assert close(client, headers, check["id"], "retencion").status_code == 422
    answer(client, headers, check["id"], "con.passengers.within_maximum", "fail", observed=35)
    body = {"client_id": cid(), "outcome": "retencion", "note": "35 pasajeros"}
    first = client.post(f"/api/v1/patrol-checks/{check['id']}/close", json=body, headers=headers)
    again = client.post(f"/api/v1/patrol-checks/{check['id']}/close", json=body, headers=headers)
    assert first.status_code == again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    notices = db.session.scalars(db.select(Notice).filter_by(kind="patrol_retention", subject_id=check["id"])).all()
    assert {n.user_id for n in notices} == {staff["admin"].id}
    assert "Ley 928/1927 art. 184" in notices[0].params["cited"]


def test_answers_are_checked_against_the_item_and_only_the_officer_writes(client, patrol, as_role):
    check = start(client, patrol["headers"], vessel_id=patrol["vessel"].id).json
    assert answer(client, patrol["headers"], check["id"], "nav.hull.condition").status_code == 404
    over = answer(client, patrol["headers"], check["id"], "con.passengers.within_maximum", observed=25)
    assert over.status_code == 422  # 25 passengers are not within 20: a pass cannot say so
    _, mate = as_role("police", unit="Lancha 3")
    assert answer(client, mate, check["id"], "con.lights.night").status_code == 403


def test_who_sees_which_checks(client, patrol, as_role, make_vessel):
    headers, owner = patrol["headers"], patrol["owner_headers"]
    own = start(client, headers, vessel_id=patrol["vessel"].id).json
    canoe = start(client, headers, craft=CANOE, checklist="menores").json
    _, mate = as_role("police", unit="Lancha 3")
    _, stranger = as_role("police", unit="Comisaría 9")
    _, admin = as_role("admin")
    _, other_owner = as_role("owner")

    def ids(h):
        response = client.get("/api/v1/patrol-checks", headers=h)
        assert response.status_code == 200, response.json
        return {c["id"] for c in response.json["items"]}

    assert ids(headers) == ids(mate) == ids(admin) == {own["id"], canoe["id"]}
    assert ids(stranger) == set() and client.get(f"/api/v1/patrol-checks/{own['id']}", headers=stranger).status_code == 404
    assert ids(owner) == set()  # open checks are not yet a finding
    close(client, headers, own["id"], "sin_novedad")
    close(client, headers, canoe["id"], "sin_novedad")
    assert ids(owner) == {own["id"]} and ids(other_owner) == set()
    assert client.get(f"/api/v1/patrol-checks/{canoe['id']}", headers=owner).status_code == 404
    assert client.get(f"/api/v1/patrol-checks/{own['id']}", headers=other_owner).status_code == 404
    assert client.get("/api/v1/patrol-checks?unregistered=true", headers=admin).json["total"] == 1


def test_a_photo_goes_through_the_inspections_pipeline_once(client, patrol, own_media, db):
    check = start(client, patrol["headers"], vessel_id=patrol["vessel"].id).json
    form = {"item_id": "con.lights.night", "client_id": cid()}

    def send():
        return client.post(f"/api/v1/patrol-checks/{check['id']}/photos", headers=patrol["headers"],
                           data={**form, "file": (__import__("io").BytesIO(jpeg(7)), "luces.jpg")})

    first, again = send(), send()
    assert first.status_code == 201 and again.status_code == 201 and again.json["id"] == first.json["id"]
    photo = db.session.get(Photo, first.json["id"])
    assert (photo.patrol_check_id, photo.inspection_id) == (check["id"], None)
    thumb = client.get(first.json["urls"]["thumb"], headers=patrol["headers"])
    assert thumb.status_code == 200 and thumb.mimetype == "image/jpeg"
    assert client.get(first.json["urls"]["thumb"], headers=patrol["owner_headers"]).status_code == 404
    assert client.get(f"/api/v1/patrol-checks/{check['id']}", headers=patrol["headers"]).json["photos"][0]["id"] == photo.id


def _declare(client, headers, check_id, data, client_id, item_id="con.lights.night", taken_at=None):
    return client.post(f"/api/v1/patrol-checks/{check_id}/uploads", headers=headers,
                       json={"client_id": client_id, "item_id": item_id, "sha256": hashlib.sha256(data).hexdigest(),
                             "size": len(data), "mime": "image/jpeg", "taken_at": taken_at})


def _patch(client, headers, check_id, client_id, offset, chunk):
    return client.patch(f"/api/v1/patrol-checks/{check_id}/uploads/{client_id}", data=chunk,
                        content_type="application/offset+octet-stream", headers={**headers, "Upload-Offset": str(offset)})


def test_a_photo_resumes_where_the_phones_link_dropped(client, patrol, own_media, db):
    check = start(client, patrol["headers"], vessel_id=patrol["vessel"].id).json
    data, client_id, headers = jpeg(11), cid(), patrol["headers"]
    assert _declare(client, headers, check["id"], data, client_id).json["offset"] == 0
    half = len(data) // 2
    assert _patch(client, headers, check["id"], client_id, 0, data[:half]).json["offset"] == half
    where = client.get(f"/api/v1/patrol-checks/{check['id']}/uploads/{client_id}", headers=headers)
    assert where.json["offset"] == half and where.headers["Upload-Offset"] == str(half)
    assert _patch(client, headers, check["id"], client_id, 0, data).status_code == 409  # bytes the server holds
    last = _patch(client, headers, check["id"], client_id, half, data[half:])
    assert last.status_code == 201, last.json
    photo = db.session.get(Photo, last.json["photo"]["id"])
    assert (photo.patrol_check_id, photo.inspection_id, photo.item_id) == (check["id"], None, "con.lights.night")
    assert photo.sha256 == hashlib.sha256(data).hexdigest()
    # the same declaration again, and the same photo as a whole POST under its client_id: the photo, once
    assert _declare(client, headers, check["id"], data, client_id).json["photo"]["id"] == photo.id
    again = client.post(f"/api/v1/patrol-checks/{check['id']}/photos", headers=headers,
                        data={"item_id": "con.lights.night", "client_id": client_id,
                              "file": (io.BytesIO(data), "luces.jpg")})
    assert again.status_code in (200, 201) and again.json["id"] == photo.id
    assert db.session.scalar(db.select(db.func.count()).select_from(Photo)
                             .filter_by(patrol_check_id=check["id"])) == 1
    listed = client.get(f"/api/v1/patrol-checks/{check['id']}", headers=headers).json["photos"]
    assert [p["id"] for p in listed] == [photo.id]


def test_a_patrol_upload_is_refused_before_its_bytes_travel(client, patrol, as_role, own_media):
    check = start(client, patrol["headers"], vessel_id=patrol["vessel"].id).json
    data, headers = jpeg(12), patrol["headers"]
    assert _declare(client, headers, check["id"], data, cid(), item_id="no.such.item").status_code == 404
    _, colleague = as_role("police", unit="Lancha 3")
    assert _declare(client, colleague, check["id"], data, cid()).status_code == 403  # sees it, may not write it
    assert _declare(client, patrol["owner_headers"], check["id"], data, cid()).status_code == 403
    client_id = cid()
    assert _declare(client, headers, check["id"], data, client_id).status_code == 201
    # the upload belongs to its check: the officer's other check does not find it, nor does the inspections' path
    other = start(client, headers, vessel_id=patrol["vessel"].id).json
    assert client.get(f"/api/v1/patrol-checks/{other['id']}/uploads/{client_id}", headers=headers).status_code == 404
    assert client.get(f"/api/v1/inspections/{check['id']}/uploads/{client_id}", headers=headers).status_code == 403
    assert client.get(f"/api/v1/patrol-checks/{check['id']}/uploads/{client_id}",
                      headers=colleague).status_code == 404
    assert close(client, headers, check["id"], "sin_novedad").status_code == 200
    closed = _patch(client, headers, check["id"], client_id, 0, data)
    assert closed.status_code == 409 and closed.json["detail"]


def test_a_scanned_certificate_names_the_vessel_and_keeps_the_phones_verdict(client, patrol, certify):
    certificate = certify(patrol["vessel"])
    response = start(client, patrol["headers"], verification={"token": certificate.token, "verdict": "valid",
                                                              "list_age_s": 3600})
    assert response.status_code == 201, response.json
    assert response.json["vessel_id"] == patrol["vessel"].id
    assert response.json["verification"]["verdict"] == "valid" and response.json["verification"]["list_age_s"] == 3600
    unknown = start(client, patrol["headers"], verification="NOT-A-TOKEN-AT-ALL")
    assert unknown.status_code == 422 and "verification" in unknown.json["errors"]


on_postgresql = pytest.mark.skipif(
    not (TEST_DATABASE_URL or "").startswith("postgresql"),
    reason="needs PostgreSQL (BALIZA_TEST_DATABASE_URL): SQLite serializes writers, so these races cannot occur")


@on_postgresql
def test_replayed_checks_racing_make_one_record(app, db, patrol):
    from tests.fixtures.inspections import in_parallel

    body = {"client_id": cid(), "checked_at": now_iso(), "place": "Puerto de Asunción", "checklist": "conducta",
            "vessel_id": patrol["vessel"].id}
    results = in_parallel(app, db, [lambda c: c.post("/api/v1/patrol-checks", json=body, headers=patrol["headers"])] * 4)
    assert sorted(status for status, _ in results) == [200, 200, 200, 201], results
    assert len({json["id"] for _, json in results}) == 1
    assert db.session.scalar(db.select(db.func.count()).select_from(PatrolCheck)) == 1


@on_postgresql
def test_replayed_answers_and_closings_racing_apply_once(app, db, patrol):
    from tests.fixtures.inspections import in_parallel

    check_id = start(app.test_client(), patrol["headers"], vessel_id=patrol["vessel"].id).json["id"]
    body = {"client_id": cid(), "result": "fail", "note": "sin luces"}
    url = f"/api/v1/patrol-checks/{check_id}/answers/con.lights.night"
    results = in_parallel(app, db, [lambda c: c.put(url, json=body, headers=patrol["headers"])] * 4)
    assert [status for status, _ in results] == [200] * 4, results
    closing = {"client_id": cid(), "outcome": "infraccion", "note": ""}
    url = f"/api/v1/patrol-checks/{check_id}/close"
    results = in_parallel(app, db, [lambda c: c.post(url, json=closing, headers=patrol["headers"])] * 4)
    assert [status for status, _ in results] == [200] * 4, results
    assert db.session.scalar(db.select(db.func.count()).select_from(Notice)) == 0


def test_the_retention_is_on_the_admins_notices_page_at_once(client, patrol, staff, login_as):
    headers = patrol["headers"]
    check = start(client, headers, vessel_id=patrol["vessel"].id, place="Puerto de Concepción").json
    answer(client, headers, check["id"], "con.passengers.within_maximum", "fail", observed=35)
    assert close(client, headers, check["id"], "retencion").status_code == 200
    browser = login_as(staff["admin"])
    page = browser.get("/avisos").get_data(as_text=True)
    assert f"Retención por la patrulla: {patrol['vessel'].registration}" in page
    assert "Puerto de Concepción" in page and "Ley 928/1927 art. 184" in page
    english = browser.get("/avisos?lang=en").get_data(as_text=True)
    assert f"Detention by the patrol: {patrol['vessel'].registration}" in english
    assert "Retención" not in login_as(staff["inspector"]).get("/avisos").get_data(as_text=True)
