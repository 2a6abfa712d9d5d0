"""Marks on the defect (issue 24): the layer's format and schema, and PUT/GET …/photos/{id}/marks."""
import hashlib
import json
import uuid

import pytest
from marshmallow import ValidationError

from inspection.core.models import AuditEvent, Photo, PhotoMarks
from inspection.media.marks import LABEL_CHARS, MAX_SHAPES, canonical_bytes, layer_sha256, placed
from inspection.tablet.schemas import MarksLayerSchema
from tests.fixtures.inspections import jpeg, schedule, upload

ITEM = "seg.buckets.total"
PHOTO = "ab" * 32


def layer(photo_sha256=PHOTO, shapes=None) -> dict:
    return {"version": 1, "photo_sha256": photo_sha256, "shapes": shapes if shapes is not None else [
        {"kind": "circle", "x": 0.5, "y": 0.4, "rx": 0.1, "ry": 0.15},
        {"kind": "arrow", "x1": 0.1, "y1": 0.9, "x2": 0.42, "y2": 0.5},
        {"kind": "label", "x": 0.1, "y": 0.95, "text": "Corrosión"}]}


# --- the format -----------------------------------------------------------------------------------------

def test_a_valid_layer_loads_as_sent():
    assert MarksLayerSchema().load(layer()) == layer()


@pytest.mark.parametrize("shape, field", [
    ({"kind": "circle", "x": 0.5, "y": 0.5, "rx": 0.1}, "ry"),                       # a radius missing
    ({"kind": "circle", "x": 0.5, "y": 0.5, "rx": 0, "ry": 0.1}, "rx"),              # a radius of nothing
    ({"kind": "arrow", "x1": 0.1, "y1": 0.1, "x2": 1.2, "y2": 0.5}, "x2"),          # off the picture
    ({"kind": "arrow", "x1": -0.1, "y1": 0.1, "x2": 0.2, "y2": 0.5}, "x1"),
    ({"kind": "label", "x": 0.1, "y": 0.1, "text": "x" * (LABEL_CHARS + 1)}, "text"),  # too long
    ({"kind": "label", "x": 0.1, "y": 0.1, "text": "   "}, "text"),                  # blank
    ({"kind": "label", "x": 0.1, "y": 0.1, "text": "a", "rx": 0.2}, "rx"),          # another kind's field
    ({"kind": "arrow", "x1": 0.1, "y1": 0.1, "x2": 0.2, "y2": 0.5, "colour": "red"}, "colour"),  # unknown
    ({"kind": "square", "x": 0.1, "y": 0.1}, "kind"),
    ({"kind": "circle", "x": float("nan"), "y": 0.5, "rx": 0.1, "ry": 0.1}, "x"),
])
def test_a_shape_out_of_the_format_is_refused_at_its_field(shape, field):
    with pytest.raises(ValidationError) as refused:
        MarksLayerSchema().load(layer(shapes=[shape]))
    assert field in refused.value.messages["shapes"][0]


@pytest.mark.parametrize("change, field", [({"version": 2}, "version"), ({"photo_sha256": "xyz"}, "photo_sha256"),
                                           ({"shapes": [layer()["shapes"][0]] * (MAX_SHAPES + 1)}, "shapes")])
def test_the_layer_is_versioned_linked_and_bounded(change, field):
    with pytest.raises(ValidationError) as refused:
        MarksLayerSchema().load({**layer(), **change})
    assert field in refused.value.messages


def test_the_hash_is_of_canonical_bytes_and_names_the_photo():
    """Key order, spacing and float noise past the fourth decimal do not change the hash; the photo's hash does."""
    shuffled = json.loads(json.dumps(layer()))
    shuffled["shapes"][0] = {"ry": 0.15000001, "rx": 0.1, "y": 0.4, "x": 0.5, "kind": "circle"}
    assert layer_sha256(shuffled) == layer_sha256(layer()) == hashlib.sha256(canonical_bytes(layer())).hexdigest()
    assert layer_sha256(layer(photo_sha256="cd" * 32)) != layer_sha256(layer())
    assert canonical_bytes(layer()).startswith(b'{"photo_sha256":"abab')
    assert "Corrosión".encode() in canonical_bytes(layer())


@pytest.mark.parametrize("width, height", [(1600, 1200), (160, 120), (84.0, 63.0)])
def test_any_copy_size_places_the_same_marks(width, height):
    circle, arrow, label = placed(layer(), width, height)
    assert (circle["cx"], circle["cy"], circle["rx"], circle["ry"]) == pytest.approx(
        (0.5 * width, 0.4 * height, 0.1 * width, 0.15 * height))
    assert (arrow["x2"], arrow["y2"]) == pytest.approx((0.42 * width, 0.5 * height))
    assert len(arrow["barbs"]) == 2 and all(0 < x < width and 0 < y < height for x, y in arrow["barbs"])
    assert label["text"] == "Corrosión" and label["size"] == pytest.approx(0.035 * width)


# --- the API --------------------------------------------------------------------------------------------

@pytest.fixture
def photo(client, crew, started):
    """A photo of a started inspection: (inspection id, photo JSON)."""
    inspection_id, _ = started
    response = upload(client, crew, inspection_id, ITEM, jpeg(7))
    assert response.status_code == 201, response.json
    return inspection_id, response.json


def url(inspection_id, photo_id):
    return f"/api/v1/inspections/{inspection_id}/photos/{photo_id}/marks"


def put(client, headers, inspection_id, photo_json, client_id=None, **overrides):
    body = {"client_id": client_id or str(uuid.uuid4()), "marks": layer(photo_json["sha256"], **overrides)}
    return client.put(url(inspection_id, photo_json["id"]), json=body, headers=headers)


def test_put_files_the_layer_with_its_hash_and_get_returns_it(client, crew, photo, db):
    inspection_id, photo_json = photo
    response = put(client, crew["ih"], inspection_id, photo_json)
    assert response.status_code == 200, response.json
    body = response.json
    assert body["version"] == 1 and body["photo_sha256"] == photo_json["sha256"] and body["earlier"] == []
    assert body["sha256"] == layer_sha256(layer(photo_json["sha256"]))
    got = client.get(url(inspection_id, photo_json["id"]), headers=crew["oh"])  # the owner reads it too
    assert got.status_code == 200 and got.json["sha256"] == body["sha256"] and got.json["marks"] == body["marks"]
    detail = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json
    assert detail["photos"][0]["marks"] == {"version": 1, "sha256": body["sha256"], "layer": body["marks"]}
    stored = db.session.get(Photo, photo_json["id"])
    assert stored.sha256 == photo_json["sha256"]  # the evidence itself is untouched


def test_a_retry_replays_and_a_reused_client_id_with_another_body_is_409(client, crew, photo, db):
    inspection_id, photo_json = photo
    client_id = str(uuid.uuid4())
    first = put(client, crew["ih"], inspection_id, photo_json, client_id)
    again = put(client, crew["ih"], inspection_id, photo_json, client_id)
    assert again.status_code == 200 and again.json == first.json
    assert again.headers["Idempotent-Replayed"] == "true"
    other = put(client, crew["ih"], inspection_id, photo_json, client_id, shapes=[])
    assert other.status_code == 409
    assert db.session.scalar(db.select(db.func.count()).select_from(PhotoMarks)) == 1


def test_a_replaced_layer_keeps_the_earlier_version_and_audits_both(client, crew, photo, db):
    inspection_id, photo_json = photo
    first = put(client, crew["ih"], inspection_id, photo_json).json
    second = put(client, crew["ih"], inspection_id, photo_json, shapes=[layer()["shapes"][0]]).json
    assert second["version"] == 2 and second["sha256"] != first["sha256"]
    assert second["earlier"] == [{"version": 1, "sha256": first["sha256"], "created_at": first["created_at"]}]
    rows = db.session.scalars(db.select(PhotoMarks).order_by(PhotoMarks.version)).all()
    assert [(r.version, r.current, r.sha256) for r in rows] == [(1, False, first["sha256"]), (2, True, second["sha256"])]
    events = db.session.scalars(db.select(AuditEvent).where(AuditEvent.action == "marks").order_by(AuditEvent.id)).all()
    assert [e.details["sha256"] for e in events] == [first["sha256"], second["sha256"]]
    assert events[1].details["replaced"] == first["sha256"]


def test_refusals(client, crew, photo, as_role, make_vessel, make_user, token_for):
    inspection_id, photo_json = photo
    other_inspector = token_for(make_user("inspector"))
    assert put(client, other_inspector, inspection_id, photo_json).status_code == 403  # not the assigned one
    assert put(client, crew["oh"], inspection_id, photo_json).status_code == 403        # an owner never draws
    wrong = put(client, crew["ih"], inspection_id, photo_json | {"sha256": "cd" * 32})
    assert wrong.status_code == 422 and "photo_sha256" in wrong.json["errors"]["marks"]
    assert client.put(url(inspection_id, photo_json["id"]), json={"client_id": str(uuid.uuid4()), "marks": {}},
                      headers=crew["ih"]).status_code == 422
    assert put(client, crew["ih"], inspection_id, photo_json | {"id": photo_json["id"] + 999}).status_code == 404
    assert client.get(url(inspection_id, photo_json["id"]), headers=crew["ih"]).status_code == 404  # none drawn yet


def test_only_while_the_inspection_is_in_progress(client, crew, photo, db):
    inspection_id, photo_json = photo
    assert client.post(f"/api/v1/inspections/{inspection_id}/interrupt", json={"reason": "Mal tiempo"},
                       headers=crew["ih"]).status_code == 200
    assert put(client, crew["ih"], inspection_id, photo_json).status_code == 409


def test_another_owner_and_the_police_never_see_the_marks(client, crew, photo, as_role):
    """Isolation: a stranger's inspection is simply not found; the police have no route to it at all."""
    inspection_id, photo_json = photo
    assert put(client, crew["ih"], inspection_id, photo_json).status_code == 200
    _, stranger = as_role("owner")
    _, police = as_role("police")
    assert client.get(url(inspection_id, photo_json["id"]), headers=stranger).status_code == 404
    assert client.get(url(inspection_id, photo_json["id"]), headers=police).status_code == 403
    assert put(client, police, inspection_id, photo_json).status_code == 403


def test_a_photo_of_another_inspection_is_not_found_under_this_one(client, crew, photo, make_vessel):
    inspection_id, photo_json = photo
    other = schedule(client, crew, kind="navegabilidad")
    assert client.post(f"/api/v1/inspections/{other}/start", headers=crew["ih"]).status_code == 200
    assert put(client, crew["ih"], other, photo_json).status_code == 404


# --- where the marks are shown --------------------------------------------------------------------------

def grey_photo() -> bytes:
    """A plain grey picture: any red on it is a mark."""
    from PIL import Image

    from tests.media_samples import encode
    return encode(Image.new("RGB", (640, 480), (128, 128, 128)), "JPEG", quality=90)


def red_pixels(image, box=None) -> int:
    """Pixels of the marks' red (and nothing the report prints otherwise is that red)."""
    rgb = image.convert("RGB").crop(box) if box else image.convert("RGB")
    red = [r > 180 and g < 90 and b < 90 for r, g, b in zip(*(band.tobytes() for band in rgb.split()))]
    return sum(red)


def mark_and_close(client, crew, started, fail=(), **place):
    """Close a started inspection whose grey photo (sent with `place`) was marked while in progress:
    (id, photo JSON, layer JSON)."""
    from tests.fixtures.inspections import answer_all, submit

    inspection_id, items = started
    photo_json = upload(client, crew, inspection_id, ITEM, grey_photo(), **place).json
    marks = put(client, crew["ih"], inspection_id, photo_json).json
    answer_all(client, crew, inspection_id, items, fail=fail)
    assert submit(client, crew, inspection_id).status_code == 200
    return inspection_id, photo_json, marks


@pytest.fixture
def marked_and_closed(client, crew, started):
    return mark_and_close(client, crew, started)


def test_the_owners_fleet_shows_the_marks_on_the_open_deficiency(client, crew, started, login_as, db):
    inspection_id, photo_json, marks = mark_and_close(client, crew, started, fail={ITEM})
    html = login_as(db.session.get(type(crew["owner"]), crew["owner"].id)).get("/flota").get_data(as_text=True)
    assert f'data-marks="{marks["sha256"]}"' in html and f'/api/v1/photos/{photo_json["id"]}/display' in html
    report = login_as(db.session.get(type(crew["owner"]), crew["owner"].id)).get(f"/inspecciones/{inspection_id}/informe")
    deficiencies = report.get_data(as_text=True).split('id="deficiencias"')[1].split("</section>")[0]
    assert f'data-marks="{marks["sha256"]}"' in deficiencies  # under the deficiency of the photo's item too


def test_the_fleet_json_carries_the_marked_photo_with_its_place_flags_and_layer(client, crew, started):
    """GET /api/v1/fleet: each open deficiency's marked photos, with the fields every photo JSON has (issue 24)."""
    far_by_exif = {"latitude": "-23.406", "longitude": "-57.44", "accuracy_m": "12", "position_source": "exif"}
    _, photo_json, marks = mark_and_close(client, crew, started, fail={ITEM}, **far_by_exif)
    [vessel] = client.get("/api/v1/fleet", headers=crew["oh"]).json["items"]
    [marked] = [photo for d in vessel["open_deficiencies"] for photo in d["marked_photos"]]  # the failed item's
    place = ("id", "sha256", "width", "height", "taken_at", "latitude", "longitude", "accuracy_m", "position_source",
             "flags")
    assert {key: marked[key] for key in place} == {key: photo_json[key] for key in place}
    assert (marked["position_source"], marked["accuracy_m"], marked["flags"]) == ("exif", 12.0, ["far_from_port"])
    assert marked["marks"] == {"version": 1, "sha256": marks["sha256"], "layer": marks["marks"]}
    assert marked["marks"]["layer"]["photo_sha256"] == photo_json["sha256"]
    assert marked["urls"] == {"display": f"/api/v1/photos/{photo_json['id']}/display"}


def test_the_report_page_shows_the_marks_over_the_display_copy(marked_and_closed, crew, login_as, db):
    inspection_id, photo_json, marks = marked_and_closed
    page = login_as(db.session.get(type(crew["owner"]), crew["owner"].id)).get(f"/inspecciones/{inspection_id}/informe")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert html.count(f'data-marks="{marks["sha256"]}"') >= 1
    assert "<ellipse" in html and "Corrosión</text>" in html and f'viewBox="0 0 {photo_json["width"]} {photo_json["height"]}"' in html
    assert marks["sha256"][:12] in html  # the layer's own hash, beside the photo's


def test_a_label_is_escaped_on_the_page(client, crew, photo, login_as, db):
    inspection_id, photo_json = photo
    shapes = [{"kind": "label", "x": 0.1, "y": 0.5, "text": "<script>x</script>"}]
    assert put(client, crew["ih"], inspection_id, photo_json, shapes=shapes).status_code == 200
    html = login_as(db.session.get(type(crew["admin_user"]), crew["admin_user"].id)).get(
        f"/inspecciones/{inspection_id}").get_data(as_text=True)
    assert "&lt;script&gt;x&lt;/script&gt;</text>" in html and "<script>x" not in html


def test_the_pdf_draws_the_marks_over_the_printed_photo(marked_and_closed, app, db):
    import io
    import os
    from pathlib import Path

    import pypdfium2 as pdfium
    from PIL import Image

    from inspection.core.clock import office_zone
    from inspection.core.models import Inspection
    from inspection.core.office import current_office
    from inspection.inspections.reports import report_pdf
    from inspection.media.configured import media_storage

    inspection_id, photo_json, _ = marked_and_closed
    with app.test_request_context():
        data = report_pdf(db.session.get(Inspection, inspection_id), "es", media_storage(), current_office().name,
                          office_zone())
    doc = pdfium.PdfDocument(data)
    pages = [doc[n].render(scale=110 / 72).to_pil() for n in range(len(doc))]
    reds = [red_pixels(page) for page in pages]
    assert sum(reds) > 500, reds  # the circle, the arrow and the label, in red, over the grey photo
    if os.environ.get("BALIZA_SCREENSHOTS"):
        pages[max(range(len(pages)), key=reds.__getitem__)].save(Path(os.environ["BALIZA_SCREENSHOTS"]) / "marks-pdf.png")
    stored = db.session.get(Photo, photo_json["id"])
    original = media_storage().get(stored.original_key)
    assert hashlib.sha256(original).hexdigest() == photo_json["sha256"]  # the evidence's bytes are as they came
    assert red_pixels(Image.open(io.BytesIO(original))) == 0


def test_racing_puts_file_each_layer_once_and_one_current(app, client, crew, photo, db):
    """Two tablets' retries of one layer, and two different layers, at the same moment (PostgreSQL in CI): the
    retry is one row, the two layers are versions 1..3 in some order, and exactly one is current."""
    from tests.fixtures.inspections import in_parallel

    inspection_id, photo_json = photo
    same = str(uuid.uuid4())
    body = lambda client_id, shapes=None: {"client_id": client_id, "marks": layer(photo_json["sha256"], shapes)}  # noqa: E731
    calls = [lambda c: c.put(url(inspection_id, photo_json["id"]), json=body(same), headers=crew["ih"]),
             lambda c: c.put(url(inspection_id, photo_json["id"]), json=body(same), headers=crew["ih"]),
             lambda c: c.put(url(inspection_id, photo_json["id"]), json=body(str(uuid.uuid4()), []), headers=crew["ih"])]
    results = in_parallel(app, db, calls)
    assert [status for status, _ in results] == [200, 200, 200], results
    assert results[0][1] == results[1][1]  # the retry got the first answer
    rows = db.session.scalars(db.select(PhotoMarks).order_by(PhotoMarks.version)).all()
    assert [r.version for r in rows] == [1, 2] and [r.current for r in rows] == [False, True]
