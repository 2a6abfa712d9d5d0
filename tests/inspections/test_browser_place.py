"""Place and time on a photo taken aboard (issue 24), in Debian's Chromium at 820 × 1180 with the network cut: the
tablet has a (fake) position, the inspector starts and takes one photo offline, the link comes back and it syncs;
the inspection is finished by operations (the screen's closing has tests of its own) and the report page shows the
photo's stamp with the tablet's position, while the original's SHA-256 is the one the tablet computed."""
import hashlib

import pytest
from PIL import Image
from playwright import sync_api

from inspection.core.extensions import db
from inspection.core.models import Photo
from inspection.media.configured import media_storage
from inspection.media.photos import GPS_IFD
from tests.browser_kit import BROWSER_MARKS, shoot
from tests.live_site import ARGS, CHROMIUM
from tests.tablet_rig import tablet_rig, wait_until
from tests.tablet_steps import camera_jpegs, close_by_operations, go_offline, open_from_agenda, seed, show_item, sign_in_and_take_aboard

pytestmark = BROWSER_MARKS
TABLET = {"width": 820, "height": 1180}
ABOARD = {"latitude": -25.2807, "longitude": -57.6349, "accuracy": 9}  # the bahía de Asunción, by the port


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    with tablet_rig(tmp_path_factory.mktemp("place")) as started:
        yield started


def local_photos(page) -> list[dict]:
    """The tablet's photo records (IndexedDB), without their bytes."""
    return page.evaluate("""async () => {
        const db = await new Promise((ok, fail) => { const r = indexedDB.open('baliza-tablet'); r.onsuccess = () => ok(r.result); r.onerror = fail; });
        const all = await new Promise((ok) => { const r = db.transaction('photos').objectStore('photos').getAll(); r.onsuccess = () => ok(r.result); });
        db.close();
        return all.map(({ bytes, thumb, ...rest }) => rest);
    }""")


def photo_offline(pw, rig, tmp_path, seeded, camera, **position):
    """A tablet (with `position`'s geolocation settings) takes the inspection aboard, goes offline, starts it and
    chooses `camera` for its first item needing evidence: (context, page), the photo kept on the device."""
    item = next(i for i in seeded["items"] if i["evidence_required"])
    context = pw.chromium.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=str(CHROMIUM), args=ARGS, viewport=TABLET, locale="es-PY",
        service_workers="allow", **position)
    page = context.pages[0] if context.pages else context.new_page()
    card = sign_in_and_take_aboard(rig, page, seeded)
    go_offline(rig, context)
    open_from_agenda(page, card)
    page.click("#start-button")  # the moment the tablet asks for its position
    show_item(page, item["id"]).locator("input[type=file]").set_input_files(str(camera))
    page.locator(f"article[data-item='{item['id']}'] li.thumb img").wait_for(timeout=60_000)
    return context, page


def synced_report(rig, context, page, inspection_id: int) -> None:
    """The link comes back, the photo syncs, operations close the inspection and the page shows its report."""
    rig.faults.down = False
    context.set_offline(False)
    wait_until(lambda: _stored(rig, inspection_id), 90, what="the photo on the server")
    close_by_operations(rig, inspection_id)
    page.goto(f"{rig.origin}/inspecciones/{inspection_id}/informe")


def test_a_photo_taken_offline_carries_the_tablets_position_to_the_report_stamp(rig, tmp_path):
    seeded = seed(rig, "lugar")
    inspection_id = seeded["inspection_id"]
    (tmp_path / "camera").mkdir()
    [camera] = camera_jpegs(tmp_path / "camera", count=1, size=(1600, 1200))
    with sync_api.sync_playwright() as pw:
        context, page = photo_offline(pw, rig, tmp_path, seeded, camera, geolocation=ABOARD, permissions=["geolocation"])
        [local] = local_photos(page)
        assert (local["latitude"], local["longitude"], local["accuracy_m"]) == (ABOARD["latitude"], ABOARD["longitude"], 9)
        assert not page.locator(".no-position").count()  # it has a position: nothing to warn about

        synced_report(rig, context, page, inspection_id)
        stamp = page.locator("ul.stamp[data-position-source='device']")
        assert stamp.count() == 1
        text = stamp.inner_text()
        assert "-25.28070, -57.63490 ± 9 m (dispositivo)" in text
        assert f"PY-{'lugar'.upper()}" in text and "(hora de Asunción)" in text
        assert "Lejos" not in text and "fuera del horario" not in text
        # the others, filed by operations without a position, say so plainly
        assert "Sin posición: ni el dispositivo ni la foto la registraron" in page.inner_text(".gallery")
        shoot(page.locator("section.card:has(.gallery)"), "baliza_place_report.png")  # the stamps, for a person
        context.close()

    with rig.app.app_context():
        photo = db.session.scalar(db.select(Photo).filter_by(inspection_id=inspection_id, position_source="device"))
        kept = media_storage().get(photo.original_key)
        assert photo.sha256 == local["sha256"] == hashlib.sha256(kept).hexdigest()  # the tablet's bytes, untouched
        assert (photo.latitude, photo.longitude, photo.accuracy_m, photo.flags) == (-25.2807, -57.6349, 9.0, [])
        db.session.remove()


def test_without_the_devices_position_a_gallery_photo_carries_its_cameras_exif_position(rig, tmp_path):
    """Geolocation refused: the tablet reads the camera file's GPS (the JPEG it sends has no EXIF left) and declares
    it; far from the port, the reviewer sees the flag."""
    seeded = seed(rig, "exif")
    inspection_id = seeded["inspection_id"]
    camera = tmp_path / "IMG_GPS.jpg"
    exif = Image.Exif()
    exif.get_ifd(GPS_IFD).update({1: "S", 2: (23.0, 24.0, 21.6), 3: "W", 4: (57.0, 26.0, 24.0), 0x1F: 6.0})
    Image.new("RGB", (1600, 1200), (70, 110, 150)).save(camera, "JPEG", quality=88, exif=exif.tobytes())  # Concepción
    with sync_api.sync_playwright() as pw:
        context, page = photo_offline(pw, rig, tmp_path, seeded, camera, permissions=[])
        [local] = local_photos(page)
        assert (local["latitude"], local["longitude"], local["accuracy_m"], local["position_source"]) == (
            -23.406, -57.44, 6, "exif")
        assert "(EXIF)" in page.locator(".no-position").inner_text()

        synced_report(rig, context, page, inspection_id)
        text = page.locator("ul.stamp[data-position-source='exif']").inner_text()
        assert "-23.40600, -57.44000 ± 6 m (EXIF de la foto)" in text and "Lejos del puerto" in text
        context.close()

    with rig.app.app_context():
        photo = db.session.scalar(db.select(Photo).filter_by(inspection_id=inspection_id, position_source="exif"))
        kept = media_storage().get(photo.original_key)
        assert photo.sha256 == local["sha256"] == hashlib.sha256(kept).hexdigest()
        assert b"Exif" not in kept[:200]  # the tablet's bytes: re-encoded, the position travelled as a declaration
        assert (photo.latitude, photo.longitude, photo.accuracy_m, photo.flags) == (-23.406, -57.44, 6.0, ["far_from_port"])
        db.session.remove()


def _stored(rig, inspection_id: int) -> bool:
    with rig.app.app_context():
        found = db.session.scalar(db.select(Photo).filter_by(inspection_id=inspection_id)) is not None
        db.session.remove()
        return found
