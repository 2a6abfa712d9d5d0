"""Scale bench (issue 11): a big fleet seeded with bulk inserts, then p50/p90 and SQL queries per page.

python bench/scale.py [--database-url URL] [--vessels 5000] [--inspections 50000] [--answered 5000]
                      [--requests 30]
Without --database-url (or BALIZA_TEST_DATABASE_URL) the database is a temp SQLite file; a given
URL's tables are dropped and made again, so point it at a database of its own. Rows go in with
executemany (`insert(Model)` with lists of dicts), never one ORM object at a time. Each page of
PAGES that exists in the app is requested in-process through the Flask test client (so the SQL
statements of each request can be counted), interleaved with a bare hello-world (bench/hello.py)
measured the same way; times are p50 and p90 in ms and ratios against that baseline. Writes
bench/results/scale_<dialect>.json.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import date, datetime, timedelta, timezone
from datetime import time as day_time
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fixtures import bench_config  # noqa: E402
from bench.harness import report  # noqa: E402

TODAY = date(2026, 11, 20)
PASSWORD = "bench-scale-password"
INSPECTORS = 20
OWNERS = 500
BATCH = 5_000
BIG_FLEET = 10  # owner 1 (the "armador" user) owns every 10th vessel: 500 of 5,000
# The pages and lists of issue 11, as (name, path, who asks, how). Who: "admin" or "owner" (the armador
# with the big fleet); how: "session" (a page), "bearer" (the API) or "feed" (the path is the caller's
# private .ics URL, no sign-in). A row whose path the app does not route is skipped.
PAGES = [
    ("owner fleet page", "/flota", "owner", "session"),
    ("fleet page (admin)", "/flota", "admin", "session"),
    ("applications", "/solicitudes", "admin", "session"),
    ("applications (owner)", "/solicitudes", "owner", "session"),
    ("new application (admin)", "/solicitudes/nueva", "admin", "session"),
    ("new application (owner)", "/solicitudes/nueva", "owner", "session"),
    ("planning board", "/planificacion", "admin", "session"),
    ("notices", "/avisos", "owner", "session"),
    ("fleet API (owner)", "/api/v1/fleet?per_page=50", "owner", "bearer"),
    ("fleet API", "/api/v1/fleet?per_page=50", "admin", "bearer"),
    ("applications API", "/api/v1/applications?per_page=50", "admin", "bearer"),
    ("dashboard", "/tablero", "admin", "session"),
    ("certificate list", "/certificados", "admin", "session"),
    ("inspection list", "/inspecciones", "admin", "session"),
    ("calendar API", "/api/v1/calendar", "owner", "bearer"),
    ("calendar feed (owner)", "/calendario/<int:user_id>/<secret>.ics", "owner", "feed"),
]
DESIGNS = [  # propulsion, service, boilers, hull: a mixed river fleet (sail and rowing craft need less, arts. 210-211)
    ("motor", "cargo", 0, "iron"), ("motor", "passenger", 0, "steel"), ("motor", "tug", 0, "iron"),
    ("steam", "cargo", 2, "iron"), ("sail", "cargo", 0, "wood"), ("towed", "cargo", 0, "iron"),
    ("rowing", "work", 0, "wood"), ("motor", "tanker", 0, "steel"),
]
ITEMS = [f"seg.bench.{n:02d}" for n in range(30)]  # answers carry item ids; a few real ones fail too
KINDS_ = ("seguridad", "navegabilidad")
FAILING = ["seg.machinery.condition", "seg.machinery.running", "nav.hull.condition", "seg.machinery.spares"]


def _chunks(rows: list, size: int = BATCH):
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


def bulk(model, rows: list[dict]) -> None:
    """executemany INSERTs in batches (SQLAlchemy's insertmanyvalues on PostgreSQL)."""
    from inspection.core.extensions import db
    for chunk in _chunks(rows):
        db.session.execute(db.insert(model), chunk)


def seed(config: dict, vessels: int, inspections: int, answered: int, seed_: int = 11) -> dict:
    """Make the schema and the fleet; returns counts of what was written and the seconds it took."""
    from app import create_app
    from inspection.accounts.auth import hash_password
    from inspection.core.extensions import db
    from inspection.core.models import (
        Answer,
        Application,
        Certificate,
        Deficiency,
        FineAssessment,
        Inspection,
        Notice,
        Owner,
        SigningKey,
        User,
        Vessel,
        utcnow,
    )
    from inspection.law.tonnage import gross_tonnage
    from inspection.registry.needs import decided_needs
    from inspection.registry.vessels import particulars_of, registration_key

    started = time.perf_counter()
    rng = random.Random(seed_)
    app = create_app(config)
    with app.app_context():
        db.drop_all()
        db.create_all()
        now, password = utcnow(), hash_password(PASSWORD)
        bulk(SigningKey, [{"kid": "bench-kid", "office_code": "PGP", "public_jwk": {}, "created_at": now}])
        bulk(Owner, [{"id": n + 1, "name": f"Armador Escala {n}", "tax_id": f"70{n:06d}-1", "created_at": now,
                      "updated_at": now} for n in range(OWNERS)])
        users = [{"id": 1, "username": "admin", "role": "admin", "full_name": "Jefa", "password_hash": password,
                  "language": "es", "active": True, "created_at": now},
                 {"id": 2, "username": "armador", "role": "owner", "owner_id": 1, "full_name": "Armador",
                  "password_hash": password, "language": "es", "active": True, "created_at": now}]
        users += [{"id": 3 + n, "username": f"insp{n}", "role": "inspector", "full_name": f"Inspector {n:02d}",
                   "password_hash": password, "language": "es", "active": True, "created_at": now}
                  for n in range(INSPECTORS)]
        bulk(User, users)
        vessel_rows = []
        for n in range(vessels):
            propulsion, service, boilers, hull = DESIGNS[n % len(DESIGNS)]
            length, beam, girth = Decimal(6 + n % 70), Decimal("2.5") + Decimal(n % 9), Decimal(4 + n % 11)
            registration = f"PY-E{n:05d}"
            vessel_rows.append({
                "id": n + 1, "registration": registration, "registration_key": registration_key(registration),
                "name": f"Buque Escala {n}", "owner_id": 1 if n % BIG_FLEET == 0 else 2 + n % (OWNERS - 1), "flag": "national", "home_port": "Asunción",
                "propulsion": propulsion, "service": service, "hull_material": hull, "length_m": length,
                "beam_m": beam, "girth_m": girth, "gross_tonnage": gross_tonnage(length, beam, girth, hull),
                "crew": 2 + n % 8, "max_passengers": 50 if service == "passenger" else 0, "cabins": 0,
                "fire_hydrants": 1, "holds": 1, "boilers": boilers, "steam_launch": False, "boats": 1,
                "cooking": "galley", "hot_climate": bool(n % 2), "flammable_cargo_kg": 0,
                "itinerary_category": "B", "practicaje": "none", "created_at": now, "updated_at": now})
        for row in vessel_rows:  # what create_vessel stores with the particulars (needs.py)
            row.update(decided_needs(particulars_of(SimpleNamespace(cabotage_permit=None, **row))))
        bulk(Vessel, vessel_rows)
        # Inspections: per vessel, alternately seguridad and navegabilidad, six months apart backwards from
        # about today; the newest of each vessel is still scheduled, the rest submitted (a few failed).
        per_vessel = max(1, inspections // vessels)
        inspection_rows, certificate_rows = [], []
        next_id = 1
        for v in range(vessels):
            offset = rng.randrange(0, 180)
            for k in range(per_vessel):
                on = TODAY - timedelta(days=offset + 91 * k - 60)
                kind = "seguridad" if k % 2 == 0 else "navegabilidad"
                status = "scheduled" if on > TODAY else "submitted"
                outcome = None if status != "submitted" else ("failed" if rng.random() < 0.05 else "passed")
                at = datetime.combine(on, day_time(15), timezone.utc)
                inspection_rows.append({
                    "id": next_id, "vessel_id": v + 1, "kind": kind, "inspector_id": 3 + rng.randrange(INSPECTORS),
                    "scheduled_on": on, "port": "Asunción", "status": status, "outcome": outcome,
                    "started_at": at if status == "submitted" else None,
                    "submitted_at": at if status == "submitted" else None, "created_by_id": 1, "created_at": now})
                if outcome == "passed":
                    months = 6 if kind == "seguridad" else 12
                    certificate_rows.append({
                        "id": next_id, "number": f"E-{next_id:07d}", "kind": kind, "vessel_id": v + 1,
                        "inspection_id": next_id, "issued_on": on, "inspected_on": on,
                        "valid_until": on + timedelta(days=30 * months), "status_index": next_id,
                        "office_code": "PGP", "kid": "bench-kid", "token": "", "qr_png": b"", "qr_version": 1,
                        "conditions": [], "created_at": now})
                next_id += 1
        bulk(Inspection, inspection_rows)
        # A certificate is superseded by the next one of its vessel and kind; insert newest first so the
        # foreign key always names a row already there.
        newer: dict[tuple, int] = {}
        for row in sorted(certificate_rows, key=lambda r: r["issued_on"], reverse=True):
            key = (row["vessel_id"], row["kind"])
            row["superseded_by_id"] = newer.get(key)
            newer[key] = row["id"]
        bulk(Certificate, sorted(certificate_rows, key=lambda r: r["issued_on"], reverse=True))
        submitted = sorted((r for r in inspection_rows if r["status"] == "submitted"),
                           key=lambda r: (r["scheduled_on"], r["id"]), reverse=True)[:answered]
        answer_rows, deficiency_rows = [], []
        for inspection in submitted:
            at = inspection["submitted_at"]
            failing = rng.sample(FAILING, rng.randrange(0, 3))
            for item in ITEMS + failing:
                result = "fail" if item in failing else "pass"
                answer_rows.append({"inspection_id": inspection["id"], "item_id": item, "client_id": str(uuid.UUID(int=rng.getrandbits(128))),
                                    "result": result, "note": "", "recorded_at": at, "received_at": at,
                                    "current": True, "photo_hashes": [], "answered_by_id": inspection["inspector_id"]})
                if result == "fail":
                    deficiency_rows.append({
                        "inspection_id": inspection["id"], "vessel_id": inspection["vessel_id"], "item_id": item,
                        "source": "Ley 928/1927", "article": "63", "description": "Deficiencia de escala",
                        "action": "within_14_days", "detainable": False, "practice": False,
                        "due_on": inspection["scheduled_on"] + timedelta(days=14),
                        "status": "closed" if rng.random() < 0.7 else "open"})
        bulk(Answer, answer_rows)
        bulk(Deficiency, deficiency_rows)
        # Pending applications for every 7th vessel (some of the big fleet's among them); every 3rd filed
        # late, with the hull fine of art. 204 (a few waived); and the armador's notices, half read.
        current = {(r["vessel_id"], r["kind"]): r for r in certificate_rows if r["superseded_by_id"] is None}
        application_rows, fine_rows, notice_rows = [], [], []
        for n, v in enumerate(range(0, vessels, 7)):
            kind = KINDS_[n % 2]
            certificate = current.get((v + 1, kind))
            late = n % 3 == 0
            application_rows.append({
                "id": n + 1, "vessel_id": v + 1, "kind": kind, "port": "Asunción",
                "preferred_on": TODAY + timedelta(days=10), "applied_on": TODAY - timedelta(days=n % 20),
                "applied_by_id": 2 if v % BIG_FLEET == 0 else 1, "status": "pending", "late": late,
                "certificate_id": certificate["id"] if certificate else None,
                "apply_by": certificate["valid_until"] - timedelta(days=30) if certificate else None, "created_at": now})
            if late and certificate:
                fine_rows.append({
                    "application_id": n + 1, "vessel_id": v + 1, "certificate_id": certificate["id"],
                    "code": "late_hull" if kind == "navegabilidad" else "late_application", "source": "Ley 928/1927",
                    "article": "204" if kind == "navegabilidad" else "225", "amount": Decimal("1000.00"),
                    "reason_es": "Solicitud fuera de plazo", "reason_en": "Application filed late",
                    "assessed_on": TODAY - timedelta(days=n % 20),
                    "waived_at": now if n % 10 == 0 else None, "waived_by_id": 1 if n % 10 == 0 else None,
                    "waived_reason": "Error de la oficina" if n % 10 == 0 else None})
        bulk(Application, application_rows)
        bulk(FineAssessment, fine_rows)
        for n, row in enumerate(r for r in certificate_rows if r["superseded_by_id"] is None
                                and (r["vessel_id"] - 1) % BIG_FLEET == 0):
            notice_rows.append({
                "user_id": 2, "kind": "apply_by_30", "subject_id": row["id"], "due_on": row["valid_until"],
                "vessel_id": row["vessel_id"], "created_on": TODAY - timedelta(days=n % 30), "created_at": now,
                "attempts": 0, "read_at": now if n % 2 else None,
                "params": {"vessel": f"Buque Escala {row['vessel_id'] - 1}", "registration": f"PY-E{row['vessel_id'] - 1:05d}",
                           "kind": row["kind"], "number": row["number"], "days": 30,
                           "valid_until_on": row["valid_until"].isoformat(),
                           "apply_by_on": (row["valid_until"] - timedelta(days=30)).isoformat(),
                           "articles": row["kind"]}})
        bulk(Notice, notice_rows)
        if db.engine.dialect.name == "postgresql":  # explicit ids: move the sequences past them
            for table in ("owners", "users", "vessels", "inspections", "certificates", "applications"):
                db.session.execute(db.text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                           f"(SELECT COALESCE(MAX(id), 1) FROM {table}))"))
        db.session.commit()
        db.session.execute(db.text("ANALYZE"))
        db.session.commit()
        counts = {"vessels": len(vessel_rows), "inspections": len(inspection_rows),
                  "certificates": len(certificate_rows), "answers": len(answer_rows),
                  "deficiencies": len(deficiency_rows), "applications": len(application_rows),
                  "fines": len(fine_rows), "notices": len(notice_rows), "seconds": round(time.perf_counter() - started, 1)}
        db.session.remove()
        db.engine.dispose()
    return counts


def _percentile(values: list[float], q: int) -> float:
    """The q-th percentile (inclusive method); the single value when there is one."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def measure(config: dict, requests: int, pages=PAGES) -> list[dict]:
    """p50/p90 ms and SQL statements per request for each routed page, and the hello-world baseline."""
    from sqlalchemy import event

    from app import create_app
    from bench.hello import app as hello
    from inspection.core.extensions import db

    app = create_app({**config, "WTF_CSRF_ENABLED": False})
    hello_client = hello.test_client()
    with app.app_context():
        engine = db.engine
    # no app context held around the requests: each pushes its own, so `g` (the signed-in user) is per request
    routed = {rule.rule for rule in app.url_map.iter_rules()}
    pages = [p for p in pages if p[1].split("?")[0] in routed]
    sessions, bearers = {}, {}
    for who, username in (("admin", "admin"), ("owner", "armador")):
        sessions[who] = app.test_client()
        assert sessions[who].post("/login", data={"username": username, "password": PASSWORD}).status_code == 302
        token = app.test_client().post("/api/v1/auth/token",
                                       json={"username": username, "password": PASSWORD}).json["token"]
        bearers[who] = {"Authorization": f"Bearer {token}"}
    api = app.test_client()
    statements: list[int] = []
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append(1))

    def timed(call) -> tuple[float, int]:
        statements.clear()
        start = time.perf_counter()
        response = call()
        elapsed = (time.perf_counter() - start) * 1000
        if response.status_code != 200:
            raise SystemExit(f"{response.request.path}: {response.status_code} {response.get_data(as_text=True)[:300]}")
        return elapsed, len(statements)

    runs = {"hello (baseline)": lambda: hello_client.get("/")}
    for name, path, who, how in pages:
        if how == "feed":  # the caller's private URL, as GET /api/v1/calendar gives it
            path = urlsplit(api.get("/api/v1/calendar", headers=bearers[who]).json["url"]).path
        client, headers = (sessions[who], {}) if how == "session" else (api, bearers.get(who) if how == "bearer" else {})
        runs[name] = (lambda c=client, p=path, h=headers: c.get(p, headers=h))
    for run in runs.values():  # warm: templates compiled, catalog loaded, statements cached
        run()
    samples = {name: [] for name in runs}
    queries = {name: 0 for name in runs}
    for _ in range(requests):  # interleaved, so drift hits every page alike
        for name, run in runs.items():
            ms, n = timed(run)
            samples[name].append(ms)
            queries[name] = max(queries[name], n)
    base50, base90 = _percentile(samples["hello (baseline)"], 50), _percentile(samples["hello (baseline)"], 90)
    rows = []
    for name, values in samples.items():
        p50, p90 = _percentile(values, 50), _percentile(values, 90)
        rows.append({"name": name, "requests": len(values), "p50_ms": round(p50, 2), "p90_ms": round(p90, 2),
                     "p50_ratio": round(p50 / base50, 1), "p90_ratio": round(p90 / base90, 1),
                     "queries": queries[name] if name != "hello (baseline)" else 0,
                     "within_100ms": p50 <= 100})
    return rows


def main(argv=None) -> None:
    """Seed the fleet, measure every routed page, print and write the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("BALIZA_TEST_DATABASE_URL"))
    parser.add_argument("--vessels", type=int, default=5_000)
    parser.add_argument("--inspections", type=int, default=50_000)
    parser.add_argument("--answered", type=int, default=5_000)
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="baliza-scale-") as tmp:
        config = bench_config(tmp)
        if args.database_url:
            config["DATABASE_URL"] = args.database_url
        counts = seed(config, args.vessels, args.inspections, args.answered)
        print(f"seeded {counts}")
        rows = measure(config, args.requests)
    dialect = "postgresql" if config["DATABASE_URL"].startswith("postgresql") else "sqlite"
    report(f"Scale ({dialect}): {counts['vessels']} vessels, {counts['inspections']} inspections, "
           f"{counts['answers']} answers; in-process, {args.requests} requests each", rows, name=f"scale_{dialect}")
    return rows


if __name__ == "__main__":
    main()
