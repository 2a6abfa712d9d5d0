"""Request body limits per route (inspection/web/body_limits.py): 413 problem+json, nothing written."""
import io
import re
import uuid

import pytest

from inspection.core.models import Owner, Photo
from inspection.web.body_limits import MULTIPART_OVERHEAD_BYTES, body_limit


@pytest.mark.parametrize("endpoint, key, extra", [
    ("api_registry.post_owner", "BODY_MAX_BYTES", 0),
    ("pages.login", "BODY_MAX_BYTES", 0),
    (None, "BODY_MAX_BYTES", 0),
    ("api_inspections.post_sync", "SYNC_MAX_BYTES", 0),
    ("api_inspections.post_submit", "SYNC_MAX_BYTES", 0),
    ("api_inspections.post_photo", "PHOTO_MAX_BYTES", MULTIPART_OVERHEAD_BYTES),
    ("api_uploads.patch_upload", "PHOTO_MAX_BYTES", MULTIPART_OVERHEAD_BYTES),
])
def test_each_route_has_its_limit(app, endpoint, key, extra):
    assert body_limit(endpoint, app.config) == app.config[key] + extra


def test_every_route_that_takes_a_photos_bytes_has_the_photo_limit(app, client):
    """A multipart file or an offset stream in the OpenAPI document: the route takes a photo, so its limit."""
    spec = client.get("/api/v1/openapi.json").get_json()
    endpoints = {(rule.rule, method): rule.endpoint for rule in app.url_map.iter_rules() for method in rule.methods}
    takes_photo = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            content = operation.get("requestBody", {}).get("content", {})
            if "application/offset+octet-stream" in content or "multipart/form-data" in content:
                rule = path.replace("{", "<").replace("}", ">")
                takes_photo.append(next(endpoint for (r, m), endpoint in endpoints.items()
                                        if m == method.upper() and _same_rule(r, rule)))
    assert len(takes_photo) >= 5
    assert [e for e in takes_photo if body_limit(e, app.config) < app.config["PHOTO_MAX_BYTES"]] == []


def _same_rule(flask_rule: str, spec_rule: str) -> bool:
    """`/x/<int:a>/y` and `/x/<a>/y` name the same route."""
    return re.sub(r"<(?:\w+:)?(\w+)>", r"<\1>", flask_rule) == spec_rule


def test_a_json_body_over_the_limit_is_413_in_the_users_language_and_nothing_is_written(app, client, as_role, db):
    _, headers = as_role("admin")
    big = {"name": "Armador grande", "tax_id": "80012345-1", "address": "x" * (1024 * 1024)}
    response = client.post("/api/v1/owners", json=big, headers={**headers, "Accept-Language": "en"})
    assert response.status_code == 413 and response.mimetype == "application/problem+json"
    assert response.json["type"].endswith("/too-large") and response.json["title"] == "Content too large"
    assert db.session.query(Owner).count() == 0
    spanish = client.post("/api/v1/owners", json=big, headers=headers)
    assert spanish.json["detail"] == "El envío supera el máximo admitido de 1 MB."  # before: no figure
    assert response.json["detail"] == "The submission exceeds the maximum of 1 MB."


def test_a_page_form_over_the_limit_is_an_error_page_naming_the_limit_and_the_way_back(app, client):
    form = "http://localhost/login"
    response = client.post("/login", data={"username": "x" * (1024 * 1024 + 10), "password": "p"},
                           headers={"Referer": form})
    assert response.status_code == 413 and response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert "El envío supera el máximo admitido de 1 MB." in page and f'href="{form}"' in page
    elsewhere = client.post("/login", data={"username": "x" * (1024 * 1024 + 10)},
                            headers={"Referer": "https://elsewhere.example/login"})
    assert "elsewhere.example" not in elsewhere.get_data(as_text=True)


@pytest.fixture
def started(staff, make_vessel, token_for):
    """(inspection id, the inspector's bearer header) of a started inspection."""
    from datetime import date, datetime, timezone

    from inspection.core.extensions import db
    from inspection.inspections.operations import schedule_inspection, start_inspection

    inspection = schedule_inspection(staff["admin"], make_vessel(), "seguridad", staff["inspector"], date(2026, 12, 2),
                                     "Asunción", date(2026, 12, 1))
    start_inspection(staff["inspector"], inspection, datetime(2026, 12, 2, 12, tzinfo=timezone.utc))
    db.session.commit()
    return inspection.id, token_for(staff["inspector"])


def test_a_sync_batch_may_exceed_the_json_limit_but_not_its_own(app, client, started):
    inspection_id, headers = started
    note = "n" * 1900
    answers = [{"client_id": str(uuid.uuid4()), "item_id": f"i{n}", "result": "pass", "note": note} for n in range(700)]
    response = client.post(f"/api/v1/inspections/{inspection_id}/sync", json={"answers": answers}, headers=headers)
    assert response.status_code == 200, response.json  # about 1.4 MB: over BODY_MAX_BYTES, under SYNC_MAX_BYTES
    assert {result["status"] for result in response.json["results"]} == {"rejected"}  # no such items
    huge = client.post(f"/api/v1/inspections/{inspection_id}/sync", json={"answers": answers * 3}, headers=headers)
    assert huge.status_code == 413


def test_a_photo_keeps_the_photo_limit(app, client, started, db):
    inspection_id, headers = started
    app.config["PHOTO_MAX_BYTES"], saved = 2 * 1024 * 1024, app.config["PHOTO_MAX_BYTES"]
    try:
        photo = {"item_id": "x", "client_id": str(uuid.uuid4()), "file": (io.BytesIO(b"\xff" * (1536 * 1024)), "a.jpg")}
        response = client.post(f"/api/v1/inspections/{inspection_id}/photos", data=photo, headers=headers)
        assert response.status_code != 413  # 1.5 MB: over BODY_MAX_BYTES, under the photo limit
        photo["file"] = (io.BytesIO(b"\xff" * (3 * 1024 * 1024)), "a.jpg")
        assert client.post(f"/api/v1/inspections/{inspection_id}/photos", data=photo, headers=headers).status_code == 413
        assert db.session.query(Photo).count() == 0
    finally:
        app.config["PHOTO_MAX_BYTES"] = saved


def test_an_over_long_url_is_a_414_problem_in_the_users_language(client):
    response = client.get("/api/v1/vessels?q=" + "a" * 9000)
    assert response.status_code == 414 and response.mimetype == "application/problem+json"
    assert response.json["detail"] == "La dirección es demasiado larga; acorte la búsqueda o los filtros."
    page = client.get("/buques?lang=en&q=" + "a" * 9000, headers={"Accept": "text/html"})
    assert page.status_code == 414 and "The address is too long" in page.get_data(as_text=True)
