"""Request size limits: the URL's length, and the body per route (small for JSON and forms, more for sync and photos).

A URL (path and query) longer than `URL_MAX_BYTES` is refused here with 414, in the app's problem shape,
so an API client never meets the server's own HTML page: gunicorn.conf.py lets request lines through up
to gunicorn's hard 1 MB cap for exactly this. No page or API link of ours comes near the limit (the
longest, a filtered list with every filter set, is a few hundred bytes).

`MAX_CONTENT_LENGTH` stays the ceiling for anything unnamed here; every request gets its own
`request.max_content_length` (Flask 3.1) before any hook reads the body (CSRF, argument parsing),
so an oversized body is refused with 413 before a byte of it is parsed or stored.

Sizes: a page form or a JSON write is a few kB, so `BODY_MAX_BYTES` (1 MB) is generous. A sync
batch holds up to 1000 answers (schemas.SyncInSchema), each with a note of up to 2000 characters and
up to 20 photo hashes; bench/sync.py's whole inspection (200 answers) is about 60 kB, and the schema's
largest batch about 3.7 MB, so `SYNC_MAX_BYTES` is 4 MB. The closing submit carries two drawn
signatures of up to 300 kB each as base64 data URLs (about 800 kB), so it takes the sync limit too.
Photo uploads (multipart) and resumable PATCH chunks take `PHOTO_MAX_BYTES` plus the multipart
envelope (`MULTIPART_OVERHEAD_BYTES`).
"""
from flask import abort, current_app, request

SYNC_ENDPOINTS = frozenset({"api_inspections.post_sync", "api_inspections.post_submit"})
PHOTO_ENDPOINTS = frozenset({
    "api_inspections.post_photo",
    "api_inspections.post_repair_evidence",
    "api_uploads.patch_upload",
    "api_patrol.post_photo",
    "api_patrol.patch_upload",
    "inspections.deficiency_report_fixed",  # the report page's repair evidence form carries a photo
})
MULTIPART_OVERHEAD_BYTES = 64 * 1024  # the boundary, the part headers and the small form fields
URL_MAX_BYTES = 8190  # what gunicorn and nginx allow a request line by default, less the method and version


def body_limit(endpoint: str | None, config) -> int:
    """The largest body `endpoint` accepts, in bytes."""
    if endpoint in PHOTO_ENDPOINTS:
        return config["PHOTO_MAX_BYTES"] + MULTIPART_OVERHEAD_BYTES
    if endpoint in SYNC_ENDPOINTS:
        return config["SYNC_MAX_BYTES"]
    return config["BODY_MAX_BYTES"]


def limit_body():
    """before_request: refuse an over-long URL (414); set this route's body limit, never above MAX_CONTENT_LENGTH."""
    environ = request.environ
    if len(environ.get("PATH_INFO", "")) + len(environ.get("QUERY_STRING", "")) > URL_MAX_BYTES:
        abort(414)
    config = current_app.config
    ceiling = config.get("MAX_CONTENT_LENGTH")
    limit = body_limit(request.endpoint, config)
    request.max_content_length = min(limit, ceiling) if ceiling else limit


def init_body_limits(app) -> None:
    """Set the limit ahead of every other before_request hook (Flask-WTF's CSRF check reads the form)."""
    app.before_request_funcs.setdefault(None, []).insert(0, limit_body)
