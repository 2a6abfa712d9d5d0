"""Seeding and request helpers shared by bench/photos.py and bench/sync.py (and their tests).

Everything goes through the real app: users and a vessel are created with the domain functions on a
temp database, then the inspection is scheduled and started through the API, so a broken start path
fails here and not later in a timed loop. Requests are made through a `Caller` (one function:
method, path, body, headers -> Reply), so the same helpers drive gunicorn over loopback
(`http_caller`) or the Flask test client (`flask_caller`). Nothing happens at import time.
"""
from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import os
import random
import urllib.parse
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Callable

ADMIN = ("bench-admin", "bench-admin-password")
INSPECTOR = ("bench-inspector", "bench-inspector-password")

# A mixed passenger/cargo motor vessel with boilers, several holds and boats: about 56 seguridad +
# documentacion items, 28 of them needing photo evidence (a plain cargo vessel has 41 and 15).
BIG_VESSEL = {
    "registration": "PY-BENCH1", "name": "Buque Bench Grande", "flag": "national", "cabotage_permit": None,
    "home_port": "Asunción", "propulsion": "motor", "service": "mixed", "hull_material": "iron",
    "length_m": Decimal("80"), "beam_m": Decimal("14"), "girth_m": Decimal("20"), "crew": 20,
    "max_passengers": 300, "cabins": 60, "fire_hydrants": 6, "holds": 4, "boilers": 2, "steam_launch": False,
    "boats": 3, "cooking": "galley", "hot_climate": True, "flammable_cargo_kg": 0, "practicaje": "none",
}

DEFAULT_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432"  # the scratch databases' server
CAMERA_MODEL = b"Bench Camera"  # the EXIF model string make_sample_jpeg() writes, 12 bytes


def bench_config(tmp: str) -> dict:
    """The app config for a benchmark on a temp dir: SQLite file, media and keys under `tmp`."""
    return {"DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite", "SECRET_KEY": "bench",
            "PASSWORD_METHOD": "pbkdf2:sha256:1000", "MEDIA_DIR": f"{tmp}/media", "KEYS_DIR": f"{tmp}/keys",
            "PUBLIC_URL": "http://127.0.0.1", "RATE_COUNTS_FILE": f"{tmp}/rate-counts",
            "RATE_LIMIT_LOGIN": 0, "RATE_LIMIT_VERIFY": 0}  # one address sends everything: no per-client limits


def server_env(config: dict) -> dict:
    """The same config as BALIZA_* environment variables, for `bench.wsgi:app` under gunicorn."""
    return {f"BALIZA_{key}": str(value) for key, value in config.items()}


def production_config(tmp: str, url: str, media: dict) -> dict:
    """bench_config with the rate limits back at their defaults, one trusted proxy, PostgreSQL and the photo store."""
    config = {key: value for key, value in bench_config(tmp).items() if not key.startswith("RATE_LIMIT_")}
    return {**config, "DATABASE_URL": url, "TRUSTED_PROXIES": 1, **media}


@contextlib.contextmanager
def scratch_database(url: str | None):
    """Yield a database URL; a database this made (the default, or a named one that did not exist) is dropped after."""
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(url or f"{DEFAULT_SERVER}/baliza_bench_{os.getpid()}")
    name = url.database
    server = url.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(server, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        if not exists:
            with psycopg.connect(server, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def seed(config: dict, vessel: dict | None = None) -> dict:
    """Create the schema, an admin, an inspector, an owner and one vessel; returns their ids.

    Users are created with the domain function (the API has no first-admin bootstrap); the vessel
    defaults to BIG_VESSEL; the office's signing key is made as `flask keys new` would. The engine
    is disposed so a server may open the same SQLite file.
    """
    from app import create_app
    from inspection.accounts.users import create_user
    from inspection.certificates.keys import create_signing_key
    from inspection.core.extensions import db
    from inspection.core.models import utcnow
    from inspection.registry.vessels import create_owner, create_vessel

    app = create_app(config)
    with app.app_context():
        db.create_all()
        owner = create_owner({"name": "Armador Bench", "tax_id": "80099999-1", "email": "bench@example.com",
                              "phone": None, "address": None})
        admin = create_user(*ADMIN, "admin")
        inspector = create_user(*INSPECTOR, "inspector")
        boat = create_vessel({**BIG_VESSEL, **(vessel or {}), "owner_id": owner.id})
        create_signing_key(app.config["OFFICE_CODE"], utcnow())
        db.session.commit()
        ids = {"admin_id": admin.id, "inspector_id": inspector.id, "owner_id": owner.id, "vessel_id": boat.id}
        db.session.remove()
        db.engine.dispose()
    return ids


# --- requests -------------------------------------------------------------------------------------

@dataclass
class Reply:
    """One HTTP answer: status, headers (lower-case names) and the JSON body (None if not JSON)."""

    status: int
    headers: dict = field(default_factory=dict)
    body: object = None


Caller = Callable[..., Reply]  # caller(method, path, body=None, headers=None) -> Reply; body: dict or bytes


def _encode(body, headers: dict | None) -> tuple[bytes | None, dict]:
    """A dict becomes JSON; bytes pass as they are (the caller sets Content-Type)."""
    headers = dict(headers or {})
    if isinstance(body, dict):
        headers.setdefault("Content-Type", "application/json")
        return json.dumps(body).encode(), headers
    return body, headers


def http_caller(base_url: str, timeout: float = 120) -> Caller:
    """Requests to a loopback server on one http.client connection (reopened when the server closes it)."""
    parts = urllib.parse.urlsplit(base_url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)

    def call(method: str, path: str, body=None, headers: dict | None = None) -> Reply:
        data, headers = _encode(body, headers)
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            conn.close()  # a kept-alive socket the server had closed: one retry on a fresh one
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
        raw = response.read()
        if response.will_close:
            conn.close()
        reply_headers = {k.lower(): v for k, v in response.getheaders()}
        return Reply(response.status, reply_headers, json_or_none(raw, reply_headers))

    call.close = conn.close
    return call


def flask_caller(client) -> Caller:
    """The same interface over a Flask test client (for tests, no server)."""

    def call(method: str, path: str, body=None, headers: dict | None = None) -> Reply:
        data, headers = _encode(body, headers)
        response = client.open(path, method=method, data=data, headers=headers)
        reply_headers = {k.lower(): v for k, v in response.headers.items()}
        return Reply(response.status_code, reply_headers, json_or_none(response.get_data(), reply_headers))

    call.close = lambda: None
    return call


def json_or_none(raw: bytes, headers: dict):
    if "json" not in headers.get("content-type", ""):
        return None
    return json.loads(raw) if raw else None


def expect(reply: Reply, status: int, what: str) -> Reply:
    """Fail loudly (RuntimeError with the body) unless the reply has `status`."""
    if reply.status != status:
        raise RuntimeError(f"{what}: expected {status}, got {reply.status}: {str(reply.body)[:800]}")
    return reply


def token(call: Caller, username: str, password: str) -> dict:
    """A bearer header from the real token endpoint."""
    reply = expect(call("POST", "/api/v1/auth/token", {"username": username, "password": password}), 201,
                   f"token for {username}")
    return {"Authorization": f"Bearer {reply.body['token']}"}


def office_today() -> date:
    """The server's "today": the date in the office's zone (the bench apps keep the default OFFICE_TZ)."""
    from inspection.core.clock import DEFAULT_ZONE, zone_named

    return datetime.now(zone_named(DEFAULT_ZONE)).date()


def start_inspection(call: Caller, ids: dict, kind: str = "seguridad", port: str = "Asunción") -> tuple[int, list, dict]:
    """Schedule (as admin) and start (as inspector) an inspection through the API, on a new copy of the seeded
    vessel: a vessel has one open inspection of a kind at a time, and each call's inspection stays open.

    Returns (inspection id, pinned items, inspector auth header).
    """
    admin, inspector = token(call, *ADMIN), token(call, *INSPECTOR)
    body = {"vessel_id": copy_vessel(call, admin, ids["vessel_id"]), "kind": kind, "inspector_id": ids["inspector_id"],
            "scheduled_on": office_today().isoformat(), "port": port}
    inspection_id = expect(call("POST", "/api/v1/inspections", body, admin), 201, "schedule").body["id"]
    expect(call("POST", f"/api/v1/inspections/{inspection_id}/start", None, inspector), 200, "start")
    detail = expect(call("GET", f"/api/v1/inspections/{inspection_id}", None, inspector), 200, "detail").body
    if detail["status"] != "in_progress" or not detail["items"]:
        raise RuntimeError(f"inspection {inspection_id} did not start: {detail['status']}, {len(detail['items'])} items")
    return inspection_id, detail["items"], inspector


def copy_vessel(call: Caller, admin: dict, vessel_id: int) -> int:
    """A new vessel with the particulars and owner of `vessel_id` and a registration of its own, through the API."""
    vessel = expect(call("GET", f"/api/v1/vessels/{vessel_id}", None, admin), 200, "vessel").body
    body = {name: vessel[name] for name in (*BIG_VESSEL, "owner_id")}
    body["registration"] = f"PY-B{uuid.uuid4().hex[:8].upper()}"
    return expect(call("POST", "/api/v1/vessels", body, admin), 201, "vessel copy").body["id"]


# --- payloads -------------------------------------------------------------------------------------

def client_ids(n: int, seed: int = 0) -> list[str]:
    """`n` distinct version-4 UUIDs, reproducible for a seed."""
    rng = random.Random(f"client-ids-{seed}")
    ids = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(n)]
    assert len(set(ids)) == n
    return ids


def sync_entries(items: list[dict], n: int, start: datetime | None = None, seed: int = 0,
                 photos: dict[str, list[str]] | None = None) -> list[dict]:
    """`n` sync entries spread over `items`, several revisions per item when n > len(items).

    Entries go round-robin over the items, so item k's revisions are k, k + len(items), ...;
    each revision is recorded `step` seconds later than the last one anywhere (a tablet's clock moves
    on). Every revision but an item's last is a `fail` (with a lower count when a quantity is
    required, and a note); the last is a `pass` with the required count and, for items in `photos`,
    the SHA-256 of the photos taken for it. Every entry has its own client_id.
    """
    if not items:
        raise ValueError("no items to answer")
    start = start or datetime.now(timezone.utc).replace(microsecond=0)
    ids = client_ids(n, seed)
    last = {item["id"]: k for k in range(n) for item in [items[k % len(items)]]}
    entries = []
    for k in range(n):
        item = items[k % len(items)]
        revision = k // len(items) + 1
        entry = {"item_id": item["id"], "client_id": ids[k],
                 "recorded_at": (start + timedelta(seconds=7 * k)).isoformat()}
        required, maximum = item.get("required"), item.get("maximum")
        if last[item["id"]] == k:
            entry["result"] = "pass"
            if required is not None or maximum is not None:
                entry["observed"] = required if required is not None else maximum
            if photos and photos.get(item["id"]):
                entry["photos"] = list(photos[item["id"]])
        else:
            entry["result"] = "fail"
            entry["note"] = f"Revisión {revision}: pendiente de verificar a bordo."
            if required is not None:
                entry["observed"] = max(0, required - 1)
            elif maximum is not None:
                entry["observed"] = maximum + 1
        entries.append(entry)
    return entries


def batches(entries: list, size: int) -> list[list]:
    """`entries` cut into consecutive batches of at most `size`."""
    if size < 1:
        raise ValueError("batch size must be positive")
    return [entries[i:i + size] for i in range(0, len(entries), size)]


def multipart(fields: dict, file_bytes: bytes, filename: str = "foto.jpg",
              mime: str = "image/jpeg", boundary: str | None = None) -> tuple[bytes, str]:
    """A multipart/form-data body (fields + one `file`) and its Content-Type, built once before timing."""
    boundary = boundary or f"----baliza-bench-{hashlib.sha256(file_bytes).hexdigest()[:24]}"
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
                 f"Content-Type: {mime}\r\n\r\n".encode())
    parts.append(file_bytes)
    parts.append(f"\r\n--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def vary_jpeg(data: bytes, n: int) -> bytes:
    """The same JPEG with the EXIF camera model rewritten to a same-length tag numbered `n`.

    The pixels and the JPEG structure are untouched (decoding costs the same), but the bytes and
    their SHA-256 differ, so the server's same-bytes dedup cannot short-circuit the pipeline.
    """
    if data.count(CAMERA_MODEL) != 1:
        raise ValueError("expected exactly one EXIF camera model string from make_sample_jpeg()")
    tag = f"Bench{n % 10_000_000:07d}".encode()
    assert len(tag) == len(CAMERA_MODEL)
    return data.replace(CAMERA_MODEL, tag)


def phone_photos(count: int, width: int = 1600, height: int = 1200, quality: int = 82, seed: int = 100) -> list[bytes]:
    """`count` distinct camera-like JPEGs (about 350-450 kB at 1600 x 1200), half of them rotated by EXIF."""
    from bench.photos_pipeline import make_sample_jpeg

    return [make_sample_jpeg(width, height, quality=quality, orientation=6 if n % 2 else 1, seed=seed + n)
            for n in range(count)]
