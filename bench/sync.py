"""Tablet sync benchmark: a batch of answers and photos over loopback, first sync and replay.

python bench/sync.py [--answers 200] [--photos 30] [--batch 50] [--rounds 3] [--workers 2]

The vessel (bench.fixtures.BIG_VESSEL) pins about 56 seguridad + documentacion items, so 200 answers
are about 3-4 revisions per item with increasing `recorded_at` (fail first, pass last, the last
naming the SHA-256 of that item's photos). Answers go in POST /sync batches of --batch; photos are
distinct 1600 x 1200 camera-like JPEGs (about 350-450 kB), made once before any timing, one multipart
POST each. All request bodies are built before the clock starts; requests are sequential on one
connection, like one tablet.

Each round starts a new inspection and measures, interleaved:
  * baseline - the same requests (same bodies, same count) to bench.echo, which only reads the body;
  * first    - the first full sync: every answer must come back `applied`, every photo 201 with
               Idempotent-Replayed: false;
  * replay   - the same batches and photos again: every answer must be `duplicate`, every photo 201
               with Idempotent-Replayed: true.
Any other status stops the script. Prints medians and ratios to the baseline; writes bench/results/sync.json.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fixtures import (  # noqa: E402
    batches,
    bench_config,
    expect,
    http_caller,
    multipart,
    phone_photos,
    seed,
    server_env,
    start_inspection,
    sync_entries,
    vary_jpeg,
)
from bench.harness import production_server, report, serve  # noqa: E402


class SyncFailed(RuntimeError):
    """A response that a correct server would not give."""


def build_plan(items: list[dict], photos: list[bytes], n_answers: int, batch_size: int, seed_: int) -> dict:
    """Every request body of one tablet sync, ready to send: JSON batches and multipart photos.

    Photo k belongs to evidence item k (round robin over the items needing evidence, or over all
    items if none does); the last revision of each such item names its photos' SHA-256.
    """
    evidence = [i for i in items if i.get("evidence_required")] or items
    by_item: dict[str, list[str]] = {}
    uploads = []
    taken = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(hours=1)
    for k, data in enumerate(photos):
        item_id = evidence[k % len(evidence)]["id"]
        by_item.setdefault(item_id, []).append(hashlib.sha256(data).hexdigest())
        body, content_type = multipart({"item_id": item_id, "client_id": str(uuid.uuid4()),
                                        "taken_at": (taken + timedelta(seconds=40 * k)).isoformat(),
                                        "latitude": "-25.2822", "longitude": "-57.6351"}, data)
        uploads.append({"item_id": item_id, "body": body, "content_type": content_type, "bytes": len(data)})
    entries = sync_entries(items, n_answers, seed=seed_, photos=by_item)
    answer_batches = [json.dumps({"answers": batch}).encode() for batch in batches(entries, batch_size)]
    return {"entries": entries, "batches": answer_batches, "uploads": uploads}


def run_sync(call, inspection_id: int, auth: dict, plan: dict, replay: bool) -> dict:
    """Send every batch then every photo; check each status; return the seconds of each part."""
    expected = "duplicate" if replay else "applied"
    json_headers = {**auth, "Content-Type": "application/json"}
    start = time.perf_counter()
    count = 0
    for body in plan["batches"]:
        reply = expect(call("POST", f"/api/v1/inspections/{inspection_id}/sync", body, json_headers), 200, "sync")
        bad = [r for r in reply.body["results"] if r["status"] != expected]
        if bad:
            raise SyncFailed(f"{len(bad)} answers not {expected!r} ({'replay' if replay else 'first sync'}): {bad[:3]}")
        count += len(reply.body["results"])
    answers_s = time.perf_counter() - start
    if count != len(plan["entries"]):
        raise SyncFailed(f"{count} results for {len(plan['entries'])} answers")
    start = time.perf_counter()
    for upload in plan["uploads"]:
        reply = call("POST", f"/api/v1/inspections/{inspection_id}/photos", upload["body"],
                     {**auth, "Content-Type": upload["content_type"]})
        replayed = reply.headers.get("idempotent-replayed")
        if reply.status != 201 or replayed != ("true" if replay else "false"):
            raise SyncFailed(f"photo {'replay' if replay else 'upload'}: status {reply.status}, "
                             f"Idempotent-Replayed {replayed!r}: {str(reply.body)[:500]}")
    photos_s = time.perf_counter() - start
    return {"answers_s": answers_s, "photos_s": photos_s, "total_s": answers_s + photos_s}


def run_baseline(echo, plan: dict) -> dict:
    """The same request count and bodies to the bare echo app."""
    start = time.perf_counter()
    for body in plan["batches"]:
        reply = echo("POST", "/echo", body, {"Content-Type": "application/json"})
        if reply.status != 201 or reply.body["bytes"] != len(body):
            raise SyncFailed(f"echo: {reply.status} {reply.body}")
    answers_s = time.perf_counter() - start
    start = time.perf_counter()
    for upload in plan["uploads"]:
        reply = echo("POST", "/echo", upload["body"], {"Content-Type": upload["content_type"]})
        if reply.status != 201 or reply.body["bytes"] != len(upload["body"]):
            raise SyncFailed(f"echo: {reply.status} {reply.body}")
    photos_s = time.perf_counter() - start
    return {"answers_s": answers_s, "photos_s": photos_s, "total_s": answers_s + photos_s}


def check_stored(call, inspection_id: int, auth: dict, plan: dict) -> None:
    """After first sync and replay: exactly one answer per entry and one photo per upload, no more."""
    detail = expect(call("GET", f"/api/v1/inspections/{inspection_id}", None, auth), 200, "detail").body
    client_ids = sorted(a["client_id"] for a in detail["answers"])
    if client_ids != sorted(e["client_id"] for e in plan["entries"]):
        raise SyncFailed(f"stored answers differ from the batch: {len(client_ids)} vs {len(plan['entries'])}")
    if len(detail["photos"]) != len(plan["uploads"]):
        raise SyncFailed(f"{len(detail['photos'])} photos stored for {len(plan['uploads'])} uploads")
    current = [i for i in detail["items"] if i["answer"] and i["answer"]["result"] == "pass"]
    answered = {e["item_id"] for e in plan["entries"]}
    if len(current) != len(answered):
        raise SyncFailed(f"{len(current)} items end as pass; expected the last revision of {len(answered)} items")


def main(argv=None) -> None:
    """Seed, make photos, serve, warm up, run the rounds, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("--photos", type=int, default=30)
    parser.add_argument("--batch", type=int, default=50, help="answers per POST /sync (max 1000)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if not (1 <= args.answers <= 5000 and 0 <= args.photos <= 200 and 1 <= args.batch <= 1000
            and 1 <= args.rounds <= 20):
        parser.error("out of range: 1-5000 answers, 0-200 photos, batch 1-1000, 1-20 rounds")

    print(f"making {args.photos} phone photos ...", flush=True)
    photos = phone_photos(args.photos)
    results = {"baseline": [], "first": [], "replay": []}
    with tempfile.TemporaryDirectory(prefix="baliza-bench-sync-") as tmp:
        config = bench_config(tmp)
        ids = seed(config)
        with serve("bench.wsgi:app", server_env(config), workers=args.workers) as target, \
                serve("bench.echo:app", {}, workers=args.workers) as echo_url:
            call, echo = http_caller(target), http_caller(echo_url)
            # untimed warm-up: both workers of both servers see a batch and photos
            inspection_id, items, auth = start_inspection(call, ids)
            warm = build_plan(items, [vary_jpeg(p, 900_000 + k) for k, p in enumerate(photos[:2 * args.workers])],
                              min(args.answers, 2 * args.workers * 5), 5, seed_=900)
            run_baseline(echo, warm), run_sync(call, inspection_id, auth, warm, replay=False)
            for round_ in range(args.rounds):
                inspection_id, items, auth = start_inspection(call, ids)
                round_photos = [vary_jpeg(p, 1000 * round_ + k) for k, p in enumerate(photos)]
                plan = build_plan(items, round_photos, args.answers, args.batch, seed_=round_)
                results["baseline"].append(run_baseline(echo, plan))
                results["first"].append(run_sync(call, inspection_id, auth, plan, replay=False))
                results["replay"].append(run_sync(call, inspection_id, auth, plan, replay=True))
                check_stored(call, inspection_id, auth, plan)
                print(f"round {round_ + 1}: " + ", ".join(f"{k} {v[-1]['total_s']:.3f} s" for k, v in results.items()),
                      flush=True)
            call.close(), echo.close()
    rows = build_rows(results, plan, len(items))
    report(f"Tablet sync: {args.answers} answers in {len(plan['batches'])} batches + {args.photos} photos "
           f"({statistics.mean(u['bytes'] for u in plan['uploads']) / 1e3 if plan['uploads'] else 0:.0f} kB avg), "
           f"{len(items)} items, {args.rounds} rounds, {production_server(args.workers)}", rows, name="sync")


def build_rows(results: dict, plan: dict, n_items: int) -> list[dict]:
    """Medians per part and ratios of medians to the baseline."""
    base = {part: statistics.median(r[part] for r in results["baseline"]) for part in ("total_s", "answers_s", "photos_s")}
    requests = len(plan["batches"]) + len(plan["uploads"])
    body_bytes = sum(len(b) for b in plan["batches"]) + sum(len(u["body"]) for u in plan["uploads"])
    rows = []
    for name, runs in results.items():
        med = {part: statistics.median(r[part] for r in runs) for part in base}
        rows.append({
            "name": {"baseline": "bare echo (baseline)", "first": "first sync", "replay": "replay"}[name],
            "rounds": len(runs), "requests": requests, "body_mb": round(body_bytes / 1e6, 2),
            "total_s": round(med["total_s"], 3), "answers_s": round(med["answers_s"], 3),
            "photos_s": round(med["photos_s"], 3),
            "total_ratio": _ratio(med["total_s"], base["total_s"]),
            "answers_ratio": _ratio(med["answers_s"], base["answers_s"]),
            "photos_ratio": _ratio(med["photos_s"], base["photos_s"]),
            "runs": [{k: round(v, 4) for k, v in r.items()} for r in runs],
        })
    rows[0]["details"] = {"answers": len(plan["entries"]), "batches": len(plan["batches"]),
                          "photos": len(plan["uploads"]), "items": n_items,
                          "photo_bytes": [u["bytes"] for u in plan["uploads"]]}
    return rows


def _ratio(value: float, base: float) -> float | None:
    return round(value / base, 2) if base else None


if __name__ == "__main__":
    main()
