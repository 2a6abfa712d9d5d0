"""Fixtures: one app per test session on SQLite (or BALIZA_TEST_DATABASE_URL), clean tables per test.

Builders return functions (`make_vessel(**overrides)`) so each test states only what matters to it. State that is
costly to build and that several tests only read is built once per module with the same builders (shared_state)
and its rows restored for each test (restore_rows), so every test still starts from it fresh.
"""
import os
import socket
from datetime import date, datetime, timezone
from decimal import Decimal
from email import message_from_bytes, policy
from itertools import count

import pytest
from flask import g
from flask.testing import FlaskClient
from s3_server import s3_bucket, s3_media, seaweed  # noqa: F401  (a real S3 server, SeaweedFS, for the storage tests)

from app import create_app
from inspection.core.extensions import db as _db
from inspection.core.stamp_feed import CHANNEL, read_afresh
from tests.unsynced import unsynced_commits, unsynced_files


def worker_database(url: str | None) -> str | None:
    """Under pytest-xdist each worker gets its own PostgreSQL database (`test_gw0`, ...), made on first use.

    Tables are dropped and made afresh per session, so workers never see each other's rows; SQLite
    needs nothing, since each session's database is a file in its own temporary folder.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not url or not worker or not url.startswith("postgresql"):
        return url
    import time

    import psycopg
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    mine = f"{parsed.database}_{worker}"
    admin = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    for attempt in range(10):  # CREATE DATABASE copies template1, which one copy at a time may hold
        try:
            with psycopg.connect(admin, autocommit=True) as connection:
                if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (mine,)).fetchone():
                    connection.execute(f'CREATE DATABASE "{mine}"')
            break
        except psycopg.errors.ObjectInUse:
            time.sleep(0.2 * (attempt + 1))
        except psycopg.errors.DuplicateDatabase:
            break
    return parsed.set(database=mine).render_as_string(hide_password=False)


unsynced_files()
TEST_DATABASE_URL = worker_database(os.environ.get("BALIZA_TEST_DATABASE_URL"))
if TEST_DATABASE_URL:
    os.environ["BALIZA_TEST_DATABASE_URL"] = TEST_DATABASE_URL  # servers the tests start use the worker's too

# Builders shared by several test packages: fixtures come from these plugins, never from another test module.
pytest_plugins = ["tests.fixtures.inspections", "tests.fixtures.fleets", "tests.fixtures.patrol"]


def pytest_configure(config):
    config.addinivalue_line("markers", "db: uses the database (run again on PostgreSQL by .ci/run)")
    config.addinivalue_line("markers", "browser: drives a real Chromium")


def pytest_collection_modifyitems(config, items):
    """Mark every test that touches the database, so CI can run exactly those on PostgreSQL."""
    for item in items:
        if "app" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.db)


def pytest_report_header(config):
    """Say which database this run uses, so a skipped PostgreSQL run is never silent."""
    if TEST_DATABASE_URL:
        return f"database: {TEST_DATABASE_URL}"
    return ("database: SQLite (PostgreSQL run skipped here; .ci/run repeats the db tests on PostgreSQL "
            "with BALIZA_TEST_DATABASE_URL)")


class Browser(FlaskClient):
    """A test client that forgets Flask-Login's cached user before each request.

    The tests hold one app context, so `g` (where Flask-Login keeps the current user) outlives a
    request; several signed-in browsers in one test would otherwise see each other's user.
    """

    def open(self, *args, **kwargs):
        g.pop("_login_user", None)
        return super().open(*args, **kwargs)


def all_at_once(act, count: int) -> None:
    """Run act(n) for n in range(count) on as many threads, released together by a barrier (races in tests)."""
    import threading

    barrier = threading.Barrier(count)

    def run(n):
        barrier.wait()
        act(n)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)


@pytest.fixture(scope="session")
def _app(tmp_path_factory):
    base = tmp_path_factory.mktemp("baliza")
    url = TEST_DATABASE_URL or f"sqlite:///{base / 'test.sqlite'}"
    app = create_app({
        "TESTING": True,
        "SECRET_KEY": "test-secret",
        "DATABASE_URL": url,
        "MEDIA_DIR": str(base / "media"),
        "KEYS_DIR": str(base / "keys"),
        "RATE_COUNTS_FILE": str(base / "rate-counts"),  # the limits' shared memory, this session's own
        "PUBLIC_URL": "https://baliza.test",
        "PASSWORD_METHOD": "pbkdf2:sha256:1000",  # fast in tests; production uses scrypt
        "WTF_CSRF_ENABLED": False,
        "AUTO_SIGNING_KEY": True,  # tests issue certificates as the demo does, with the key made on first issue
    })
    app.test_client_class = Browser
    with app.app_context():
        unsynced_commits(_db.engine)
        _db.drop_all()
        _db.create_all()
    yield app
    with app.app_context():
        _db.session.remove()
        _db.drop_all()
        _db.engine.dispose()


@pytest.fixture
def app(_app):
    """The app inside an app context; every table is emptied after the test."""
    with _app.app_context():
        yield _app
        _db.session.rollback()
        _db.session.remove()
        empty_tables(_app)
    _app.config.update({"WTF_CSRF_ENABLED": False})


def empty_tables(app) -> None:
    """Delete every row (children first) and forget the read caches, whose stamps went with the rows.

    On PostgreSQL the deletes go as one query, one round trip instead of one a table (after every test, the PostgreSQL
    pass's largest cost); SQLite runs one statement at a time, in process.
    """
    tables = list(reversed(_db.metadata.sorted_tables))
    with _db.engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("; ".join([*(f"DELETE FROM {conn.dialect.identifier_preparer.format_table(table)}"
                                             for table in tables), f"SELECT pg_notify('{CHANNEL}', '*')"]))
        else:
            for table in tables:
                conn.execute(table.delete())
    app.extensions.pop("baliza_readcache", None)
    read_afresh()  # the stamps went too: this process's feeds read them again (other processes hear `*`)
    app.extensions["baliza.host_counts"].clear()  # the rate limits' counts in shared memory


def saved_rows() -> dict:
    """Every table's committed rows, parents first and in key order: state built once, for restore_rows."""
    with _db.engine.connect() as conn:
        return {table: [dict(row) for row in conn.execute(table.select().order_by(*table.primary_key.columns)).mappings()]
                for table in _db.metadata.sorted_tables}


def restore_rows(rows: dict, since: dict | None = None) -> None:
    """Put back rows taken by saved_rows into empty tables (ids as they were; files in storage were never removed);
    with `since` (rows saved earlier in the same build, already restored), only what was added or changed after it."""
    with _db.engine.begin() as conn:
        for table, table_rows in rows.items():
            keys = [column.name for column in table.primary_key.columns]
            before = {tuple(row[k] for k in keys): row for row in (since or {}).get(table, [])}
            added = [row for row in table_rows if tuple(row[k] for k in keys) not in before]
            if added:
                conn.execute(table.insert(), added)
            for row in table_rows:
                old = before.get(tuple(row[k] for k in keys))
                if old is not None and old != row:
                    conn.execute(table.update().where(*(table.c[k] == row[k] for k in keys)).values(row))
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql(f"SELECT pg_notify('{CHANNEL}', '*')")  # the stamps came back without their notices
    read_afresh()


def replace_rows(app, rows: dict) -> None:
    """Within a test, move to another saved state: forget the session's objects, empty the tables, restore `rows`."""
    _db.session.remove()
    empty_tables(app)
    restore_rows(rows)


def shared_state(_app, build) -> tuple:
    """Run build() once (the operations, committed) and keep (its result, the rows it wrote); the tables are emptied
    again, so a test restores the rows (restore_rows) and gets the same state fresh, free to change it."""
    with _app.app_context():
        result = build()
        _db.session.commit()
        rows = saved_rows()
        _db.session.remove()
        empty_tables(_app)
    return result, rows


@pytest.fixture
def set_clock(monkeypatch):
    """set_clock(moment): from now on in this test the app's one clock (inspection.core.clock) reads `moment`."""
    from datetime import timezone

    from inspection.core import clock

    def set_(moment):
        monkeypatch.setattr(clock, "system_now", lambda: moment.astimezone(timezone.utc))

    return set_


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def db(app):
    return _db


_seq = count(1)


def new_owner(**overrides):
    """An owner (committed; inside an app context); overrides win. The make_owner fixture, for state built once."""
    from inspection.registry.vessels import create_owner

    n = next(_seq)
    values = {"name": f"Armador {n}", "tax_id": f"800{n:05d}-1", "email": f"a{n}@example.com",
              "phone": None, "address": None, **overrides}
    owner = create_owner(values)
    _db.session.commit()
    return owner


@pytest.fixture
def make_owner(app):
    """Build an owner; overrides win."""
    return new_owner


VESSEL_DEFAULTS = {
    "flag": "national", "cabotage_permit": None, "home_port": "Asunción", "propulsion": "motor",
    "service": "cargo", "hull_material": "iron", "length_m": Decimal("30"), "beam_m": Decimal("7"),
    "girth_m": Decimal("11"), "crew": 6, "max_passengers": 0, "cabins": 0, "fire_hydrants": 2,
    "holds": 1, "boilers": 0, "steam_launch": False, "boats": 1, "cooking": "galley", "hot_climate": False,
    "flammable_cargo_kg": 0, "practicaje": "none",
}


def new_vessel(**overrides):
    """A vessel (and an owner if none is given), committed; overrides win. The make_vessel fixture."""
    from inspection.registry.vessels import create_vessel

    n = next(_seq)
    if "owner_id" not in overrides:
        overrides["owner_id"] = new_owner().id
    values = {**VESSEL_DEFAULTS, "registration": f"PY-{n:05d}", "name": f"Buque {n}", **overrides}
    vessel = create_vessel(values)
    _db.session.commit()
    return vessel


@pytest.fixture
def make_vessel(app):
    """Build a vessel (and an owner if none is given); overrides win."""
    return new_vessel


PASSWORD = "correct-horse-battery"


def new_user(role="admin", username=None, owner_id=None, **kw):
    """A user of a role (an owner user gets its own armador unless one is given), committed. The make_user fixture."""
    from inspection.accounts.users import create_user

    n = next(_seq)
    if role == "owner" and owner_id is None:
        owner_id = new_owner().id
    user = create_user(username or f"{role}{n}", PASSWORD, role, owner_id=owner_id, **kw)
    _db.session.commit()
    return user


@pytest.fixture
def make_user(app):
    """Build a user of a role (an owner user gets its own armador unless one is given)."""
    return new_user


@pytest.fixture
def token_for(client):
    """A bearer header for a user, obtained through the real token endpoint."""

    return lambda user: bearer(client, user)


def bearer(client, user) -> dict:
    """A bearer header for `user` (password PASSWORD) from the real token endpoint (token_for, and state built once
    per module); tests/live_site.py has its own for its own password."""
    response = client.post("/api/v1/auth/token", json={"username": user.username, "password": PASSWORD})
    assert response.status_code == 201, response.json
    return {"Authorization": f"Bearer {response.json['token']}"}


@pytest.fixture
def as_role(make_user, token_for):
    """Shortcut: (user, headers) for a new user of `role`."""

    def get(role="admin", **kw):
        user = make_user(role, **kw)
        return user, token_for(user)

    return get


@pytest.fixture(scope="module")
def signer():
    """An issuing-office key for the module: (private key, kid)."""
    from inspection.certificates.signing import generate_key, key_id

    key = generate_key()
    return key, key_id(key)


@pytest.fixture(scope="module")
def keys(signer):
    """The public keys a verifier has cached: {kid: public key}."""
    key, kid = signer
    return {kid: key.public_key()}


@pytest.fixture
def login_as(app):
    """A fresh browser (test client) signed in as `user`."""

    def login(user):
        client = app.test_client()
        response = client.post("/login", data={"username": user.username, "password": PASSWORD})
        assert response.status_code == 302
        return client

    return login


@pytest.fixture
def sql_statements(db):
    """sql_statements(call) -> the SQL statements `call()` sent to the database, in order (a listener on the engine)."""
    from sqlalchemy import event

    def record(call) -> list[str]:
        seen = []

        def listener(conn, cursor, statement, *args):
            seen.append(statement)

        event.listen(db.engine, "before_cursor_execute", listener)
        try:
            call()
        finally:
            event.remove(db.engine, "before_cursor_execute", listener)
        return seen

    return record


@pytest.fixture
def count_queries(sql_statements):
    """count_queries(call) -> how many SQL statements `call()` sent to the database."""
    return lambda call: len(sql_statements(call))


@pytest.fixture
def records(app):
    """Builders writing inspections, certificates and answers as rows (read models' tests), with a signing key."""
    return new_records()


def new_records() -> dict:
    """The records fixture, for state built once: a signing key "k-test", an admin, and the row builders."""
    import uuid
    from datetime import datetime, timezone

    from inspection.core.models import Answer, Certificate, Inspection, SigningKey

    recorded_at = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
    _db.session.add(SigningKey(kid="k-test", office_code="PGP", public_jwk={}))
    _db.session.flush()
    admin = new_user("admin")
    serial = iter(range(1, 10_000))

    def inspection(vessel, inspector, on, kind="seguridad", status="submitted"):
        row = Inspection(vessel_id=vessel.id, kind=kind, inspector_id=inspector.id, scheduled_on=on,
                         port="Asunción", status=status, created_by_id=admin.id)
        _db.session.add(row)
        _db.session.flush()
        return row

    def certificate(vessel, inspector, kind, issued_on, valid_until, **extra):
        n = next(serial)
        row = Certificate(number=f"T-{n:05d}", kind=kind, vessel_id=vessel.id,
                          inspection_id=inspection(vessel, inspector, issued_on, kind).id, issued_on=issued_on,
                          inspected_on=issued_on, valid_until=valid_until, status_index=n, office_code="PGP",
                          kid="k-test", token="", qr_png=b"", qr_version=1, **extra)
        _db.session.add(row)
        _db.session.flush()
        return row

    def answer(inspection_row, item_id, result="fail", current=True):
        _db.session.add(Answer(inspection_id=inspection_row.id, item_id=item_id, client_id=str(uuid.uuid4()),
                               result=result, recorded_at=recorded_at, current=current, answered_by_id=admin.id))

    return {"admin": admin, "inspection": inspection, "certificate": certificate, "answer": answer}


@pytest.fixture
def data_dir(tmp_path):
    """A private copy of the checklist data (TOML files and legal texts) that a test may break."""
    import shutil

    from checklists.loader import DATA_DIR

    target = tmp_path / "data"
    target.mkdir()
    for path in DATA_DIR.glob("*.toml"):
        shutil.copy(path, target / path.name)
    shutil.copytree(DATA_DIR / "sources", target / "sources")
    return target


def new_staff() -> dict:
    """An admin and an inspector (the staff fixture)."""
    return {"admin": new_user("admin"), "inspector": new_user("inspector", full_name="Insp. Benítez")}


@pytest.fixture
def staff(app):
    """An admin and an inspector."""
    return new_staff()


CERTIFIED_AT = datetime(2026, 11, 30, 15, 0, tzinfo=timezone.utc)
CERTIFIED_ON = date(2026, 11, 30)  # a seguridad certificate then runs to 30 May 2027 (art. 211)


def pass_every_item(inspection, inspector, at, started=False, items=None, fail=(), skip=()):
    """Start a scheduled inspection at `at` (unless `started`) and answer every item (of `items`, by default all):
    pass, or fail at 0 for the ids in `fail`, none for those in `skip`, with a photo where evidence is required;
    through the operations, ready to close (flushed, not committed)."""
    import uuid

    from inspection.inspections.operations import add_photo, record_answer, start_inspection
    from inspection.media.configured import media_storage, photo_limits
    from inspection.media.photos import process_photo
    from tests.media_samples import encode, noisy_image

    if not started:
        start_inspection(inspector, inspection, at)
    for n, item in enumerate(items or inspection.items):
        if item["id"] in skip:
            continue
        bound = item["required"] if item.get("required") is not None else item.get("maximum")  # at the bound
        failed = item["id"] in fail
        record_answer(inspector, inspection, item["id"], {
            "client_id": str(uuid.uuid4()), "result": "fail" if failed else "pass", "note": "",
            "observed": (0 if item.get("required") else None) if failed else bound,
            "recorded_at": at, "photos": [], "action": None}, at)
        if item["evidence_required"]:
            jpeg = encode(noisy_image((16, 12), seed=inspection.vessel_id * 100 + n), "JPEG", quality=60)
            add_photo(inspector, inspection, item["id"], str(uuid.uuid4()), process_photo(jpeg, photo_limits()),
                      media_storage(), at, None, None, at)


def pass_and_close(inspection, inspector, at, on):
    """pass_every_item, then close it on `on` with both signatures; returns close_inspection's result (its certificate)."""
    import uuid

    from inspection.certificates.keys import signer
    from inspection.core.clock import office_zone
    from inspection.core.office import current_office
    from inspection.inspections.closing import close_inspection
    from inspection.media.configured import media_storage
    from tests.media_samples import signature_images

    pass_every_item(inspection, inspector, at)
    result = close_inspection(inspector, inspection, {"client_id": str(uuid.uuid4()), "signature": "Insp.",
                                                      "master_name": "Cap.", "signatures": signature_images()},
                              current_office(), signer(current_office(), at), on, at, media_storage(), office_zone())
    _db.session.commit()
    return result


def certify_for(staff: dict):
    """certify(vessel, kind): `staff`'s passed inspection closed on 30 Nov 2026 and its certificate (the operations)."""
    from inspection.inspections.operations import schedule_inspection

    def run(vessel, kind="seguridad"):
        admin, inspector = staff["admin"], staff["inspector"]
        inspection = schedule_inspection(admin, vessel, kind, inspector, CERTIFIED_ON, "Asunción", CERTIFIED_ON)
        return pass_and_close(inspection, inspector, CERTIFIED_AT, CERTIFIED_ON)["certificate"]

    return run


@pytest.fixture
def certify(staff):
    """certify(vessel, kind) by the test's admin and inspector (certify_for)."""
    return certify_for(staff)


class Inbox:
    """aiosmtpd handler: every message received, as (envelope recipients, parsed message)."""

    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((list(envelope.rcpt_tos), message_from_bytes(envelope.content, policy=policy.default)))
        return "250 OK"


def free_port() -> int:
    """A loopback port nothing listens on (yet)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def smtp():
    """A real SMTP server on a free loopback port; yields (settings, inbox)."""
    from aiosmtpd.controller import Controller

    from inspection.notices.mail import MailSettings

    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield MailSettings("127.0.0.1", port, "avisos@baliza.test", timeout=5), inbox
    finally:
        controller.stop()
