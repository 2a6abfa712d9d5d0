"""The inspector's tablet: the resumable photo upload protocol (a photo's bytes are never sent twice on a weak link),
its API, and the offline app's pages (agenda and inspection shells the device fills from its store).
"""
from inspection.tablet.uploads import append_bytes, finish_upload, open_upload

__all__ = ["open_upload", "append_bytes", "finish_upload"]
