"""A live Baliza for the browser tests: the real app on a werkzeug server in a thread, and its state built through the API."""
import io
import threading
import uuid
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

from werkzeug.serving import make_server

from app import create_app
from inspection.core.clock import office_today
from inspection.core.extensions import db
from tests.media_samples import SIGNATURES, encode, noisy_image
from tests.unsynced import unsynced_commits

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]
PASSWORD = "verificador-prueba"


@contextmanager
def live_app(base: Path, secret: str, name: str):
    """(app, origin, hits): the app on 127.0.0.1 and a free port, PUBLIC_URL that origin, every path served recorded.

    The server hearing nothing is how the offline tests prove the browser asked nothing.
    """
    app = create_app({
        "TESTING": True, "SECRET_KEY": secret, "DATABASE_URL": f"sqlite:///{base / 'baliza.sqlite'}",
        "MEDIA_DIR": str(base / "media"), "KEYS_DIR": str(base / "keys"), "PASSWORD_METHOD": "pbkdf2:sha256:1000",
        "AUTO_SIGNING_KEY": True,
        # A browser test signs in and scans faster than people do; test_rate_limits.py tests the limits.
        "RATE_LIMIT_LOGIN": 0, "RATE_LIMIT_VERIFY": 0,
    })
    violations = _csp_violations(app)
    with app.app_context():
        unsynced_commits(db.engine)
        db.create_all()
    hits: list[str] = []
    serve = app.wsgi_app

    def recording(environ, start_response):
        hits.append(environ.get("PATH_INFO", ""))
        return serve(environ, start_response)

    app.wsgi_app = recording
    server = make_server("127.0.0.1", 0, app, threaded=True)
    origin = f"http://127.0.0.1:{server.server_port}"
    app.config["PUBLIC_URL"] = origin
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield app, origin, hits
    finally:
        server.shutdown()
        thread.join(timeout=10)
        with app.app_context():
            db.session.remove()
            db.drop_all()
            db.engine.dispose()
    assert not violations, f"the Content-Security-Policy blocked something on a page: {violations}"


def _csp_violations(app) -> list[str]:
    """The violation reports browsers send the app (security.csp_report logs each): a page broken by the policy
    fails its browser tests when the live app stops."""
    import logging

    found: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            if record.getMessage().startswith("csp violation"):
                found.append(record.getMessage())

    app.logger.addHandler(Collect())
    return found


def inject_axe(page, axe_js: Path) -> None:
    """Load axe-core into the page by evaluation: a <script> tag of its text would be inline code, which the CSP refuses."""
    page.evaluate(axe_js.read_text(encoding="utf-8"))


def bearer(client, username: str) -> dict:
    """The Authorization header of a fresh API token for `username`."""
    answer = client.post("/api/v1/auth/token", json={"username": username, "password": PASSWORD})
    assert answer.status_code == 201, answer.json
    return {"Authorization": f"Bearer {answer.json['token']}"}


def vessel_values(registration: str, name: str, owner_id: int) -> dict:
    """A small iron motor cargo vessel's particulars, valid for create_vessel."""
    return {
        "registration": registration, "name": name, "owner_id": owner_id, "flag": "national",
        "cabotage_permit": None, "home_port": "Asunción", "propulsion": "motor", "service": "cargo",
        "hull_material": "iron", "length_m": Decimal("30"), "beam_m": Decimal("7"), "girth_m": Decimal("11"),
        "crew": 6, "max_passengers": 0, "cabins": 0, "fire_hydrants": 3, "holds": 1, "boilers": 0,
        "steam_launch": False, "boats": 1, "cooking": "galley", "hot_climate": False,
        "flammable_cargo_kg": 0, "practicaje": "none",
    }


def seed_office(app, *vessels: tuple[str, str]) -> tuple[int, list[int]]:
    """An owner, the admin "jefa", the inspector "inspector" and the vessels (registration, name):
    (inspector id, vessel ids), through the real operations."""
    from inspection.accounts.users import create_user
    from inspection.registry.vessels import create_owner, create_vessel

    with app.app_context():
        owner = create_owner({"name": "Naviera del Sur S.A.", "tax_id": "80012345-6", "email": "sur@example.com",
                              "phone": None, "address": None})
        create_user("jefa", PASSWORD, "admin")
        inspector = create_user("inspector", PASSWORD, "inspector")
        made = [create_vessel(vessel_values(registration, name, owner.id)) for registration, name in vessels]
        db.session.commit()
        return inspector.id, [vessel.id for vessel in made]


def issue_certificate(client, admin, inspector, inspector_id: int, vessel_id: int, issued: bool = True) -> dict:
    """A passed seguridad inspection through the tablet API; returns the issued certificate (or, `issued` False, the
    closing's answer with its inspection's id: one whose certificate waits for the countersignature)."""
    with client.application.app_context():
        today = office_today()  # the server's "today", whatever the machine's zone
    body = {"vessel_id": vessel_id, "kind": "seguridad", "inspector_id": inspector_id,
            "scheduled_on": today.isoformat(), "port": "Asunción"}
    created = client.post("/api/v1/inspections", json=body, headers=admin)
    assert created.status_code == 201, created.json
    inspection_id = created.json["id"]
    assert client.post(f"/api/v1/inspections/{inspection_id}/start", headers=inspector).status_code == 200
    items = client.get(f"/api/v1/inspections/{inspection_id}", headers=inspector).json["items"]
    for n, item in enumerate(items):
        answer = {"client_id": str(uuid.uuid4()), "result": "pass"}
        if item["required"] is not None:
            answer["observed"] = item["required"]
        done = client.put(f"/api/v1/inspections/{inspection_id}/answers/{item['id']}", json=answer, headers=inspector)
        assert done.status_code == 200, done.json
        if item["evidence_required"]:
            photo = encode(noisy_image((64, 48), seed=vessel_id * 1000 + n), "JPEG", quality=80)
            form = {"item_id": item["id"], "client_id": str(uuid.uuid4()), "file": (io.BytesIO(photo), "f.jpg")}
            sent = client.post(f"/api/v1/inspections/{inspection_id}/photos", data=form, headers=inspector,
                               content_type="multipart/form-data")
            assert sent.status_code == 201, sent.json
    submitted = client.post(f"/api/v1/inspections/{inspection_id}/submit", headers=inspector, json={
        "client_id": str(uuid.uuid4()), "signature": "Insp. Prueba", "master_name": "Cap. Benítez",
        "signatures": SIGNATURES})
    assert submitted.status_code == 200, submitted.json
    if not issued:
        return {**submitted.json, "inspection_id": inspection_id}
    certificate = submitted.json["certificate"]
    assert certificate and certificate["token"], submitted.json
    return certificate
