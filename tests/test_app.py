"""The factory, configuration layers, migrations and the demo seed."""
import contextlib
import os
import subprocess
import sys
from types import SimpleNamespace

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


def test_a_worker_loads_fpdf_only_when_it_makes_a_pdf(tmp_path):
    """fpdf costs each worker 0.2 s and memory at start; only a PDF needs it (the certificate, the report)."""
    code = ("import sys; from app import create_app; "
            f"app = create_app({{'DATABASE_URL': 'sqlite:///{tmp_path}/x.sqlite', 'MEDIA_DIR': '{tmp_path}'}}); "
            "app.test_client().get('/login'); print('fpdf' in sys.modules); "
            "import inspection.documents.report_pdf; print('fpdf' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], check=False, cwd=tmp_path, capture_output=True, text=True,
                            env={"PYTHONPATH": str(__import__('pathlib').Path(__file__).parent.parent)})
    assert result.stdout.split() == ["False", "True"], result.stderr


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


@contextlib.contextmanager
def stamps_table():
    """Today's code stamps its writes, and a release from before the stamps has no table for them: one while writing."""
    from inspection.core.models import DataStamp

    DataStamp.__table__.create(db.session.connection())  # in the session's transaction: SQLite's snapshot holds
    yield
    DataStamp.__table__.drop(db.session.connection())
    db.session.commit()


@pytest.fixture
def before_open19(migration_database):
    """An app on a database migrated to the revision before open19 (no rule on open inspections and detentions),
    with an admin, an inspector and two vessels; yields (app, admin, inspector, vessels)."""
    from flask_migrate import upgrade

    from inspection.registry.vessels import create_owner, create_vessel
    from tests.conftest import VESSEL_DEFAULTS

    app = create_app({"DATABASE_URL": migration_database, "SECRET_KEY": "x", "PASSWORD_METHOD": "pbkdf2:sha256:1000"})
    with app.app_context():
        upgrade(revision="thr12")
        with stamps_table():
            owner = create_owner({"name": "Armador", "tax_id": "80000001-1", "email": None, "phone": None,
                                  "address": None})
            vessels = [create_vessel({**VESSEL_DEFAULTS, "registration": f"PY-{n}", "name": f"Buque {n}",
                                      "owner_id": owner.id}) for n in (1, 2)]
            admin, inspector = old_user("admin", "admin"), old_user("insp", "inspector")
            db.session.commit()
        yield app, admin, inspector, vessels
        db.session.remove()
        db.engine.dispose()


def old_user(username: str, role: str) -> SimpleNamespace:
    """A user as an older release wrote one: the columns named here (and those with defaults) only, since the model
    has columns later revisions add (a police officer's unit, patrol23); its id, the only thing the tests use."""
    from inspection.core.models import User

    table = User.__table__
    return SimpleNamespace(id=db.session.execute(db.insert(table).values(
        username=username, password_hash="x", role=role).returning(table.c.id)).scalar_one())


def add_rows(admin, inspector, vessel, *statuses, kind="seguridad") -> list[int]:
    """Inspections of `vessel` in `statuses`, committed as an older release could have; their ids.

    Written with the columns named here only: the model has columns later revisions add."""
    from datetime import date

    from inspection.core.models import Inspection

    table = Inspection.__table__
    ids = [db.session.execute(db.insert(table).values(
        vessel_id=vessel.id, kind=kind, inspector_id=inspector.id, scheduled_on=date(2026, 12, 1), port="Asunción",
        status=status, created_by_id=admin.id).returning(table.c.id)).scalar_one() for status in statuses]
    db.session.commit()
    return ids


@pytest.mark.db
def test_open19_keeps_one_open_inspection_per_vessel_and_kind_and_cancels_the_repeated(before_open19):
    """The one in progress is kept (work done aboard), else the first scheduled; the rest are cancelled, audited,
    and an application scheduled on one follows the kept inspection."""
    from datetime import date

    from flask_migrate import upgrade
    from sqlalchemy.exc import IntegrityError

    from inspection.core.models import Application, AuditEvent, Inspection

    app, admin, inspector, (one, two) = before_open19
    a, b, c, closed = add_rows(admin, inspector, one, "scheduled", "in_progress", "scheduled", "submitted")
    d, e = add_rows(admin, inspector, two, "scheduled", "scheduled")
    f, = add_rows(admin, inspector, two, "scheduled", kind="navegabilidad")
    db.session.add(Application(vessel_id=two.id, kind="seguridad", port="Asunción", preferred_on=date(2026, 12, 1),
                               applied_on=date(2026, 11, 20), applied_by_id=admin.id, status="scheduled",
                               inspection_id=e))
    db.session.commit()
    upgrade(revision="open19")
    status = dict(db.session.execute(db.select(Inspection.id, Inspection.status)).all())
    assert status == {a: "cancelled", b: "in_progress", c: "cancelled", closed: "submitted", d: "scheduled",
                      e: "cancelled", f: "scheduled"}
    assert db.session.scalar(db.select(Application.inspection_id)) == d
    events = {int(event.entity_id): event.details
              for event in db.session.scalars(db.select(AuditEvent).filter_by(action="inspection.cancelled"))}
    assert events == {a: {"reason": "duplicate", "kept_inspection_id": b, "migration": "open19"},
                      c: {"reason": "duplicate", "kept_inspection_id": b, "migration": "open19"},
                      e: {"reason": "duplicate", "kept_inspection_id": d, "migration": "open19"}}
    with pytest.raises(IntegrityError):
        add_rows(admin, inspector, two, "in_progress")
    db.session.rollback()


@pytest.mark.db
@pytest.mark.parametrize("repeated", ["inspections in progress", "detentions"])
def test_open19_stops_and_names_what_only_staff_can_settle(before_open19, capfd, repeated):
    """Two inspections in progress hold answers each, two detentions are two decisions (art. 208): the upgrade
    changes nothing and says which rows to settle, and how (`flask db upgrade` prints it and exits 1)."""
    from flask_migrate import upgrade

    from inspection.core.models import Detention, Inspection

    app, admin, inspector, (one, two) = before_open19
    repeated_scheduled = add_rows(admin, inspector, two, "scheduled", "scheduled")
    if repeated == "inspections in progress":
        ids = add_rows(admin, inspector, one, "in_progress", "in_progress")
        message = f"vessel {one.id} seguridad: inspections {ids[0]}, {ids[1]}"
    else:
        rows = [Detention(vessel_id=one.id, reason=reason, decided_by_id=admin.id) for reason in ("Casco", "Bombas")]
        with stamps_table():
            db.session.add_all(rows)
            db.session.commit()
        message = f"vessel {one.id}: detentions {rows[0].id}, {rows[1].id}"
    with pytest.raises(SystemExit):
        upgrade(revision="open19")
    printed = capfd.readouterr().err
    assert message in printed and "then upgrade again" in printed
    db.session.rollback()
    assert db.session.scalars(db.select(Inspection.status).where(Inspection.id.in_(repeated_scheduled))).all() \
        == ["scheduled", "scheduled"]


@pytest.mark.db
def test_cancel19_says_when_and_why_open19_cancelled_each_repeated_inspection(before_open19):
    """The upgrade copies the moment from open19's audit event and names the inspection kept; others stay empty."""
    from flask_migrate import upgrade

    from inspection.core.models import AuditEvent, Inspection

    app, admin, inspector, (one, two) = before_open19
    kept, repeated = add_rows(admin, inspector, one, "scheduled", "scheduled")
    alone, = add_rows(admin, inspector, two, "scheduled")
    upgrade(revision="cancel19")
    rows = {row.id: row for row in db.session.execute(
        db.select(Inspection.id, Inspection.status, Inspection.cancelled_at, Inspection.cancellation_reason))}
    event = db.session.scalar(db.select(AuditEvent).filter_by(action="inspection.cancelled"))
    assert (rows[repeated].status, rows[repeated].cancelled_at) == ("cancelled", event.at)
    assert rows[repeated].cancellation_reason == ("Repetida: el buque tenía otra inspección de este tipo sin cerrar; "
                                                  f"se conservó la n.º {kept}.")
    assert [(rows[n].cancelled_at, rows[n].cancellation_reason) for n in (kept, alone)] == [(None, None)] * 2


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


@pytest.fixture
def demo_environment(monkeypatch, tmp_path):
    """`python app.py`'s environment, with the database left alone (test_demo_seeds_only_an_empty_database
    covers it) and the server's run replaced by a catch."""
    from flask import Flask

    from inspection.ops import demo

    for name, value in {"DATABASE_URL": f"sqlite:///{tmp_path}/demo.sqlite", "SECRET_KEY": "x",
                        "KEYS_DIR": str(tmp_path / "keys"), "MEDIA_DIR": str(tmp_path / "media"),
                        "AUTO_SIGNING_KEY": "true", "LOG_FORMAT": "text"}.items():
        monkeypatch.setenv(f"BALIZA_{name}", value)
    monkeypatch.delenv("BALIZA_PUBLIC_URL", raising=False)
    monkeypatch.setattr(demo, "prepare_database", lambda: True)
    served = {}
    monkeypatch.setattr(Flask, "run", lambda app, host, port, debug: served.update(app=app, host=host, port=port))
    return served


def _qr_url(app):
    """The URL a certificate's QR code carries when this app's office issues it, as a reader decodes it."""
    import io

    import zxingcpp
    from PIL import Image

    from inspection.certificates.qrcodes import make_qr
    from inspection.core.office import current_office

    with app.app_context():
        png = make_qr(current_office().public_url, "HC1TOKEN0123").png
    return zxingcpp.read_barcodes(Image.open(io.BytesIO(png)), formats=zxingcpp.BarcodeFormat.QRCode)[0].text


def test_the_demo_on_every_interface_publishes_the_address_a_phone_on_the_network_opens(demo_environment, monkeypatch,
                                                                                       capsys):
    """Issue 21: `--host 0.0.0.0 --port 5101` printed and put in every QR code http://127.0.0.1:5000."""
    from app import main
    from inspection.ops import serving

    monkeypatch.setattr(serving, "lan_address", lambda: "192.168.7.23")
    main(["--host", "0.0.0.0", "--port", "5101"])
    app = demo_environment["app"]
    assert (demo_environment["host"], demo_environment["port"]) == ("0.0.0.0", 5101)
    assert app.config["PUBLIC_URL"] == "http://192.168.7.23:5101"
    printed = capsys.readouterr().out
    assert "Desde un teléfono o una tableta en la misma red: http://192.168.7.23:5101" in printed
    assert "BALIZA_PUBLIC_URL=" in printed
    assert _qr_url(app) == "http://192.168.7.23:5101/v/HC1TOKEN0123"


def test_the_demo_on_another_port_and_a_configured_public_url(demo_environment, monkeypatch, capsys):
    """The port follows --port; BALIZA_PUBLIC_URL, when set, wins over where the demo listens."""
    from app import main

    main(["--port", "5101"])
    assert _qr_url(demo_environment["app"]) == "http://127.0.0.1:5101/v/HC1TOKEN0123"
    capsys.readouterr()
    monkeypatch.setenv("BALIZA_PUBLIC_URL", "https://baliza.example.gov.py/")
    main(["--host", "0.0.0.0", "--port", "5102"])
    assert "Dirección pública (códigos QR, PDF, calendarios): https://baliza.example.gov.py" in capsys.readouterr().out
    assert _qr_url(demo_environment["app"]) == "https://baliza.example.gov.py/v/HC1TOKEN0123"


def test_whether_a_function_is_a_coroutine_is_asked_once(app, monkeypatch):
    import flask.app

    asked = []
    monkeypatch.setattr(flask.app, "iscoroutinefunction", lambda func: asked.append(func) or False)

    def hook():
        return None

    assert [app.ensure_sync(hook) for _ in range(3)] == [hook] * 3
    assert asked == [hook]
    monkeypatch.setattr(type(app), "_SYNC_KEPT", 8)
    for n in range(40):  # one-off functions (an after_this_request callback) never pile up
        app.ensure_sync(lambda n=n: n)
    assert len(app._sync_memo) <= 8
