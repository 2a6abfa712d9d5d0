"""The inspection report and fee statement PDFs: rendered, read back through pdfium's text layer, images counted,
page 1 rasterised; fees checked against the printed scale rows; owners see only their own; English on request."""
import tomllib
import uuid
from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from inspection.certificates.keys import signer
from inspection.core.clock import office_zone
from inspection.core.extensions import db
from inspection.core.models import Application
from inspection.core.office import current_office
from inspection.cycle.applications import apply_for_inspection
from inspection.inspections.closing import close_inspection
from inspection.inspections.operations import add_photo, photos_of, record_answer, schedule_inspection, start_inspection
from inspection.inspections.reports import report_document, report_pdf
from inspection.media.configured import media_storage, photo_limits
from inspection.media.photos import process_photo
from tests.media_samples import encode, noisy_image, signature_images

SCALES = tomllib.loads((Path(__file__).resolve().parents[2] / "inspection" / "law" / "fee_scales.toml").read_text())["scales"]
DAY = date(2026, 11, 30)
AT = datetime(2026, 11, 30, 15, 0, tzinfo=timezone.utc)  # 12:00 in Asunción
STEAMER = {"propulsion": "steam", "boilers": 2, "hot_climate": True, "flammable_cargo_kg": 2_000}
HULL_346 = {"length_m": 45, "beam_m": 8, "girth_m": 14, "hull_material": "iron"}  # 346,33 t (art. 195)
FAILED = "seg.fire.flammables_hold"  # Colombian decree art. 36: adopted practice, an observation
SHOTS = Path("/tmp/baliza-screenshots")


def pdf_text(data: bytes) -> str:
    """Every page's text, joined, through pdfium's text layer."""
    doc = pdfium.PdfDocument(data)
    return "\n".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))


def image_count(data: bytes) -> int:
    """Image objects drawn on all pages."""
    doc = pdfium.PdfDocument(data)
    return sum(len(list(doc[i].get_objects(filter=[pdfium.raw.FPDF_PAGEOBJ_IMAGE]))) for i in range(len(doc)))


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def people(make_user):
    return {"admin": make_user("admin"), "inspector": make_user("inspector", full_name="Ing. Óscar Benítez"),
            "owner": make_user("owner"), "stranger": make_user("owner"), "police": make_user("police")}


@pytest.fixture
def closed(people, make_vessel):
    """closed(kind, vessel overrides, photos=N, on=DAY): a closed inspection, FAILED failed, both signatures, and
    one photo per item that needs evidence, then more up to N in all."""

    def close(kind="seguridad", vessel=None, photos=2, on=DAY, fail=(FAILED,)):
        boat = vessel if not isinstance(vessel, dict | None) else make_vessel(
            owner_id=people["owner"].owner_id, **(vessel or STEAMER))
        now = datetime(on.year, on.month, on.day, 15, 0, tzinfo=timezone.utc)
        inspector = people["inspector"]
        inspection = schedule_inspection(people["admin"], boat, kind, inspector, on, "Asunción", on)
        start_inspection(inspector, inspection, now)
        for item in inspection.items:
            failed = item["id"] in fail
            bound = item["required"] if item["required"] is not None else item.get("maximum")
            record_answer(inspector, inspection, item["id"], {
                "client_id": str(uuid.uuid4()), "result": "fail" if failed else "pass",
                "observed": (0 if failed else bound) if bound is not None else None,
                "note": "Bodega a proa" if failed else "", "recorded_at": now, "photos": [],
                "action": "within_14_days" if failed else None}, now)
        evidence = [item["id"] for item in inspection.items if item["evidence_required"]]
        for n in range(max(photos, len(evidence))):
            jpeg = encode(noisy_image((64, 48), seed=boat.id * 1000 + n), "JPEG", quality=80)
            item_id = (evidence or [inspection.items[0]["id"]])[n % max(len(evidence), 1)]
            add_photo(inspector, inspection, item_id, str(uuid.uuid4()),
                      process_photo(jpeg, photo_limits()), media_storage(), now, None, None, now)
        close_inspection(inspector, inspection, {"client_id": str(uuid.uuid4()), "signature": "Ing. Óscar Benítez",
                                                 "master_name": "Cap. Giménez", "signatures": signature_images()},
                         current_office(), signer(current_office(), now), on, now, media_storage(), office_zone())
        db.session.commit()
        return inspection

    return close


def boiler_row(scale="seguridad", key="boilers"):
    return next(row for row in SCALES[scale]["items"] if row["key"] == key)


def test_report_prints_the_inspection_items_deficiencies_photos_signatures_and_fees(closed, login_as, people):
    inspection = closed(photos=0)
    photos = len(photos_of(inspection))
    response = login_as(people["owner"]).get(f"/inspecciones/{inspection.id}/informe.pdf")
    assert response.status_code == 200 and response.mimetype == "application/pdf"
    assert response.headers["Content-Disposition"].startswith("inline; filename=\"informe-")
    text = flat(pdf_text(response.data))
    vessel = inspection.vessel
    assert "INFORME DE INSPECCIÓN" in text and f"Inspección N.º {inspection.id}" in text
    assert f"{vessel.registration} — {vessel.name}" in text and "Seguridad" in text
    assert "Aprobada con observaciones" in text and "Ing. Óscar Benítez" in text and "Cap. Giménez" in text
    assert "30 nov 2026, 12:00 (hora de Asunción)" in text.replace(".", "")  # office clock, not UTC
    assert "Vapor" in text and "Calderas" in text  # pinned particulars
    # The failed practice item: its article, the badge text, the note and the action; the deficiency's due date.
    assert "Decreto colombiano de navegación fluvial, art. 36" in text
    assert "Práctica adoptada (instrumento extranjero): su incumplimiento es una observación, no causa detención" in text
    assert "Nota: Bodega a proa" in text and "Dentro de 14 días" in text
    assert "14 de diciembre de 2026" in text  # 30 Nov + 14 days
    assert "No cumple" in text and "Cumple" in text
    assert f"FOTOS DE EVIDENCIA ({photos})" in text
    assert "Capitán o patrón (tomó conocimiento)" in text
    assert "Por inspección de caldera semestralmente, por cada caldera $ 350.- c/l. 100" in text
    assert image_count(response.data) == photos + 2  # the photos and both drawn signatures


def test_page_one_rasterises(closed, app):
    inspection = closed(photos=4)
    with app.test_request_context():
        data = report_pdf(inspection, "es", media_storage(), current_office().name, office_zone())
    SHOTS.mkdir(parents=True, exist_ok=True)
    doc = pdfium.PdfDocument(data)
    for page in range(len(doc)):
        image = doc[page].render(scale=110 / 72).to_pil()
        image.save(SHOTS / f"report-page{page + 1}.png")
    assert image.size[0] > 800 and len(doc) >= 2


def test_steamer_with_two_boilers_pays_art_233_per_boiler(closed, login_as, people):
    """Art. 233: "$ 350.- c/l. 100" per boiler per semestral inspection, from the printed row."""
    inspection = closed(photos=0)
    row = boiler_row()
    first, cl = 2 * row["amount"], 2 * row["amount_cl"]  # 700 and 200
    client = login_as(people["owner"])
    fees = client.get(f"/api/v1/inspections/{inspection.id}/fees", headers={"Accept": "application/json"}).json
    assert [(line["article"], line["quantity"], *map(Decimal, (line["amount"], line["amount_first"], line["amount_cl"])))
            for line in fees["lines"]] == [("233", 2, cl, first, cl)]
    assert Decimal(fees["total"]) == Decimal(fees["owed"]) == cl and fees["fines"] == []
    text = flat(pdf_text(client.get(f"/inspecciones/{inspection.id}/aranceles.pdf").data))
    assert "LIQUIDACIÓN DE ARANCELES" in text
    assert f"Ley 928/1927, art. 233 {row['text']} 2 $ 700,00 $ 200,00" in text
    assert "Total $ 700,00 $ 200,00" in text and "Cifra c/l. *" in text  # the charged column is marked
    assert "Total a abonar (aranceles y multas no condonadas) $ 200,00" in text


def test_a_346_t_hull_pays_the_last_row_and_the_excess_per_ton(people, make_vessel, login_as):
    """Art. 209: 346,33 t counts as 347 started tons: the 201-250 row plus 97 t at $ 1 in both columns."""
    boat = make_vessel(owner_id=people["owner"].owner_id, **HULL_346)
    inspection = schedule_inspection(people["admin"], boat, "navegabilidad", people["inspector"], DAY, "Asunción", DAY)
    db.session.commit()
    scale = SCALES["navegabilidad"]
    last, excess = scale["brackets"][-1], scale["excess"]
    assert (last["min_tons"], last["max_tons"]) == (201, 250)
    tons = 347 - excess["above_tons"]  # 97
    first, cl = last["amount"] + tons * excess["rate"], last["amount_cl"] + tons * excess["rate_cl"]  # 447, 1347
    client = login_as(people["owner"])
    fees = client.get(f"/api/v1/inspections/{inspection.id}/fees").json
    assert [(line["source"], line["article"], line["quantity"],
             *map(Decimal, (line["amount"], line["amount_first"], line["amount_cl"]))) for line in fees["lines"]] == [
        ("Ley 928/1927", "209", 1, last["amount_cl"], last["amount"], last["amount_cl"]),
        ("Ley 928/1927", "209", tons, tons * excess["rate_cl"], tons * excess["rate"], tons * excess["rate_cl"])]
    assert [line["description"] for line in fees["lines"]][0] == last["text"]
    assert Decimal(fees["total"]) == Decimal(fees["owed"]) == cl and fees["fines"] == []
    text = flat(pdf_text(client.get(f"/inspecciones/{inspection.id}/aranceles.pdf").data))
    assert f"{last['text']} 1 $ 350,00 $ 1.250,00" in text
    assert f"{excess['text']} 97 $ 97,00 $ 97,00" in text
    assert f"Total $ {first},00 $ {cl // 1000}.{cl % 1000:03d},00" in text  # "Total $ 447,00 $ 1.347,00"


def test_a_late_hull_application_prints_its_double_fee_and_fine(closed, people, make_vessel, login_as, app,
                                                                 monkeypatch):
    """Art. 204: applied after expiry, the new inspection's fee is paid twice, and the fine this installation set."""
    monkeypatch.setitem(app.config, "HULL_LATE_FINE", 1000)  # art. 204 names none: charged only where set
    boat = make_vessel(owner_id=people["owner"].owner_id, **HULL_346)
    first = closed("navegabilidad", boat, photos=0, fail=())
    assert first.status == "submitted"
    late_on = date(2028, 1, 10)  # the navegabilidad year ran out on 30 Nov 2027
    application = apply_for_inspection(people["owner"], boat, "navegabilidad", "Asunción", late_on, late_on)
    db.session.commit()
    assert application.late and {fine.code for fine in application.fines} == {"double_fee", "late_hull"}
    second = closed("navegabilidad", boat, photos=0, on=late_on, fail=())
    assert db.session.get(Application, application.id).inspection_id == second.id  # answered by it
    client = login_as(people["owner"])
    fees = client.get(f"/api/v1/inspections/{second.id}/fees").json
    double = next(f for f in fees["fines"] if f["code"] == "double_fee")
    assert Decimal(double["amount"]) == Decimal(fees["total"]) == Decimal(1347)  # the fee once more
    fines = sum(Decimal(f["amount"]) for f in fees["fines"])
    assert Decimal(fees["owed"]) == Decimal(fees["total"]) + fines
    text = flat(pdf_text(client.get(f"/inspecciones/{second.id}/aranceles.pdf").data))
    assert "Multa o recargo" in text and "se abona el doble del arancel (art. 204)" in text
    assert "Ley 928/1927, art. 204" in text and "1.347,00" in text
    owed = f"{int(Decimal(fees['owed'])):,}".replace(",", ".")
    assert f"Total a abonar (aranceles y multas no condonadas) $ {owed},00" in text
    english = flat(pdf_text(client.get(f"/inspecciones/{second.id}/aranceles.pdf?lang=en").data))
    assert "FEE STATEMENT" in english and f"${int(Decimal(fees['owed'])):,}.00" in english and "the fee is paid twice (art. 204)" in english


def test_english_with_lang_or_the_users_choice(closed, login_as, people, token_for, client):
    inspection = closed(photos=1)
    browser = login_as(people["owner"])
    english = flat(pdf_text(browser.get(f"/inspecciones/{inspection.id}/informe.pdf?lang=en").data))
    assert "INSPECTION REPORT" in english and f"Inspection No. {inspection.id}" in english
    assert "Passed with observations" in english and "Within 14 days" in english
    assert "Practice adopted from a foreign instrument: a failure is an observation, not a detention" in english
    assert "December 14, 2026" in english and "FEES" in english
    people["owner"].language = "en"  # the user's preference, in a fresh session with no ?lang=
    db.session.commit()
    assert "INSPECTION REPORT" in pdf_text(login_as(people["owner"]).get(f"/inspecciones/{inspection.id}/informe.pdf").data)
    headers = token_for(people["owner"])
    api = client.get(f"/api/v1/inspections/{inspection.id}/report.pdf", headers={**headers, "Accept-Language": "en"})
    assert "INSPECTION REPORT" in pdf_text(api.data)
    assert "INFORME DE INSPECCIÓN" in pdf_text(client.get(f"/api/v1/inspections/{inspection.id}/report.pdf",
                                                          headers=headers).data)


@pytest.mark.parametrize("who, page, api", [
    ("owner", 200, 200), ("inspector", 200, 200), ("admin", 200, 200),
    ("stranger", 404, 404), ("police", 403, 403),
])
def test_only_the_owner_and_staff_get_the_pdfs(closed, login_as, people, token_for, client, who, page, api):
    inspection = closed(photos=0)
    browser = login_as(people[who])
    for path in ("informe.pdf", "aranceles.pdf"):
        assert browser.get(f"/inspecciones/{inspection.id}/{path}").status_code == page
    for path in ("report.pdf", "fees.pdf", "fees"):
        assert client.get(f"/api/v1/inspections/{inspection.id}/{path}",
                          headers=token_for(people[who])).status_code == api
    assert client.get(f"/api/v1/inspections/{inspection.id}/report.pdf").status_code == 401


def test_an_open_inspection_has_no_report_yet(people, make_vessel, token_for, client):
    boat = make_vessel(owner_id=people["owner"].owner_id, **STEAMER)
    inspection = schedule_inspection(people["admin"], boat, "seguridad", people["inspector"], DAY, "Asunción", DAY)
    db.session.commit()
    headers = token_for(people["owner"])
    assert client.get(f"/api/v1/inspections/{inspection.id}/report.pdf", headers=headers).status_code == 409
    assert client.get(f"/api/v1/inspections/{inspection.id}/fees.pdf", headers=headers).status_code == 200


class CountingStorage:
    """The media storage, recording which keys a report reads."""

    def __init__(self, inner):
        self.inner, self.read = inner, []

    def get(self, key):
        self.read.append(key)
        return self.inner.get(key)


def test_fifty_photos_are_read_one_by_one_from_their_display_copies(closed, app):
    inspection = closed(photos=50)
    storage = CountingStorage(media_storage())
    with app.test_request_context():
        doc = report_document(inspection, "es", storage, current_office().name, office_zone())
        assert len(storage.read) == 2  # only the signatures so far: photos are read as they are drawn
        data = report_pdf(inspection, "es", storage, current_office().name, office_zone())
    photos = [key for key in storage.read if not key.startswith("signatures/")]
    # Each photo's display copy, never an original that has one of its own (these small bare JPEGs are their own).
    assert sorted(photos) == sorted(photo.display_key for photo in photos_of(inspection))
    assert image_count(data) == 52 and len(doc["photos"]) == 50
    assert "FOTOS DE EVIDENCIA (50)" in pdf_text(data)


def test_the_report_page_links_its_pdfs_and_shows_both_figures(closed, login_as, people):
    inspection = closed(photos=0)
    page = login_as(people["owner"]).get(f"/inspecciones/{inspection.id}/informe").get_data(as_text=True)
    assert f"/inspecciones/{inspection.id}/informe.pdf" in page and f"/inspecciones/{inspection.id}/aranceles.pdf" in page
    assert "700,00" in page and "200,00" in page  # both printed figures of art. 233's row, times two boilers

