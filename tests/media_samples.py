"""Builders for test images, made in code so no binary file is committed."""

from __future__ import annotations

import base64
import io
import random
import struct
import zlib

from PIL import Image, ImageChops, ImageDraw

from inspection.ops.demo import demo_signature

GPS_IFD, EXIF_IFD = 0x8825, 0x8769


def make_exif(orientation: int | None = None, taken: str | None = None,
              offset: str | None = None, gps: tuple[float, float] | None = None) -> Image.Exif:
    """An EXIF block with orientation, DateTimeOriginal (+ offset) and a GPS IFD (0x8825)."""
    exif = Image.Exif()
    exif[0x010F] = "Baliza Test Camera"
    if orientation is not None:
        exif[0x0112] = orientation
    exif_ifd = {}
    if taken is not None:
        exif_ifd[0x9003] = taken
    if offset is not None:
        exif_ifd[0x9011] = offset
    if exif_ifd:
        exif[EXIF_IFD] = exif_ifd
    if gps is not None:
        exif[GPS_IFD] = gps_ifd(*gps)
    return exif


def gps_ifd(lat: float, lon: float) -> dict:
    """EXIF GPS tags (refs + degree/minute/second rationals) for decimal degrees."""
    return {1: "N" if lat >= 0 else "S", 2: to_dms(abs(lat)),
            3: "E" if lon >= 0 else "W", 4: to_dms(abs(lon))}


def to_dms(value: float) -> tuple[float, float, float]:
    """Decimal degrees as (degrees, minutes, seconds)."""
    degrees = int(value)
    minutes = int((value - degrees) * 60)
    seconds = round((value - degrees - minutes / 60) * 3600, 4)
    return float(degrees), float(minutes), seconds


def marked_image(size=(640, 480), mode: str = "RGB") -> Image.Image:
    """Grey image with a red band along the top, so a rotation can be seen in the output."""
    im = Image.new("RGB", size, (128, 128, 128))
    im.paste((255, 0, 0), (0, 0, size[0], max(1, size[1] // 8)))
    return im.convert(mode) if mode != "RGB" else im


def noisy_image(size=(640, 480), seed: int = 7) -> Image.Image:
    """Random pixels: compresses badly, like a real photo's texture."""
    rng = random.Random(seed)
    return Image.frombytes("RGB", size, rng.randbytes(size[0] * size[1] * 3))


def encode(im: Image.Image, fmt: str, **params) -> bytes:
    """Save an image to bytes in ``fmt``."""
    out = io.BytesIO()
    im.save(out, fmt, **params)
    return out.getvalue()


def make_jpeg(size=(640, 480), exif: Image.Exif | None = None, quality: int = 90,
              **params) -> bytes:
    """A JPEG of ``marked_image``, optionally with EXIF."""
    if exif is not None:
        params["exif"] = exif
    return encode(marked_image(size), "JPEG", quality=quality, **params)


def make_png(size=(640, 480), mode: str = "RGB", **params) -> bytes:
    """A PNG of ``marked_image`` in ``mode``."""
    return encode(marked_image(size, mode), "PNG", **params)


def make_webp(size=(640, 480), **params) -> bytes:
    """A lossy WebP of ``marked_image``."""
    return encode(marked_image(size), "WEBP", **params)


def make_other(fmt: str, size=(64, 48)) -> bytes:
    """A GIF, BMP or TIFF (formats Baliza refuses)."""
    return encode(marked_image(size), fmt)


def png_chunk(kind: bytes, body: bytes) -> bytes:
    """One PNG chunk with its CRC."""
    return struct.pack(">I", len(body)) + kind + body + struct.pack(
        ">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def make_bomb_png(width: int = 20000, height: int = 20000) -> bytes:
    """A valid 1-bit single-colour PNG: gigapixels that compress to a few dozen kB."""
    return make_flat_png(width, height, depth=1, colour=0)


PNG_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # by IHDR colour type


def zlib_of_zeros(size: int, block: int = 1 << 20) -> bytes:
    """A zlib stream of `size` zero bytes, compressed once a megabyte and repeated (a full flush makes each block stand
    alone): the same few hundred kB a whole compression gives, in milliseconds instead of seconds at collection time."""
    whole, rest = divmod(size, block)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    repeated = packer.compress(bytes(block)) + packer.flush(zlib.Z_FULL_FLUSH) if whole else b""
    last = zlib.compressobj(9, zlib.DEFLATED, -15)
    ending = last.compress(bytes(rest)) + last.flush()
    adler = ((size % 65521) << 16) | 1  # Adler-32 of zeros: the byte sum stays 1, the running sum grows by 1 a byte
    return b"\x78\xda" + repeated * whole + ending + struct.pack(">I", adler)


def make_flat_png(width: int = 6000, height: int = 6600, depth: int = 16,
                  colour: int = 0) -> bytes:
    """A valid single-colour PNG written row by row, never held as pixels: the hostile upload
    of issue 8 (6000 × 6600, 16-bit grey, ~80 kB) by default; any bit depth and colour type."""
    row = 1 + (width * PNG_CHANNELS[colour] * depth + 7) // 8  # filter byte + pixels, every one zero
    idat = zlib_of_zeros(row * height)
    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    palette = png_chunk(b"PLTE", b"\x80\x80\x80") if colour == 3 else b""
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + palette
            + png_chunk(b"IDAT", idat) + png_chunk(b"IEND", b""))


def make_flat_webp(width: int = 3000, height: int = 3000) -> bytes:
    """A lossy single-colour WebP: megapixels in a few kB."""
    return encode(Image.new("RGB", (width, height), (120, 130, 140)), "WEBP", quality=80)


def make_flat_jpeg(width: int = 6000, height: int = 6600, progressive: bool = False) -> bytes:
    """A single-colour JPEG, baseline or progressive (libjpeg buffers every coefficient)."""
    return encode(Image.new("RGB", (width, height), (120, 130, 140)), "JPEG", quality=82,
                  progressive=progressive)


def make_lying_jpeg(width: int = 6000, height: int = 6600, seed: int = 1) -> bytes:
    """A real 96 × 72 JPEG of about 5 kB whose SOF0 header claims `width` × `height`: libjpeg would pad
    out every missing pixel in grey."""
    data = bytearray(encode(noisy_image((96, 72), seed=seed), "JPEG", quality=80))
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def make_photo_like_jpeg(size=(4000, 3000), top=(90, 140, 200), bottom=(150, 190, 225), sigma: float = 1.0,
                         quality: int = 85) -> bytes:
    """A smooth scene (a vertical gradient from `top` to `bottom`, e.g. a sky) with a camera sensor's noise
    (Gaussian, `sigma` grey levels): as compressible as a real photo gets."""
    ramp, noise = Image.linear_gradient("L").resize(size), Image.effect_noise(size, sigma)
    bands = [ImageChops.add(ramp.point(lambda v, a=a, b=b: a + (b - a) * v // 255), noise, offset=-128)
             for a, b in zip(top, bottom)]
    return encode(Image.merge("RGB", bands), "JPEG", quality=quality)


def make_scanned_page_jpeg(quality: int = 85) -> bytes:
    """An A4 page at 300 dpi, black lines of text on clean white (an invoice as evidence of a repair)."""
    page = Image.new("RGB", (2480, 3508), "white")
    draw = ImageDraw.Draw(page)
    for y in range(300, 3200, 60):
        draw.text((200, y), "Factura 001-001-0000123  Reparación de la bomba de achique  Gs. 1.200.000", fill="black")
    return encode(page, "JPEG", quality=quality)


def make_zip(name: str = "payload.html", body: bytes = b"<script>alert(1)</script>") -> bytes:
    """A small ZIP archive, the same bytes on every run (its entry dated 2026-01-01, so test ids are stable)."""
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), body)
    return out.getvalue()


def data_url(png: bytes) -> str:
    """PNG bytes as the canvas hands them over (`canvas.toDataURL()`)."""
    return "data:image/png;base64," + base64.b64encode(png).decode()


def signature_images() -> dict[str, bytes]:
    """Both drawn signatures as PNG bytes, for code that closes inspections through the operations."""
    return {"inspector": demo_signature(1), "master": demo_signature(2)}


def signatures(**overrides) -> dict[str, str]:
    """Both drawn signatures as the submit body carries them (data URLs), with any role replaced."""
    return {**{role: data_url(png) for role, png in signature_images().items()}, **overrides}


SIGNATURES = signatures()
