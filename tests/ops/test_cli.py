"""Command-line tools."""
from inspection.core.models import User


def test_users_add_reads_password_from_stdin(runner, db, app):
    result = runner.invoke(args=["users", "add", "Marta", "--role", "inspector"], input="una-clave-larga\n")
    assert result.exit_code == 0, result.output
    user = db.session.scalar(db.select(User).filter_by(username="marta"))
    assert user.role == "inspector"
    from werkzeug.security import check_password_hash
    assert check_password_hash(user.password_hash, "una-clave-larga")


def test_users_add_refuses_short_password_and_writes_nothing(runner, db):
    result = runner.invoke(args=["users", "add", "pedro", "--role", "admin"], input="corta\n")
    assert result.exit_code != 0
    assert "10 caracteres" in result.output
    assert db.session.scalar(db.select(User).filter_by(username="pedro")) is None


def test_users_add_owner_needs_owner(runner):
    result = runner.invoke(args=["users", "add", "ana", "--role", "owner"], input="una-clave-larga\n")
    assert result.exit_code != 0 and "armador" in result.output
