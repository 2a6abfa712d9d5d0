"""One structured log line per request, a request id echoed and carried by every record, secrets redacted."""
import io
import json
import logging
from datetime import datetime, timedelta, timezone

import pytest

from app import create_app
from inspection.web.rate_limits import Limit
from inspection.web.request_log import JsonFormatter, make_handler, redact_path, request_id_from


def _request_lines(caplog):
    return [r for r in caplog.records if r.name == "baliza.request"]


def test_each_request_logs_one_line_with_its_fields(app, client, caplog, as_role):
    user, headers = as_role("admin")
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="baliza.request"):
        response = client.get("/api/v1/vessels?page=1&secret=x", headers={**headers, "X-Request-ID": "lb-1234"})
    assert response.status_code == 200 and response.headers["X-Request-ID"] == "lb-1234"
    [record] = _request_lines(caplog)
    line = json.loads(JsonFormatter().format(record))
    assert line["timestamp"].endswith("+00:00") and line["level"] == "INFO" and line["request_id"] == "lb-1234"
    assert (line["method"], line["path"], line["status"], line["user_id"]) == ("GET", "/api/v1/vessels", 200, user.id)
    assert line["remote_addr"] == "127.0.0.1" and line["bytes"] == len(response.data)
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0


def test_an_id_is_generated_when_the_incoming_one_is_missing_or_unsafe(client, caplog):
    with caplog.at_level(logging.INFO, logger="baliza.request"):
        plain = client.get("/healthz")
        unsafe = client.get("/healthz", headers={"X-Request-ID": "x\" injected=1" + "a" * 100})
    for response in (plain, unsafe):
        assert len(response.headers["X-Request-ID"]) == 32 and int(response.headers["X-Request-ID"], 16) >= 0
    assert plain.headers["X-Request-ID"] != unsafe.headers["X-Request-ID"]
    assert [r.user_id for r in _request_lines(caplog)] == [None, None]


@pytest.mark.parametrize("value, expected", [
    ("lb-1234", "lb-1234"), ("0f" * 16, "0f" * 16), ("a" * 64, "a" * 64)])
def test_well_formed_incoming_ids_are_kept(value, expected):
    assert request_id_from(value) == expected


@pytest.mark.parametrize("value", [None, "", "a" * 65, "has space", "new\nline", "ñ"])
def test_malformed_incoming_ids_are_replaced(value):
    assert request_id_from(value) != value and len(request_id_from(value)) == 32


def test_the_verification_token_and_the_calendar_secret_are_redacted(client, caplog):
    with caplog.at_level(logging.INFO, logger="baliza.request"):
        client.get("/v/SECRET-TOKEN-123")
        client.post("/v/SECRET-TOKEN-123")  # 405: no route matched, redacted by the path's shape
        client.get("/api/v1/verify/SECRET-TOKEN-123")
        client.get("/calendario/7/SECRET-CAL-456.ics")
    paths = [r.path for r in _request_lines(caplog)]
    assert paths == ["/v/[redacted]", "/v/[redacted]", "/api/v1/verify/[redacted]", "/calendario/7/[redacted].ics"]
    assert "SECRET" not in caplog.text


@pytest.mark.parametrize("path, expected", [
    ("/v/abc", "/v/[redacted]"), ("/calendario/3/abc.ics", "/calendario/3/[redacted].ics"),
    ("/vessels/1", "/vessels/1"), ("/api/v1/verify/abc", "/api/v1/verify/[redacted]")])
def test_redact_path(path, expected):
    assert redact_path(path) == expected


def test_an_error_during_a_request_carries_its_id_in_the_log_and_the_problem(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite'}",
                      "MEDIA_DIR": str(tmp_path / "media"), "KEYS_DIR": str(tmp_path / "keys")})

    @app.route("/api/v1/boom")
    def boom():
        raise RuntimeError("kaput")

    stream = io.StringIO()
    handler = make_handler("json", stream)
    logging.getLogger().addHandler(handler)
    try:
        response = app.test_client().get("/api/v1/boom", headers={"X-Request-ID": "req-500"})
    finally:
        logging.getLogger().removeHandler(handler)
    assert response.status_code == 500 and response.json["request_id"] == "req-500"
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    error = next(line for line in lines if line["message"] == "unhandled error")
    assert error["request_id"] == "req-500" and "RuntimeError: kaput" in error["exception"]
    assert any(line["logger"] == "baliza.request" and line["status"] == 500 for line in lines)


def test_text_format_and_unknown_formats(caplog):
    stream = io.StringIO()
    handler = make_handler("text", stream)
    handler.handle(logging.makeLogRecord({"name": "baliza.x", "levelname": "INFO", "msg": "hola"}))
    assert "INFO [-] baliza.x: hola" in stream.getvalue()
    with pytest.raises(ValueError):
        make_handler("yaml")


def test_outside_tests_the_app_logs_json_to_stderr(tmp_path, monkeypatch, capsys):
    """A production app installs one handler on the root logger (replacing an earlier app's)."""
    config = {"SECRET_KEY": "x", "DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite'}",
              "MEDIA_DIR": str(tmp_path / "media"), "KEYS_DIR": str(tmp_path / "keys")}
    root = logging.getLogger()
    before = list(root.handlers)
    try:
        create_app(dict(config))
        app = create_app(dict(config))
        ours = [h for h in root.handlers if getattr(h, "baliza", False)]
        assert len(ours) == 1 and isinstance(ours[0].formatter, JsonFormatter)
    finally:
        for handler in [h for h in root.handlers if h not in before]:
            root.removeHandler(handler)
    assert app.config["LOG_FORMAT"] == "json"


def test_requests_refused_by_the_first_hooks_carry_an_id_and_are_logged(app, client, caplog, set_clock):
    """A 429 (the rate limit counts before any other hook) and a 414 (the URL's length, before the body's limit)."""
    saved = app.extensions["baliza.rate_limits"]
    app.extensions["baliza.rate_limits"] = {"verify": Limit(1, timedelta(minutes=1))}
    set_clock(datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc))
    try:
        with caplog.at_level(logging.INFO, logger="baliza.request"):
            client.get("/api/v1/verify/AAAA")
            limited = client.get("/api/v1/verify/AAAA", headers={"X-Request-ID": "lb-429"})
            too_long = client.get("/buques?q=" + "a" * 20_000, headers={"X-Request-ID": "lb-414"})
    finally:
        app.extensions["baliza.rate_limits"] = saved
    assert (limited.status_code, too_long.status_code) == (429, 414)
    assert (limited.headers["X-Request-ID"], too_long.headers["X-Request-ID"]) == ("lb-429", "lb-414")
    logged = {r.request_id: (r.path, r.status) for r in _request_lines(caplog)}
    assert logged["lb-429"] == ("/api/v1/verify/[redacted]", 429) and logged["lb-414"] == ("/buques", 414)
