"""The installation's media storage and photo limits, from configuration; uploads checked against them."""
from datetime import timedelta

from flask import Response, current_app, request
from werkzeug.wsgi import wrap_file

from inspection.core.clock import office_zone
from inspection.core.exceptions import DomainError, TooLarge
from inspection.i18n.messages import Localized, Msg
from inspection.media.places import PlaceRules
from inspection.media.photos import PhotoLimits, PhotoRejected, process_photo
from inspection.media.storage import LocalStorage, MediaStorage
from inspection.media.storage_s3 import parse_media_url


def check_media_config(config) -> None:
    """Refuse a malformed BALIZA_MEDIA_URL (BadMediaUrl says what is wrong) or photo flag setting at start, not
    on the first photo."""
    if config["MEDIA_URL"]:
        parse_media_url(config["MEDIA_URL"])
    for name in ("PHOTO_FAR_FROM_PORT_KM", "PHOTO_TIME_TOLERANCE_MINUTES"):
        value = config[name]
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 100_000:
            raise ValueError(f"BALIZA_{name} must be a number of {name.rsplit('_', 1)[-1].lower()} from 0, got {value!r}")


def media_storage() -> MediaStorage:
    """The configured storage, made once per app: a bucket (BALIZA_MEDIA_URL) or a local directory (BALIZA_MEDIA_DIR)."""
    storage = current_app.extensions.get("baliza.media")
    if storage is None:
        storage = current_app.extensions["baliza.media"] = storage_from_config(current_app.config)
    return storage


def storage_from_config(config) -> MediaStorage:
    """S3Storage when MEDIA_URL is set (boto3 reads the AWS_* credentials), else LocalStorage(MEDIA_DIR)."""
    if config.get("MEDIA_URL"):
        from inspection.media.storage_s3 import S3Storage

        return S3Storage.from_url(config["MEDIA_URL"], config.get("S3_ENDPOINT_URL"))
    return LocalStorage(config["MEDIA_DIR"])


STREAM_CHUNK = 64 * 1024


def media_response(key: str, mimetype: str, etag: str) -> Response:
    """A stored photo or signature, streamed through the app in 64 KiB chunks with its length and content ETag.

    Streamed rather than redirected to a presigned URL: authorization stays in the app for every
    byte (a leaked link grants nothing), the bucket stays private and need not be reachable by
    tablets and browsers, and the headers (type, immutable private caching, nosniff) are ours.
    A 15 MB original holds one worker while it streams; display copies and thumbnails are small.
    A client that already holds this ETag gets a 304 without the store being read.
    """
    if request.if_none_match.contains(etag):
        response = Response(status=304)
    else:
        stored = media_storage().open_stream(key)
        response = Response(wrap_file(request.environ, stored.stream, STREAM_CHUNK), mimetype=mimetype,
                            direct_passthrough=True)
        response.content_length = stored.size
    response.headers["Cache-Control"] = "private, max-age=86400, immutable"
    response.set_etag(etag)
    return response


def photo_limits() -> PhotoLimits:
    """The published upload limits (bytes and pixels) and a resumable upload's suggested bytes per PATCH."""
    return PhotoLimits(max_bytes=current_app.config["PHOTO_MAX_BYTES"],
                       max_pixels=current_app.config["PHOTO_MAX_PIXELS"],
                       upload_chunk_bytes=current_app.config["PHOTO_UPLOAD_CHUNK_BYTES"])


def place_rules() -> PlaceRules:
    """The configured flag settings: far from the port (km), and the clock's tolerance (minutes)."""
    return PlaceRules(far_from_port_m=float(current_app.config["PHOTO_FAR_FROM_PORT_KM"]) * 1000,
                      time_tolerance=timedelta(minutes=float(current_app.config["PHOTO_TIME_TOLERANCE_MINUTES"])))


REJECTION_STATUS = {"too_large": 413, "too_many_pixels": 413, "decompression_bomb": 413,
                    "not_an_image": 415, "unsupported_format": 415}


class PhotoRefused(DomainError):
    """A photo the server will not keep, with the published limits so the tablet can downscale."""

    code, title = "photo-rejected", Msg("Foto rechazada")


def process_upload(data: bytes, limits, sha256: str | None = None):
    """process_photo with a refusal raised as a DomainError (413/415/422) naming the limits (API and pages).

    A camera time without an offset is read on the office's clock, to which the authority's tablets are set;
    ``sha256`` is the digest computed where the bytes arrived, passed on so nothing hashes them again.
    """
    try:
        return process_photo(data, limits, camera_tz=office_zone(), sha256=sha256)
    except PhotoRejected as error:
        raise refusal(error, limits) from None


def refuse_oversize(size: int, limits) -> None:
    """The 413 process_upload would give, for a photo announced at `size` bytes before any byte is sent."""
    if size > limits.max_bytes:
        raise refusal(PhotoRejected("too_large", {"size_bytes": size, "max_bytes": limits.max_bytes}), limits)


def refusal(error: PhotoRejected, limits) -> DomainError:
    """A PhotoRejected as the DomainError the API and pages answer, with its status and the limits."""
    error_cls = TooLarge if REJECTION_STATUS.get(error.code) == 413 else PhotoRefused
    refused = error_cls(Localized({"es": error.messages("es"), "en": error.messages("en")}),
                        extra={"reason": error.code, "limits": limits.as_dict()})
    refused.status = REJECTION_STATUS.get(error.code, 422)
    return refused
