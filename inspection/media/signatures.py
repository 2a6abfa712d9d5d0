"""Drawn signatures (the tablet's canvas): PNG bytes in, a checked, metadata-free PNG out.

Pure: no Flask, no database, no clock. Checks run cheapest first, so nothing is decoded before it is
known to be small: the byte count, the PNG signature, the dimensions from the header, then the full
decode, the ink and a fresh re-encode that carries no text chunks, profile or timestamps.
"""
from __future__ import annotations

import io
import struct
from dataclasses import dataclass

from PIL import Image

from inspection.i18n.messages import Msg

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ROLES = ("inspector", "master")


@dataclass(frozen=True)
class SignatureLimits:
    """What a drawn signature may be: its size, its pixels, and how much ink makes it not blank."""

    max_bytes: int = 300 * 1024
    max_width: int = 2400
    max_height: int = 1200
    # A pixel is ink when its grey level differs this much from the background (the commonest level).
    ink_contrast: int = 64
    # Fewer ink pixels than this is an empty box or a stray tap: about a 2 cm stroke at 2 px wide.
    min_ink_pixels: int = 150


SIGNATURE_LIMITS = SignatureLimits()


class SignatureRejected(Exception):
    """A drawn signature the server will not keep; `message` says why, for the field's errors."""

    def __init__(self, message: Msg) -> None:
        super().__init__(str(message))
        self.message = message


def normalize_signature(data: bytes, limits: SignatureLimits = SIGNATURE_LIMITS) -> bytes:
    """The signature re-encoded as a clean PNG, or SignatureRejected (too big, not a PNG, blank)."""
    if len(data) > limits.max_bytes:
        raise SignatureRejected(Msg("La firma pesa {size} KB; el máximo es {max} KB.",
                                    size=-(-len(data) // 1024), max=limits.max_bytes // 1024))
    if not data.startswith(PNG_SIGNATURE):
        raise SignatureRejected(Msg("La firma debe ser una imagen PNG."))
    image = _decoded(data, limits)
    pixels = _flattened(image)
    if ink_pixels(pixels, limits.ink_contrast) < limits.min_ink_pixels:
        raise SignatureRejected(Msg("La firma está en blanco: firme dentro del recuadro."))
    return _clean_png(pixels)


def _decoded(data: bytes, limits: SignatureLimits) -> Image.Image:
    """The decoded PNG, its dimensions checked from the IHDR chunk first; a decoder failure is a refusal."""
    damaged = SignatureRejected(Msg("La imagen de la firma está dañada o no es un PNG válido."))
    if len(data) < 24 or data[12:16] != b"IHDR":
        raise damaged
    width, height = struct.unpack(">II", data[16:24])  # read before Pillow sees a single byte
    if width > limits.max_width or height > limits.max_height:
        raise SignatureRejected(Msg("La firma mide {width} × {height} píxeles; el máximo es {max_width} × {max_height}.",
                                    width=width, height=height, max_width=limits.max_width,
                                    max_height=limits.max_height))
    try:
        image = Image.open(io.BytesIO(data), formats=["PNG"])
        image.load()
    except Exception:  # truncated, a corrupt chunk, a bad CRC: all mean the same to the inspector
        raise damaged from None
    return image


def _flattened(image: Image.Image) -> Image.Image:
    """The image as RGBA (strokes on a transparent canvas) or RGB (an opaque canvas)."""
    has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
    return image.convert("RGBA" if has_alpha else "RGB")


def ink_pixels(image: Image.Image, contrast: int) -> int:
    """How many pixels differ from the background (the commonest grey level once laid on white)."""
    if image.mode == "RGBA":
        white = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(white, image)
    histogram = image.convert("L").histogram()
    background = max(range(256), key=histogram.__getitem__)
    return sum(count for level, count in enumerate(histogram) if abs(level - background) >= contrast)


def _clean_png(image: Image.Image) -> bytes:
    """A new PNG from the pixels alone: no text, time, gamma, ICC or EXIF chunk survives."""
    fresh = Image.frombytes(image.mode, image.size, image.tobytes())
    out = io.BytesIO()
    fresh.save(out, format="PNG", optimize=True)
    return out.getvalue()
