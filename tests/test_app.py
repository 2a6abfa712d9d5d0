"""The factory, configuration layers, migrations and the demo seed."""
import subprocess
import sys

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from app import create_app
from inspection.extensions import db


def test_import_has_no_side_effects(tmp_path):
    code = "import app, inspection.models, inspection.api, inspection.views, checklists; print('ok')"
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                            env={"PYTHONPATH": str(__import__('pathlib').Path(__file__).parent.parent)})
    assert result.stdout.strip() == "ok", result.stderr
    assert list(tmp_path.iterdir()) == []


def test_environment_variables_configure_the_app(monkeypatch, tmp_path):
    monkeypatch.setenv("BALIZA_DATABASE_URL", f"sqlite:///{tmp_path}/x.sqlite")
    monkeypatch.setenv("BALIZA_SECRET_KEY", "from-env")
    monkeypatch.setenv("BALIZA_MEDIA_DIR", str(tmp_path / "fotos"))
    monkeypatch.setenv("BALIZA_PUBLIC_URL", "https://baliza.example.py/")
    app = create_app()
    assert app.config["SQLALCHEMY_DATABASE_URI"].endswith("x.sqlite")
    assert app.config["SECRET_KEY"] == "from-env"
    assert app.config["MEDIA_DIR"] == str(tmp_path / "fotos")
    assert app.config["PUBLIC_URL"] == "https://baliza.example.py"


def test_migrations_match_the_models(tmp_path):
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/m.sqlite", "SECRET_KEY": "x"})
    with app.app_context():
        from flask_migrate import upgrade

        upgrade()
        with db.engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), db.metadata)
    assert diff == []


def test_demo_seeds_only_an_empty_database(tmp_path):
    from inspection.demo import prepare_database
    from inspection.models import Owner, User, Vessel

    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/d.sqlite", "SECRET_KEY": "x",
                      "PASSWORD_METHOD": "pbkdf2:sha256:1000", "KEYS_DIR": str(tmp_path / "keys"),
                      "MEDIA_DIR": str(tmp_path / "media")})
    with app.app_context():
        assert prepare_database() is True
        vessels = db.session.scalars(db.select(Vessel)).all()
        assert 9 <= len(vessels) <= 12
        assert {v.propulsion for v in vessels} >= {"steam", "motor", "sail", "rowing"}
        assert {v.service for v in vessels} >= {"passenger", "cargo", "tug"}
        assert {u.username for u in db.session.scalars(db.select(User))} == {"admin", "inspector", "owner", "police"}
        owners = db.session.scalar(db.select(db.func.count(Owner.id)))
        assert prepare_database() is False
        assert db.session.scalar(db.select(db.func.count(Owner.id))) == owners
