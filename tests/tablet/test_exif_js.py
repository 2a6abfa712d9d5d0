"""The tablet's reading of a camera file's EXIF position (static/js/tablet/exif.js, issue 24) under node.

The tablet re-encodes every photo before it travels, which drops the EXIF, so it reads the camera's GPS itself and
declares it. Real JPEGs made here with Pillow, in both byte orders: the tablet must find what the server's own
reading (inspection.media.photos) finds, refuse what it refuses, and answer null, never fail, on damaged bytes.
"""
import io
import random

import pytest
from PIL import Image

from inspection.media.photos import GPS_IFD, _read_metadata
from tests.fixtures.node import NODE, run_cli

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

ASUNCION = {1: "S", 2: (25.0, 16.0, 50.52), 3: "W", 4: (57.0, 38.0, 5.64)}  # -25.2807, -57.6349


def jpeg(gps: dict | None, endian: str = "<", size=(16, 12), noise: bool = False, orientation: int | None = None) -> bytes:
    """A real JPEG whose APP1 Exif holds `gps` (None: no EXIF at all) in the given byte order."""
    image = Image.effect_noise(size, 64).convert("RGB") if noise else Image.new("RGB", size, "navy")
    out = io.BytesIO()
    if gps is None and orientation is None:
        image.save(out, "JPEG")
        return out.getvalue()
    exif = Image.Exif()
    exif.endian = endian
    if orientation:
        exif[0x0112] = orientation
    if gps is not None:
        exif.get_ifd(GPS_IFD).update(gps)
    image.save(out, "JPEG", exif=exif.tobytes(), quality=95)
    return out.getvalue()


def server_position(data: bytes):
    """The (lat, lon) the server reads from these bytes, or None."""
    try:
        _, _, lat, lon = _read_metadata(Image.open(io.BytesIO(data)), None)
    except Exception:
        return None
    return None if lat is None else (lat, lon)


def tablet_positions(files: list[bytes], tmp_path) -> list[dict]:
    """What exif.js reads from each file: {head (first 128 kB of a Blob), whole (the ArrayBuffer)}."""
    paths = []
    for n, data in enumerate(files):
        path = tmp_path / f"photo{n}.jpg"
        path.write_bytes(data)
        paths.append(str(path))
    return run_cli("exif_cli.mjs", paths, tmp_path)


def test_the_tablet_reads_the_cameras_position_as_the_server_does_in_both_byte_orders(tmp_path):
    files = [jpeg({**ASUNCION, 0x1F: 4.5}, "<"), jpeg(ASUNCION, ">"), jpeg({**ASUNCION, 0x1F: 12.25}, ">"),
             jpeg({1: "N", 2: (51.0, 30.0, 0.0), 3: "E", 4: (0.0, 7.0, 30.0)}, "<", orientation=6)]
    found = tablet_positions(files, tmp_path)
    assert [f["head"] for f in found] == [f["whole"] for f in found]
    assert [f["whole"]["accuracy_m"] for f in found] == [4.5, None, 12.3, None]  # GPSHPositioningError, 0.1 m
    assert {f["whole"]["position_source"] for f in found} == {"exif"}
    for data, f in zip(files, found, strict=True):
        lat, lon = server_position(data)
        assert f["whole"]["latitude"] == pytest.approx(lat, abs=1e-7)
        assert f["whole"]["longitude"] == pytest.approx(lon, abs=1e-7)
    assert (found[0]["whole"]["latitude"], found[0]["whole"]["longitude"]) == (-25.2807, -57.6349)


def test_no_position_where_the_server_sees_none(tmp_path):
    files = [
        jpeg(None),                                                       # no EXIF at all
        jpeg(None, orientation=3),                                        # EXIF without GPS
        jpeg({1: "N", 2: (0.0, 0.0, 0.0), 3: "E", 4: (0.0, 0.0, 0.0)}),    # 0/0: a void fix
        jpeg({**ASUNCION, 1: "S", 2: (91.0, 0.0, 0.0)}, ">"),             # beyond the pole
        jpeg({**ASUNCION, 4: (181.0, 0.0, 0.0)}),                         # beyond the date line
        jpeg({2: ASUNCION[2], 3: "W", 4: ASUNCION[4]}),                   # no hemisphere letter
        jpeg({**ASUNCION, 1: "X"}),                                       # a letter that is no hemisphere
        jpeg({1: "S", 2: ASUNCION[2]}),                                   # latitude only
    ]
    found = tablet_positions(files, tmp_path)
    assert [server_position(data) for data in files] == [None] * len(files)
    assert found == [{"head": None, "whole": None}] * len(files)


def test_the_position_is_found_in_the_first_bytes_of_a_large_photo(tmp_path):
    big = jpeg(ASUNCION, ">", size=(1600, 1200), noise=True)
    assert len(big) > 4 * 128 * 1024
    [found] = tablet_positions([big], tmp_path)
    assert found["head"] == found["whole"] == {"latitude": -25.2807, "longitude": -57.6349, "accuracy_m": None,
                                               "position_source": "exif"}


def test_damaged_bytes_are_no_position_never_a_failure(tmp_path):
    good = jpeg({**ASUNCION, 0x1F: 4.5}, ">")
    app1 = good.index(b"Exif\x00\x00")
    rng = random.Random(24)
    mangled = []
    for _ in range(150):  # bytes of the Exif segment overwritten at random: offsets, counts and types that lie
        data = bytearray(good)
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(app1, app1 + 200)] = rng.randrange(256)
        mangled.append(bytes(data))
    files = [good[:app1 + 30], good[:app1 + 120], good[:3], b"", b"\x89PNG\r\n\x1a\n" + good[8:],
             good[:app1 - 2] + b"\x00\x01" + good[app1:],  # an APP1 length of 1
             *mangled]
    found = tablet_positions(files, tmp_path)  # node ran to the end: nothing threw, nothing looped
    assert found[:6] == [{"head": None, "whole": None}] * 6
    for f in found[6:]:
        assert f["head"] == f["whole"]
        assert f["whole"] is None or (-90 <= f["whole"]["latitude"] <= 90 and -180 <= f["whole"]["longitude"] <= 180)
