"""Structured request logs: one JSON line per request on `baliza.request`, and a request id on every record.

The id comes from the load balancer's `X-Request-ID` when it is well formed, else a fresh uuid4; it
is echoed in the response and in 5xx problem bodies so a user can quote it, and a logging filter puts
it on every record logged while the request runs (an error's traceback carries it too).
Paths that carry a secret (the QR's token, a calendar feed's secret) are logged with it redacted,
and no query string is ever logged.
"""
import contextvars
import json
import logging
import re
import sys
import time
import uuid
from datetime import datetime, timezone

from flask import Flask, g, request, request_started
from sqlalchemy import inspect

request_log = logging.getLogger("baliza.request")
_request_id = contextvars.ContextVar("baliza_request_id", default=None)

_INCOMING_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")  # bounded and safe to echo and log
REDACTED = "[redacted]"
SECRET_ARGS = ("token", "secret")  # route arguments that are credentials
# Also by shape, for a request that matched no route (a 405 on /v/<token> still carries it).
_SECRET_PATHS = [(re.compile(r"^(/v/)[^/]+"), r"\1" + REDACTED),
                 (re.compile(r"^(/api/v1/verify/)[^/]+"), r"\1" + REDACTED),
                 (re.compile(r"^(/calendario/[^/]+/)[^/]+?(\.ics)?$"), r"\1" + REDACTED + r"\2")]


def current_request_id() -> str | None:
    """The id of the request being served, or None outside a request."""
    return _request_id.get()


def request_id_from(header: str | None) -> str:
    """The incoming X-Request-ID when well formed (bounded, safe characters), else a new uuid4 hex."""
    if header and _INCOMING_ID.match(header):
        return header
    return uuid.uuid4().hex


def redact_path(path: str, view_args: dict | None = None) -> str:
    """The path with every secret segment replaced by [redacted].

    A path that matched a route (`view_args`, even empty) carries its secrets as route arguments; only one
    that matched none is read by shape."""
    if view_args is None:
        for pattern, replacement in _SECRET_PATHS:
            path = pattern.sub(replacement, path)
        return path
    for name in SECRET_ARGS:
        value = view_args.get(name)
        if isinstance(value, str) and value:
            path = path.replace(value, REDACTED)
    return path


class RequestIdFilter(logging.Filter):
    """Put the current request's id on every record (`-` outside a request)."""

    def filter(self, record):
        if not hasattr(record, "request_id"):
            record.request_id = _request_id.get() or "-"
        return True


_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "request_id"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: timestamp (UTC ISO), level, logger, message, request_id, and any extra fields."""

    def format(self, record):
        entry = {"timestamp": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
                 "level": record.levelname, "logger": record.name, "message": record.getMessage(),
                 "request_id": getattr(record, "request_id", None) or _request_id.get()}
        entry.update({key: value for key, value in vars(record).items() if key not in _STANDARD})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


TEXT_FORMAT = "%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s"


def make_handler(log_format: str, stream=None) -> logging.Handler:
    """A stream handler (stderr by default) in `json` or `text`, carrying the request id."""
    if log_format not in ("json", "text"):
        raise ValueError(f"BALIZA_LOG_FORMAT must be json or text, not {log_format!r}")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    handler.addFilter(RequestIdFilter())
    handler.baliza = True
    return handler


def _install_handler(app: Flask) -> None:
    """One Baliza handler on the root logger (replacing an earlier app's), and Flask's own handler off."""
    from flask.logging import default_handler

    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "baliza", False)]:
        root.removeHandler(old)
    root.addHandler(make_handler(app.config["LOG_FORMAT"]))
    app.logger.removeHandler(default_handler)


def _user_id(environ: dict):
    """The caller's id if this request already looked it up (never a query just for the log).

    Read from the row's identity, not its attribute: after a rollback (a database outage answered
    503) the attribute is expired, and loading it would query the database that just went away.
    """
    user = environ.get("baliza.user") or g.get("_login_user")
    state = inspect(user, raiseerr=False) if user is not None else None
    return state.identity[0] if state is not None and state.identity else None


def register_request_log(app: Flask) -> None:
    """Request ids and the one log line per request, refusals by the earliest hooks included."""
    logging.getLogger("baliza").setLevel(logging.INFO)
    if not app.testing:  # tests read records through pytest's capture, and stay quiet
        _install_handler(app)

    def _start(_sender, **_extra):
        """On Flask's request_started: before every before_request hook, so a request refused by one (a 429, a
        414) carries its id and is logged like any other."""
        environ = request.environ
        environ["baliza.started"] = time.perf_counter()
        environ["baliza.request_id"] = request_id = request_id_from(environ.get("HTTP_X_REQUEST_ID"))
        environ["baliza.request_id_token"] = _request_id.set(request_id)

    request_started.connect(_start, app, weak=False)

    @app.after_request
    def _log(response):
        req = request._get_current_object()  # read once: every proxied attribute costs a context lookup
        environ = req.environ
        request_id = environ.get("baliza.request_id")
        if request_id is None:
            return response
        response.headers["X-Request-ID"] = request_id
        if request_log.isEnabledFor(logging.INFO):  # made by hand: logging's caller lookup was a third of the hook
            started = environ.get("baliza.started", time.perf_counter())
            method, path, status = req.method, redact_path(req.path, req.view_args), response.status_code
            request_log.handle(request_log.makeRecord(
                request_log.name, logging.INFO, __file__, 0, "%s %s %s", (method, path, status), None, "_log",
                {"request_id": request_id, "method": method, "path": path, "status": status,
                 "duration_ms": round((time.perf_counter() - started) * 1000, 2), "user_id": _user_id(environ),
                 "remote_addr": req.remote_addr, "bytes": response.content_length}))
        return response

    @app.teardown_request
    def _forget(_error=None):
        token = request.environ.pop("baliza.request_id_token", None)
        if token is not None:
            _request_id.reset(token)
