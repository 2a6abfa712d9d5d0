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
from datetime import date, datetime, time as day_time, timedelta, timezone
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fixtures import bench_config  # noqa: E402
from bench.harness import report  # noqa: E402

TODAY = date(2026, 11, 20)
PASSWORD = "bench-scale-password"
INSPECTORS = 20
OWNERS = 500
BATCH = 5_000
# The pages and lists of issue 11, as (name, path, how to sign in). A row whose path the app does not
# route is skipped, so the owner's fleet page, the planning board and the rest join by adding a row.
PAGES = [
    ("fleet API", "/api/v1/fleet?per_page=50", "bearer"),
    ("applications API", "/api/v1/applications?per_page=50", "bearer"),
    ("dashboard", "/tablero", "session"),
    ("certificate list", "/certificados", "session"),
    ("inspection list", "/inspecciones", "session"),
    ("owner fleet page", "/flota", "session"),
    ("planning board", "/planificacion", "session"),
]
DESIGNS = [  # propulsion, service, boilers, hull: a mixed river fleet (sail and rowing craft need less, arts. 210-211)
    ("motor", "cargo", 0, "iron"), ("motor", "passenger", 0, "steel"), ("motor", "tug", 0, "iron"),
    ("steam", "cargo", 2, "iron"), ("sail", "cargo", 0, "wood"), ("towed", "cargo", 0, "iron"),
    ("rowing", "work", 0, "wood"), ("motor", "tanker", 0, "steel"),
]
ITEMS = [f"seg.bench.{n:02d}" for n in range(30)]  # answers carry item ids; a few real ones fail too
FAILING = ["seg.machinery.condition", "seg.machinery.running", "nav.hull.condition", "seg.machinery.spares"]


def _chunks(rows: list, size: int = BATCH):
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


def bulk(model, rows: list[dict]) -> None:
    """executemany INSERTs in batches (SQLAlchemy's insertmanyvalues on PostgreSQL)."""
    from inspection.extensions import db
    for chunk in _chunks(rows):
        db.session.execute(db.insert(model), chunk)


def seed(config: dict, vessels: int, inspections: int, answered: int, seed_: int = 11) -> dict:
    """Make the schema and the fleet; returns counts of what was written and the seconds it took."""
    from app import create_app
    from inspection.auth import hash_password
    from inspection.extensions import db
    from inspection.models import (Answer, Application, Certificate, Deficiency, Inspection, Owner, SigningKey,
                                   User, Vessel, utcnow)
    from inspection.tonnage import gross_tonnage
    from inspection.vessels import registration_key

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
                "name": f"Buque Escala {n}", "owner_id": n % OWNERS + 1, "flag": "national", "home_port": "Asunción",
                "propulsion": propulsion, "service": service, "hull_material": hull, "length_m": length,
                "beam_m": beam, "girth_m": girth, "gross_tonnage": gross_tonnage(length, beam, girth, hull),
                "crew": 2 + n % 8, "max_passengers": 50 if service == "passenger" else 0, "cabins": 0,
                "fire_hydrants": 1, "holds": 1, "boilers": boilers, "steam_launch": False, "boats": 1,
                "cooking": "galley", "hot_climate": bool(n % 2), "flammable_cargo_kg": 0,
                "itinerary_category": "B", "practicaje": "none", "created_at": now, "updated_at": now})
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
        bulk(Application, [{"vessel_id": v + 1, "kind": "seguridad", "port": "Asunción",
                            "preferred_on": TODAY + timedelta(days=10), "applied_on": TODAY - timedelta(days=v % 20),
                            "applied_by_id": 2, "status": "pending", "late": v % 7 == 0, "created_at": now}
                           for v in range(0, vessels, 10)])
        if db.engine.dialect.name == "postgresql":  # explicit ids: move the sequences past them
            for table in ("owners", "users", "vessels", "inspections", "certificates"):
                db.session.execute(db.text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                           f"(SELECT COALESCE(MAX(id), 1) FROM {table}))"))
        db.session.commit()
        db.session.execute(db.text("ANALYZE"))
        db.session.commit()
        counts = {"vessels": len(vessel_rows), "inspections": len(inspection_rows),
                  "certificates": len(certificate_rows), "answers": len(answer_rows),
                  "deficiencies": len(deficiency_rows), "seconds": round(time.perf_counter() - started, 1)}
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
    from inspection.extensions import db

    app = create_app({**config, "WTF_CSRF_ENABLED": False})
    hello_client = hello.test_client()
    with app.app_context():
        routed = {rule.rule for rule in app.url_map.iter_rules()}
        pages = [p for p in pages if p[1].split("?")[0] in routed]
        session = app.test_client()
        assert session.post("/login", data={"username": "admin", "password": PASSWORD}).status_code == 302
        api = app.test_client()
        token = api.post("/api/v1/auth/token", json={"username": "admin", "password": PASSWORD}).json["token"]
        bearer = {"Authorization": f"Bearer {token}"}
        statements: list[int] = []
        event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(1))

        def timed(call) -> tuple[float, int]:
            statements.clear()
            start = time.perf_counter()
            response = call()
            elapsed = (time.perf_counter() - start) * 1000
            if response.status_code != 200:
                raise SystemExit(f"{response.request.path}: {response.status_code} {response.get_data(as_text=True)[:300]}")
            return elapsed, len(statements)

        runs = {"hello (baseline)": lambda: hello_client.get("/")}
        for name, path, how in pages:
            client = session if how == "session" else api
            runs[name] = (lambda c=client, p=path, h=(bearer if how == "bearer" else {}): c.get(p, headers=h))
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
