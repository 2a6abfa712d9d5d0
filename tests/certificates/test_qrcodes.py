"""Certificate QR: two segments (byte URL prefix + alphanumeric token), level Q, version <= 15."""

import datetime as dt
import io
import xml.etree.ElementTree as ET

import pytest
import zxingcpp
from PIL import Image
from qrcode.util import MODE_8BIT_BYTE, MODE_ALPHA_NUM

from inspection.certificates import qrcodes
from inspection.certificates.numbering import format_number
from inspection.certificates.qrcodes import QRTooLarge, make_qr, make_qr_svg, verify_url
from inspection.certificates.signing import CertificateClaims, generate_key, key_id, sign_certificate

URL_40 = "https://verificacion.prefectura.gov.py/b"
ACCENTED_40 = "Ñandutí Purahéi María Concepción Güemes Ñ"


@pytest.fixture(scope="module")
def signer():
    """Issuing-office key: (private key, kid)."""
    key = generate_key()
    return key, key_id(key)


def token_for(signer, vessel_name, status_index=123_456, serial=123_456):
    """A realistic token: ~10-character registration, office code, six-digit serial."""
    key, kid = signer
    claims = CertificateClaims(
        issuer="PGP-ASU",
        number=format_number("seguridad", 2026, serial),
        kind="seguridad",
        revision=3,
        registration="PY-ASU-1234",
        vessel_name=vessel_name,
        issued_on=dt.date(2026, 3, 15),
        valid_until=dt.date(2026, 9, 15),
        status_index=status_index,
    )
    return sign_certificate(claims, key, kid)


def decode_png(png: bytes) -> list[str]:
    """Decode every QR in a PNG with zxing-cpp."""
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)), formats=zxingcpp.BarcodeFormat.QRCode)
    return [r.text for r in found]


@pytest.mark.parametrize(
    "name, max_version",
    [
        ("Yacaré", 13),
        ("SAN JOSE DE LOS ARROYOS DEL RIO PARAGUAY", 14),
        (ACCENTED_40[:40], 14),  # realistic worst case: 40 characters, 6 of them accented
        ("ÁÉÍÓÚÑÜáéíóúñü" * 3, 15),  # pathological: all 40 characters accented
    ],
)
def test_realistic_certificates_fit_version_15(signer, name, max_version, capsys):
    """A 40-character URL and a 40-character vessel name stay at or below version 15."""
    assert len(URL_40) == 40
    token = token_for(signer, name[:40])
    qr = make_qr(URL_40, token)
    assert qr.version <= max_version <= qrcodes.MAX_VERSION
    assert qr.modules == 17 + 4 * qr.version
    with Image.open(io.BytesIO(qr.png)) as img:
        assert img.size == (qr.size_px, qr.size_px) == (((qr.modules + 8) * qr.box_size),) * 2
    with capsys.disabled():
        print(f"\n  QR: name {len(name[:40])} chars / {len(name[:40].encode())} bytes, "
              f"token {len(token)} chars -> version {qr.version} ({qr.modules} modules, "
              f"{qr.size_px} px, {46 / (qr.modules + 8):.2f} mm/module at 46 mm)")


@pytest.mark.parametrize("prefix", [URL_40, URL_40 + "/", "http://localhost:5000"])
def test_qr_decodes_to_exactly_the_url(signer, prefix):
    """zxing-cpp reads back exactly {prefix}/v/{token}."""
    token = token_for(signer, ACCENTED_40[:40])
    assert decode_png(make_qr(prefix, token).png) == [verify_url(prefix, token)]
    assert verify_url(prefix, token) == f"{prefix.rstrip('/')}/v/{token}"


def test_token_is_encoded_alphanumeric_after_a_byte_prefix(signer):
    """Two segments: the URL prefix in byte mode, the token in alphanumeric mode."""
    token = token_for(signer, "Yacaré")
    qr = qrcodes._build(URL_40, token)
    assert [(d.mode, d.data) for d in qr.data_list] == [
        (MODE_8BIT_BYTE, f"{URL_40}/v/".encode()),
        (MODE_ALPHA_NUM, token.encode()),
    ]
    assert qr.error_correction == qrcodes.ERROR_CORRECT_Q


def test_oversized_payload_is_refused(signer):
    """A payload beyond version 15 raises QRTooLarge rather than printing an unreadable code."""
    with pytest.raises(QRTooLarge):
        make_qr(URL_40, "A" * 600)


@pytest.mark.parametrize("token, prefix", [("abc", URL_40), ("AB=C", URL_40), ("ABC", "https://ñ.py")])
def test_bad_input_is_refused(token, prefix):
    """Lowercase or punctuation in the token, or a non-ASCII URL, is a ValueError."""
    with pytest.raises(ValueError):
        make_qr(prefix, token)


def test_svg_has_the_same_modules(signer):
    """The SVG draws exactly the dark modules of the PNG's symbol, sized in millimetres."""
    token = token_for(signer, "Yacaré")
    qr = qrcodes._build(URL_40, token)
    svg = make_qr_svg(URL_40, token)
    root = ET.fromstring(svg)
    side = qr.modules_count + 8
    assert root.get("viewBox") == f"0 0 {side} {side}" and root.get("width").endswith("mm")
    path = root.find("{http://www.w3.org/2000/svg}path").get("d")
    dark = sum(int(run.split("h")[1].split("v")[0]) for run in path.split("M")[1:])
    assert dark == sum(map(sum, qr.modules))
