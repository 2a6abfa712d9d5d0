"""The Content-Security-Policy, HSTS and secure cookies over HTTPS, trusted proxies (inspection/web/security.py)."""
import re
from datetime import date, datetime, timezone
from html.parser import HTMLParser
from pathlib import Path

import pytest
from flask import request

from app import create_app
from inspection.web import security
from tests.conftest import PASSWORD

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


class InlineCode(HTMLParser):
    """Collects what a policy without 'unsafe-inline' would block: inline scripts, on* handlers, javascript: URLs, styles."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag == "script" and "src" not in values and values.get("type") != "application/json":
            self.found.append(f"inline <script {values}>")
        if tag == "style":
            self.found.append("inline <style>")
        for name, value in attrs:
            if re.fullmatch(r"on\w+", name):
                self.found.append(f"<{tag} {name}=...>")
            if name == "style":
                self.found.append(f"<{tag} style=...>")
            if value and value.strip().lower().startswith("javascript:"):
                self.found.append(f"<{tag} {name}=javascript:...>")


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    return parser.found


def test_the_parser_finds_what_the_policy_blocks():
    page = ('<script>alert(1)</script><script type="application/json" id="s">{}</script><script src="/a.js"></script>'
            '<button onclick="x()">b</button><a href="javascript:void(0)">a</a><p style="color:red">p</p><style>p{}</style>')
    assert inline_code(page) == ["inline <script {}>", "<button onclick=...>", "<a href=javascript:...>",
                                 "<p style=...>", "inline <style>"]


@pytest.mark.parametrize("path", sorted(TEMPLATES.rglob("*.html")), ids=lambda p: str(p.relative_to(TEMPLATES)))
def test_no_template_holds_inline_code(path):
    assert inline_code(path.read_text(encoding="utf-8")) == []


def page_paths(app, ids: dict) -> list[str]:
    """Every GET page route (not the API, not static files) whose arguments `ids` can fill."""
    paths = []
    with app.test_request_context():
        from flask import url_for

        for rule in app.url_map.iter_rules():
            if "GET" not in rule.methods or rule.rule.startswith(("/api/", "/static/")) or not rule.arguments <= set(ids):
                continue
            paths.append(url_for(rule.endpoint, **{name: ids[name] for name in rule.arguments}))
    return sorted(set(paths))


def test_every_page_carries_the_policy_and_runs_no_inline_code(app, client, make_vessel, staff, certify, login_as):
    from inspection.core.extensions import db
    from inspection.inspections.operations import schedule_inspection, start_inspection

    vessel = make_vessel()
    certificate = certify(vessel)
    started = schedule_inspection(staff["admin"], vessel, "navegabilidad", staff["inspector"], date(2026, 12, 2),
                                  "Asunción", date(2026, 12, 1))
    start_inspection(staff["inspector"], started, datetime(2026, 12, 2, 12, tzinfo=timezone.utc))
    db.session.commit()
    ids = {"vessel_id": vessel.id, "owner_id": vessel.owner_id, "number": certificate.number, "kind": "seguridad",
           "token": certificate.token, "inspection_id": started.id}
    paths = page_paths(app, ids) + [f"/inspecciones/{certificate.inspection_id}",
                                    f"/inspecciones/{certificate.inspection_id}/informe"]
    assert len(paths) > 30
    browsers = {"anonymous": client, "admin": login_as(staff["admin"]), "inspector": login_as(staff["inspector"])}
    checked = 0
    for role, browser in browsers.items():
        for path in paths:
            response = browser.get(path)
            wasm = "'wasm-unsafe-eval' " if path.split("?")[0] == "/verificar" else ""  # its QR photo reader
            assert response.headers["Content-Security-Policy"].startswith(f"default-src 'self'; script-src {wasm}'self';")
            if response.status_code == 200 and response.mimetype == "text/html":
                assert inline_code(response.get_data(as_text=True)) == [], (role, path)
                checked += 1
    assert checked > 40


def test_the_policy_admits_only_this_origin_even_with_photos_in_a_bucket(tmp_path):
    """Photos are streamed by the app (media_response), never redirected: the S3 endpoint is not admitted."""
    served = make(tmp_path, MEDIA_URL="s3://fotos/baliza", S3_ENDPOINT_URL="https://s3.example:9000")
    header = served.test_client().get("/login").headers["Content-Security-Policy"]
    assert header == security.content_security_policy() and "s3.example" not in header
    policy = dict(part.split(" ", 1) for part in header.split("; "))
    assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"
    assert policy["img-src"] == "'self' data: blob:"
    assert policy["object-src"] == "'none'" and policy["frame-ancestors"] == "'none'" and policy["base-uri"] == "'none'"
    assert "unsafe" not in " ".join(policy.values())


def make(tmp_path, **config):
    return create_app({"TESTING": True, "SECRET_KEY": "s", "DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite'}",
                       "KEYS_DIR": str(tmp_path / "keys"), "MEDIA_DIR": str(tmp_path / "media"), **config})


def test_over_plain_http_no_hsts_and_cookies_are_not_secure(tmp_path):
    app = make(tmp_path, PUBLIC_URL="http://127.0.0.1:5000")
    response = app.test_client().get("/verificar")
    assert "Strict-Transport-Security" not in response.headers
    assert app.config["SESSION_COOKIE_SECURE"] is False


def test_an_https_public_address_sends_hsts_and_secure_cookies(app, client, make_user):
    assert app.config["PUBLIC_URL"].startswith("https://")  # tests/conftest.py
    user = make_user("admin")
    response = client.post("/login", data={"username": user.username, "password": PASSWORD})
    assert response.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    cookie = response.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_forwarded_https_counts_only_through_declared_proxies(tmp_path):
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}
    trusting_none = make(tmp_path, PUBLIC_URL="http://baliza.local")
    assert "Strict-Transport-Security" not in trusting_none.test_client().get("/verificar", headers=forwarded).headers
    trusting_one = make(tmp_path, PUBLIC_URL="http://baliza.local", TRUSTED_PROXIES=1)
    seen = []
    trusting_one.before_request(lambda: seen.append((request.remote_addr, request.is_secure)))
    assert trusting_one.test_client().get("/verificar", headers=forwarded).headers["Strict-Transport-Security"]
    assert seen == [("203.0.113.7", True)]


def test_a_csp_report_is_logged_without_a_csrf_token(app, client, caplog):
    app.config["WTF_CSRF_ENABLED"] = True
    response = client.post("/csp-report", data='{"csp-report": {"blocked-uri": "inline"}}',
                           content_type="application/csp-report")
    assert response.status_code == 204
    assert "csp violation" in caplog.text and "blocked-uri" in caplog.text


def test_only_the_police_page_may_compile_webassembly(tmp_path):
    """/verificar reads QR photos with zxing-cpp as WebAssembly: 'wasm-unsafe-eval' there, never 'unsafe-eval'."""
    client = make(tmp_path).test_client()
    page = dict(part.split(" ", 1) for part in client.get("/verificar").headers["Content-Security-Policy"].split("; "))
    assert page["script-src"] == "'wasm-unsafe-eval' 'self'"
    assert "'unsafe-eval'" not in " ".join(page.values()) and "'unsafe-inline'" not in " ".join(page.values())
    assert "wasm" not in client.get("/login").headers["Content-Security-Policy"]
