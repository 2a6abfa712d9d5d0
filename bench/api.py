"""API benchmark: vessel list and detail against a bare Flask hello-world, same gunicorn, same run.

python bench/api.py [--seconds N] [--rounds R] [--requests N] [--workers W] [--database-url URL]
Production's configuration: PostgreSQL (a scratch database, dropped after), gunicorn W workers (4) as gunicorn.conf.py sets them, one
trusted proxy and the rate limits at their defaults, loaded by wrk. Prints medians and the ratios target/baseline (over HTTP, then in-process through the test client, where
no server or client stands between), and a worker's memory before its first request; writes
bench/results/api.json and api_in_process.json.
"""
import argparse
import contextlib
import json
import sys
import tempfile
import time
import urllib.request
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fixtures import production_config, scratch_database, server_env  # noqa: E402
from bench.harness import compare, gunicorn, interleaved, load, production_server, report, serve  # noqa: E402

EXTRA_VESSELS = 1000
OWNERS = 40
PROPULSIONS = [("motor", "cargo"), ("motor", "tug"), ("sail", "cargo"), ("towed", "cargo"), ("rowing", "work")]


def seed(config: dict) -> None:
    """Create the schema, the demo data and EXTRA_VESSELS more vessels spread over OWNERS owners."""
    from app import create_app
    from inspection.core.extensions import db
    from inspection.ops.demo import seed_demo
    from inspection.registry.vessels import create_owner, create_vessel

    app = create_app(config)
    with app.app_context():
        db.create_all()
        seed_demo()
        owners = [create_owner({"name": f"Armador Bench {n}", "tax_id": f"900{n:05d}-1",
                                "email": f"bench{n}@example.com", "phone": None, "address": None})
                  for n in range(OWNERS)]
        for n in range(EXTRA_VESSELS):
            propulsion, service = PROPULSIONS[n % len(PROPULSIONS)]
            self_propelled = propulsion == "motor"
            create_vessel({
                "registration": f"PY-B{n:04d}", "name": f"Buque Bench {n}", "owner_id": owners[n % OWNERS].id,
                "flag": "national", "cabotage_permit": None, "home_port": "Asunción", "propulsion": propulsion,
                "service": service, "hull_material": "iron" if n % 3 else "wood",
                "length_m": Decimal(10 + n % 40), "beam_m": Decimal("4.5"), "girth_m": Decimal("7"),
                "crew": 2 + n % 8, "max_passengers": 0, "cabins": 0, "fire_hydrants": 1 if self_propelled else 0,
                "holds": 1, "boilers": 0, "steam_launch": False, "boats": 1 if self_propelled else 0,
                "cooking": "galley" if self_propelled else "none", "hot_climate": bool(n % 2),
                "flammable_cargo_kg": 0, "practicaje": "none",
            })
        db.session.commit()
        db.engine.dispose()


def call(url: str, data: dict | None = None, headers: dict | None = None) -> tuple[int, dict]:
    """One request; returns (status, JSON body) and never raises on HTTP errors."""
    body = json.dumps(data).encode() if data is not None else None
    request = urllib.request.Request(url, body, {"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, {"error": error.read().decode(errors="replace")[:500]}


def worker_mib(server) -> float:
    """The smallest resident memory of the server's workers, in MiB: one that has served nothing yet
    (the start-up probe reaches one worker only)."""
    import psutil

    return round(min(psutil.Process(pid).memory_info().rss for pid in server.workers()) / 2**20, 1)


def in_process(config: dict, requests: int, rounds: int) -> list[dict]:
    """Milliseconds per request through each app's test client (no HTTP), interleaved rounds, medians."""
    from app import create_app
    from bench.hello import app as hello

    app = create_app(config)
    client = app.test_client()
    token = client.post("/api/v1/auth/token", json={"username": "admin", "password": "baliza-demo"}).json["token"]
    auth = {"Authorization": f"Bearer {token}"}
    first = client.get("/api/v1/vessels?per_page=50", headers=auth).json["items"][0]["id"]
    cases = {"hello (baseline)": (hello.test_client(), "/", {}),
             "vessel list": (client, "/api/v1/vessels?per_page=50", auth),
             "vessel detail": (client, f"/api/v1/vessels/{first}", auth)}
    timings = {name: [] for name in cases}
    for _ in range(rounds):
        for name, (caller, url, headers) in cases.items():
            for _ in range(requests // 10):  # warm
                caller.get(url, headers=headers)
            started = time.perf_counter()
            for _ in range(requests):
                if caller.get(url, headers=headers).status_code != 200:
                    sys.exit(f"{name} failed in-process")
            timings[name].append((time.perf_counter() - started) / requests * 1000)
    medians = {name: sorted(values)[len(values) // 2] for name, values in timings.items()}
    base = medians["hello (baseline)"]
    return [{"name": name, "ms_per_request": round(ms, 3), "ratio": round(base / ms, 2)} for name, ms in medians.items()]


def main(argv=None) -> None:
    """Seed, serve both apps, check the endpoints answer 200, measure interleaved rounds, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=500, help="per round and endpoint, in-process")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--database-url", help="PostgreSQL URL (SQLAlchemy form); created and dropped if missing")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="baliza-bench-"))
        config = production_config(tmp, stack.enter_context(scratch_database(args.database_url)), {})
        seed(config)
        env = server_env(config)
        with serve("bench.hello:app", {}, workers=args.workers) as base, \
                gunicorn("bench.wsgi:app", env, workers=args.workers) as server:
            target, memory = server.url, worker_mib(server)
            status, body = call(f"{target}/api/v1/auth/token", {"username": "admin", "password": "baliza-demo"})
            if status != 201:
                sys.exit(f"token request failed: {status} {body}")
            auth = {"Authorization": f"Bearer {body['token']}"}
            urls = {"hello (baseline)": f"{base}/", "vessel list": f"{target}/api/v1/vessels?per_page=50"}
            status, page = call(urls["vessel list"], headers=auth)
            if status != 200 or len(page.get("items", [])) != 50:
                sys.exit(f"vessel list failed: {status} {str(page)[:500]}")
            urls["vessel detail"] = f"{target}/api/v1/vessels/{page['items'][0]['id']}"
            for name, url in urls.items():
                status, body = call(url, headers=auth)
                if status != 200:
                    sys.exit(f"{name} failed before measuring: {status} {str(body)[:500]}")
            for url in urls.values():  # warm both workers of each server
                load(url, seconds=1, headers=auth)
            runs = {name: (lambda url=url: load(url, seconds=args.seconds, headers=auth)) for name, url in urls.items()}
            results = interleaved(args.rounds, runs)
        quiet = [{"name": "worker memory before its first request", "MiB": memory}]
        timed = in_process(config, args.requests, args.rounds)
    rows = compare(results, "hello (baseline)")
    report(f"Baliza API vs bare Flask: PostgreSQL, {production_server(args.workers)}, wrk 16 connections, {args.rounds} rounds "
           f"x {args.seconds:g} s", rows, name="api")
    report(f"In-process (test client), {args.rounds} rounds x {args.requests} requests", timed, name="api_in_process")
    report("Baliza worker", quiet, name="api_worker")
    if any(row["errors"] for row in rows):
        sys.exit("some requests failed: see the errors column")


if __name__ == "__main__":
    main()
