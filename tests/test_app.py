"""The factory, configuration layers, migrations and the demo seed."""
import os
import subprocess
import sys

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from app import create_app
from inspection.core.extensions import db


def test_import_has_no_side_effects(tmp_path):
    code = "import app, inspection.core.models, inspection.blueprints, checklists; print('ok')"
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



def test_a_server_database_needs_one_explicit_secret_for_every_app_server(tmp_path):
    """A secret made per instance folder would split the cookies of several servers on one database."""
    with pytest.raises(RuntimeError, match="BALIZA_SECRET_KEY is required"):
        create_app({"DATABASE_URL": "postgresql+psycopg://baliza@127.0.0.1:1/baliza", "MEDIA_DIR": str(tmp_path)})
    app = create_app({"DATABASE_URL": "postgresql+psycopg://baliza@127.0.0.1:1/baliza", "SECRET_KEY": "shared"})
    assert app.config["SECRET_KEY"] == "shared"

@pytest.fixture
def migration_database(tmp_path):
    """An empty database for the migrations: a SQLite file, or a fresh schema on the PostgreSQL under test."""
    url = os.environ.get("BALIZA_TEST_DATABASE_URL", "")
    if not url.startswith("postgresql"):
        yield f"sqlite:///{tmp_path}/m.sqlite"
        return
    import psycopg

    plain = url.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute("DROP SCHEMA IF EXISTS baliza_migrations CASCADE")
        conn.execute("CREATE SCHEMA baliza_migrations")
    yield url + ("&" if "?" in url else "?") + "options=-csearch_path%3Dbaliza_migrations"
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute("DROP SCHEMA IF EXISTS baliza_migrations CASCADE")


@pytest.mark.db
def test_migrations_match_the_models(migration_database, tmp_path):
    """`flask db upgrade` builds exactly the tables the models declare, on SQLite and PostgreSQL."""
    app = create_app({"DATABASE_URL": migration_database, "SECRET_KEY": "x"})
    with app.app_context():
        from flask_migrate import upgrade

        upgrade()
        with db.engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), db.metadata)
            tables = set(db.inspect(conn).get_table_names())
        db.engine.dispose()
    assert diff == []
    assert {"vessels", "inspections", "certificates", "audit_events"} <= tables


def test_demo_seeds_only_an_empty_database(tmp_path):
    from inspection.core.models import Answer, Inspection, Owner, User, Vessel
    from inspection.ops.demo import prepare_database

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
        inspections = db.session.scalars(db.select(Inspection)).all()
        assert sorted(i.status for i in inspections) == ["interrupted", "scheduled", "scheduled"] + ["submitted"] * 9
        from inspection.core.clock import office_today
        from inspection.fleet.overview import fleet_of
        owner = db.session.scalar(db.select(User).filter_by(username="owner"))
        states = {entry["registration"]: entry["state"] for entry in fleet_of(owner, office_today())}
        assert states == {"PY-1001": "missing", "PY-1002": "ok", "PY-1003": "due_soon", "PY-1004": "overdue"}
        for inspection in inspections:
            answered = {a.item_id for a in db.session.scalars(db.select(Answer).filter_by(inspection_id=inspection.id))}
            if inspection.status == "submitted":  # closed only with every item answered
                assert answered == {item["id"] for item in inspection.items} and inspection.outcome
            if inspection.status == "interrupted":
                assert inspection.outcome is None and inspection.interruption_reason and len(answered) == 5
        owners = db.session.scalar(db.select(db.func.count(Owner.id)))
        assert prepare_database() is False
        assert db.session.scalar(db.select(db.func.count(Owner.id))) == owners
