"""Place and time on every photo (issue 24) over the API and the pages: the position's fields in every photo JSON,
the device's first then the EXIF's, the flags for a far or untimely photo, and the stamp beside it."""
import hashlib
import io
from datetime import timedelta

import pypdfium2 as pdfium
import pytest

from inspection.core.models import Inspection, Photo, User, utcnow
from tests.browser_kit import SHOTS
from tests.fixtures.inspections import answer_all, cid, jpeg, submit, upload
from tests.fixtures.patrol import start
from tests.media_samples import make_exif, make_jpeg

ITEM = "seg.buckets.total"
ABOARD = {"latitude": "-25.2805", "longitude": "-57.6355", "accuracy_m": "8.5"}  # the bahía de Asunción
CONCEPCION = {"latitude": "-23.406", "longitude": "-57.44", "accuracy_m": "15"}  # some 210 km up the river
FIELDS = ("latitude", "longitude", "accuracy_m", "position_source", "flags")


def test_a_photo_taken_aboard_keeps_the_devices_position_and_no_flag(client, crew, started):
    inspection_id, _ = started
    sent = upload(client, crew, inspection_id, ITEM, jpeg(31), taken_at=utcnow().isoformat(), **ABOARD)
    assert sent.status_code == 201, sent.json
    assert {key: sent.json[key] for key in FIELDS} == {
        "latitude": -25.2805, "longitude": -57.6355, "accuracy_m": 8.5, "position_source": "device", "flags": []}
    detail = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json
    assert {key: detail["photos"][0][key] for key in FIELDS} == {key: sent.json[key] for key in FIELDS}


def test_a_far_photo_and_an_untimely_one_are_flagged_never_refused(client, crew, started, db):
    inspection_id, _ = started
    far = upload(client, crew, inspection_id, ITEM, jpeg(32), **CONCEPCION)
    assert far.status_code == 201 and far.json["flags"] == ["far_from_port"]
    yesterday = (utcnow() - timedelta(days=1)).isoformat()
    early = upload(client, crew, inspection_id, ITEM, jpeg(33), taken_at=yesterday, **ABOARD)
    assert early.status_code == 201 and early.json["flags"] == ["outside_inspection_time"]
    soon = (utcnow() - timedelta(minutes=20)).isoformat()  # before the start, within the tablet clock's tolerance
    assert upload(client, crew, inspection_id, ITEM, jpeg(34), taken_at=soon, **ABOARD).json["flags"] == []
    assert sorted(p.flags == [] for p in db.session.scalars(db.select(Photo))) == [False, False, True]


def test_without_a_device_fix_the_exif_position_then_none(client, crew, started, db):
    inspection_id, _ = started
    camera = make_jpeg((640, 480), exif=make_exif(1, gps=(-25.281, -57.637)))
    exif = upload(client, crew, inspection_id, ITEM, camera)
    assert (exif.json["position_source"], exif.json["accuracy_m"], exif.json["flags"]) == ("exif", None, [])
    assert round(exif.json["latitude"], 3) == -25.281
    device = upload(client, crew, inspection_id, ITEM, make_jpeg((640, 480), exif=make_exif(1, gps=(-23.4, -57.4))),
                    **ABOARD)
    assert (device.json["position_source"], device.json["latitude"]) == ("device", -25.2805)  # the device's first
    bare = upload(client, crew, inspection_id, ITEM, jpeg(35))
    assert {key: bare.json[key] for key in FIELDS} == {
        "latitude": None, "longitude": None, "accuracy_m": None, "position_source": "none", "flags": []}
    original = client.get(exif.json["urls"]["original"], headers=crew["ih"]).data
    assert hashlib.sha256(original).hexdigest() == exif.json["sha256"] == hashlib.sha256(camera).hexdigest()


def test_a_position_the_tablet_read_from_the_cameras_exif_is_kept_as_exif_and_flagged_when_far(client, crew, started):
    """The tablet re-encodes the photo (no EXIF left in the bytes sent) and declares the camera's position itself."""
    inspection_id, _ = started
    far = upload(client, crew, inspection_id, ITEM, jpeg(38), position_source="exif", **CONCEPCION)
    assert far.status_code == 201, far.json
    assert {key: far.json[key] for key in FIELDS} == {
        "latitude": -23.406, "longitude": -57.44, "accuracy_m": 15.0, "position_source": "exif",
        "flags": ["far_from_port"]}
    near = upload(client, crew, inspection_id, ITEM, jpeg(39), position_source="exif",
                  latitude="-25.2805", longitude="-57.6355")
    assert (near.json["position_source"], near.json["accuracy_m"], near.json["flags"]) == ("exif", None, [])
    said_device = upload(client, crew, inspection_id, ITEM, jpeg(40), position_source="device", **ABOARD)
    assert said_device.json["position_source"] == "device"
    detail = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json
    assert sorted(p["position_source"] for p in detail["photos"]) == ["device", "exif", "exif"]


def test_a_source_without_a_position_or_an_unknown_one_is_refused(client, crew, started):
    inspection_id, _ = started
    alone = upload(client, crew, inspection_id, ITEM, jpeg(41), position_source="exif")
    assert alone.status_code == 422 and "position_source" in str(alone.json["errors"])
    for source in ("none", "gps"):  # "none" is the server's conclusion, never a client's claim
        odd = upload(client, crew, inspection_id, ITEM, jpeg(41), position_source=source, **ABOARD)
        assert odd.status_code == 422 and "position_source" in str(odd.json["errors"])


def test_half_a_position_or_an_accuracy_alone_is_refused(client, crew, started):
    inspection_id, _ = started
    half = upload(client, crew, inspection_id, ITEM, jpeg(36), latitude="-25.28")
    assert half.status_code == 422 and "longitude" in str(half.json["errors"])
    alone = upload(client, crew, inspection_id, ITEM, jpeg(36), accuracy_m="10")
    assert alone.status_code == 422 and "accuracy_m" in str(alone.json["errors"])


def test_a_resumable_upload_carries_the_accuracy(client, crew, started):
    inspection_id, _ = started
    data = jpeg(37)
    url = f"/api/v1/inspections/{inspection_id}/uploads"
    body = {"client_id": cid(), "item_id": ITEM, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
            "mime": "image/jpeg", "latitude": -23.406, "longitude": -57.44, "accuracy_m": 4.2}
    assert client.post(url, json=body, headers=crew["ih"]).status_code == 201
    done = client.patch(f"{url}/{body['client_id']}", data=data, content_type="application/offset+octet-stream",
                        headers={**crew["ih"], "Upload-Offset": "0"})
    photo = done.json["photo"]
    assert (photo["accuracy_m"], photo["position_source"], photo["flags"]) == (4.2, "device", ["far_from_port"])


def test_a_port_without_coordinates_gives_no_far_flag_and_the_page_says_so(client, crew, started, login_as, db):
    inspection_id, _ = started
    db.session.get(Inspection, inspection_id).port = "Riacho Negro"
    db.session.commit()
    far = upload(client, crew, inspection_id, ITEM, jpeg(38), **CONCEPCION)
    assert far.json["flags"] == []
    upload(client, crew, inspection_id, ITEM, jpeg(39))
    admin = db.session.scalar(db.select(User).filter_by(role="admin"))
    page = login_as(admin).get(f"/inspecciones/{inspection_id}").get_data(as_text=True)
    assert page.count('class="stamp"') == 2
    assert "Puerto sin coordenadas" in page and "-23.40600, -57.44000 ± 15 m (dispositivo)" in page
    assert "Sin posición: ni el dispositivo ni la foto la registraron" in page
    assert crew["vessel"].registration in page


def test_the_report_and_its_pdf_stamp_each_photo_and_the_original_stays_as_sent(client, crew, started, login_as, db):
    inspection_id, items = started
    data = jpeg(40)
    sent = upload(client, crew, inspection_id, ITEM, data, taken_at=(utcnow() - timedelta(days=1)).isoformat(),
                  **CONCEPCION)
    answer_all(client, crew, inspection_id, items)
    assert submit(client, crew, inspection_id).status_code == 200
    admin = db.session.scalar(db.select(User).filter_by(role="admin"))
    browser = login_as(admin)
    page = browser.get(f"/inspecciones/{inspection_id}/informe").get_data(as_text=True)
    assert "-23.40600, -57.44000 ± 15 m (dispositivo)" in page
    assert "Lejos del puerto de la inspección" in page and "Tomada fuera del horario de la inspección" in page
    english = browser.get(f"/inspecciones/{inspection_id}/informe.pdf?lang=en").data
    text = " ".join("\n".join(p.get_textpage().get_text_range() for p in pdfium.PdfDocument(english)).split())
    assert "-23.40600, -57.44000 ± 15 m (device)" in text
    assert "Far from the inspection's port" in text and "Taken outside the inspection's time" in text
    assert f"{crew['vessel'].registration} · " in text and "(Asunción time)" in text
    if SHOTS:  # the page with the photos, for a person to look at
        document = pdfium.PdfDocument(english)
        page = next(p for p in document if "Far from" in p.get_textpage().get_text_range())
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.render(scale=2).to_pil().save(SHOTS / "baliza_place_report_pdf.png")
    original = client.get(sent.json["urls"]["original"], headers=crew["ih"]).data
    assert original == data and hashlib.sha256(original).hexdigest() == sent.json["sha256"]


def test_a_patrol_photo_keeps_the_phones_position_with_no_port_flag(client, patrol, own_media):
    check = start(client, patrol["headers"], vessel_id=patrol["vessel"].id).json
    sent = client.post(f"/api/v1/patrol-checks/{check['id']}/photos", headers=patrol["headers"],
                       data={"item_id": "con.lights.night", "client_id": cid(), **CONCEPCION,
                             "file": (io.BytesIO(jpeg(41)), "luces.jpg")})
    assert sent.status_code == 201, sent.json
    assert (sent.json["position_source"], sent.json["accuracy_m"], sent.json["flags"]) == ("device", 15.0, [])
    shown = client.get(f"/api/v1/patrol-checks/{check['id']}", headers=patrol["headers"]).json["photos"][0]
    assert (shown["latitude"], shown["position_source"]) == (-23.406, "device")


def test_the_far_distance_is_a_setting_checked_at_start(client, crew, started, app, monkeypatch):
    inspection_id, _ = started
    monkeypatch.setitem(app.config, "PHOTO_FAR_FROM_PORT_KM", 300)  # Concepción is ~210 km from Asunción
    assert upload(client, crew, inspection_id, ITEM, jpeg(42), **CONCEPCION).json["flags"] == []
    from app import create_app

    with pytest.raises(ValueError, match="BALIZA_PHOTO_TIME_TOLERANCE_MINUTES"):
        create_app({"TESTING": True, "DATABASE_URL": "sqlite://", "PHOTO_TIME_TOLERANCE_MINUTES": "half an hour"})


def test_a_resumable_upload_carries_the_declared_exif_position_and_a_repeat_compares_equal(client, crew, started):
    inspection_id, _ = started
    data = jpeg(42)
    url = f"/api/v1/inspections/{inspection_id}/uploads"
    body = {"client_id": cid(), "item_id": ITEM, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
            "mime": "image/jpeg", "latitude": -23.406, "longitude": -57.44, "accuracy_m": 5.0, "position_source": "exif"}
    assert client.post(url, json=body, headers=crew["ih"]).status_code == 201
    assert client.post(url, json=body, headers=crew["ih"]).status_code == 200  # the same declaration again
    assert client.post(url, json={**body, "position_source": "device"}, headers=crew["ih"]).status_code == 409
    done = client.patch(f"{url}/{body['client_id']}", data=data, content_type="application/offset+octet-stream",
                        headers={**crew["ih"], "Upload-Offset": "0"})
    photo = done.json["photo"]
    assert (photo["accuracy_m"], photo["position_source"], photo["flags"]) == (5.0, "exif", ["far_from_port"])
