"""Sample photo and bare Pillow baseline for the photo benchmark (imported by the lead's bench).

Run ``python -m bench.photos_pipeline`` to print process_photo against the bare pipeline as a
ratio measured in the same run (docs/baselines.md: the machines are noisy, report ratios).
"""

from __future__ import annotations

import hashlib
import io
import random
import statistics
import time

from PIL import Image, ImageFilter, ImageOps


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
