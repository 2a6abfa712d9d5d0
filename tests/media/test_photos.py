"""Tests for inspection.media.photos: pure, images built in code (tests/media_samples.py)."""

import hashlib
import io
import warnings
from datetime import datetime, timedelta, timezone

import pytest
from media_samples import (
    encode,
    gps_ifd,
    make_bomb_png,
    make_exif,
    make_flat_jpeg,
    make_flat_png,
    make_flat_webp,
    make_jpeg,
    make_lying_jpeg,
    make_other,
    make_photo_like_jpeg,
    make_png,
    make_scanned_page_jpeg,
    make_webp,
    make_zip,
    marked_image,
    noisy_image,
)
from PIL import Image, ImageCms, ImageFile

from inspection.media import photos
from inspection.media.photos import (
    MIB,
    PhotoLimits,
    PhotoRejected,
    parse_exif_time,
    parse_gps,
    process_photo,
    render_message,
    sniff_mime,
)

LIMITS = PhotoLimits()
BUENOS_AIRES = (-34.6037, -58.3816)
ART = timezone(timedelta(hours=-3))


def opened(data: bytes) -> Image.Image:
    """Decode JPEG bytes produced by process_photo."""
    im = Image.open(io.BytesIO(data))
    im.load()
    return im


def rejected(data: bytes, limits: PhotoLimits = LIMITS, **kwargs) -> PhotoRejected:
    """The PhotoRejected raised for ``data``."""
    with pytest.raises(PhotoRejected) as info:
        process_photo(data, limits, **kwargs)
    return info.value


def assert_no_metadata(im: Image.Image) -> None:
    """No EXIF, GPS, XMP or comment survives in an output JPEG."""
    assert not im.getexif()
    assert not im.getexif().get_ifd(0x8825)
    assert not {"exif", "xmp", "comment", "XML:com.adobe.xmp"} & set(im.info)


# --- accepted photos ------------------------------------------------------------------------

def test_exif_orientation_gps_and_time_are_read_and_stripped():
    data = make_jpeg((640, 480), exif=make_exif(6, "2024:05:17 14:30:00", "-03:00",
                                                BUENOS_AIRES), comment=b"serial 1234",
                     xmp=b"<x:xmpmeta><exif:GPSLatitude>34,36S</exif:GPSLatitude></x:xmpmeta>")
    photo = process_photo(data, LIMITS)

    assert (photo.width, photo.height) == (480, 640)
    assert photo.original == data
    assert photo.sha256 == hashlib.sha256(data).hexdigest()
    assert photo.mime == "image/jpeg"
    assert photo.taken_at == datetime(2024, 5, 17, 17, 30, tzinfo=timezone.utc)
    assert photo.latitude == pytest.approx(BUENOS_AIRES[0], abs=1e-5)
    assert photo.longitude == pytest.approx(BUENOS_AIRES[1], abs=1e-5)
    display, thumb = opened(photo.display), opened(photo.thumb)
    assert display.size == (480, 640)
    # Orientation 6 turns the stored top edge (the red band) to the right-hand side.
    assert display.getpixel((470, 320))[0] > 200 > display.getpixel((10, 320))[0]
    assert thumb.size == (240, 320)
    for im in (display, thumb):
        assert im.format == "JPEG"
        assert_no_metadata(im)
    for marker in (b"Exif", b"serial 1234", b"xmpmeta", b"GPS"):
        assert marker not in photo.display and marker not in photo.thumb


@pytest.mark.parametrize("orientation, size", [
    (1, (640, 480)), (2, (640, 480)), (3, (640, 480)), (4, (640, 480)),
    (5, (480, 640)), (6, (480, 640)), (7, (480, 640)), (8, (480, 640)),
])
def test_every_orientation_gives_upright_dimensions(orientation, size):
    photo = process_photo(make_jpeg((640, 480), exif=make_exif(orientation)), LIMITS)
    assert (photo.width, photo.height) == size
    assert opened(photo.display).size == size


@pytest.mark.parametrize("stored, upright, display, thumb", [
    ((3200, 2400), (3200, 2400), (1600, 1200), (320, 240)),
    ((3200, 2400), (2400, 3200), (1200, 1600), (240, 320)),  # orientation 6, via the draft
    ((1000, 400), (1000, 400), (1000, 400), (320, 128)),  # never upscaled
])
def test_large_photos_are_scaled_to_the_limits(stored, upright, display, thumb):
    exif = make_exif(6 if upright != stored else 1)
    photo = process_photo(make_jpeg(stored, exif=exif), LIMITS)
    assert (photo.width, photo.height) == upright
    assert opened(photo.display).size == display
    assert opened(photo.thumb).size == thumb


def test_jpeg_decoder_scales_down_with_an_aspect_ratio_box(monkeypatch):
    from PIL import JpegImagePlugin

    calls = []

    original = JpegImagePlugin.JpegImageFile.draft

    def spy(self, mode, size):
        result = original(self, mode, size)
        calls.append((mode, size, self.size))
        return result

    monkeypatch.setattr(JpegImagePlugin.JpegImageFile, "draft", spy)
    process_photo(make_jpeg((4000, 3000), quality=50), LIMITS)
    # Later calls (thumbnail's own draft) are no-ops once the decoder is configured.
    assert calls[0] == ("RGB", (1600, 1200), (2000, 1500))


@pytest.mark.parametrize("data, mime", [
    (make_png(mode="RGB"), "image/png"),
    (make_png(mode="RGBA"), "image/png"),
    (make_png(mode="LA"), "image/png"),
    (make_png(mode="P"), "image/png"),
    (make_png(mode="L"), "image/png"),
    (make_png(mode="1"), "image/png"),
    (make_webp(), "image/webp"),
    (make_webp(lossless=True), "image/webp"),
    (encode(marked_image((640, 480), "RGBA"), "WEBP"), "image/webp"),
    (make_jpeg(), "image/jpeg"),
    (encode(marked_image((640, 480), "L"), "JPEG"), "image/jpeg"),
    (encode(marked_image((640, 480), "CMYK"), "JPEG"), "image/jpeg"),
])
def test_png_webp_and_jpeg_variants_are_accepted(data, mime):
    photo = process_photo(data, LIMITS)
    assert photo.mime == mime
    assert (photo.width, photo.height) == (640, 480)
    display = opened(photo.display)
    assert display.mode == "RGB" and display.size == (640, 480)
    assert_no_metadata(display)
    assert photo.taken_at is None and photo.latitude is None and photo.longitude is None


def test_transparency_is_flattened_on_white():
    im = Image.new("RGBA", (100, 100), (255, 0, 0, 0))
    photo = process_photo(encode(im, "PNG"), LIMITS)
    assert opened(photo.display).getpixel((50, 50)) == (255, 255, 255)


def test_png_exif_chunk_is_read():
    data = make_png(exif=make_exif(8, "2024:01:02 03:04:05", "+00:00", (10.5, 20.25)))
    photo = process_photo(data, LIMITS)
    assert (photo.width, photo.height) == (480, 640)
    assert photo.taken_at == datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    assert (photo.latitude, photo.longitude) == pytest.approx((10.5, 20.25), abs=1e-5)


def test_icc_colour_profile_is_the_only_ancillary_data_kept():
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    photo = process_photo(make_jpeg(icc_profile=icc, exif=make_exif(1, gps=(1.0, 2.0))), LIMITS)
    display = opened(photo.display)
    assert display.info.get("icc_profile") == icc
    assert_no_metadata(display)


def test_same_bytes_give_the_same_result():
    data = make_jpeg(exif=make_exif(3))
    first, second = process_photo(data, LIMITS), process_photo(bytes(data), LIMITS)
    assert first.sha256 == second.sha256 == hashlib.sha256(data).hexdigest()
    assert (first.display, first.thumb) == (second.display, second.thumb)
    assert process_photo(make_jpeg(exif=make_exif(1)), LIMITS).sha256 != first.sha256


def test_repr_does_not_dump_bytes():
    assert "original" not in repr(process_photo(make_jpeg(), LIMITS))


# --- the tablet's own JPEG ------------------------------------------------------------------

def tablet_jpeg(size=(2048, 1536), **params) -> bytes:
    """A JPEG as the tablet's canvas writes it: a JFIF header and the pixels, nothing else."""
    return make_jpeg(size, quality=70, **params)


@pytest.mark.parametrize("size, thumb", [((2048, 1536), (320, 240)), ((1536, 2048), (240, 320)),
                                         ((800, 600), (320, 240))])
@pytest.mark.parametrize("progressive", [False, True], ids=["baseline", "progressive"])
def test_a_bare_tablet_jpeg_is_its_own_display_copy(size, thumb, progressive):
    data = tablet_jpeg(size, progressive=progressive)
    photo = process_photo(data, LIMITS)
    assert photo.kept_as_display and photo.display == data
    assert (photo.width, photo.height) == size
    small = opened(photo.thumb)
    assert small.size == thumb
    # The red band stays along the top edge: the thumb is upright.
    assert small.getpixel((thumb[0] // 2, 2))[0] > 200 > small.getpixel((thumb[0] // 2, thumb[1] - 3))[0]
    assert_no_metadata(small)


def test_a_colour_profile_is_no_reason_to_re_encode():
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    data = tablet_jpeg(icc_profile=icc)
    photo = process_photo(data, LIMITS)
    assert photo.kept_as_display and photo.display == data
    assert opened(photo.thumb).info.get("icc_profile") == icc


@pytest.mark.parametrize("data", [
    tablet_jpeg(exif=make_exif(1, "2024:05:17 14:30:00", "-03:00", BUENOS_AIRES)),
    tablet_jpeg(comment=b"serial 1234"),
    tablet_jpeg(xmp=b"<x:xmpmeta><exif:GPSLatitude>34,36S</exif:GPSLatitude></x:xmpmeta>"),
    tablet_jpeg() + b"\0" * 64,
    tablet_jpeg((2560, 1920)),
    encode(marked_image((2048, 1536), "CMYK"), "JPEG"),
    encode(marked_image((2048, 1536), "L"), "JPEG"),
], ids=["exif-gps", "comment", "xmp", "trailing-bytes", "larger-than-a-tablet-sends", "cmyk", "grey"])
def test_any_other_jpeg_is_re_encoded_without_metadata(data):
    photo = process_photo(data, LIMITS)
    assert not photo.kept_as_display and photo.display != data
    display = opened(photo.display)
    assert display.mode == "RGB" and max(display.size) <= LIMITS.display_px
    assert_no_metadata(display)
    for marker in (b"Exif", b"serial 1234", b"xmpmeta", b"GPS"):
        assert marker not in photo.display and marker not in photo.thumb


def test_the_thumb_of_a_kept_jpeg_comes_from_a_quarter_scale_decode(monkeypatch):
    from PIL import JpegImagePlugin

    calls, original = [], JpegImagePlugin.JpegImageFile.draft

    def spy(self, mode, size):
        result = original(self, mode, size)
        calls.append((mode, size, self.size))
        return result

    monkeypatch.setattr(JpegImagePlugin.JpegImageFile, "draft", spy)
    process_photo(tablet_jpeg(), LIMITS)
    assert calls[0] == ("RGB", (320, 240), (512, 384))  # libjpeg decodes 1/16 of the pixels


def test_a_digest_computed_on_arrival_is_not_computed_again(monkeypatch):
    data = tablet_jpeg()
    digest, real, hashed = hashlib.sha256(data).hexdigest(), hashlib.sha256, []

    def counting(*args):
        hashed.append(len(args[0]) if args else 0)
        return real(*args)

    monkeypatch.setattr(photos.hashlib, "sha256", counting)
    assert process_photo(data, LIMITS, sha256=digest).sha256 == digest
    assert hashed == []
    assert process_photo(data, LIMITS).sha256 == digest and hashed == [len(data)]


# --- capture time and position ------------------------------------------------------------

@pytest.mark.parametrize("value, offset, camera_tz, expected", [
    ("2024:05:17 14:30:00", "-03:00", None, datetime(2024, 5, 17, 17, 30, tzinfo=timezone.utc)),
    (b"2024:05:17 14:30:00\x00", b"+02:00", None,
     datetime(2024, 5, 17, 12, 30, tzinfo=timezone.utc)),
    ("2024:05:17 14:30:00", None, None, None),  # naive and no camera zone: no guess
    ("2024:05:17 14:30:00", None, ART, datetime(2024, 5, 17, 17, 30, tzinfo=timezone.utc)),
    ("2024:05:17 14:30:00", "+02:00", ART, datetime(2024, 5, 17, 12, 30, tzinfo=timezone.utc)),
    ("2024:05:17 14:30:00", "garbage", ART, datetime(2024, 5, 17, 17, 30, tzinfo=timezone.utc)),
    ("2024:05:17 14:30:00", "+15:00", None, None),
    ("0000:00:00 00:00:00", "+00:00", None, None),
    ("    :  :     :  :  ", "+00:00", None, None),
    ("2024:02:30 10:00:00", "+00:00", None, None),
    (None, "+00:00", ART, None),
])
def test_exif_time_rule(value, offset, camera_tz, expected):
    assert parse_exif_time(value, offset, camera_tz) == expected


def test_naive_exif_time_uses_the_camera_zone_when_given():
    data = make_jpeg(exif=make_exif(1, "2024:05:17 14:30:00"))
    assert process_photo(data, LIMITS).taken_at is None
    taken = process_photo(data, LIMITS, camera_tz=ART).taken_at
    assert taken == datetime(2024, 5, 17, 17, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize("gps, expected", [
    (gps_ifd(-34.6037, -58.3816), (-34.6037, -58.3816)),
    (gps_ifd(51.5, 0.25), (51.5, 0.25)),
    ({2: (34.0, 36.0, 13.3), 4: (58.0, 22.0, 53.8)}, (None, None)),  # no hemisphere
    ({1: "S", 2: (95.0, 0.0, 0.0), 3: "W", 4: (58.0, 0.0, 0.0)}, (None, None)),
    ({1: "N", 2: (0.0, 0.0, 0.0), 3: "E", 4: (0.0, 0.0, 0.0)}, (None, None)),  # null island
    ({1: "N", 2: "junk", 3: "E", 4: (1.0, 2.0, 3.0)}, (None, None)),
    ({}, (None, None)),
])
def test_gps_rule(gps, expected):
    lat, lon = parse_gps(gps)
    if expected[0] is None:
        assert (lat, lon) == expected
    else:
        assert (lat, lon) == pytest.approx(expected, abs=1e-5)


# --- rejections -------------------------------------------------------------------------

def _truncated_png() -> bytes:
    data = make_png()
    return data[:-6]  # IEND cut: Pillow alone would accept this


PDF = b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF\n"
HTML = b"<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>"


@pytest.mark.parametrize("data, code", [
    (b"", "empty"),
    (b"just some text, not a photo\n", "not_an_image"),
    (PDF, "not_an_image"),
    (HTML, "not_an_image"),
    (make_other("GIF"), "unsupported_format"),
    (make_other("BMP"), "unsupported_format"),
    (make_other("TIFF"), "unsupported_format"),
    (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", "unsupported_format"),
    (make_jpeg()[:-500], "truncated"),
    (make_jpeg()[:300], "truncated"),
    (_truncated_png(), "truncated"),
    (make_png()[:len(make_png()) // 2], "truncated"),
    (make_webp()[:-40], "truncated"),
    (make_jpeg() + make_zip(), "mismatched_content"),
    (make_png() + make_zip(), "mismatched_content"),
    (make_webp() + make_zip(), "mismatched_content"),
    (make_jpeg() + PDF, "mismatched_content"),
    (make_jpeg() + HTML, "mismatched_content"),
    (make_jpeg() + b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00isommp42", "mismatched_content"),
    (b"\xff\xd8\xff\xe0" + HTML, "mismatched_content"),
    (b"\xff\xd8\xff" + HTML, "mismatched_content"),
    (b"\x89PNG\r\n\x1a\n" + HTML, "mismatched_content"),
    (make_jpeg(comment=PDF), "mismatched_content"),  # a PDF reader would open this
])
def test_rejections(data, code):
    error = rejected(data)
    assert error.code == code
    for lang in ("es", "en"):
        assert error.messages(lang)


def test_oversized_bytes_are_refused_before_any_parsing(monkeypatch):
    monkeypatch.setattr(photos, "sniff_mime", _fail)
    monkeypatch.setattr(Image, "open", _fail)
    error = rejected(b"\xff\xd8\xff" + b"\x00" * int(18.2 * MIB))
    assert error.code == "too_large"
    assert error.params == {"size_bytes": int(18.2 * MIB) + 3, "max_bytes": 15 * MIB}
    assert error.messages() == ("La foto pesa 18,2 MB; el máximo es 15 MB. "
                                "Reduzca la resolución y vuelva a enviarla.")
    assert error.messages("en") == ("The photo is 18.2 MB; the maximum is 15 MB. "
                                    "Reduce the resolution and send it again.")


def _fail(*args, **kwargs):
    raise AssertionError("must not be called")


def test_decompression_bomb_is_refused_from_the_header_without_decoding(monkeypatch):
    bomb = make_bomb_png(20000, 20000)
    assert len(bomb) < 100_000
    monkeypatch.setattr(Image, "open", _fail)
    error = rejected(bomb)
    assert error.code == "decompression_bomb"
    assert error.params["pixels"] == 400_000_000
    assert "400 megapíxeles" in error.messages() and "40 megapíxeles" in error.messages()


def test_too_many_pixels_for_a_real_photo():
    data = encode(noisy_image((400, 300)), "JPEG", quality=90)
    error = rejected(data, PhotoLimits(max_pixels=100_000))
    assert error.code == "too_many_pixels"
    assert error.params["width"] == 400 and error.params["height"] == 300
    assert "400 × 300" in error.messages() and "0,1 megapíxeles" in error.messages()


def test_small_bomb_within_our_limit_but_over_pillows_is_still_refused(monkeypatch):
    """Pillow's own guard stays a backstop: its error maps to decompression_bomb."""
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    assert rejected(make_bomb_png(100, 100)).code == "decompression_bomb"


# --- decode cost: issue 8, defect 7 (8 parallel 90 kB 6000 x 6600 16-bit PNGs took 3 GB) ---------

@pytest.mark.parametrize("data", [
    make_flat_png(6000, 6600, depth=16, colour=0),  # the upload: 40 MP of 16-bit grey
    make_flat_png(6000, 6600, depth=16, colour=6),  # 16-bit RGBA
    make_flat_png(640, 480, depth=16, colour=2),  # small 16-bit RGB
    make_png(mode="I;16"),
], ids=["grey16-40MP", "rgba16-40MP", "rgb16-small", "I;16-small"])
def test_high_bit_depth_png_is_refused_from_the_header(monkeypatch, data):
    monkeypatch.setattr(Image, "open", _fail)
    error = rejected(data)
    assert error.code == "high_bit_depth" and error.params == {"format": "PNG", "depth": 16}
    assert error.messages() == ("La foto PNG tiene 16 bits por canal; solo se admiten fotos de "
                                "8 bits. Envíela como JPEG o como PNG de 8 bits.")
    assert error.messages("en").startswith("The PNG photo has 16 bits per channel")


@pytest.mark.parametrize("data", [
    make_flat_png(6000, 6600, depth=8, colour=0),
    make_flat_png(6000, 6600, depth=8, colour=2),
    make_flat_png(6000, 6600, depth=8, colour=3),
    make_flat_png(6000, 6600, depth=8, colour=6),
    make_flat_webp(3000, 3000),
], ids=["grey", "rgb", "palette", "rgba", "webp"])
def test_flat_image_inside_the_pixel_limit_is_refused_without_decoding(monkeypatch, data):
    """Within 40 MP, a PNG or WebP that expands over BOMB_RATIO is no photo: no pixel is decoded."""
    monkeypatch.setattr(Image, "open", _fail)
    error = rejected(data)
    assert error.code == "implausible_compression"
    assert error.params["pixels"] <= LIMITS.max_pixels and error.params["size_bytes"] == len(data)
    assert "pero pesa solo" in error.messages() and "megapíxeles" in error.messages()
    assert "but weighs only" in error.messages("en")


def test_small_flat_images_and_flat_jpegs_are_still_accepted():
    """The ratio rule spares what is cheap anyway: small drawings, and JPEGs (drafted)."""
    flat = Image.new("RGB", (2800, 2800), "white")  # 7.8 MP, under RATIO_FLOOR_PIXELS
    assert process_photo(encode(flat, "PNG"), LIMITS).width == 2800
    assert process_photo(encode(flat, "JPEG", progressive=True), LIMITS).width == 2800


# --- a header that claims more than the file carries (issue 19: a 5 kB JPEG claiming 6000 x 6600) ----

@pytest.mark.parametrize("width, height", [(6000, 6600), (2000, 2000)], ids=["40MP", "4MP"])
def test_a_jpeg_claiming_more_pixels_than_its_bytes_carry_is_refused_without_decoding(monkeypatch, width, height):
    """libjpeg would pad the missing pixels out in grey and the photo would pass as evidence: refused from the
    header, below the floor that spares small flat PNGs too."""
    data = make_lying_jpeg(width, height)
    layout = photos._jpeg_layout(data)
    assert len(data) < 6_000 and (layout.width, layout.height) == (width, height)
    monkeypatch.setattr(Image, "open", _fail)
    error = rejected(data)
    assert error.code == "implausible_compression"
    assert error.params == {"width": width, "height": height, "pixels": width * height, "size_bytes": len(data)}
    assert error.messages().startswith(f"El archivo declara {width} × {height} píxeles")
    assert "no es una foto real y se rechazó sin abrirlo" in error.messages()
    assert f"but weighs only {len(data) / 1024:.1f} kB" in error.messages("en")


@pytest.mark.parametrize("build", [
    lambda: make_photo_like_jpeg(),  # a sky with sensor noise, 12 MP: ~36 px/byte
    lambda: make_photo_like_jpeg(sigma=2, quality=95),
    lambda: make_photo_like_jpeg(top=(8, 8, 8), bottom=(8, 8, 8)),  # at night: ~39
    lambda: make_photo_like_jpeg(top=(235, 235, 235), bottom=(235, 235, 235), quality=55),  # a white wall: ~64
    make_scanned_page_jpeg,  # ~29
    lambda: make_flat_jpeg(6000, 6600),  # one colour, baseline: 64, the most any baseline JPEG holds
    lambda: make_flat_jpeg(6000, 6600, progressive=True),  # one colour, progressive: ~170
], ids=["sky", "sky-q95", "night", "white-wall-q55", "scanned-page", "flat-40MP", "flat-progressive-40MP"])
def test_compressible_but_real_jpegs_are_accepted(build):
    data = build()
    layout = photos._jpeg_layout(data)
    assert layout.width * layout.height <= photos.JPEG_PIXELS_PER_BYTE * len(data)
    assert process_photo(data, LIMITS).width == layout.width


def test_pillows_bomb_warning_made_an_error_is_a_refusal_not_a_crash(monkeypatch):
    """A process run with warnings as errors (python -W error) turns Pillow's DecompressionBombWarning into an
    exception: it is a refusal too."""
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 200_000)  # 640 x 480 is over it, under twice it
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        for data in (make_jpeg(), make_png()):
            assert rejected(data).code == "decompression_bomb"


NOISE = noisy_image((400, 400))
BUDGET = PhotoLimits(max_decode_bytes=int(1.5 * MIB))  # 160k px: 1.28 MB as a baseline JPEG


@pytest.mark.parametrize("data, accepted", [
    (encode(NOISE, "JPEG", quality=90), True),  # 8 B/px
    (encode(NOISE, "PNG"), True),  # RGB, 6 B/px
    (encode(NOISE.convert("RGBA"), "PNG"), False),  # 13 B/px
    (encode(NOISE, "WEBP", quality=90), False),  # 16 B/px
    (encode(NOISE, "JPEG", quality=90, progressive=True), False),  # 8 B/px + coefficients
], ids=["jpeg", "png-rgb", "png-rgba", "webp", "jpeg-progressive"])
def test_decode_budget_is_checked_per_format_before_decoding(monkeypatch, data, accepted):
    monkeypatch.setattr(photos, "_decode", _fail)
    if accepted:
        with pytest.raises(AssertionError, match="must not be called"):
            process_photo(data, BUDGET)
        return
    error = rejected(data, BUDGET)
    assert error.code == "over_decode_budget"
    assert error.params["decode_bytes"] > BUDGET.max_decode_bytes
    assert error.params["budget_pixels"] < 160_000
    assert "de memoria; el máximo es 1,5 MB" in error.messages()
    assert "Send it as JPEG" in error.messages("en")


def test_decode_cost_counts_a_jpeg_at_its_drafted_size():
    """A 40 MP baseline JPEG decodes at 1/4 scale; a progressive one also buffers coefficients."""
    layout = photos._Layout(6000, 6600, 0)
    assert photos.decode_cost("image/jpeg", layout, (1500, 1650)) == 1500 * 1650 * 8
    progressive = photos._jpeg_layout(encode(Image.new("RGB", (64, 48)), "JPEG", progressive=True))
    assert progressive.coefficients == 64 * 48 + 2 * 32 * 24  # 4:2:0: chroma at half size
    assert photos.decode_cost("image/png", photos._png_layout(make_png(mode="RGBA")),
                              (640, 480)) == 640 * 480 * 13


def test_truncated_jpeg_is_refused_even_if_pillow_is_told_to_accept_it(monkeypatch):
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)
    assert rejected(make_jpeg()[:-500]).code == "truncated"
    assert rejected(_truncated_png()).code == "truncated"


def test_processing_leaves_pillow_and_warnings_state_alone():
    before = (Image.MAX_IMAGE_PIXELS, ImageFile.LOAD_TRUNCATED_IMAGES, list(warnings.filters))
    process_photo(make_jpeg(), LIMITS)
    for data in (make_bomb_png(), make_jpeg()[:-500], b"junk"):
        rejected(data)
    assert (Image.MAX_IMAGE_PIXELS, ImageFile.LOAD_TRUNCATED_IMAGES,
            list(warnings.filters)) == before


@pytest.mark.parametrize("declared, code", [
    ("image/png", "mismatched_content"),
    ("text/html", "mismatched_content"),
    ("image/jpeg", None),
    ("image/jpg", None),
    ("IMAGE/JPEG; charset=binary", None),
    ("application/octet-stream", None),
    (None, None),
])
def test_declared_type_must_match_the_magic_bytes(declared, code):
    if code is None:
        assert process_photo(make_jpeg(), LIMITS, declared_mime=declared).mime == "image/jpeg"
    else:
        error = rejected(make_jpeg(), declared_mime=declared)
        assert error.code == code and error.params["declared"] == declared


@pytest.mark.parametrize("trailer", [
    b"\x00" * 4096,  # padding
    b"\xff\xff\r\n",
    make_jpeg((160, 120)),  # a second picture, as MPF / Ultra HDR gain maps append
    b"\x00\x00" + make_jpeg((160, 120)) + make_jpeg((80, 60)),
    b"SEFH\x00\x00Image_UTC_Data1715967000000SEFT",  # Samsung timestamp trailer
])
def test_harmless_trailing_data_is_accepted(trailer):
    data = make_jpeg() + trailer
    assert process_photo(data, LIMITS).original == data


@pytest.mark.parametrize("trailer, found", [
    (make_zip(), "ZIP"),
    (make_jpeg((160, 120)) + make_zip(), "ZIP"),  # hidden behind a second picture
    (PDF, "PDF"),
    (HTML, "HTML/XML"),
    (b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>", "HTML/XML"),
    (b"\x1f\x8b\x08\x00" + b"\x00" * 20, "gzip"),
    (b"\x7fELF\x02\x01\x01", "ELF/EXE"),
])
def test_polyglots_name_what_they_carry(trailer, found):
    error = rejected(make_jpeg() + trailer)
    assert (error.code, error.params["found"]) == ("mismatched_content", found)
    assert found in error.messages()


# --- messages, limits and sniffing ----------------------------------------------------------

@pytest.mark.parametrize("code, params, lang, expected", [
    ("too_large", {"size_bytes": int(18.2 * MIB), "max_bytes": 15 * MIB}, "es",
     "La foto pesa 18,2 MB; el máximo es 15 MB. Reduzca la resolución y vuelva a enviarla."),
    ("too_large", {"size_bytes": int(18.2 * MIB), "max_bytes": 15 * MIB}, "en-GB",
     "The photo is 18.2 MB; the maximum is 15 MB. Reduce the resolution and send it again."),
    ("empty", {}, "es",
     "El archivo de la foto está vacío (0 bytes). Vuelva a tomarla o a adjuntarla."),
    ("not_an_image", {}, "fr", "El archivo no es una imagen. Envíe una foto JPEG, PNG o WebP."),
    ("mismatched_content", {"format": "JPEG", "found": "MP4/MOV"}, "es",
     "La foto JPEG lleva un vídeo adjunto (MP4/MOV), como las «fotos en movimiento». "
     "Desactive esa opción de la cámara y vuelva a tomar la foto."),
])
def test_messages(code, params, lang, expected):
    assert render_message(code, params, lang) == expected
    assert PhotoRejected(code, params).messages(lang) == expected


def test_every_code_has_spanish_and_english_messages():
    codes = {"empty", "too_large", "too_many_pixels", "decompression_bomb", "not_an_image",
             "unsupported_format", "truncated", "mismatched_content", "high_bit_depth",
             "implausible_compression", "over_decode_budget"}
    params = {"size_bytes": 1, "max_bytes": 2, "width": 3, "height": 4, "pixels": 12,
              "max_pixels": 10, "format": "JPEG", "depth": 16, "decode_bytes": 5,
              "max_decode_bytes": 4, "budget_pixels": 3}
    for code in codes:
        es, en = render_message(code, params, "es"), render_message(code, params, "en")
        assert es != en and "{" not in es + en


def test_limits_are_published_and_validated():
    assert LIMITS.as_dict() == {
        "max_bytes": 15 * MIB, "max_pixels": 40_000_000, "max_decode_bytes": 256 * MIB,
        "display_px": 1600, "thumb_px": 320,
        "jpeg_quality": 82, "upload_chunk_bytes": MIB, "upload_px": 2048, "upload_quality": 70,
        "mimes": ["image/jpeg", "image/png", "image/webp"],
    }
    with pytest.raises(ValueError):
        PhotoLimits(thumb_px=2000)
    with pytest.raises(ValueError):
        PhotoLimits(upload_px=200)
    with pytest.raises(ValueError):
        PhotoLimits(upload_quality=0)
    with pytest.raises(ValueError):
        PhotoLimits(max_bytes=0)
    with pytest.raises(ValueError):
        PhotoLimits(upload_chunk_bytes=0)
    with pytest.raises(AttributeError):
        LIMITS.max_bytes = 1


@pytest.mark.parametrize("data, mime", [
    (make_jpeg(), "image/jpeg"),
    (make_png(), "image/png"),
    (make_webp(), "image/webp"),
    (make_other("GIF"), "image/gif"),
    (make_other("BMP"), "image/bmp"),
    (make_other("TIFF"), "image/tiff"),
    (b"\x00\x00\x00\x1cftypavif", "image/avif"),
    (b"\x00\x00\x00\x1cftypisom", None),  # an MP4 video
    (b"BM is not a bitmap header", None),
    (PDF, None),
    (b"", None),
])
def test_sniff_mime(data, mime):
    assert sniff_mime(data) == mime


@pytest.mark.parametrize("size, box", [
    ((4000, 3000), (1600, 1200)),
    ((3000, 4000), (1200, 1600)),
    ((4032, 1816), (1600, 720)),
    ((800, 600), (800, 600)),
])
def test_draft_box_keeps_the_aspect_ratio(size, box):
    assert photos._draft_box(*size, 1600) == box
