"""Certificate QR codes: ``{public_url}/v/{token}`` as two segments, error correction Q.

The URL prefix goes in byte mode and the base32 token (A-Z, 2-7) in alphanumeric mode,
5.5 bits per character instead of 8, which keeps a realistic certificate at version 13-14;
version 15 is the ceiling (certificates.md), checked here. Bytes in, bytes out: the caller
makes the QR once at issue time (baselines.md: mask selection costs tens of ms).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import qrcode
from qrcode.constants import ERROR_CORRECT_Q
from qrcode.exceptions import DataOverflowError
from qrcode.util import MODE_8BIT_BYTE, MODE_ALPHA_NUM, QRData

__all__ = ["MAX_VERSION", "QRResult", "QRTooLarge", "make_qr", "make_qr_svg", "verify_url"]

MAX_VERSION = 15
QUIET_ZONE = 4  # modules, the minimum ISO/IEC 18004 requires
# 10 px per module: a version-14 symbol (73 + 8 modules) is 810 px, which printed 45 mm wide
# is ~457 dpi, so every module maps onto several printer dots and edges stay sharp.
BOX_SIZE = 10


class QRTooLarge(ValueError):
    """Raised when the payload needs a QR version above MAX_VERSION."""


@dataclass(frozen=True)
class QRResult:
    """A rendered QR: PNG bytes, QR version, symbol side in modules (quiet zone excluded)."""

    png: bytes
    version: int
    modules: int
    box_size: int = BOX_SIZE
    border: int = QUIET_ZONE

    @property
    def size_px(self) -> int:
        """PNG side in pixels, quiet zone included."""
        return (self.modules + 2 * self.border) * self.box_size


def verify_url(prefix_url: str, token: str) -> str:
    """Join the public base URL and the token as the QR holds it: ``{prefix}/v/{token}``."""
    return f"{prefix_url.rstrip('/')}/v/{token}"


def _build(prefix_url: str, token: str) -> qrcode.QRCode:
    """Build the two-segment QR and check its version against MAX_VERSION."""
    prefix = verify_url(prefix_url, "")
    if not prefix.isascii():
        raise ValueError("the public URL must be ASCII (punycode an IDN host)")
    qr = qrcode.QRCode(error_correction=ERROR_CORRECT_Q, box_size=BOX_SIZE, border=QUIET_ZONE)
    qr.add_data(QRData(prefix.encode("ascii"), mode=MODE_8BIT_BYTE))
    # Raises ValueError if the token has characters outside the alphanumeric set.
    qr.add_data(QRData(token.encode("ascii"), mode=MODE_ALPHA_NUM))
    try:
        qr.make(fit=True)
    except DataOverflowError:
        raise QRTooLarge("payload does not fit any QR version") from None
    if qr.version > MAX_VERSION:
        raise QRTooLarge(f"QR version {qr.version} exceeds {MAX_VERSION}")
    return qr


def make_qr(prefix_url: str, token: str) -> QRResult:
    """Render the verification QR as a 1-bit PNG with a 4-module quiet zone."""
    qr = _build(prefix_url, token)
    buf = io.BytesIO()
    qr.make_image(fill_color="black", back_color="white").save(buf, format="PNG")
    return QRResult(png=buf.getvalue(), version=qr.version, modules=qr.modules_count)


def make_qr_svg(prefix_url: str, token: str, module_mm: float = 0.55) -> bytes:
    """Render the same QR as a compact SVG (one path), sized in millimetres."""
    qr = _build(prefix_url, token)
    side = qr.modules_count + 2 * QUIET_ZONE
    runs = []
    for y, row in enumerate(qr.modules):
        x = 0
        while x < len(row):
            if row[x]:
                start = x
                while x < len(row) and row[x]:
                    x += 1
                runs.append(f"M{start + QUIET_ZONE} {y + QUIET_ZONE}h{x - start}v1h-{x - start}z")
            else:
                x += 1
    size = f"{side * module_mm:.2f}mm"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="0 0 {side} {side}" shape-rendering="crispEdges">'
        f'<rect width="{side}" height="{side}" fill="#fff"/>'
        f'<path d="{"".join(runs)}" fill="#000"/></svg>'
    ).encode("ascii")
