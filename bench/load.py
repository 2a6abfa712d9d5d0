"""Load bench (issue 12): locust, headless and time-bounded, on PostgreSQL behind gunicorn with four workers (as gunicorn.conf.py sets them).

python bench/load.py [--seconds 60] [--users 20] [--workers 4] [--media s3|local] [--database-url URL]
                     [--baseline-seconds 10]

A scratch PostgreSQL database (default postgresql+psycopg://postgres@127.0.0.1:5432/baliza_load_<pid>)
is created, seeded through the domain functions (bench.fixtures.seed plus one vessel per user, an owner
account for the fleet), served by gunicorn and dropped at the end. Four kinds of user run at once,
without think time, so the figures are the server's capacity under a mixed load:
  * tablet - a whole inspection as the PWA does it: schedule (admin), start, read the pinned items,
             sync every answer in batches with client ids, upload one small photo per evidence item as
             the tablet sends it (static/js/tablet/photos.js: upright, no metadata; each its own bytes by
             its JFIF density, bench.photos_pipeline.vary_density), submit; now and then the same batch
             or photo is sent twice (idempotency under load);
  * police - GET /api/v1/verify/<token> and /v/<token> of certificates the tablets issued, and
             /api/v1/status-list;
  * owner  - GET /api/v1/fleet with a bearer token, the /flota page with a session;
  * staff  - the /planificacion page with a session.
Production parts: photos go to a real SeaweedFS bucket (bench/seaweed.py; `--media s3`, the default
when `weed` is installed; `--media local` for the local disk), and the per-client rate limits stay on
at their production defaults. The server trusts one proxy (BALIZA_TRUSTED_PROXIES=1) and every
simulated client sends its own X-Forwarded-For, as a load balancer would: a tablet, an owner or a
staff member is one address; a police user stands for a patrol, each scan from one of its officers'
phones (POLICE_PHONES of them, so each phone scans a few times a minute, as a person does). After the
run one address verifies past the limit and must get 429, so the limits were really on.
Every request a tablet saw acknowledged is written down; afterwards the database must hold exactly
those answers and photos (0 lost, 0 duplicated) and each photo's objects must be in the bucket
(listed with the server's own client, not the app's) or on disk. The bare hello-world
(bench/hello.py) is then loaded the same way under the same gunicorn for a baseline.
Prints a table, writes bench/results/load.json; exits non-zero on any error or lost/duplicated record.
"""
from __future__ import annotations

from gevent import monkey

monkey.patch_all()  # locust runs its users on gevent; patch before anything opens a socket

import argparse  # noqa: E402
import contextlib  # noqa: E402
import itertools  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import gevent  # noqa: E402
from locust import HttpUser, constant, task  # noqa: E402
from locust.env import Environment  # noqa: E402

from bench.fixtures import (  # noqa: E402
    ADMIN,
    BIG_VESSEL,
    INSPECTOR,
    Reply,
    expect,
    http_caller,
    json_or_none,
    office_today,
    production_config,
    scratch_database,
    seed,
    server_env,
    token,
)
from bench.harness import production_server, report, serve  # noqa: E402
from bench.photos_pipeline import tablet_photos, vary_density  # noqa: E402
from bench.sync import build_plan  # noqa: E402

OWNER = ("bench-owner", "bench-owner-password")
# A plain motor cargo vessel: about 40 seguridad + documentacion items, 15 needing a photo.
LOAD_VESSEL = {**BIG_VESSEL, "service": "cargo", "max_passengers": 0, "cabins": 0, "boilers": 0, "holds": 2,
               "boats": 1, "length_m": BIG_VESSEL["length_m"] / 2}
BATCH = 20          # answers per sync request, as the tablet's outbox sends them
REVISIONS = 1.5     # answers per item: some items are answered twice (fail, then pass)
RETRY_SHARE = 0.15  # batches and photos sent a second time, as a tablet does when an answer is lost
PHOTO_SIZE = (320, 240)
TABLET_QUALITY = 70  # the tablet's JPEG quality (the server's published upload_quality)
WEIGHTS = {"tablet": 3, "police": 4, "owner": 2, "staff": 1}
PHOTO_NUMBERS = itertools.count(1)  # every photo of the run gets its own bytes (the server dedups equal ones)
ADDRESSES = itertools.count(1)      # each simulated client's own address, as the load balancer forwards it
POLICE_PHONES = 200                 # officers' phones per police user: ~10 scans/s spread over them, ~3/min each


def client_address() -> str:
    """A fresh client address (10.x.y.z, unique within the run) for X-Forwarded-For."""
    n = next(ADDRESSES)
    return f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"


class LoadCheckFailed(RuntimeError):
    """A reply a correct server would not give (a wrong sync status, a replay that is not one)."""


# --- what the tablets saw acknowledged --------------------------------------------------------------

@dataclass
class Ledger:
    """Shared by every simulated user: acknowledged answers and photos per inspection, issued tokens, errors."""

    answers: dict[int, set] = field(default_factory=dict)    # inspection id -> acknowledged answer client ids
    photos: dict[int, dict] = field(default_factory=dict)    # inspection id -> {photo client id: photo id}
    planned: dict[int, tuple[int, int]] = field(default_factory=dict)  # inspection id -> (answers, photos)
    submitted: set = field(default_factory=set)
    tokens: list = field(default_factory=list)
    errors: list = field(default_factory=list)


def caller_for(client, kind: str):
    """The bench.fixtures Caller interface over a locust HttpSession; requests are named `<kind>: <method> <path>`."""

    def call(method: str, path: str, body=None, headers: dict | None = None) -> Reply:
        name = f"{kind}: {method} {re.sub(r'/[0-9]+', '/<id>', path)}"
        if isinstance(body, dict):
            response = client.request(method, path, json=body, headers=headers, name=name)
        else:
            response = client.request(method, path, data=body, headers=headers, name=name)
        reply_headers = {k.lower(): v for k, v in response.headers.items()}
        return Reply(response.status_code, reply_headers, json_or_none(response.content, reply_headers))

    return call


def submit_body() -> dict:
    """The closing body: both drawn signatures (tests.media_samples), the signature name, the master."""
    from tests.media_samples import signatures

    return {"client_id": str(uuid.uuid4()), "signatures": signatures(), "signature": "Inspector Bench",
            "master_name": "Capitán Bench"}


def tablet_inspection(call, vessel_id: int, inspector_id: int, auth: dict, photos: list[bytes],
                      ledger: Ledger, rng: random.Random, plan_seed: int):
    """One whole inspection as the tablet sends it, one request per step (a generator: next() sends the next).

    Acknowledged answers (sync result applied, or duplicate on a retry) and photos (201) are written to
    the ledger as they come; a submit that answers 200 marks the inspection complete.
    """
    body = {"vessel_id": vessel_id, "kind": "seguridad", "inspector_id": inspector_id,
            "scheduled_on": office_today().isoformat(), "port": "Asunción"}
    inspection_id = expect(call("POST", "/api/v1/inspections", body, auth["admin"]), 201,
                           "schedule").body["id"]
    yield
    expect(call("POST", f"/api/v1/inspections/{inspection_id}/start", None, auth["inspector"]), 200,
           "start")
    yield
    items = expect(call("GET", f"/api/v1/inspections/{inspection_id}", None, auth["inspector"]), 200,
                   "detail").body["items"]
    evidence = [i for i in items if i.get("evidence_required")] or items
    distinct = [vary_density(photos[k % len(photos)], next(PHOTO_NUMBERS)) for k in range(len(evidence))]
    plan = build_plan(items, distinct,
                      round(len(items) * REVISIONS), BATCH, plan_seed)
    ledger.planned[inspection_id] = (len(plan["entries"]), len(plan["uploads"]))
    acked, stored = ledger.answers.setdefault(inspection_id, set()), ledger.photos.setdefault(inspection_id, {})
    json_headers = {**auth["inspector"], "Content-Type": "application/json"}
    yield
    for batch in plan["batches"]:
        for expected in ("applied", "duplicate")[: 2 if rng.random() < RETRY_SHARE else 1]:
            reply = expect(call("POST", f"/api/v1/inspections/{inspection_id}/sync", batch, json_headers), 200, "sync")
            bad = [r for r in reply.body["results"] if r["status"] != expected]
            if bad:
                raise LoadCheckFailed(f"inspection {inspection_id}: {len(bad)} answers not {expected!r}: {bad[:2]}")
            acked.update(r["client_id"] for r in reply.body["results"])
            yield
    for upload in plan["uploads"]:
        client_id = re.search(rb'name="client_id"\r\n\r\n([0-9a-f-]{36})', upload["body"])[1].decode()
        for replay in (False, True)[: 2 if rng.random() < RETRY_SHARE else 1]:
            reply = call("POST", f"/api/v1/inspections/{inspection_id}/photos", upload["body"],
                         {**auth["inspector"], "Content-Type": upload["content_type"]})
            replayed = reply.headers.get("idempotent-replayed")
            if reply.status != 201 or replayed != ("true" if replay else "false"):
                raise LoadCheckFailed(f"photo {'replay' if replay else 'upload'}: {reply.status}, "
                                      f"Idempotent-Replayed {replayed!r}: {str(reply.body)[:300]}")
            if replay and stored.get(client_id) != reply.body["id"]:
                raise LoadCheckFailed(f"photo replay answered id {reply.body['id']}, first {stored.get(client_id)}")
            stored[client_id] = reply.body["id"]
            yield
    result = expect(call("POST", f"/api/v1/inspections/{inspection_id}/submit", submit_body(), json_headers), 200, "submit").body
    ledger.submitted.add(inspection_id)
    if result.get("certificate"):
        ledger.tokens.append(result["certificate"]["token"])
    yield


def get_ok(client, path: str, name: str, **kwargs) -> None:
    """GET `path` and count anything but 200 as a failure (a redirect to /login is one too)."""
    with client.get(path, name=name, allow_redirects=False, catch_response=True, **kwargs) as response:
        if response.status_code != 200:
            response.failure(f"status {response.status_code}")


def session_login(client, username: str, password: str, kind: str) -> None:
    """Sign in on the login form with its CSRF token, as a browser does."""
    page = client.get("/login", name=f"{kind}: /login").text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page)[1]
    response = client.post("/login", data={"username": username, "password": password, "csrf_token": csrf},
                           name=f"{kind}: /login (post)", allow_redirects=False)
    if response.status_code != 302:
        raise LoadCheckFailed(f"{username} could not sign in: {response.status_code}")


# --- the users --------------------------------------------------------------------------------------

def user_classes(facts: dict, ledger: Ledger, photos: list[bytes]) -> list[type]:
    """The four kinds of user, bound to the seeded ids, the shared ledger and the photo bytes."""
    vessels, plan_seeds = iter(facts["vessel_ids"]), itertools.count(1000)

    class Tablet(HttpUser):
        weight, wait_time = WEIGHTS["tablet"], constant(0)

        def on_start(self):
            self.client.headers["X-Forwarded-For"] = client_address()
            call = caller_for(self.client, "tablet")
            self.auth = {"admin": token(call, *ADMIN), "inspector": token(call, *INSPECTOR)}
            self.vessel_id, self.call, self.steps = next(vessels), call, None
            self.rng = random.Random(self.vessel_id)

        @task
        def step(self):
            if self.steps is None:
                self.steps = tablet_inspection(self.call, self.vessel_id, facts["inspector_id"], self.auth, photos,
                                               ledger, self.rng, next(plan_seeds))
            try:
                next(self.steps)
            except StopIteration:
                self.steps = None
            except Exception as error:  # noqa: BLE001 - any failure is counted, and the tablet starts afresh
                ledger.errors.append(f"{type(error).__name__}: {str(error)[:500]}")
                self.steps = None

    class Police(HttpUser):
        weight, wait_time = WEIGHTS["police"], constant(0)

        def on_start(self):
            self.phones = itertools.cycle([client_address() for _ in range(POLICE_PHONES)])

        def scan(self, path: str, name: str) -> None:
            get_ok(self.client, path, name, headers={"X-Forwarded-For": next(self.phones)})

        @task(3)
        def verify_api(self):
            self.scan(f"/api/v1/verify/{random.choice(ledger.tokens)}", "police: /api/v1/verify/<token>")

        @task(2)
        def verify_page(self):
            self.scan(f"/v/{random.choice(ledger.tokens)}", "police: /v/<token>")

        @task(1)
        def status_list(self):
            self.scan("/api/v1/status-list", "police: /api/v1/status-list")

    class Owner(HttpUser):
        weight, wait_time = WEIGHTS["owner"], constant(0)

        def on_start(self):
            self.client.headers["X-Forwarded-For"] = client_address()
            self.bearer = token(caller_for(self.client, "owner"), *OWNER)
            session_login(self.client, *OWNER, "owner")

        @task
        def fleet_api(self):
            get_ok(self.client, "/api/v1/fleet", "owner: /api/v1/fleet", headers=self.bearer)

        @task
        def fleet_page(self):
            get_ok(self.client, "/flota", "owner: /flota")

    class Staff(HttpUser):
        weight, wait_time = WEIGHTS["staff"], constant(0)

        def on_start(self):
            self.client.headers["X-Forwarded-For"] = client_address()
            session_login(self.client, *ADMIN, "staff")

        @task
        def planning(self):
            get_ok(self.client, "/planificacion", "staff: /planificacion")

    return [Tablet, Police, Owner, Staff]


class Hello(HttpUser):
    """The baseline: the bare hello-world, same user count, no think time."""

    wait_time = constant(0)

    @task
    def hello(self):
        get_ok(self.client, "/", "hello: /")


# --- running locust ---------------------------------------------------------------------------------

def run_locust(classes: list[type], host: str, users: int, seconds: float) -> tuple[list[tuple], float]:
    """Run `users` users of `classes` for `seconds`; returns every request as (kind, ms, failed) and the elapsed s."""
    env = Environment(user_classes=classes, host=host, stop_timeout=30)
    records = []

    def on_request(name, response_time, exception, **kwargs):
        records.append((name.split(":")[0], response_time, exception is not None, name, repr(exception)[:200]))

    env.events.request.add_listener(on_request)
    runner = env.create_local_runner()
    started = time.monotonic()
    runner.start(users, spawn_rate=users)
    gevent.spawn_later(seconds, runner.quit)  # quit stops each user after its current step (stop_timeout)
    runner.greenlet.join()
    return records, time.monotonic() - started


def kind_rows(records: list[tuple], elapsed: float, baseline_rps: float | None) -> list[dict]:
    """Per kind of user and overall: requests, req/s, p50/p99 in ms, failed requests."""
    rows = []
    kinds = sorted({r[0] for r in records}, key=lambda k: list(WEIGHTS).index(k) if k in WEIGHTS else 99)
    for kind in [*kinds, "all"]:
        mine = [r for r in records if kind in ("all", r[0])]
        times = sorted(r[1] for r in mine)
        cuts = statistics.quantiles(times, n=100, method="inclusive") if len(times) > 1 else times * 99
        rps = len(mine) / elapsed
        rows.append({"kind": kind, "requests": len(mine), "req_per_s": round(rps, 1), "p50_ms": round(cuts[49], 1),
                     "p99_ms": round(cuts[98], 1), "errors": sum(r[2] for r in mine),
                     "req_per_s_ratio": round(rps / baseline_rps, 3) if baseline_rps and kind == "all" else None})
    return rows


# --- the database afterwards ------------------------------------------------------------------------

def check_records(config: dict, ledger: Ledger, bucket=None) -> dict:
    """Compare the database with the ledger: lost and duplicated answers and photos, photo files missing.

    With `bucket` (bench.seaweed.Bucket) each acknowledged photo's original, display and thumbnail (a bare
    tablet JPEG's display is its original) must be among the objects the S3 server lists; else on the local disk.
    """
    from sqlalchemy import func, select

    from app import create_app
    from inspection.core.extensions import db
    from inspection.core.models import Answer, Inspection, Photo
    from inspection.media.configured import media_storage

    found = {"inspections": len(ledger.answers), "completed": len(ledger.submitted), "answers_acked": 0,
             "photos_acked": 0, "lost": 0, "duplicated": 0, "unacknowledged": 0, "files_missing": 0,
             "incomplete_submitted": 0}
    app = create_app(config)
    with app.app_context():
        storage = media_storage()
        if bucket is not None:
            listed = set(bucket.objects())
            stored_at = lambda key: storage.name_of(key) in listed  # noqa: E731
        else:
            stored_at = storage.exists
        found["objects"] = len(listed) if bucket is not None else None
        for inspection_id, acked in ledger.answers.items():
            stored = db.session.scalars(select(Answer.client_id).where(Answer.inspection_id == inspection_id)).all()
            photos = db.session.execute(select(Photo.client_id, Photo.id, Photo.original_key, Photo.display_key,
                                               Photo.thumb_key).where(Photo.inspection_id == inspection_id)).all()
            acked_photos = ledger.photos.get(inspection_id, {})
            found["answers_acked"] += len(acked)
            found["photos_acked"] += len(acked_photos)
            found["lost"] += len(acked - set(stored)) + len(set(acked_photos) - {p.client_id for p in photos})
            found["duplicated"] += (len(stored) - len(set(stored))) + (len(photos) - len({p.client_id for p in photos}))
            found["unacknowledged"] += len(set(stored) - acked) + len({p.client_id for p in photos} - set(acked_photos))
            found["files_missing"] += sum(not stored_at(key) for p in photos if p.client_id in acked_photos
                                          for key in (p.original_key, p.display_key, p.thumb_key))
            if inspection_id in ledger.submitted:
                answers, uploads = ledger.planned[inspection_id]
                found["incomplete_submitted"] += len(acked) != answers or len(acked_photos) != uploads
        found["submitted_in_db"] = db.session.scalar(select(func.count()).select_from(Inspection).where(
            Inspection.id.in_(ledger.answers), Inspection.status == "submitted"))
        db.session.remove()
        db.engine.dispose()
    return found


def seed_load(config: dict, tablets: int) -> dict:
    """bench.fixtures.seed with LOAD_VESSEL, one more vessel per tablet (so no two close one vessel at once), an owner account."""
    from app import create_app
    from inspection.accounts.users import create_user
    from inspection.core.extensions import db
    from inspection.registry.vessels import create_vessel

    ids = seed(config, LOAD_VESSEL)
    app = create_app(config)
    with app.app_context():
        vessels = [create_vessel({**LOAD_VESSEL, "registration": f"PY-LOAD{k:03d}", "name": f"Buque Carga {k}",
                                  "owner_id": ids["owner_id"]}) for k in range(tablets)]
        create_user(*OWNER, "owner", owner_id=ids["owner_id"])
        db.session.commit()
        ids["vessel_ids"] = [ids["vessel_id"], *(v.id for v in vessels)]
        db.session.remove()
        db.engine.dispose()
    return ids


def limit_probe(target: str, verify_token: str) -> dict:
    """One fresh address verifies until refused: the production limit must answer 429 with Retry-After.

    A fixed window may roll over during the probe, so up to two windows' worth are sent.
    """
    from inspection.core.config import DEFAULTS
    from inspection.web.rate_limits import parse_limit

    limit = parse_limit(DEFAULTS["RATE_LIMIT_VERIFY"])
    call, address, passed = http_caller(target), client_address(), 0
    try:
        for _ in range(2 * limit.count + 1):
            reply = call("GET", f"/api/v1/verify/{verify_token}", None, {"X-Forwarded-For": address})
            if reply.status != 200:
                break
            passed += 1
    finally:
        call.close()
    refused = reply.status == 429 and reply.headers.get("retry-after", "").isdigit() and passed >= limit.count
    return {"limit": DEFAULTS["RATE_LIMIT_VERIFY"], "passed_before_429": passed, "refused": refused}


@contextlib.contextmanager
def photo_store(media: str, tmp: str):
    """(app settings, extra environment, Bucket or None) for photos on local disk or in a fresh SeaweedFS bucket."""
    if media == "local":
        yield {}, {}, None
        return
    from bench.seaweed import Bucket, running_seaweed

    with running_seaweed() as server:
        bucket = Bucket(server, f"load-{uuid.uuid4().hex[:12]}")
        server.client().create_bucket(Bucket=bucket.name)
        with _environ(bucket.env()):  # this process's check reads the bucket with the same credentials
            yield bucket.config(), bucket.env(), bucket


@contextlib.contextmanager
def _environ(values: dict):
    """os.environ with `values` set, restored afterwards."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def main(argv=None) -> None:
    """Seed a scratch PostgreSQL database, serve, warm up, load, check the records, load the baseline, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--baseline-seconds", type=float, default=10)
    parser.add_argument("--media", choices=("s3", "local"), default="s3" if shutil.which("weed") else "local",
                        help="photos in a SeaweedFS bucket (default when weed is installed) or on local disk")
    parser.add_argument("--database-url", help="PostgreSQL URL (SQLAlchemy form); created and dropped if missing")
    args = parser.parse_args(argv)
    small = tablet_photos(3, *PHOTO_SIZE, TABLET_QUALITY)
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="baliza-load-"))
        url = stack.enter_context(scratch_database(args.database_url))
        media, media_env, bucket = stack.enter_context(photo_store(args.media, tmp))
        config = production_config(tmp, url, media)
        facts = seed_load(config, args.users)
        ledger = Ledger()
        with serve("bench.wsgi:app", {**server_env(config), **media_env}, workers=args.workers) as target:
            # One inspection end to end before the clock starts: the path works, and police have a certificate.
            call = http_caller(target)
            auth = {"admin": token(call, *ADMIN), "inspector": token(call, *INSPECTOR)}
            for _ in tablet_inspection(call, facts["vessel_id"], facts["inspector_id"], auth, small, ledger,
                                       random.Random(0), 1):
                pass
            call.close()
            facts["vessel_ids"] = facts["vessel_ids"][1:]  # the warm-up's vessel stays out of the run
            records, elapsed = run_locust(user_classes(facts, ledger, small), target, args.users, args.seconds)
            probe = limit_probe(target, ledger.tokens[0])
        found = {**check_records(config, ledger, bucket), "rate_limit_429": probe["refused"]}
    with serve("bench.hello:app", {}, workers=args.workers) as hello:
        base_records, base_elapsed = run_locust([Hello], hello, args.users, args.baseline_seconds)
    baseline = kind_rows(base_records, base_elapsed, None)[-1]
    rows = kind_rows(records, elapsed, baseline["req_per_s"])
    rows.append({**baseline, "kind": "hello (baseline)", "req_per_s_ratio": 1.0})
    failures = sorted({(r[3], r[4]) for r in records + base_records if r[2]})
    rows.append({"kind": "records", **found})
    report(f"Load: {args.users} users ({', '.join(f'{k} {w}' for k, w in WEIGHTS.items())}), "
           f"{args.seconds:g} s, PostgreSQL, {production_server(args.workers)}, photos {args.media}, rate limits on",
           rows[:-1], name="load" if args.media == "s3" else f"load_{args.media}")
    print("records:", ", ".join(f"{k} {v}" for k, v in found.items()))
    print("rate limit probe:", ", ".join(f"{k} {v}" for k, v in probe.items()))
    _append_records(rows[-1], ledger, failures, "load" if args.media == "s3" else f"load_{args.media}")
    problems = [*ledger.errors, *(f"{n}: {e}" for n, e in failures)]
    bad = found["lost"] + found["duplicated"] + found["unacknowledged"] + found["files_missing"] \
        + found["incomplete_submitted"] + (found["submitted_in_db"] != found["completed"]) + (not probe["refused"])
    if problems or bad or not found["completed"]:
        for problem in problems[:20]:
            print("error:", problem)
        sys.exit(f"{len(problems)} errors, {bad} record problems, {found['completed']} inspections completed")


def _append_records(row: dict, ledger: Ledger, failures: list, name: str) -> None:
    """Add the record check and the first errors to bench/results/load.json (report() keeps only flat rows)."""
    import json

    from bench.harness import RESULTS_DIR

    path = RESULTS_DIR / f"{name}.json"
    payload = json.loads(path.read_text())
    payload["records"] = row
    payload["errors"] = [*ledger.errors[:20], *(f"{n}: {e}" for n, e in failures[:20])]
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
