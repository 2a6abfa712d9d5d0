"""Drawn signatures and the tablet's closing time: checked, normalized, stored once, shown and printed."""
import base64
import hashlib
import io
import struct
import zlib
from datetime import timedelta

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest
from PIL import Image, ImageDraw, PngImagePlugin

from inspection.core.clock import office_date
from inspection.core.models import AuditEvent, Inspection
from inspection.media.configured import media_storage
from inspection.media.signatures import SIGNATURE_LIMITS, SignatureRejected, normalize_signature
from tests.conftest import PASSWORD
from tests.fixtures.inspections import answer_all, cid, submit
from tests.media_samples import SIGNATURES, data_url, encode, noisy_image, signature_images, signatures


def png(size=(600, 200), mode="RGBA", background=(0, 0, 0, 0), ink=(20, 30, 110, 255), stroke=True, convert=None,
        **save) -> bytes:
    """A canvas export: a stroke (or nothing) on `background`, optionally converted to another mode."""
    image = Image.new(mode, size, background)
    if stroke:
        ImageDraw.Draw(image).line([(20, size[1] - 20), (size[0] // 2, 20), (size[0] - 20, size[1] - 20)],
                                   fill=ink, width=3)
    if convert:
        image = image.convert(convert)
    out = io.BytesIO()
    image.save(out, "PNG", **save)
    return out.getvalue()


def chunk_types(data: bytes) -> list[bytes]:
    """The chunk types of a PNG, in order."""
    types, at = [], 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        types.append(kind)
        at += 12 + length
    return types


BIG = encode(noisy_image((400, 300)), "PNG")  # noise does not compress: over 300 KB


def stored_signatures() -> list[str]:
    return list(media_storage().iter_keys("signatures/"))


# --- the pure rule ---------------------------------------------------------------------------------

def test_normalized_png_keeps_the_pixels_and_drops_the_metadata():
    """Text, time and profile chunks are gone; the pixels are the same; normalizing twice changes nothing."""
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", "tablet 7 / GPS -25.28,-57.63")
    info.add_itxt("Comment", "datos privados")
    raw = png(pnginfo=info, dpi=(300, 300), icc_profile=b"\x00" * 128)
    assert {b"tEXt", b"iTXt", b"pHYs", b"iCCP"} <= set(chunk_types(raw))
    clean = normalize_signature(raw)
    assert set(chunk_types(clean)) <= {b"IHDR", b"IDAT", b"IEND"}
    with Image.open(io.BytesIO(raw)) as before, Image.open(io.BytesIO(clean)) as after:
        assert after.mode == "RGBA" and after.size == before.size
        assert after.tobytes() == before.convert("RGBA").tobytes()
    assert normalize_signature(clean) == clean


@pytest.mark.parametrize("canvas", [
    png(mode="RGB", background=(255, 255, 255), ink=(0, 0, 0)),        # black on an opaque white canvas
    png(mode="RGB", background=(30, 30, 30), ink=(250, 250, 250)),     # light ink on a dark canvas
    png(mode="L", background=255, ink=0),                              # greyscale export
    png(mode="RGB", background=(255, 255, 255), ink=(0, 0, 90), convert="P"),  # a palette image
], ids=["white", "dark", "grey", "palette"])
def test_any_canvas_with_ink_is_accepted(canvas):
    assert normalize_signature(canvas).startswith(b"\x89PNG\r\n\x1a\n")


@pytest.mark.parametrize("canvas", [
    png(stroke=False),                                                 # untouched transparent canvas
    png(mode="RGB", background=(255, 255, 255), stroke=False),         # untouched white canvas
    png(size=(600, 200), mode="RGB", background=(255, 255, 255), ink=(0, 0, 0), stroke=False, optimize=True),
    png(size=(40, 20), ink=(0, 0, 0, 255)),                            # a stray tap: a few dozen pixels of ink
    png(ink=(20, 30, 110, 10)),                                        # ink almost fully transparent
], ids=["transparent", "white", "white-optimized", "tap", "faint"])
def test_blank_or_nearly_blank_is_refused(canvas):
    with pytest.raises(SignatureRejected) as refused:
        normalize_signature(canvas)
    assert refused.value.message == "La firma está en blanco: firme dentro del recuadro."


def truncated_png() -> bytes:
    whole = png()
    return whole[:len(whole) // 2]


def corrupt_idat_png() -> bytes:
    header = b"\x89PNG\r\n\x1a\n"
    ihdr = struct.pack(">IIBBBBB", 600, 200, 8, 6, 0, 0, 0)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return header + chunk(b"IHDR", ihdr) + chunk(b"IDAT", b"not zlib data") + chunk(b"IEND", b"")


@pytest.mark.parametrize("data, message", [
    (encode(noisy_image((600, 200)), "JPEG"), "La firma debe ser una imagen PNG."),
    (encode(noisy_image((60, 20)), "GIF"), "La firma debe ser una imagen PNG."),
    (b"", "La firma debe ser una imagen PNG."),
    (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "La firma debe ser una imagen PNG."),
    (truncated_png(), "La imagen de la firma está dañada o no es un PNG válido."),
    (corrupt_idat_png(), "La imagen de la firma está dañada o no es un PNG válido."),
], ids=["jpeg", "gif", "empty", "svg", "truncated", "corrupt"])
def test_what_is_not_a_png_is_refused(data, message):
    with pytest.raises(SignatureRejected) as refused:
        normalize_signature(data)
    assert refused.value.message == message


def test_too_many_bytes_is_refused_before_decoding():
    assert len(BIG) > SIGNATURE_LIMITS.max_bytes
    with pytest.raises(SignatureRejected) as refused:
        normalize_signature(BIG)
    assert refused.value.message.template == "La firma pesa {size} KB; el máximo es {max} KB."
    assert refused.value.message.params["max"] == 300


@pytest.mark.parametrize("size", [(2401, 100), (600, 1201), (30000, 30000)])
def test_too_many_pixels_is_refused_from_the_header(size):
    if size == (30000, 30000):  # a bomb: a tiny file claiming 900 megapixels, never decoded
        body = zlib.compress(b"\x00" * 1024)
        ihdr = struct.pack(">IIBBBBB", *size, 8, 0, 0, 0, 0)
        data = (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
                + struct.pack(">I", len(body)) + b"IDAT" + body + struct.pack(">I", zlib.crc32(b"IDAT" + body)))
    else:
        data = png(size=size, mode="L", background=255, ink=0)
    with pytest.raises(SignatureRejected) as refused:
        normalize_signature(data)
    assert refused.value.message.template.startswith("La firma mide {width} × {height} píxeles")


# --- submit -------------------------------------------------------------------------------------------

def test_submit_stores_the_normalized_pngs_and_serves_them(client, crew, started, db, own_media, as_role):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    response = submit(client, crew, inspection_id)
    assert response.status_code == 200, response.json
    inspection = db.session.get(Inspection, inspection_id)
    for role, raw in signature_images().items():
        expected = normalize_signature(raw)
        key = getattr(inspection, f"{role}_signature_key")
        assert media_storage().get(key) == expected
        assert getattr(inspection, f"{role}_signature_sha256") == hashlib.sha256(expected).hexdigest()
        assert key == f"signatures/{hashlib.sha256(expected).hexdigest()[:2]}/{hashlib.sha256(expected).hexdigest()}.png"
        served = client.get(f"/api/v1/inspections/{inspection_id}/signatures/{role}", headers=crew["oh"])
        assert served.status_code == 200 and served.mimetype == "image/png" and served.data == expected
        assert served.headers["Cache-Control"].startswith("private")
    assert len(stored_signatures()) == 2
    detail = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json
    assert detail["signatures"] == {
        role: {"url": f"/api/v1/inspections/{inspection_id}/signatures/{role}",
               "sha256": getattr(inspection, f"{role}_signature_sha256")} for role in ("inspector", "master")} | {
        "reviewer": None}  # art. 221: the countersignature comes later, from the reviewer


def test_signatures_are_served_only_to_readers_of_the_inspection(client, crew, started, as_role, make_user,
                                                                 token_for):
    inspection_id, items = started
    url = f"/api/v1/inspections/{inspection_id}/signatures/master"
    assert client.get(url, headers=crew["ih"]).status_code == 404  # not signed yet
    answer_all(client, crew, inspection_id, items)
    assert submit(client, crew, inspection_id).status_code == 200
    assert client.get(url).status_code == 401
    assert client.get(url, headers=as_role("police")[1]).status_code == 403
    assert client.get(url, headers=token_for(make_user("owner"))).status_code == 404  # another owner's fleet
    assert client.get(url, headers=crew["admin"]).status_code == 200
    assert client.get(f"/api/v1/inspections/{inspection_id}/signatures/prefect", headers=crew["ih"]).status_code == 404


@pytest.mark.parametrize("body, errors", [
    ({"signatures": None}, {"signatures": ["Este campo no puede quedar vacío."]}),
    ({"signatures": {"inspector": SIGNATURES["inspector"]}},
     {"signatures": {"master": ["Falta la firma del capitán o patrón."]}}),
    ({"signatures": {"master": SIGNATURES["master"], "inspector": ""}},
     {"signatures": {"inspector": ["Falta la firma del inspector."]}}),
    ({"signatures": signatures(master=None)}, {"signatures": {"master": ["Falta la firma del capitán o patrón."]}}),
    ({"signatures": signatures(inspector=data_url(png(stroke=False)))},
     {"signatures": {"inspector": ["La firma está en blanco: firme dentro del recuadro."]}}),
    ({"signatures": signatures(master="data:image/jpeg;base64," + base64.b64encode(b"\xff\xd8\xff").decode())},
     {"signatures": {"master": ["La firma debe ser una imagen PNG (data:image/png;base64,...)."]}}),
    ({"signatures": signatures(master=data_url(encode(noisy_image((60, 20)), "JPEG")))},
     {"signatures": {"master": ["La firma debe ser una imagen PNG."]}}),
    ({"signatures": signatures(master="data:image/png;base64,%%%")},
     {"signatures": {"master": ["La imagen de la firma no está bien codificada en base64."]}}),
    ({"signatures": signatures(inspector=data_url(BIG))},
     {"signatures": {"inspector": [f"La firma pesa {-(-len(BIG) // 1024)} KB; el máximo es 300 KB."]}}),
    ({"signatures": signatures(inspector=data_url(png(size=(3000, 200))), master=data_url(png(stroke=False)))},
     {"signatures": {"inspector": ["La firma mide 3000 × 200 píxeles; el máximo es 2400 × 1200."],
                     "master": ["La firma está en blanco: firme dentro del recuadro."]}}),
])
def test_bad_or_missing_signatures_are_422_under_their_role(client, crew, started, db, own_media, body, errors):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    response = submit(client, crew, inspection_id, **body)
    assert response.status_code == 422 and response.mimetype == "application/problem+json"
    assert response.json["errors"] == errors
    assert db.session.get(Inspection, inspection_id).status == "in_progress"
    assert stored_signatures() == []


def test_a_missing_signatures_object_is_refused(client, crew, started):
    inspection_id, _ = started
    body = {"client_id": cid(), "signature": "Insp. Demo", "master_name": "Cap. Benítez"}
    response = client.post(f"/api/v1/inspections/{inspection_id}/submit", json=body, headers=crew["ih"])
    assert response.status_code == 422 and response.json["errors"] == {"signatures": ["Este campo es obligatorio."]}


def test_signature_refusals_read_in_english(client, crew, started):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    english = {**crew["ih"], "Accept-Language": "en"}
    url = f"/api/v1/inspections/{inspection_id}/submit"
    body = {"client_id": cid(), "signature": "Insp. Demo", "master_name": "Cap. Benítez"}
    missing = client.post(url, json={**body, "signatures": signatures(master=None)}, headers=english)
    assert missing.json["errors"] == {"signatures": {"master": ["The captain's or skipper's signature is missing."]}}
    blank = client.post(url, json={**body, "signatures": signatures(inspector=data_url(png(stroke=False)))},
                        headers=english)
    assert blank.json["errors"] == {"signatures": {"inspector": ["The signature is blank: sign inside the box."]}}


# --- idempotency and orphans ------------------------------------------------------------------------

def test_a_replay_returns_the_first_result_and_writes_no_other_file(client, crew, started, db, own_media):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items[:2])
    assert submit(client, crew, inspection_id).status_code == 409  # unanswered items: refused before any file
    assert stored_signatures() == []
    answer_all(client, crew, inspection_id, items[2:])
    client_id = cid()
    first = submit(client, crew, inspection_id, client_id)
    files = {key: media_storage().modified_at(key) for key in stored_signatures()}
    second = submit(client, crew, inspection_id, client_id)
    assert second.status_code == 200 and second.json == first.json and second.headers["Idempotent-Replayed"] == "true"
    other = signatures(inspector=data_url(png(ink=(200, 0, 0, 255))))
    assert submit(client, crew, inspection_id, signatures=other).status_code == 409  # closed already
    assert submit(client, crew, inspection_id, client_id, signatures=other).status_code == 409  # another body
    assert {key: media_storage().modified_at(key) for key in stored_signatures()} == files and len(files) == 2
    assert db.session.scalar(db.select(db.func.count(AuditEvent.id)).filter_by(action="inspection.submitted")) == 1


def test_the_sweep_removes_an_unrecorded_signature_and_keeps_the_recorded(client, crew, started, db, own_media, runner):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    assert submit(client, crew, inspection_id).status_code == 200
    orphan_png = normalize_signature(png(ink=(0, 120, 0, 255)))  # written by a submit that never committed
    orphan = f"signatures/{hashlib.sha256(orphan_png).hexdigest()[:2]}/{hashlib.sha256(orphan_png).hexdigest()}.png"
    media_storage().put(orphan, orphan_png)
    assert runner.invoke(args=["media", "sweep"]).output.startswith("0 archivos")  # in its grace period
    assert runner.invoke(args=["media", "sweep", "--grace-minutes", "-1"]).output.startswith("1 archivos")
    inspection = db.session.get(Inspection, inspection_id)
    assert stored_signatures() == sorted([inspection.inspector_signature_key, inspection.master_signature_key])


# --- the tablet's closing time ----------------------------------------------------------------------------

def test_the_tablets_closing_time_is_kept_with_the_servers(client, crew, started, db, set_clock):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    started_at = db.session.get(Inspection, inspection_id).started_at
    server_now = started_at + timedelta(hours=6)  # synced hours after the tablet closed it offline
    set_clock(server_now)
    closed_on_tablet = started_at + timedelta(hours=1, minutes=3)
    response = submit(client, crew, inspection_id, submitted_at=closed_on_tablet.isoformat())
    assert response.status_code == 200, response.json
    inspection = db.session.get(Inspection, inspection_id)
    assert inspection.submitted_at == closed_on_tablet
    event = db.session.scalar(db.select(AuditEvent).filter_by(action="inspection.submitted"))
    assert event.details["submitted_at"] == closed_on_tablet.isoformat()
    assert event.details["received_at"] == server_now.isoformat() and event.at == server_now
    assert response.json["certificate"]["issued_on"] == office_date(server_now).isoformat()  # as before: the server's


def test_without_a_tablet_time_the_server_time_is_the_closing_time(client, crew, started, db, set_clock):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    now = db.session.get(Inspection, inspection_id).started_at + timedelta(minutes=50)
    set_clock(now)
    assert submit(client, crew, inspection_id).status_code == 200
    assert db.session.get(Inspection, inspection_id).submitted_at == now
    event = db.session.scalar(db.select(AuditEvent).filter_by(action="inspection.submitted"))
    assert event.details["submitted_at"] == event.details["received_at"] == now.isoformat()


@pytest.mark.parametrize("offset, refused", [
    (timedelta(minutes=5), False),                 # a tablet clock 5 minutes fast is tolerated
    (timedelta(minutes=5, seconds=1), True),       # more is not
    (timedelta(days=1), True),
])
def test_a_closing_time_ahead_of_the_server_is_refused(client, crew, started, db, set_clock, own_media,
                                                       offset, refused):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    now = db.session.get(Inspection, inspection_id).started_at + timedelta(hours=2)
    set_clock(now)
    response = submit(client, crew, inspection_id, submitted_at=(now + offset).isoformat())
    if not refused:
        assert response.status_code == 200
        return
    assert response.status_code == 422
    assert response.json["errors"] == {"submitted_at": [
        "La hora de cierre está más de 5 minutos adelantada a la del servidor; corrija el reloj de la tableta."]}
    assert db.session.get(Inspection, inspection_id).status == "in_progress" and stored_signatures() == []


def test_a_closing_time_before_the_start_is_refused(client, crew, started, db):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    started_at = db.session.get(Inspection, inspection_id).started_at
    response = submit(client, crew, inspection_id, submitted_at=(started_at - timedelta(seconds=1)).isoformat())
    assert response.status_code == 422
    assert response.json["errors"] == {"submitted_at": ["La hora de cierre es anterior al comienzo de la inspección."]}
    naive = submit(client, crew, inspection_id, submitted_at="2026-11-30T10:00:00")
    assert naive.status_code == 422 and "submitted_at" in naive.json["errors"]


# --- shown and printed ------------------------------------------------------------------------------

def image_objects(pdf: bytes) -> int:
    """How many images the PDF's pages draw."""
    doc = pdfium.PdfDocument(pdf)
    return sum(len(list(doc[i].get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE]))) for i in range(len(doc)))


def test_the_report_and_the_certificate_show_both_signatures(client, app, crew, started, db):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    body = submit(client, crew, inspection_id).json
    browser = app.test_client()
    assert browser.post("/login", data={"username": crew["owner"].username, "password": PASSWORD}).status_code == 302
    page = browser.get(f"/inspecciones/{inspection_id}/informe").get_data(as_text=True)
    assert f'src="/api/v1/inspections/{inspection_id}/signatures/inspector" alt="Firma dibujada del inspector Insp. Demo"' in page
    assert f'src="/api/v1/inspections/{inspection_id}/signatures/master" alt="Firma dibujada del capitán o patrón Cap. Benítez"' in page
    assert browser.get(f"/api/v1/inspections/{inspection_id}/signatures/master").data == \
        normalize_signature(signature_images()["master"])  # the page's session reads the image

    pdf = client.get(body["certificate"]["pdf_url"], headers=crew["oh"]).data
    assert image_objects(pdf) == 3  # the QR and the two signatures
    text = pdfium.PdfDocument(pdf)[0].get_textpage().get_text_range()
    assert "Capitán o patrón (tomó conocimiento)" in text and "Cap. Benítez" in text
