"""Photo processing: upload bytes in, checked metadata and derived JPEG copies out.

Pure functions, no Flask, no database, no clock. The view stores ``original``, ``display`` and
``thumb`` (see ``inspection.media.storage``) and maps ``PhotoRejected`` to a 4xx with ``messages()``.

Order of checks, cheapest and safest first, so that nothing is decoded before it is known to be
small enough:

1. ``empty``, then ``too_large`` (byte count, before anything is parsed).
2. Magic bytes (``sniff_mime``): ``not_an_image`` or ``unsupported_format`` (GIF, BMP, TIFF,
   HEIC, AVIF, JPEG XL); a ``declared_mime`` that disagrees is ``mismatched_content``.
3. The container is walked in pure Python (JPEG markers, PNG chunks, RIFF chunks): this gives the
   dimensions from the header and the offset where the image ends, without Pillow.
   Running out of bytes is ``truncated``; a broken structure is ``mismatched_content``.
4. Pixel count from that header against ``max_pixels``: ``too_many_pixels``, or
   ``decompression_bomb`` when the file is also tiny for its pixel count (see ``BOMB_RATIO``).
   Within the limit, the decode cost is bounded before any pixel is decoded: a 16-bit PNG is
   ``high_bit_depth``; a file that claims more pixels than its bytes can carry is
   ``implausible_compression`` (a real photo never is): a JPEG with more than
   ``JPEG_PIXELS_PER_BYTE`` pixels per byte, at any size (its header may claim 40 MP over 5 kB
   of data, which libjpeg would pad out in grey), or a PNG or WebP (decoded whole) above
   ``RATIO_FLOOR_PIXELS`` that expands more than ``BOMB_RATIO``; and after ``draft`` (step 6)
   the estimated peak memory (``decode_cost``, per format and mode) must fit
   ``max_decode_bytes``, else ``over_decode_budget``.
   This is our own per-call limit; Pillow's global ``MAX_IMAGE_PIXELS`` is neither read nor
   changed, and stays a backstop: its ``DecompressionBombError``, and its warning where a process
   turns warnings into errors, map to ``decompression_bomb``. Pillow only warns above 89.5 MP, far
   above any limit we accept, so we need no process-wide warnings filter (``catch_warnings`` is not
   thread-safe).
5. Polyglot rule (``mismatched_content``), see ``find_foreign_content``.
6. Pillow opens the bytes with the one decoder the magic bytes name (``formats=[...]``); if it
   refuses, or reads other dimensions than the header walk, the content does not match.
7. Full decode inside ``try``: any decoder error is ``truncated`` (incomplete or damaged pixel
   data). Completeness is also proven by step 3, so an application that sets
   ``ImageFile.LOAD_TRUNCATED_IMAGES = True`` cannot make us accept a cut-off upload.

Capture time rule: ``DateTimeOriginal`` with ``OffsetTimeOriginal`` is exact. Without an offset
the time is camera wall-clock time; it is read in ``camera_tz`` when the caller passes one (the
port's zone, to which the authority's tablets are set) and is otherwise ``None``: we never guess
an offset, and we never read the server clock.

Speed (docs/baselines.md): JPEGs are decoded with ``draft('RGB', box)`` where ``box`` has the
image's own aspect ratio, so libjpeg scales by 1/2, 1/4 or 1/8 while decoding (it still reads every
block, so a damaged file fails the same); orientation is applied to the drafted image.

No work the tablet already did: a JPEG that carries nothing but pixels (``_Layout.bare``: no EXIF,
XMP, IPTC or comment, no trailing bytes, 8-bit baseline or progressive, at most ``upload_px`` on its
long side, as static/js/tablet/photos.js sends it) is its own display copy, byte for byte, and only
its thumb is made, from a decode at 1/4 or 1/8 scale. Anything else is re-encoded: a display copy
at ``display_px`` and the thumb made from it. The SHA-256 a caller computed on arrival is passed in
and not computed again.
"""

from __future__ import annotations

import hashlib
import io
import math
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo

from PIL import Image, ImageOps, UnidentifiedImageError

MIB = 1024 * 1024
SUPPORTED_MIMES = ("image/jpeg", "image/png", "image/webp")
PILLOW_FORMATS = {"image/jpeg": "JPEG", "image/png": "PNG", "image/webp": "WEBP"}
FORMAT_NAMES = {
    "image/jpeg": "JPEG", "image/png": "PNG", "image/webp": "WebP", "image/gif": "GIF",
    "image/bmp": "BMP", "image/tiff": "TIFF", "image/heic": "HEIC", "image/avif": "AVIF",
    "image/jxl": "JPEG XL",
}
# Over the pixel limit, a file that would expand more than this (RGB bytes per stored byte) is
# reported as a decompression bomb. Real photos expand 3-20x (JPEG) or 2-70x (flat PNG scans).
BOMB_RATIO = 100
# Below this many pixels a decode costs at most ~130 MB and a fraction of a second, so the
# expansion ratio is not checked: small flat screenshots and drawings stay welcome.
RATIO_FLOOR_PIXELS = 8_000_000
# A JPEG with more pixels per byte than this claims pixels its data does not carry. Measured with
# Pillow on 12 MP images (tests/media/test_photos.py): camera-like photos with sensor noise give
# 5-40 px/byte, a clean scanned page 30; nothing baseline (what cameras, browsers' canvas and
# libjpeg's defaults write) exceeds 64, the bound of a single colour at 4:2:0 (4 bytes per
# 16 × 16 block); a progressive single colour reaches 170. A header lying about its size is far
# above: 40 MP over a 5 kB scan is 8000.
JPEG_PIXELS_PER_BYTE = 200
# Peak bytes of memory per decoded pixel while a photo is decoded, converted to RGB and scaled
# down, measured with Pillow 13 on 6000 × 6600 images (bench/photos.py) and rounded up.
# PNG by IHDR colour type (0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA); WebP is decoded whole
# into RGBA and copied; JPEG is counted at its drafted size (1/2-1/8 scale), plus two bytes per
# DCT coefficient that libjpeg buffers for the whole image when the JPEG is progressive.
PNG_BYTES_PER_PIXEL = {0: 7, 2: 6, 3: 10, 4: 13, 6: 13}
WEBP_BYTES_PER_PIXEL = 16
JPEG_BYTES_PER_PIXEL = 8
COEFFICIENT_BYTES = 2
ORIENTATION_TAG = 0x0112
EXIF_IFD, GPS_IFD = 0x8769, 0x8825
DATETIME_ORIGINAL, OFFSET_TIME_ORIGINAL = 0x9003, 0x9011


@dataclass(frozen=True)
class PhotoLimits:
    """Server limits for uploaded photos, published to the client before it sends anything."""

    max_bytes: int = 15 * MIB
    # Over a tablet camera's 8-13 MP and a phone's usual 12 MP; the tablet itself sends at most
    # upload_px on the long side (static/js/tablet/photos.js). A 48 MP full-resolution file is refused.
    max_pixels: int = 40_000_000
    max_decode_bytes: int = 256 * MIB
    display_px: int = 1600
    thumb_px: int = 320
    jpeg_quality: int = 82
    upload_chunk_bytes: int = MIB  # a resumable upload's suggested bytes per PATCH (not a processing limit)
    # What the tablet sends: long side and JPEG quality (canvas quality × 100). 2048 px at 70 is 12 % of
    # a 4000 × 3000 camera file, with 16 px label text still readable (bench/photos.py --crops).
    upload_px: int = 2048
    upload_quality: int = 70

    def __post_init__(self) -> None:
        """Refuse limits that make no sense rather than fail later on a photo."""
        if min(self.max_bytes, self.max_pixels, self.max_decode_bytes, self.thumb_px, self.upload_chunk_bytes) < 1:
            raise ValueError("photo limits must be positive")
        if self.thumb_px > min(self.display_px, self.upload_px):
            raise ValueError("thumb_px must not exceed display_px nor upload_px")
        if not (1 <= self.jpeg_quality <= 95 and 1 <= self.upload_quality <= 95):
            raise ValueError("jpeg_quality and upload_quality must be between 1 and 95")

    def as_dict(self) -> dict:
        """The limits as JSON-ready values, plus the accepted MIME types."""
        return {**asdict(self), "mimes": list(SUPPORTED_MIMES)}


@dataclass(frozen=True)
class ProcessedPhoto:
    """An accepted photo: the untouched original, two metadata-free JPEG copies and its facts.

    ``kept_as_display``: the original is a metadata-free tablet JPEG and ``display`` is those same
    bytes, so the store keeps one file for both.
    """

    sha256: str
    mime: str
    width: int
    height: int
    original: bytes = field(repr=False)
    display: bytes = field(repr=False)
    thumb: bytes = field(repr=False)
    taken_at: datetime | None = None
    latitude: float | None = None
    longitude: float | None = None
    kept_as_display: bool = False


class PhotoRejected(Exception):
    """A photo the server will not accept; ``code`` is stable, ``params`` are JSON-ready."""

    def __init__(self, code: str, params: dict | None = None) -> None:
        super().__init__(code, params or {})
        self.code = code
        self.params = dict(params or {})

    def messages(self, lang: str = "es") -> str:
        """A message for the inspector, in Spanish (default) or English, with the limits."""
        return render_message(self.code, self.params, lang)

    message = messages

    def __str__(self) -> str:
        return f"{self.code}: {self.messages('en')}"


# --- messages -------------------------------------------------------------------------------

_MESSAGES = {
    "empty": (
        "El archivo de la foto está vacío (0 bytes). Vuelva a tomarla o a adjuntarla.",
        "The photo file is empty (0 bytes). Take or attach it again.",
    ),
    "too_large": (
        "La foto pesa {size_bytes}; el máximo es {max_bytes}. "
        "Reduzca la resolución y vuelva a enviarla.",
        "The photo is {size_bytes}; the maximum is {max_bytes}. "
        "Reduce the resolution and send it again.",
    ),
    "too_many_pixels": (
        "La foto mide {width} × {height} píxeles ({pixels}); el máximo es {max_pixels}. "
        "Reduzca la resolución de la cámara y vuelva a enviarla.",
        "The photo is {width} × {height} pixels ({pixels}); the maximum is {max_pixels}. "
        "Lower the camera resolution and send it again.",
    ),
    "decompression_bomb": (
        "El archivo declara {width} × {height} píxeles ({pixels}) pero pesa solo {size_bytes}: "
        "no es una foto real y se rechazó sin abrirlo. El máximo es {max_pixels}.",
        "The file claims {width} × {height} pixels ({pixels}) but weighs only {size_bytes}: "
        "it is not a real photo and was rejected without opening it. "
        "The maximum is {max_pixels}.",
    ),
    "high_bit_depth": (
        "La foto {format} tiene {depth} bits por canal; solo se admiten fotos de 8 bits. "
        "Envíela como JPEG o como {format} de 8 bits.",
        "The {format} photo has {depth} bits per channel; only 8-bit photos are accepted. "
        "Send it as JPEG or as an 8-bit {format}.",
    ),
    "implausible_compression": (
        "El archivo declara {width} × {height} píxeles ({pixels}) pero pesa solo {size_bytes}: "
        "no es una foto real y se rechazó sin abrirlo. Envíe la foto tal como la tomó la cámara.",
        "The file claims {width} × {height} pixels ({pixels}) but weighs only {size_bytes}: "
        "it is not a real photo and was rejected without opening it. "
        "Send the photo as the camera took it.",
    ),
    "over_decode_budget": (
        "Abrir esta foto {format} de {width} × {height} píxeles necesitaría {decode_bytes} de "
        "memoria; el máximo es {max_decode_bytes} (en {format} caben unos {budget_pixels}). "
        "Envíela como JPEG o con menos resolución.",
        "Opening this {width} × {height} {format} photo would need {decode_bytes} of memory; "
        "the maximum is {max_decode_bytes} (about {budget_pixels} as {format}). "
        "Send it as JPEG or at a lower resolution.",
    ),
    "not_an_image": (
        "El archivo no es una imagen. Envíe una foto JPEG, PNG o WebP.",
        "The file is not an image. Send a JPEG, PNG or WebP photo.",
    ),
    "unsupported_format": (
        "Las fotos {format} no se admiten. Envíela como JPEG, PNG o WebP "
        "(en iPhone: Ajustes > Cámara > Formatos > Más compatible).",
        "{format} photos are not accepted. Send it as JPEG, PNG or WebP "
        "(on iPhone: Settings > Camera > Formats > Most Compatible).",
    ),
    "truncated": (
        "La foto {format} está incompleta o dañada; el envío pudo haberse cortado. "
        "Vuelva a enviarla.",
        "The {format} photo is incomplete or damaged; the upload may have been cut off. "
        "Send it again.",
    ),
    "mismatched_content": (
        "El contenido del archivo no corresponde a una foto {format} válida. "
        "Envíe la foto original, sin convertirla ni renombrarla.",
        "The file's content is not a valid {format} photo. "
        "Send the original photo, without converting or renaming it.",
    ),
    "mismatched_content.found": (
        "El archivo empieza como una foto {format} pero contiene además otro archivo ({found}). "
        "Envíe solo la foto.",
        "The file starts as a {format} photo but also carries another file ({found}). "
        "Send the photo alone.",
    ),
    "mismatched_content.video": (
        "La foto {format} lleva un vídeo adjunto ({found}), como las «fotos en movimiento». "
        "Desactive esa opción de la cámara y vuelva a tomar la foto.",
        "The {format} photo carries a video ({found}), as 'motion photos' do. "
        "Turn that camera option off and take the photo again.",
    ),
    "mismatched_content.declared": (
        "El archivo se envió como {declared} pero es {format}. Vuelva a enviarlo sin renombrarlo.",
        "The file was sent as {declared} but is {format}. Send it again without renaming it.",
    ),
}


def render_message(code: str, params: dict, lang: str = "es") -> str:
    """Fill the message template for ``code`` with ``params`` formatted for ``lang``."""
    key = code
    for variant in ("found", "declared"):
        if params.get(variant):
            key = f"{code}.{variant}"
    if params.get("found") == VIDEO:
        key = f"{code}.video"
    es, en = _MESSAGES.get(key, (f"Foto rechazada ({code}).", f"Photo rejected ({code})."))
    english = lang.lower().startswith("en")
    return (en if english else es).format_map(_formatted(params, english))


def _formatted(params: dict, english: bool) -> dict:
    """Human units: byte counts in MB, pixel counts in megapixels, decimal comma in Spanish."""
    out = {}
    for name, value in params.items():
        if name.endswith("bytes"):
            out[name] = _format_bytes(value, english)
        elif name.endswith("pixels"):
            out[name] = _format_number(value / 1e6, english) + (
                " megapixels" if english else " megapíxeles")
        else:
            out[name] = value
    return out


def _format_bytes(n: int, english: bool) -> str:
    """'18,2 MB' (es) or '18.2 MB' (en); kB below one MB. MB here means MiB, as in the limit."""
    if n >= MIB:
        return _format_number(n / MIB, english) + " MB"
    return _format_number(n / 1024, english) + " kB"


def _format_number(x: float, english: bool) -> str:
    """One decimal, none when whole; comma as decimal separator unless English."""
    text = f"{x:.1f}".removesuffix(".0")
    return text if english else text.replace(".", ",")


# --- magic bytes and container layout ----------------------------------------------------

_HEIF_BRANDS = {b"heic": "image/heic", b"heix": "image/heic", b"hevc": "image/heic",
                b"heim": "image/heic", b"heis": "image/heic", b"mif1": "image/heic",
                b"msf1": "image/heic", b"avif": "image/avif", b"avis": "image/avif"}


def sniff_mime(data: bytes) -> str | None:
    """The image MIME type named by the magic bytes, supported or not; None if not an image."""
    head = data[:32]
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:2] == b"BM" and len(head) >= 18 and head[14] in (12, 40, 52, 56, 64, 108, 124):
        return "image/bmp"
    if head[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):
        return "image/tiff"
    if head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS:
        return _HEIF_BRANDS[head[8:12]]
    if head.startswith(b"\xff\x0a") or head.startswith(b"\x00\x00\x00\x0cJXL \r\n\x87\n"):
        return "image/jxl"
    return None


class _Broken(Exception):
    """The container walk failed: ``kind`` is 'truncated' (ran out of bytes) or 'malformed'."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


@dataclass(frozen=True)
class _Layout:
    """What the container header says: stored size, the offset just past the image, what decoding
    will cost (PNG bit depth and colour type, progressive JPEG coefficients), and whether a JPEG is
    ``bare``: 8-bit Huffman-coded colour with no segment but JFIF (without a thumbnail) and ICC."""

    width: int
    height: int
    end: int
    depth: int = 8
    colour: int | None = None
    coefficients: int = 0
    bare: bool = False


_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
_JPEG_PROGRESSIVE = {0xC2, 0xC6, 0xCA, 0xCE}
_JPEG_PLAIN_SOF = {0xC0, 0xC1, 0xC2}  # baseline, extended and progressive Huffman: what every viewer shows
_JPEG_COM, _JPEG_APP = 0xFE, range(0xE0, 0xF0)
# In entropy-coded data 0xFF is followed by 0x00 (stuffing) or RSTn; anything else is a marker.
_JPEG_MARKER_AFTER_SCAN = re.compile(rb"\xff[^\x00\xd0-\xd7]")


def _jpeg_layout(data: bytes, start: int = 0) -> _Layout:
    """Walk JPEG markers from SOI at ``start`` to the first EOI; sizes come from SOFn."""
    n, pos, size, coefficients, bare = len(data), start + 2, None, 0, True
    while True:
        if pos + 2 > n:
            raise _Broken("truncated")
        if data[pos] != 0xFF:
            raise _Broken("malformed")
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte before a marker
            pos += 1
            continue
        if marker == 0xD9:
            if size is None:
                raise _Broken("malformed")
            return _Layout(size[0], size[1], pos + 2, coefficients=coefficients, bare=bare)
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            pos += 2
            continue
        if marker in (0x00, 0xD8) or pos + 4 > n:
            raise _Broken("malformed" if pos + 4 <= n else "truncated")
        seg_end = pos + 2 + int.from_bytes(data[pos + 2:pos + 4], "big")
        if seg_end > n:
            raise _Broken("truncated")
        if marker in _JPEG_SOF and seg_end - pos >= 9:
            size = (int.from_bytes(data[pos + 7:pos + 9], "big"),
                    int.from_bytes(data[pos + 5:pos + 7], "big"))
            if 0 in size:
                raise _Broken("malformed")
            if marker in _JPEG_PROGRESSIVE:
                coefficients = _jpeg_coefficients(data[pos + 4:seg_end], *size)
            bare = (bare and marker in _JPEG_PLAIN_SOF and seg_end - pos > 9 and data[pos + 4] == 8
                    and data[pos + 9] == 3)
        elif marker == _JPEG_COM or marker in _JPEG_APP:
            bare = bare and _plain_segment(marker, data[pos + 4:seg_end])
        pos = seg_end
        if marker == 0xDA:
            found = _JPEG_MARKER_AFTER_SCAN.search(data, pos)
            if found is None:
                raise _Broken("truncated")
            pos = found.start()


def _plain_segment(marker: int, body: bytes) -> bool:
    """An APPn segment that says how to show the pixels and nothing about the photo: JFIF with no
    thumbnail (APP0, 14 bytes) or an ICC colour profile (APP2)."""
    if marker == 0xE0:
        return len(body) == 14 and body.startswith(b"JFIF\0")
    return marker == 0xE2 and body.startswith(b"ICC_PROFILE\0")


def _jpeg_coefficients(sof: bytes, width: int, height: int) -> int:
    """DCT coefficients of all components, from SOFn's sampling factors (one per pixel at 1:1)."""
    count = sof[5] if len(sof) > 5 else 0
    sampling = [(b >> 4, b & 15) for b in sof[7:6 + 3 * count:3]]
    h_max = max((h for h, _ in sampling), default=0)
    v_max = max((v for _, v in sampling), default=0)
    if not h_max or not v_max:
        raise _Broken("malformed")
    return sum(math.ceil(width * h / h_max) * math.ceil(height * v / v_max) for h, v in sampling)


def _png_layout(data: bytes) -> _Layout:
    """Walk PNG chunks from IHDR to IEND."""
    n, pos, size, depth, colour = len(data), 8, None, 8, None
    while True:
        if pos + 8 > n:
            raise _Broken("truncated")
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind = data[pos + 4:pos + 8]
        if not kind.isalpha() or length > 0x7FFFFFFF or (size is None and kind != b"IHDR"):
            raise _Broken("malformed")
        if pos + 12 + length > n:
            raise _Broken("truncated")
        if kind == b"IHDR":
            size = (int.from_bytes(data[pos + 8:pos + 12], "big"),
                    int.from_bytes(data[pos + 12:pos + 16], "big"))
            if length != 13 or 0 in size:
                raise _Broken("malformed")
            depth, colour = data[pos + 16], data[pos + 17]
        pos += 12 + length
        if kind == b"IEND":
            return _Layout(size[0], size[1], pos, depth=depth, colour=colour)


def _webp_layout(data: bytes) -> _Layout:
    """Read the RIFF length and the canvas size from the first VP8/VP8L/VP8X chunk."""
    if len(data) < 30:
        raise _Broken("truncated")
    end = 8 + int.from_bytes(data[4:8], "little")
    end += end % 2
    if end > len(data):
        raise _Broken("truncated")
    kind, chunk = data[12:16], data[20:30]
    if kind == b"VP8X":
        size = (int.from_bytes(chunk[4:7], "little") + 1, int.from_bytes(chunk[7:10], "little") + 1)
    elif kind == b"VP8L" and chunk[0] == 0x2F:
        bits = int.from_bytes(chunk[1:5], "little")
        size = ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    elif kind == b"VP8 " and chunk[3:6] == b"\x9d\x01\x2a":
        size = (int.from_bytes(chunk[6:8], "little") & 0x3FFF,
                int.from_bytes(chunk[8:10], "little") & 0x3FFF)
    else:
        raise _Broken("malformed")
    if 0 in size:
        raise _Broken("malformed")
    return _Layout(size[0], size[1], end)


_LAYOUTS = {"image/jpeg": _jpeg_layout, "image/png": _png_layout, "image/webp": _webp_layout}


# --- polyglot rule ------------------------------------------------------------------------

# Signatures of file types that some other program would open from the same bytes.
VIDEO = "MP4/MOV"
_FOREIGN = [
    (re.compile(rb"PK\x03\x04|PK\x01\x02|PK\x05\x06"), "ZIP"),
    (re.compile(rb"%PDF-"), "PDF"),
    (re.compile(rb"<(?:!doctype|html|head|body|script|iframe|svg|\?xml|\?php)", re.I), "HTML/XML"),
    (re.compile(rb"Rar!\x1a\x07|7z\xbc\xaf\x27\x1c|BZh[1-9]1AY&SY"), "RAR/7z/bzip2"),
    (re.compile(rb"\x7fELF|This program cannot be run in DOS mode"), "ELF/EXE"),
    (re.compile(rb"ftyp(?:isom|iso2|mp4[12]|avc1|qt  |3gp|M4V|mp42|heic|mif1)"), VIDEO),
]
# Signatures too short to look for anywhere: only where trailing data starts.
_FOREIGN_PREFIX = [(b"\x1f\x8b", "gzip"), (b"MZ", "ELF/EXE"), (b"#!", "script")]
_ZEROS = re.compile(rb"\x00*")
ZIP_TAIL = 65_557  # a ZIP reader looks for its end record in the last 64 KiB + 22 bytes
PDF_HEAD = 1024  # PDF readers accept "%PDF-" anywhere in the first KiB
HEAD_SCAN = 4096  # how much of a structurally broken file is searched for another file type


def _foreign_kind(chunk: bytes) -> str | None:
    """The name of the first foreign file signature found anywhere in ``chunk``, if any."""
    for pattern, name in _FOREIGN:
        if pattern.search(chunk):
            return name
    return None


def _skip_embedded_jpegs(data: bytes, pos: int) -> int:
    """Skip further complete JPEG streams (MPF / Ultra HDR gain maps written by phones)."""
    while True:
        start = _ZEROS.match(data, pos).end()
        if not data.startswith(b"\xff\xd8\xff", start):
            return pos
        try:
            pos = _jpeg_layout(data, start).end
        except _Broken:
            return start


def find_foreign_content(data: bytes, mime: str, end: int) -> str | None:
    """Name the other file type hidden in an image whose own data stops at ``end``, if any.

    The rule: the bytes must not carry what another program would read as its own file.
    * Trailing bytes after the image's end (after skipping further complete JPEG streams, which
      phones append for multi-picture and HDR gain maps) are scanned for archive, PDF,
      markup, executable and MP4/MOV signatures (motion photos carry a video, and so are
      refused). Other trailers (padding, Samsung's "SEFT" timestamp block) carry no such
      signature and are accepted; the display and thumb copies never contain them, and the
      original is kept byte for byte as evidence.
    * Wherever it sits, a ZIP end record in the last 64 KiB or "%PDF-" in the first KiB is
      refused, since ZIP and PDF readers look exactly there.
    """
    tail_start = _skip_embedded_jpegs(data, end) if mime == "image/jpeg" else end
    trailing = data[tail_start:].lstrip(b"\x00\xff \t\r\n")
    for prefix, name in _FOREIGN_PREFIX:
        if trailing.startswith(prefix):
            return name
    found = _foreign_kind(trailing) if trailing else None
    if found:
        return found
    if b"PK\x05\x06" in data[-ZIP_TAIL:]:
        return "ZIP"
    if b"%PDF-" in data[:PDF_HEAD]:
        return "PDF"
    return None


# --- metadata ---------------------------------------------------------------------------

_EXIF_TIME = re.compile(r"^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})")
_EXIF_OFFSET = re.compile(r"^([+-])(\d{2}):(\d{2})$")


def parse_exif_time(value, offset=None, camera_tz: tzinfo | None = None) -> datetime | None:
    """EXIF 'YYYY:MM:DD HH:MM:SS' (+ '±HH:MM') as aware UTC; see the module rule for no offset."""
    match = _EXIF_TIME.match(_exif_text(value))
    if not match:
        return None
    try:
        local = datetime(*map(int, match.groups()))
    except ValueError:
        return None
    zone = _parse_offset(_exif_text(offset)) or camera_tz
    if zone is None:
        return None
    return local.replace(tzinfo=zone).astimezone(timezone.utc)


def _parse_offset(text: str) -> tzinfo | None:
    """'-03:00' as a fixed-offset tzinfo; None for missing or out-of-range offsets."""
    match = _EXIF_OFFSET.match(text)
    if not match:
        return None
    sign, hours, minutes = match.groups()
    delta = timedelta(hours=int(hours), minutes=int(minutes))
    if delta > timedelta(hours=14) or int(minutes) >= 60:
        return None
    return timezone(-delta if sign == "-" else delta)


def _exif_text(value) -> str:
    """EXIF ASCII values arrive as str or bytes, sometimes NUL-padded."""
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    return (value or "").strip("\x00 ") if isinstance(value, str) else ""


def parse_gps(gps: dict) -> tuple[float | None, float | None]:
    """Decimal degrees from an EXIF GPS IFD; (None, None) when absent, void or implausible."""
    lat = _gps_degrees(gps.get(2), gps.get(1), "N", "S", 90)
    lon = _gps_degrees(gps.get(4), gps.get(3), "E", "W", 180)
    if lat is None or lon is None or (lat == 0 and lon == 0):
        return None, None
    return lat, lon


def _gps_degrees(dms, ref, positive: str, negative: str, limit: float) -> float | None:
    """(deg, min, sec) rationals plus a hemisphere letter; a missing hemisphere is no fix."""
    ref = _exif_text(ref).upper()
    if ref not in (positive, negative):
        return None
    try:
        deg, minutes, seconds = (float(part) for part in dms)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    value = deg + minutes / 60 + seconds / 3600
    if not math.isfinite(value) or not 0 <= value <= limit:
        return None
    return round(-value if ref == negative else value, 7)


def _read_metadata(im: Image.Image, camera_tz: tzinfo | None):
    """Orientation, capture time and position from EXIF; damaged EXIF counts as absent."""
    try:
        exif = im.getexif()
        exif_ifd = exif.get_ifd(EXIF_IFD)
        taken = exif_ifd.get(DATETIME_ORIGINAL) or exif.get(DATETIME_ORIGINAL)
        offset = exif_ifd.get(OFFSET_TIME_ORIGINAL)
        lat, lon = parse_gps(exif.get_ifd(GPS_IFD))
        orientation = exif.get(ORIENTATION_TAG, 1)
    except Exception:  # metadata is a bonus; a photo is never refused for its EXIF
        return 1, None, None, None
    orientation = orientation if orientation in range(1, 9) else 1
    return orientation, parse_exif_time(taken, offset, camera_tz), lat, lon


# --- pipeline --------------------------------------------------------------------------

def process_photo(data: bytes, limits: PhotoLimits = PhotoLimits(), *,
                  declared_mime: str | None = None,
                  camera_tz: tzinfo | None = None, sha256: str | None = None) -> ProcessedPhoto:
    """Check an upload and make its display and thumb JPEGs; raise PhotoRejected if unfit.

    ``sha256`` is the digest of ``data`` when the caller already computed it where the bytes arrived.
    """
    mime = _check_bytes(data, limits, declared_mime)
    layout = _check_layout(data, mime, limits)
    im = _open_checked(data, mime, layout, limits)
    kept = keeps_own_display(mime, layout, len(data), limits) and im.mode == "RGB"
    im.draft("RGB", _draft_box(layout.width, layout.height, limits.thumb_px if kept else limits.display_px))
    _check_decode_cost(mime, layout, im.size, limits)
    _decode(im, data, mime, layout, limits)
    orientation, taken_at, lat, lon = _read_metadata(im, camera_tz)
    icc = im.info.get("icc_profile")
    if orientation != 1:
        ImageOps.exif_transpose(im, in_place=True)
    small = _to_rgb(im)
    small.thumbnail((limits.display_px, limits.display_px))
    thumb = small if kept else small.copy()
    thumb.thumbnail((limits.thumb_px, limits.thumb_px))
    width, height = (layout.width, layout.height)
    if orientation in (5, 6, 7, 8):
        width, height = height, width
    return ProcessedPhoto(
        sha256=sha256 or hashlib.sha256(data).hexdigest(), mime=mime, width=width, height=height,
        original=data, display=data if kept else encode_jpeg(small, limits.jpeg_quality, icc),
        thumb=encode_jpeg(thumb, limits.jpeg_quality, icc),
        taken_at=taken_at, latitude=lat, longitude=lon, kept_as_display=kept,
    )


def keeps_own_display(mime: str, layout: _Layout, size: int, limits: PhotoLimits) -> bool:
    """Whether an upload is a bare JPEG no larger than a tablet sends, so it serves as its own display copy."""
    return (mime == "image/jpeg" and layout.bare and layout.end == size
            and max(layout.width, layout.height) <= limits.upload_px)


def _reject(code: str, **params) -> PhotoRejected:
    """Shorthand for building a PhotoRejected."""
    return PhotoRejected(code, params)


def _check_bytes(data: bytes, limits: PhotoLimits, declared_mime: str | None) -> str:
    """Size and magic-byte checks that need no parsing; returns the sniffed MIME type."""
    if not data:
        raise _reject("empty")
    if len(data) > limits.max_bytes:
        raise _reject("too_large", size_bytes=len(data), max_bytes=limits.max_bytes)
    mime = sniff_mime(data)
    if mime is None:
        raise _reject("not_an_image")
    if mime not in SUPPORTED_MIMES:
        raise _reject("unsupported_format", format=FORMAT_NAMES[mime], mime=mime)
    declared = (declared_mime or "").split(";")[0].strip().lower()
    if declared and declared != "application/octet-stream":
        if declared.replace("image/jpg", "image/jpeg") != mime:
            raise _reject("mismatched_content", format=FORMAT_NAMES[mime], declared=declared)
    return mime


def _check_layout(data: bytes, mime: str, limits: PhotoLimits) -> _Layout:
    """Walk the container, then apply the pixel limit and the polyglot rule."""
    name = FORMAT_NAMES[mime]
    try:
        layout = _LAYOUTS[mime](data)
    except _Broken as broken:
        # Only the head is scanned: short signatures would match by chance in 15 MB of pixels.
        found = _foreign_kind(data[:HEAD_SCAN])
        if found:
            raise _reject("mismatched_content", format=name, found=found) from None
        code = "truncated" if broken.kind == "truncated" else "mismatched_content"
        raise _reject(code, format=name) from None
    pixels = layout.width * layout.height
    if pixels > limits.max_pixels:
        raise _bomb(data, layout, limits)
    if layout.depth > 8:
        raise _reject("high_bit_depth", format=name, depth=layout.depth)
    if implausibly_small(mime, pixels, len(data)):
        raise _reject("implausible_compression", width=layout.width, height=layout.height,
                      pixels=pixels, size_bytes=len(data))
    found = find_foreign_content(data, mime, layout.end)
    if found:
        raise _reject("mismatched_content", format=name, found=found)
    return layout


def implausibly_small(mime: str, pixels: int, size: int) -> bool:
    """Whether a file of `size` bytes claims more pixels than a photo of its format can carry in them."""
    if mime == "image/jpeg":
        return pixels > JPEG_PIXELS_PER_BYTE * size
    return pixels > RATIO_FLOOR_PIXELS and pixels * 3 > BOMB_RATIO * size


def _bomb(data: bytes, layout: _Layout, limits: PhotoLimits,
          pillow_refused: bool = False) -> PhotoRejected:
    """too_many_pixels, or decompression_bomb when the file is tiny for its pixel count."""
    pixels = layout.width * layout.height
    tiny = pixels * 3 > BOMB_RATIO * len(data)
    code = "decompression_bomb" if tiny or pillow_refused else "too_many_pixels"
    return _reject(code, width=layout.width, height=layout.height, pixels=pixels,
                   max_pixels=limits.max_pixels, size_bytes=len(data))


def decode_cost(mime: str, layout: _Layout, decoded_size: tuple[int, int]) -> int:
    """Estimated peak bytes to decode and convert an image, so the cost is known before paying it.

    ``decoded_size`` is the size the decoder will produce: the drafted size for a JPEG.
    """
    pixels = decoded_size[0] * decoded_size[1]
    if mime == "image/png":
        return pixels * PNG_BYTES_PER_PIXEL.get(layout.colour, max(PNG_BYTES_PER_PIXEL.values()))
    if mime == "image/webp":
        return pixels * WEBP_BYTES_PER_PIXEL
    return pixels * JPEG_BYTES_PER_PIXEL + layout.coefficients * COEFFICIENT_BYTES


def _check_decode_cost(mime: str, layout: _Layout, decoded_size: tuple[int, int],
                       limits: PhotoLimits) -> None:
    """Refuse an image whose decode would not fit the per-photo memory budget."""
    cost = decode_cost(mime, layout, decoded_size)
    if cost > limits.max_decode_bytes:
        per_pixel = cost / (decoded_size[0] * decoded_size[1])
        raise _reject("over_decode_budget", format=FORMAT_NAMES[mime], width=layout.width,
                      height=layout.height, decode_bytes=cost,
                      max_decode_bytes=limits.max_decode_bytes,
                      budget_pixels=int(limits.max_decode_bytes / per_pixel))


def _open_checked(data: bytes, mime: str, layout: _Layout, limits: PhotoLimits):
    """Open lazily with the one decoder the magic bytes name; it must agree with the header."""
    name = FORMAT_NAMES[mime]
    try:
        im = Image.open(io.BytesIO(data), formats=[PILLOW_FORMATS[mime]])
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise _bomb(data, layout, limits, pillow_refused=True) from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError):
        raise _reject("mismatched_content", format=name) from None
    if im.size != (layout.width, layout.height):
        raise _reject("mismatched_content", format=name)
    return im


def _decode(im, data: bytes, mime: str, layout: _Layout, limits: PhotoLimits) -> None:
    """Decode every pixel now, so a damaged file fails here and not half-way through a save."""
    try:
        im.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise _bomb(data, layout, limits, pillow_refused=True) from None
    except Exception as exc:  # Pillow raises OSError, SyntaxError, ValueError, EOFError...
        raise _reject("truncated", format=FORMAT_NAMES[mime]) from exc


def _draft_box(width: int, height: int, longest: int) -> tuple[int, int]:
    """A draft box with the image's own aspect ratio, so libjpeg can really scale down."""
    scale = min(1.0, longest / max(width, height))
    return max(1, int(width * scale)), max(1, int(height * scale))


def _to_rgb(im: Image.Image) -> Image.Image:
    """RGB for JPEG: transparency flattened on white (16-bit images never get this far)."""
    if im.mode == "RGB":
        return im
    if im.has_transparency_data:
        rgba = im.convert("RGBA")
        flat = Image.new("RGB", rgba.size, "white")
        flat.paste(rgba, mask=rgba.getchannel("A"))
        return flat
    return im.convert("RGB")


def encode_jpeg(im: Image.Image, quality: int, icc_profile: bytes | None = None) -> bytes:
    """Baseline JPEG with no EXIF, XMP or comment; only the ICC colour profile is kept."""
    out = io.BytesIO()
    # Explicit empties: Pillow would otherwise copy a JPEG comment over from im.info.
    im.save(out, "JPEG", quality=quality, icc_profile=icc_profile or None,
            exif=b"", xmp=b"", comment=b"")
    return out.getvalue()


def print_copy(jpeg: bytes, longest: int, quality: int = 80) -> bytes:
    """A stored JPEG copy (display or thumb) scaled to at most `longest` px for a printed page.

    libjpeg scales while decoding (``draft``), so a 1600 px display copy costs a quarter of its
    pixels; a copy already small enough comes back as it is, unencoded again.
    """
    with Image.open(io.BytesIO(jpeg), formats=["JPEG"]) as im:
        if max(im.size) <= longest:
            return jpeg
        im.draft("RGB", _draft_box(*im.size, longest))
        small = _to_rgb(im)
        small.thumbnail((longest, longest), Image.Resampling.LANCZOS)
        return encode_jpeg(small, quality)
