"""The production gunicorn settings (gunicorn.conf.py), served for real: no forwarded header trusted, long URLs answered by the app."""
import http.client
import json
import urllib.parse

import pytest

from bench.fixtures import server_env
from bench.harness import gunicorn
from inspection.core.extensions import db

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One gunicorn with gunicorn.conf.py over a fresh SQLite database; plain HTTP, no proxy declared."""
    from app import create_app

    base = tmp_path_factory.mktemp("served")
    config = {"DATABASE_URL": f"sqlite:///{base / 'baliza.sqlite'}", "KEYS_DIR": str(base / "keys"),
              "MEDIA_DIR": str(base / "media"), "PUBLIC_URL": "http://baliza.example"}
    app = create_app(config)
    with app.app_context():
        db.create_all()
        db.engine.dispose()
    with gunicorn("bench.wsgi:app", server_env(config), workers=1) as server:
        yield server.url


def fetch(url: str, target: str, headers: dict | None = None, method: str = "GET"):
    """(status, headers, body) of one request sent as written, `target` untouched by any client library."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request(method, target, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_a_forwarded_scheme_from_loopback_is_not_believed(served):
    """No proxy declared: `X-Forwarded-Proto: https` from 127.0.0.1 earns no HSTS (gunicorn trusted loopback)."""
    status, headers, _ = fetch(served, "/login", {"X-Forwarded-Proto": "https", "X-Forwarded-Ssl": "on"})
    assert status == 200 and "Strict-Transport-Security" not in headers


@pytest.mark.parametrize("length, status, title", [(5_000, 401, "You must sign in"), (9_000, 414, "URI too long"),
                                                   (200_000, 414, "URI too long")])
def test_a_long_url_is_answered_by_the_app_never_by_the_servers_page(served, length, status, title):
    """Gunicorn's own limit (4094 bytes by default) answered an HTML 414; the app's limit is 8 kB, as problem+json."""
    answered, headers, body = fetch(served, "/api/v1/vessels?q=" + "a" * length, {"Accept-Language": "en"})
    assert answered == status and headers["Content-Type"] == "application/problem+json"
    assert json.loads(body)["title"] == title
