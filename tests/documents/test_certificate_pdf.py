"""Printable certificate: renders, reads back (text and QR), and verifies from the paper image."""

import datetime as dt

import pypdfium2 as pdfium
import pytest
import zxingcpp

from inspection.certificates.numbering import format_number
from inspection.certificates.qrcodes import make_qr, verify_url
from inspection.certificates.signing import CertificateClaims, generate_key, key_id, sign_certificate, verify_token
from inspection.documents.certificate_pdf import DEFAULT_SIGNATORIES, render_certificate_pdf

DPI = 200
BASE_URL = "https://verificacion.prefectura.gov.py/b"
VESSEL_NAME = "Ñandutí Purahéi María Concepción Güemes"


@pytest.fixture(scope="module")
def signer():
    """Issuing-office key: (private key, kid)."""
    key = generate_key()
    return key, key_id(key)


@pytest.fixture
def make_cert(signer):
    """Build the cert dict as the lead's code will, with a real signed token and QR."""

    def build(kind="seguridad", **overrides):
        key, kid = signer
        number = format_number(kind, 2026, 123)
        claims = CertificateClaims(
            issuer="PGP-ASU", number=number, kind=kind, revision=2, registration="PY-ASU-1234",
            vessel_name=VESSEL_NAME, issued_on=dt.date(2026, 3, 15),
            valid_until=dt.date(2026, 9, 15), status_index=7,
        )
        token = sign_certificate(claims, key, kid)
        cert = {
            "number": number,
            "kind": kind,
            "revision": 2,
            "issued_on": dt.date(2026, 3, 15),
            "valid_until": dt.date(2026, 9, 15),
            "next_inspection_on": "2026-09-01",
            "office_name": "Prefectura de Puerto de Asunción",
            "vessel": {
                "registration": "PY-ASU-1234", "name": VESSEL_NAME, "flag": "national",
                "propulsion": "steam", "service": "mixed", "hull_material": "iron",
                "length_m": 32.5, "beam_m": 7.25, "girth_m": 12.4, "gross_tonnage": 1234.5678,
                "crew": 9, "max_passengers": 120, "boilers": 2, "home_port": "Asunción",
            },
            "articles": [],
            "conditions": ["Reemplazar el manómetro de reserva de la caldera N.º 2 (art. 217)."],
            "signatories": [
                {"role": "Inspector de Máquinas", "name": "Ing. Óscar Benítez"},
                {"role": "Prefecto General de Puertos", "name": "Cap. Néstor Ayala"},
            ],
            "verify_url": verify_url(BASE_URL, token),
            "qr_png": make_qr(BASE_URL, token).png,
        }
        cert.update(overrides)
        return cert, claims

    return build


def page_text(pdf: bytes) -> list[str]:
    """Text of every page, through pdfium's text layer."""
    doc = pdfium.PdfDocument(pdf)
    return [doc[i].get_textpage().get_text_range() for i in range(len(doc))]


def rasterise(pdf: bytes, page: int = 0):
    """Page as a PIL image at DPI."""
    return pdfium.PdfDocument(pdf)[page].render(scale=DPI / 72).to_pil()


@pytest.mark.parametrize("kind", ["seguridad", "navegabilidad"])
def test_qr_on_paper_verifies(signer, make_cert, kind):
    """Rasterised at 200 dpi, the printed QR decodes to the URL and its token verifies ok."""
    key, kid = signer
    cert, claims = make_cert(kind)
    image = rasterise(render_certificate_pdf(cert))
    assert image.size == (round(210 / 25.4 * DPI), round(297 / 25.4 * DPI))
    # QR codes only: on a whole page the decoder's 1D readers now and then take a line of print for a Code 39
    results = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
    assert [r.text for r in results] == [cert["verify_url"]]
    token = results[0].text.rsplit("/v/", 1)[1]
    verification = verify_token(token, {kid: key.public_key()})
    assert (verification.outcome, verification.claims) == ("ok", claims)

    # Printed at least 40 mm wide including the 4-module quiet zone (certificates.md).
    corners = results[0].position
    symbol_px = corners.top_right.x - corners.top_left.x
    modules = 17 + 4 * make_qr(BASE_URL, token).version
    printed_mm = symbol_px * (modules + 8) / modules / DPI * 25.4
    assert printed_mm >= 40


def test_text_is_spanish_with_accents(make_cert):
    """Number, vessel name with accents, title, articles, dates and signatories are in the text."""
    cert, _ = make_cert("seguridad")
    (text,) = page_text(render_certificate_pdf(cert))
    for expected in [
        "REPÚBLICA DEL PARAGUAY",
        "Prefectura General de Puertos",
        "CERTIFICADO DE SEGURIDAD",
        "MÁQUINAS Y CALDERAS",
        cert["number"],
        VESSEL_NAME,
        "PY-ASU-1234",
        "1.234,57 t",  # gross tonnage, two decimals, Paraguayan format
        "32,50 m",
        "Mixto (pasajeros y carga)",
        "arts. 211 a 226",
        "art. 168",
        "15 de marzo de 2026",
        "15 de septiembre de 2026",
        "1 de septiembre de 2026",
        "Inspector de Máquinas",
        "Prefecto General de Puertos",
        "Ing. Óscar Benítez",
        "manómetro",
        "art. 221",
        "art. 224",
        "Prefectura de Puerto de Asunción",
    ]:
        assert expected in text, expected


@pytest.mark.parametrize("tonnage, printed", [(4.998, "4,998 t"), (5.0, "5,00 t"), (250.004, "250,004 t")])
def test_the_tonnage_is_printed_on_the_rules_side_of_a_whole_ton(make_cert, tonnage, printed):
    """4.998 t is under art. 210's five tons: the paper says 4,998 t, never 5,00 t (issue 20)."""
    cert, _ = make_cert("seguridad")
    cert["vessel"]["gross_tonnage"] = tonnage
    (text,) = page_text(render_certificate_pdf(cert))
    assert printed in text


def test_navegabilidad_defaults(make_cert):
    """Navegabilidad: its own title and articles 201-210, default signature roles."""
    cert, _ = make_cert("navegabilidad", signatories=None, conditions=[])
    (text,) = page_text(render_certificate_pdf(cert))
    assert "CERTIFICADO DE NAVEGABILIDAD" in text and "arts. 201 a 210" in text
    assert "Sin observaciones." in text and "art. 203" in text
    for signer in DEFAULT_SIGNATORIES["navegabilidad"]:
        assert signer["role"] in text


def test_long_conditions_continue_on_an_annex_page(make_cert):
    """No condition is ever dropped; the signatures follow the last one."""
    conditions = [f"Condición número {n}: verificar el elemento {n} antes de zarpar." for n in range(1, 41)]
    cert, _ = make_cert(conditions=conditions)
    pages = page_text(render_certificate_pdf(cert))
    assert len(pages) >= 2
    text = "\n".join(pages)
    for condition in conditions:
        assert condition in text
    assert "Prefecto General de Puertos" in pages[-1]


def test_missing_particulars_and_odd_characters(make_cert):
    """None prints as a dash; characters outside windows-1252 do not break rendering."""
    cert, _ = make_cert(
        vessel={"registration": "PY-1", "name": "Łódź 🐊", "gross_tonnage": None},
        next_inspection_on=None,
        office_name=None,
    )
    (text,) = page_text(render_certificate_pdf(cert))
    assert "PY-1" in text and "—" in text


def test_only_spanish_is_defined(make_cert):
    """Other languages are refused rather than half translated."""
    cert, _ = make_cert()
    with pytest.raises(ValueError):
        render_certificate_pdf(cert, lang="en")


def test_rendering_is_deterministic(make_cert):
    """Same certificate, same bytes: the document date is the issue date."""
    cert, _ = make_cert()
    assert render_certificate_pdf(cert) == render_certificate_pdf(cert)


def test_drawn_signatures_are_printed_above_their_lines(make_cert):
    """The inspector's and the master's drawn signatures are two more images, inked where their slots are."""
    from inspection.media.signatures import normalize_signature
    from inspection.ops.demo import demo_signature

    cert, _ = make_cert("seguridad")
    plain = render_certificate_pdf(cert)
    cert["signatories"][0]["image"] = normalize_signature(demo_signature(1))
    cert["master"] = {"name": "Cap. Ramón Giménez", "image": normalize_signature(demo_signature(2))}
    signed = render_certificate_pdf(cert)

    def images(pdf):
        page = pdfium.PdfDocument(pdf)[0]
        return len(list(page.get_objects(filter=[pdfium.raw.FPDF_PAGEOBJ_IMAGE])))

    assert (images(plain), images(signed)) == (1, 3)
    (text,) = page_text(signed)
    assert "Capitán o patrón (tomó conocimiento)" in text and "Cap. Ramón Giménez" in text
    # Above the first and the last signature lines (y = 297 - 58 + 21 mm), the signed page has ink; the plain none.
    mm = DPI / 25.4
    for slot in (0, 2):
        box = (round((18 + 58 * slot + 4) * mm), round((297 - 58 + 6) * mm),
               round((18 + 58 * (slot + 1) - 4) * mm), round((297 - 58 + 20.5) * mm))
        dark = [sum(rasterise(pdf).crop(box).convert("L").histogram()[:160]) for pdf in (plain, signed)]
        assert dark[0] == 0 and dark[1] > 200, (slot, dark)
