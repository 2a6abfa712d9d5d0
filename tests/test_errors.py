"""The error mapping: a database that cannot be reached is a 503 with Retry-After, other database errors stay 500."""
import pytest
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError

from app import create_app
from inspection.errors import DATABASE_RETRY_AFTER, is_connection_failure


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
