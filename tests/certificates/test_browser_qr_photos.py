"""The police page reads the certificate QR from photos as phones take them, offline, in Debian's Chromium.

A certificate is issued through the real API, its printable PDF is rendered and photographed in code
(tests/fixtures/qr_photos.py: the whole page in a 4000 × 3000 landscape photo, a 150 dpi scan, an
angle, low light, phone-camera sizes, a small QR in a big photo, heavy JPEG, WebP, EXIF rotation),
each picture is checked readable by a real decoder (zxing-cpp), and then handed to /verificar's
"Leer el QR de una foto" with the phone offline after one visit: every one must give VÁLIDO.
Before the decoder was vendored the page shrank every picture to 960 px for jsQR and read 3 of 7.
"""
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import zxingcpp

from inspection.i18n.language import translate
from tests.browser_kit import BROWSER_MARKS, browser, shoot, visit_online  # noqa: F401  (the module's Chromium)
from tests.fixtures.qr_photos import photographed_certificates
from tests.live_site import bearer, issue_certificate, live_app, seed_office

pytestmark = BROWSER_MARKS

PHONE = {"width": 390, "height": 844}


@dataclass
class Site:
    """The running app, the certificate's link, and the photographs of its printed page."""

    origin: str
    url: str
    photos: list
    hits: list
    folder: Path


def issue_one(app) -> tuple[dict, bytes]:
    """A valid seguridad certificate through the real operations and API, and its printable PDF."""
    inspector_id, (vessel_id,) = seed_office(app, ("PY-ASU-0101", "Ñandutí Purahéi"))
    client = app.test_client()
    admin = bearer(client, "jefa")
    certificate = issue_certificate(client, admin, bearer(client, "inspector"), inspector_id, vessel_id)
    pdf = client.get(f"/api/v1/certificates/{certificate['number']}/pdf", headers=admin)
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    return certificate, pdf.data


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The live app with one valid certificate, photographed; every photo checked readable by zxing-cpp."""
    folder = tmp_path_factory.mktemp("qr-photos")
    with live_app(folder, "qr-photos", "baliza-qr-photos") as (app, origin, hits):
        valid, pdf = issue_one(app)
        photos = photographed_certificates(pdf)
        for photo in photos:  # a real decoder reads each: the set is fair, not impossible
            found = zxingcpp.read_barcodes(photo.image(), formats=zxingcpp.BarcodeFormat.QRCode)
            assert [code.text for code in found] == [valid["verify_url"]], photo.name
            (folder / photo.name).write_bytes(photo.data)  # handed over by path: no copy through the driver
        yield Site(origin, valid["verify_url"], photos, hits, folder)


def upload(page, picture: Path) -> str | None:
    """Give the page's photo input one picture; the verdict code it shows, or None with the message it shows."""
    page.evaluate("""() => {
        delete document.getElementById('verdict').dataset.verdict;
        document.getElementById('token-input').value = '';
    }""")
    page.set_input_files("#photo", files=[picture])
    page.wait_for_function("""() => document.getElementById('verdict').dataset.verdict
        || !document.getElementById('input-error').hidden""", timeout=30_000)
    return page.get_attribute("#verdict", "data-verdict")


def test_every_photographed_certificate_reads_valid_offline(site, browser):  # noqa: F811
    """Phone size, Spanish, no signal: each photo gives VÁLIDO, and the server hears nothing (decoder precached)."""
    context = browser.new_context(viewport=PHONE, locale="es-PY")
    page = context.new_page()
    visit_online(page, f"{site.origin}/verificar")
    context.set_offline(True)
    page.reload()
    page.wait_for_selector("#offline", state="visible", timeout=10_000)
    heard = len(site.hits)
    read, seconds = [], {}
    for photo in site.photos:
        started = time.monotonic()
        if upload(page, site.folder / photo.name) == "valid" and page.input_value("#token-input") == site.url:
            read.append(photo.name)
        seconds[photo.name] = round(time.monotonic() - started, 1)
    print(f"\n{len(read)} of {len(site.photos)} photos read: {seconds}")
    assert [p.name for p in site.photos if p.name not in read] == []
    assert "VÁLIDO" in page.inner_text("#verdict-word")
    # The decoder and its .wasm came from the service worker's cache. (Chromium's offline emulation does
    # not cover the worker's own update check after a navigation: /sw.js and its imports may be asked for.)
    decoders = ("/static/js/qr-photo.js", "/static/vendor/zxing-reader.js", "/static/vendor/zxing_reader.wasm")
    assert not [path for path in site.hits[heard:] if path in decoders or path.startswith("/verificar")]
    shoot(page, "qr-photo-offline-es-390.png")
    context.close()


@pytest.mark.parametrize(("width", "webassembly"), [(820, True), (1366, False)])
def test_the_whole_page_photo_reads_and_a_picture_the_browser_cannot_open_says_so(site, browser, width,  # noqa: F811
                                                                                    webassembly):
    """Tablet and desktop, English: the whole-page 4000 × 3000 photo reads (without WebAssembly too, by the
    jsQR fallback at full resolution); a HEIC the browser cannot draw is named as such, and the previous verdict leaves the screen."""
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="en-GB")
    if not webassembly:
        context.add_init_script("delete globalThis.WebAssembly;")
    page = context.new_page()
    page.goto(f"{site.origin}/verificar?lang=en")
    page.wait_for_function("() => document.getElementById('verificador').dataset.lists === 'fresh'", timeout=20_000)
    assert page.get_attribute("#photo", "capture") is None  # the gallery too, not only the camera
    assert page.get_attribute("#photo", "accept").startswith("image/*")
    (whole,) = [p for p in site.photos if p.name.startswith("hoja-entera")]
    assert upload(page, site.folder / whole.name) == "valid"
    assert translate("VÁLIDO", "en") in page.inner_text("#verdict-word")
    heic = site.folder / "IMG_0001.heic"
    heic.write_bytes(b"\x00\x00\x00\x18ftypheic" + bytes(200))
    assert upload(page, heic) is None
    assert page.inner_text("#input-error") == translate(
        "Este navegador no puede abrir esa foto: elija otra o tome una nueva.", "en")
    page.wait_for_load_state("networkidle")  # the server's late word on the first QR must not bring its verdict back
    assert page.is_hidden("#result"), "the previous photo's verdict still stands under the unreadable one"
    shoot(page, f"qr-photo-unreadable-en-{width}.png")
    context.close()
