"""The installation's media storage and photo limits, from configuration."""
from flask import current_app

from .photos import PhotoLimits
from .storage import LocalStorage, MediaStorage


def media_storage() -> MediaStorage:
    """The configured storage (a local directory, BALIZA_MEDIA_DIR)."""
    storage = current_app.extensions.get("baliza.media")
    if storage is None:
        storage = current_app.extensions["baliza.media"] = LocalStorage(current_app.config["MEDIA_DIR"])
    return storage


def photo_limits() -> PhotoLimits:
    """The published upload limits (bytes and pixels)."""
    return PhotoLimits(max_bytes=current_app.config["PHOTO_MAX_BYTES"],
                       max_pixels=current_app.config["PHOTO_MAX_PIXELS"])
