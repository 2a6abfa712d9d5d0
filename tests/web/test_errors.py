"""The error mapping: a database that cannot be reached is a 503 with Retry-After, other database errors stay 500."""
import pytest
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError

from app import create_app
from inspection.web.errors import DATABASE_RETRY_AFTER, is_connection_failure


@pytest.fixture
def unreachable(tmp_path):
    """An app whose PostgreSQL refuses every connection (nothing listens on port 1), not a mock."""
    return create_app({"TESTING": True, "SECRET_KEY": "x", "MEDIA_DIR": str(tmp_path / "media"),
                       "KEYS_DIR": str(tmp_path / "keys"),
                       "DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1:1/none?connect_timeout=2"})


@pytest.mark.parametrize("lang, words", [("es", "La base de datos no responde"), ("en", "The database is not answering")])
def test_an_unreachable_database_is_503_with_retry_after_in_the_user_s_language(unreachable, lang, words):
    response = unreachable.test_client().get("/api/v1/auth/me", headers={
        "Authorization": "Bearer whatever", "Accept-Language": lang})
    assert response.status_code == 503 and response.headers["Retry-After"] == str(DATABASE_RETRY_AFTER)
    assert response.mimetype == "application/problem+json"
    assert response.json["type"].endswith("/unavailable") and response.json["detail"].startswith(words)


def _dbapi(cls, invalidated=False):
    return cls.instance("SELECT 1", {}, Exception("boom"), Exception, connection_invalidated=invalidated)


@pytest.mark.parametrize("error, down", [
    (_dbapi(OperationalError), True),
    (_dbapi(InterfaceError), True),
    (_dbapi(DBAPIError, invalidated=True), True),
    (_dbapi(IntegrityError), False),
    (_dbapi(DBAPIError), False),
    (ValueError("x"), False),
])
def test_only_connection_failures_count_as_the_database_being_down(error, down):
    assert is_connection_failure(error) is down


@pytest.fixture
def failing(tmp_path):
    """An app with pages that fail as a stopped photo store (503), a bug (500) and a missing page (404) do."""
    from werkzeug.exceptions import NotFound

    from inspection.media.storage import StorageUnavailable

    app = create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite'}",
                      "MEDIA_DIR": str(tmp_path / "media"), "KEYS_DIR": str(tmp_path / "keys")})
    failures = {"store-down": StorageUnavailable("seaweed stopped"), "bug": RuntimeError("kaput"), "gone": NotFound()}

    @app.route("/fails/<kind>")
    def fails(kind):
        raise failures[kind]

    return app.test_client()


@pytest.mark.parametrize("kind, status, lang, words", [
    ("store-down", 503, "es", "Código de la solicitud: req-page-1"),
    ("store-down", 503, "en", "Request id: req-page-1"),
    ("bug", 500, "es", "Código de la solicitud: req-page-1"),
    ("bug", 500, "en", "Request id: req-page-1"),
])
def test_a_5xx_page_names_the_request_id_a_user_can_quote(failing, kind, status, lang, words):
    response = failing.get(f"/fails/{kind}?lang={lang}", headers={"X-Request-ID": "req-page-1", "Accept": "text/html"})
    assert response.status_code == status and response.mimetype == "text/html"
    assert words in response.get_data(as_text=True)


def test_a_4xx_page_does_not_show_a_request_id(failing):
    response = failing.get("/fails/gone", headers={"X-Request-ID": "req-page-1", "Accept": "text/html"})
    assert response.status_code == 404 and "req-page-1" not in response.get_data(as_text=True)
    assert "Código de la solicitud" not in response.get_data(as_text=True)


def test_a_405_names_the_allowed_methods_even_for_trace(client):
    for path, accept in (("/api/v1/vessels", "application/json"), ("/login", "text/html")):
        response = client.open(path, method="TRACE", headers={"Accept": accept})
        assert response.status_code == 405 and {"GET", "POST"} <= set(response.headers["Allow"].split(", ")), path
