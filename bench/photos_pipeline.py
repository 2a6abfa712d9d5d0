"""Sample photo, the tablet's resize and the bare Pillow baseline for the photo benchmarks.

Run ``python -m bench.photos_pipeline`` to print process_photo against the bare pipeline as a
ratio measured in the same run (docs/baselines.md: the machines are noisy, report ratios): the
camera's 4000 x 3000 original, then the photo a tablet sends of it (``TABLET_SETTINGS``), with the
server CPU per photo and its bytes as a fraction of the original.
"""

from __future__ import annotations

import hashlib
import io
import random
import statistics
import time

from PIL import Image, ImageDraw, ImageFilter, ImageFont, ImageOps

# The tablet's resize before and after issue 22: (long side px, JPEG quality 1-100).
TABLET_SETTINGS = {"2560 px at 0.85": (2560, 85), "2048 px at 0.70": (2048, 70)}
LABEL_TEXT_PX = (16, 24)


def make_sample_jpeg(width: int = 4000, height: int = 3000, quality: int = 90,
                     orientation: int = 6, seed: int = 2024) -> bytes:
    """A deterministic camera-like JPEG (gradients, texture, sensor noise, EXIF), ~3-5 MB."""
    rng = random.Random(seed)
    im = Image.merge("RGB", [_channel(width, height, rng) for _ in range(3)])
    exif = Image.Exif()
    exif[0x010F], exif[0x0110] = "Baliza", "Bench Camera"
    exif[0x0112] = orientation
    exif[0x8769] = {0x9003: "2024:05:17 14:30:00", 0x9011: "-03:00"}
    exif[0x8825] = {1: "S", 2: (34.0, 36.0, 13.3), 3: "W", 4: (58.0, 22.0, 53.8)}
    out = io.BytesIO()
    im.save(out, "JPEG", quality=quality, exif=exif)
    return out.getvalue()


def _channel(width: int, height: int, rng: random.Random) -> Image.Image:
    """One colour channel: a sky-to-ground gradient plus blurred texture plus fine noise."""
    gradient = Image.linear_gradient("L").rotate(rng.choice([0, 90, 180])).resize((width, height))
    coarse = Image.frombytes("L", (width // 8, height // 8),
                             rng.randbytes(width // 8 * height // 8))
    texture = coarse.resize((width, height), Image.Resampling.BICUBIC).filter(
        ImageFilter.GaussianBlur(2))
    grain = Image.frombytes("L", (width, height), rng.randbytes(width * height))
    return Image.blend(Image.blend(gradient, texture, 0.45), grain, 0.1)


def direct_pipeline(data: bytes, display_px: int = 1600, thumb_px: int = 320,
                    quality: int = 82) -> tuple[bytes, bytes]:
    """The same Pillow steps as process_photo with no checks: the bench's bare baseline."""
    hashlib.sha256(data).hexdigest()
    im = Image.open(io.BytesIO(data))
    scale = display_px / max(im.size)
    im.draft("RGB", (int(im.width * scale), int(im.height * scale)))
    ImageOps.exif_transpose(im, in_place=True)
    im.thumbnail((display_px, display_px))
    thumb = im.copy()
    thumb.thumbnail((thumb_px, thumb_px))
    return _save(im, quality), _save(thumb, quality)


def _save(im: Image.Image, quality: int) -> bytes:
    """JPEG bytes without metadata."""
    out = io.BytesIO()
    im.save(out, "JPEG", quality=quality)
    return out.getvalue()


def tablet_photo(original: bytes, long_side: int, quality: int) -> bytes:
    """The JPEG a tablet sends of a camera file (static/js/tablet/photos.js): upright, fitted, no metadata."""
    im = ImageOps.exif_transpose(Image.open(io.BytesIO(original)))
    scale = min(1.0, long_side / max(im.size))
    im = im.convert("RGB").resize((max(1, int(im.width * scale)), max(1, int(im.height * scale))),
                                  Image.Resampling.LANCZOS)
    out = io.BytesIO()
    im.save(out, "JPEG", quality=quality, exif=b"", comment=b"")
    return out.getvalue()


def tablet_photos(count: int, width: int, height: int, quality: int) -> list[bytes]:
    """`count` distinct photos as the tablet sends them (tablet_photo of bench.fixtures.phone_photos), at most `width`
    x `height`: the load run's uploads, which the server keeps as their own display copies."""
    from bench.fixtures import phone_photos

    return [tablet_photo(camera, max(width, height), quality) for camera in phone_photos(count, width, height)]


def vary_density(jpeg: bytes, n: int) -> bytes:
    """The same metadata-free JPEG with its JFIF pixel density set to `n`: other bytes and SHA-256, same pixels."""
    if jpeg[6:11] != b"JFIF\0":
        raise ValueError("expected a JFIF header (tablet_photo writes one)")
    density = (n % 65_535 + 1).to_bytes(2, "big")
    return jpeg[:14] + density + density + jpeg[18:]


def cpu_ms(fn, data: bytes) -> float:
    """CPU milliseconds of this process for one call of ``fn(data)`` (not wall time: the machine is shared)."""
    start = time.process_time()
    fn(data)
    return (time.process_time() - start) * 1000


def compare_tablet(runs: int = 9) -> list[dict]:
    """Per tablet setting: bytes as a fraction of the camera original, and server CPU per photo
    (process_photo) beside the bare Pillow pipeline on the same bytes, alternating to share noise."""
    from inspection.media.photos import PhotoLimits, process_photo

    original, limits, rows = make_sample_jpeg(), PhotoLimits(), []
    for name, (long_side, quality) in TABLET_SETTINGS.items():
        photo = tablet_photo(original, long_side, quality)
        ours = lambda d: process_photo(d, limits)
        direct_pipeline(photo), ours(photo)  # warm-up
        bare, full = [], []
        for n in range(runs):
            sample = vary_density(photo, n)
            bare.append(cpu_ms(direct_pipeline, sample))
            full.append(cpu_ms(ours, sample))
        rows.append({"tablet": name, "bytes": len(photo), "original_bytes": len(original),
                     "fraction_of_original": round(len(photo) / len(original), 3),
                     "bare_pillow_cpu_ms": round(statistics.median(bare), 1),
                     "process_photo_cpu_ms": round(statistics.median(full), 1),
                     "ratio": round(statistics.median(full) / statistics.median(bare), 2)})
    return rows


def label_sheet(width: int = 4000, height: int = 3000, seed: int = 7) -> bytes:
    """A camera-like 4000 x 3000 JPEG of label plates with text at LABEL_TEXT_PX, on a grainy background."""
    rng = random.Random(seed)
    im = Image.merge("RGB", [_channel(width, height, rng) for _ in range(3)])
    draw = ImageDraw.Draw(im)
    for row, size in enumerate(LABEL_TEXT_PX):
        font = ImageFont.load_default(size=size)
        top = 400 + row * 900
        draw.rectangle((300, top, 3700, top + 14 * size), fill=(236, 226, 150), outline=(40, 40, 40), width=4)
        for line in range(6):
            draw.text((340, top + size + 2 * size * line),
                      f"{size} px  EXTINTOR PQS 6 kg  Vence 03/2027  Nro. serie A-{4810 + 7 * line}  "
                      f"Cap. 12 personas  Peso max. 960 kg", fill=(20, 20, 20), font=font)
    grain = Image.frombytes("L", (width, height), rng.randbytes(width * height)).convert("RGB")
    out = io.BytesIO()
    Image.blend(im, grain, 0.06).save(out, "JPEG", quality=92)
    return out.getvalue()


def write_crops(directory, zoom: int = 2) -> list[str]:
    """Run the label sheet through each TABLET_SETTINGS resize and write the same text crops as PNG,
    enlarged back to the camera's scale (nearest neighbour, so no pixel is invented); returns the files."""
    from pathlib import Path

    out, sheet = Path(directory), label_sheet()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (long_side, quality) in [("camera", (4000, 92)), *TABLET_SETTINGS.items()]:
        photo = sheet if name == "camera" else tablet_photo(sheet, long_side, quality)
        im = Image.open(io.BytesIO(photo))
        scale = im.width / 4000
        for row, size in enumerate(LABEL_TEXT_PX):
            top = 400 + row * 900
            box = tuple(round(v * scale) for v in (300, top, 300 + 45 * size, top + 8 * size))
            crop = im.crop(box)
            crop = crop.resize((round(crop.width * zoom / scale), round(crop.height * zoom / scale)),
                               Image.Resampling.NEAREST)
            path = out / f"label_{size}px_{long_side}_q{quality}.png"
            crop.save(path)
            written.append(str(path))
    return written


def time_median(fn, data: bytes, runs: int = 7) -> float:
    """Median wall time of ``fn(data)`` in milliseconds, after one warm-up call."""
    fn(data)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(data)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def compare(runs: int = 7) -> dict:
    """process_photo against direct_pipeline on the 4000x3000 sample, alternating to share noise."""
    from inspection.media.photos import PhotoLimits, process_photo

    data = make_sample_jpeg()
    limits = PhotoLimits()
    direct, ours = [], []
    for _ in range(runs):
        direct.append(time_median(direct_pipeline, data, 1))
        ours.append(time_median(lambda d: process_photo(d, limits), data, 1))
    bare, full = statistics.median(direct), statistics.median(ours)
    return {"sample_bytes": len(data), "direct_ms": round(bare, 1),
            "process_photo_ms": round(full, 1), "ratio": round(full / bare, 2)}


if __name__ == "__main__":
    print(compare())
    for row in compare_tablet():
        print(row)
