"""Tablet app benchmark: the inspector's browser journey offline, then the sync over an emulated link.

python bench/tablet.py [--inspections 5] [--photos 30] [--camera deck|textured] [--up-mbit 1.5] [--rtt-ms 150]

One inspector has --inspections seguridad inspections scheduled today (each about 41 items, 15 of
them asking for photo evidence). In Debian's Chromium (tests/tablet_rig.py: the app in its own
process behind a proxy on a stable origin), a fresh profile signs in at /login and lands on
/agenda, which takes every inspection aboard: the app shell's transferred size is every non-API GET
response of that cold first visit, counted on the wire by the proxy (status line, headers and body
as sent, compressed where Flask-Compress did it: zstd for Chromium). Then the link is cut (the
proxy closes every connection; the page's CDP session emulates offline) and each
inspection is started, fully answered through the screen (about 205 answers for 5), photographed,
signed and closed. Photos: --photos camera JPEGs of 4000 x 3000 through the file input, spread
evenly over the inspections on their first evidence items; the remaining evidence items are
answered "No corresponde" with a note (an evidence item needs a photo unless it is not applicable,
and closing refuses otherwise), so every inspection closes and the total is exactly --photos.
--camera deck (default, about 2 minutes): the journey tests' flat deck scenes (about 270 kB each,
far smaller than a phone's); textured (about 11 minutes, the link's rate being the point):
bench.photos_pipeline's camera-like JPEGs (gradients, texture, grain; 3-4 MB, like a phone's),
half of them rotated by EXIF.

With the page still open on the last inspection, Chromium's network emulation (CDP on the page:
--up-mbit up, --down-mbit down, --rtt-ms latency per request) brings the link back, and the clock
runs from that moment until the tablet's outbox is empty (polled in IndexedDB every 50 ms): every
start, /sync batch, photo upload (POST + PATCH chunks) and closing confirmed. Then the server is
checked (every inspection submitted, one answer row per item, exactly the photos taken).

Figures, all from the proxy's byte counts during the sync:
  floor         bytes sent (request heads + bodies) / uplink + requests x RTT: the link's own cost;
  bare, one     the same number of bytes as one POST to a bare echo server through the same
                emulated page (the link's real rate, with its one round trip);
  bare, same    the same sequence of request body sizes, one after another, to the same echo
                (the link's cost of this many requests, with no app and no sync engine);
  photo bytes   the bytes the tablet sent per photo (PATCH bodies) against the original file.
Prints the ratios; writes bench/results/tablet.json (tablet-textured.json with --camera textured).
Chromium's emulation delays each request by the latency once and paces bodies at the rate; it
models no TCP handshake, slow start or loss, so a real river link is slower than this floor.
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import report, wsgi_thread  # noqa: E402
from tests.tablet_rig import Rig  # noqa: E402

EVIDENCE_NOTE = "No corresponde en esta prueba ({item})"


# --- pure helpers ------------------------------------------------------------------------------

def photo_counts(photos: int, inspections: int, evidence_items: list[int]) -> list[int]:
    """Photos per inspection: `photos` spread as evenly as the evidence items of each allow."""
    if photos > sum(evidence_items):
        raise ValueError(f"{photos} photos need more evidence items than the {sum(evidence_items)} there are")
    counts = [0] * inspections
    left = photos
    while left:
        for k in range(inspections):
            if left and counts[k] < evidence_items[k]:
                counts[k] += 1
                left -= 1
    return counts


def answer_plan(items: list[dict], base: dict, photos: int) -> tuple[dict, list[str]]:
    """The answers (from tests.tablet_steps.plan) with only the first `photos` evidence items kept as
    photographed; the other evidence items become "not applicable" with a note. Returns (answers, photo items)."""
    answers = {k: dict(v) for k, v in base.items()}
    evidence = [i["id"] for i in items if i["evidence_required"]]
    photographed = evidence[:photos]
    for item_id in evidence[photos:]:
        answers[item_id] = {"result": "not_applicable", "observed": None, "note": EVIDENCE_NOTE.format(item=item_id)}
    return answers, photographed


def floor_seconds(bytes_sent: int, requests: int, up_bits_per_s: float, rtt_s: float) -> float:
    """The link's floor: the bytes at the uplink's rate plus one round trip per request."""
    return bytes_sent * 8 / up_bits_per_s + requests * rtt_s


def summarize(records: list[dict]) -> dict:
    """Totals of proxy records: requests, bytes up (heads, bodies), bytes down, and by request kind."""
    kinds: dict[str, dict] = {}
    for r in records:
        kind = kinds.setdefault(request_kind(r["request"]), {"requests": 0, "up": 0, "down": 0})
        kind["requests"] += 1
        kind["up"] += r["head"] + r["body"]
        kind["down"] += r["down"]
    return {"requests": len(records), "up_heads": sum(r["head"] for r in records),
            "up_bodies": sum(r["body"] for r in records), "down": sum(r["down"] for r in records), "kinds": kinds}


def request_kind(request: str) -> str:
    """'PATCH /api/v1/inspections/7/uploads/ab-12' -> 'PATCH /api/v1/inspections/{id}/uploads/{client_id}'."""
    method, _, path = request.partition(" ")
    path = re.sub(r"/uploads/[^/]+", "/uploads/{client_id}", path)
    path = re.sub(r"/\d+(?=/|$)", "/{id}", path)
    return f"{method} {path}"


def shell_summary(records: list[dict]) -> dict:
    """The app shell of a cold visit: every non-API GET response, on the wire and gzip-aware."""
    shell = [r for r in records if r["request"].startswith("GET ") and not r["request"].startswith("GET /api/")]
    paths = [r["request"][4:] for r in shell]
    text = [r for r in shell if (r["type"] or "").startswith(("text/", "application/javascript", "application/json",
                                                              "application/manifest", "text/javascript"))]
    return {"responses": len(shell), "distinct_paths": len(set(paths)),
            "bytes": sum(r["down"] for r in shell), "body_bytes": sum(r["down"] - r["down_head"] for r in shell),
            "bytes_distinct": sum(r["down"] for r in {r["request"]: r for r in shell}.values()),
            "text_responses": len(text), "compressed_text": sum(1 for r in text if r["encoding"]),
            "encodings": {e: sum(1 for r in text if (r["encoding"] or "identity") == e) for e in sorted({r["encoding"] or "identity" for r in text})},
            "not_compressed": sorted({r["request"][4:] for r in text if not r["encoding"] and r["down"] > 1400}),
            "statuses": {str(c): sum(1 for r in shell if r["status"] == c) for c in sorted({r["status"] or 0 for r in shell})},
            "twice": sorted({p for p in paths if paths.count(p) > 1}),
            "api_bytes": sum(r["down"] for r in records if r["request"].split(" ")[1].startswith("/api/")),
            "by_path": {p: sum(r["down"] for r in shell if r["request"][4:] == p) for p in sorted(set(paths))}}


def ratio(value: float, base: float) -> float | None:
    return round(value / base, 2) if base else None


# --- the proxy, counting every byte on the browser's side ---------------------------------------

class _Connection:
    def __init__(self):
        self.current = None


class _CountingReader:
    """The browser's bytes into the proxy; each request head opens a record."""

    def __init__(self, inner, connection, log):
        self._inner, self._connection, self._log = inner, connection, log

    async def readuntil(self, separator=b"\n"):
        data = await self._inner.readuntil(separator)
        words = data.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
        record = {"request": f"{words[0]} {words[1].split('?', 1)[0]}" if len(words) > 1 else "?",
                  "head": len(data), "body": 0, "down": 0, "down_head": 0, "status": None, "encoding": None,
                  "type": None, "at": time.monotonic(), "done": None, "_reply": b""}
        self._connection.current = record
        self._log.append(record)
        return data

    async def read(self, n=-1):
        data = await self._inner.read(n)
        if self._connection.current is not None:
            self._connection.current["body"] += len(data)
        return data


class _CountingWriter:
    """The app's bytes out to the browser, put on the request whose response is flowing (no pipelining)."""

    def __init__(self, inner, connection):
        self._inner, self._connection = inner, connection

    def write(self, data):
        record = self._connection.current
        if record is not None:
            record["down"] += len(data)
            record["done"] = time.monotonic()
            if record["status"] is None:
                record["_reply"] += data[:16384]
                end = record["_reply"].find(b"\r\n\r\n")
                if end >= 0:
                    head = record["_reply"][:end].decode("latin-1")
                    record["status"] = int(head.split(" ", 2)[1])
                    record["down_head"] = end + 4
                    record["encoding"] = _header(head, "content-encoding")
                    record["type"] = (_header(head, "content-type") or "").split(";")[0].strip()
                    record["_reply"] = b""
        self._inner.write(data)

    async def drain(self):
        await self._inner.drain()

    def close(self):
        self._inner.close()


def _header(head: str, name: str) -> str | None:
    found = re.search(rf"(?im)^{name}:\s*(.+?)\s*$", head)
    return found[1].lower() if found else None


class CountingRig(Rig):
    """tests.tablet_rig.Rig whose proxy also logs, per request, the bytes up (head, body) and down."""

    def __init__(self, base: Path):
        super().__init__(base)
        self.wire: list[dict] = []

    async def _client(self, reader, writer):
        connection = _Connection()
        await super()._client(_CountingReader(reader, connection, self.wire), _CountingWriter(writer, connection))


def echo(environ, start_response):
    """A bare HTTP sink: reads the whole body, answers 201 with its length (CORS open)."""
    stream, left, size = environ["wsgi.input"], int(environ.get("CONTENT_LENGTH") or 0), 0
    while left and (chunk := stream.read(min(65536, left))):
        size += len(chunk)
        left -= len(chunk)
    start_response("201 Created", [("Content-Type", "text/plain"), ("Access-Control-Allow-Origin", "*")])
    return [str(size).encode()]


# --- the journey --------------------------------------------------------------------------------

def seed_inspections(rig, count: int) -> list[dict]:
    """One inspector with `count` seguridad inspections today, each on its own vessel (as tests.tablet_steps.seed)."""
    from inspection.accounts.users import create_user
    from inspection.core.clock import office_today
    from inspection.core.extensions import db
    from inspection.core.models import User
    from inspection.inspections.operations import schedule_inspection
    from inspection.registry.vessel_checklists import pinned_items
    from inspection.registry.vessels import create_owner, create_vessel, particulars_of
    from tests.fleets import PARTICULARS
    from tests.tablet_steps import PASSWORD
    seeded = []
    with rig.app.app_context():
        inspector = create_user("insp-banco", PASSWORD, "inspector", full_name="Inspector de Banco")
        admin = db.session.get(User, rig.admin_id)
        for k in range(count):
            owner = create_owner({"name": f"Naviera Banco {k}", "tax_id": f"80{k + 100:06d}-1"})
            vessel = create_vessel({**PARTICULARS, "registration": f"PY-BNC{k:03d}", "name": f"Río Banco {k}",
                                    "owner_id": owner.id})
            inspection = schedule_inspection(admin, vessel, "seguridad", inspector, office_today(), "Asunción",
                                             office_today())
            _, items = pinned_items(particulars_of(vessel), "seguridad")
            db.session.flush()
            seeded.append({"inspection_id": inspection.id, "username": inspector.username, "items": items})
        db.session.commit()
        db.session.remove()
    return seeded


def camera_files(folder: Path, count: int, kind: str) -> list[Path]:
    """`count` distinct 4000 x 3000 JPEGs: the journey tests' deck scenes, or camera-like textured ones."""
    if kind == "deck":
        from tests.tablet_steps import camera_jpegs
        return camera_jpegs(folder, count)
    from bench.photos_pipeline import make_sample_jpeg
    paths = []
    for n in range(count):
        path = folder / f"IMG_{n:04d}.jpg"
        path.write_bytes(make_sample_jpeg(4000, 3000, quality=90, orientation=6 if n % 2 else 1, seed=300 + n))
        paths.append(path)
    return paths


OUTBOX_COUNT = """async () => {
    const db = await new Promise((ok, fail) => { const r = indexedDB.open('baliza-tablet'); r.onsuccess = () => ok(r.result); r.onerror = fail; });
    const n = await new Promise((ok) => { const r = db.transaction('outbox').objectStore('outbox').count(); r.onsuccess = () => ok(r.result); });
    db.close();
    return n;
}"""

BARE_POSTS = """async ([url, sizes]) => {
    const times = [];
    for (const size of sizes) {
      const started = performance.now();
      const response = await fetch(url, { method: 'POST', body: new Uint8Array(size), mode: 'cors',
                                          headers: { 'Content-Type': 'text/plain' }, cache: 'no-store' });
      const got = Number(await response.text());
      if (response.status !== 201 || got !== size) throw new Error(`echo: ${response.status} ${got} of ${size}`);
      times.push((performance.now() - started) / 1000);
    }
    return times;
}"""


def run(args, base: Path) -> dict:
    """The whole journey and the sync; returns the measured figures."""
    from playwright import sync_api

    from tests.tablet_rig import tablet_rig, wait_until
    from tests.tablet_steps import (
        answer_items,
        close_inspection,
        local_record,
        open_profile,
        plan,
        server_state,
        sign_in_and_take_aboard,
    )

    print(f"making {args.photos} {args.camera} 4000x3000 camera JPEGs ...", flush=True)
    (base / "camera").mkdir()
    files = camera_files(base / "camera", args.photos, args.camera)
    (base / "rig").mkdir()
    with tablet_rig(base / "rig", CountingRig) as rig, wsgi_thread(echo, "bench-echo") as echo_origin:
        echo_url = f"{echo_origin}/echo"
        seeded = seed_inspections(rig, args.inspections)
        counts = photo_counts(args.photos, len(seeded), [sum(1 for i in s["items"] if i["evidence_required"])
                                                         for s in seeded])
        with sync_api.sync_playwright() as pw:
            context, page = open_profile(pw, base / "profile")
            print("cold first visit: sign in, /agenda, the worker's precache, take aboard ...", flush=True)
            visit_start = len(rig.wire)
            sign_in_and_take_aboard(rig, page, seeded[0])
            for s in seeded:
                page.wait_for_selector(f"[data-inspection='{s['inspection_id']}'] .aboard.ok", timeout=60_000)
            time.sleep(1.0)  # the worker's last precache responses
            shell = shell_summary(rig.wire[visit_start:])

            # The link is cut with the page's own CDP session, not context.set_offline: Playwright's offline
            # also holds the worker-passed requests of the page offline until context.set_offline(False),
            # whose `online` event would come before the emulated link; this way one CDP call later brings
            # the link back, throttled, and fires `online` at once. The worker is cut by the proxy.
            cdp = context.new_cdp_session(page)
            cdp.send("Network.enable")
            rig.faults.down = True
            cdp.send("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "uploadThroughput": -1,
                                                          "downloadThroughput": -1})
            offline_start = len(rig.wire)
            local_photos, answered, taken = [], 0, 0
            for s, count in zip(seeded, counts):
                answers, photographed = answer_plan(s["items"], plan(s["items"]), count)
                photo_files = {item_id: files[taken + k] for k, item_id in enumerate(photographed)}
                taken += len(photo_files)
                started = time.perf_counter()
                page.goto(f"{rig.origin}/inspecciones/{s['inspection_id']}")  # the worker serves the shell
                page.wait_for_selector("#inspection[data-ready] #start-button", timeout=30_000)
                answer_items(page, s["items"], answers, photo_files)
                close_inspection(page)
                local = local_record(page, s["inspection_id"])
                assert len(local["answers"]) == len(s["items"]) and len(local["photos"]) == count, local
                local_photos += local["photos"]
                answered += len(s["items"])
                print(f"  inspection {s['inspection_id']}: {len(s['items'])} answers, {count} photos, closed "
                      f"offline in {time.perf_counter() - started:.1f} s", flush=True)
            assert not any(r["down"] for r in rig.wire[offline_start:]), "the server answered while offline"
            assert all(server_state(rig, s["inspection_id"])["answer_rows"] == 0 for s in seeded)
            queued = page.evaluate(OUTBOX_COUNT)

            up_bps, rtt = args.up_mbit * 1e6, args.rtt_ms / 1000
            conditions = {"offline": False, "latency": args.rtt_ms, "uploadThroughput": up_bps / 8,
                          "downloadThroughput": args.down_mbit * 1e6 / 8}
            print(f"back online over the emulated link: {queued} outbox entries ...", flush=True)
            sync_start = len(rig.wire)
            rig.faults.down = False
            online_at = time.monotonic()
            cdp.send("Network.emulateNetworkConditions", conditions)  # the last word on the page: online, throttled
            wait_until(lambda: page.evaluate(OUTBOX_COUNT) == 0, args.timeout, 0.05, "an empty outbox")
            sync_s = time.monotonic() - online_at
            records = [dict(r) for r in rig.wire[sync_start:]]
            print(f"  outbox empty after {sync_s:.1f} s", flush=True)

            for s, count in zip(seeded, counts):
                state = wait_until(lambda: (lambda st: st if st["status"] == "submitted" else None)(
                    server_state(rig, s["inspection_id"])), 30, 0.5, "the closing on the server")
                if state["answer_rows"] != len(s["items"]) or len(state["photos"]) != count:
                    raise AssertionError(f"inspection {s['inspection_id']}: {state['answer_rows']} answer rows for "
                                         f"{len(s['items'])} items, {len(state['photos'])} photos for {count}")

            sync = summarize(records)
            sent = sync["up_heads"] + sync["up_bodies"]
            sizes = [r["body"] for r in records]  # each bare POST adds its own head, as the sync's did
            print(f"bare baselines to an echo over the same link: one POST of {sent / 1e6:.2f} MB, "
                  f"then {len(sizes)} POSTs of the same body sizes ...", flush=True)
            bare = context.new_page()  # the echo's own origin: no service worker, no app in the way
            bare_cdp = context.new_cdp_session(bare)
            bare_cdp.send("Network.enable")
            bare_cdp.send("Network.emulateNetworkConditions", conditions)
            bare.goto(echo_url)
            bare_one = sum(bare.evaluate(BARE_POSTS, [echo_url, [sent]]))
            bare_same = sum(bare.evaluate(BARE_POSTS, [echo_url, sizes])) if not args.no_sequence else None
            context.close()

    originals = [f.stat().st_size for f in files]
    return {"args": vars(args), "counts": counts, "answers": answered, "photos": len(local_photos),
            "shell": shell, "sync_s": sync_s, "sync": sync, "records": records, "queued": queued,
            "bare_one_s": bare_one, "bare_same_s": bare_same, "up_bps": up_bps, "rtt_s": rtt,
            "originals": originals, "local_photos": local_photos,
            "first_request_s": (records[0]["at"] - online_at) if records else None}


def build_rows(m: dict) -> list[dict]:
    """The sync and the bare transfers against the floor; photo and shell figures as details."""
    sync, up_bps, rtt = m["sync"], m["up_bps"], m["rtt_s"]
    sent = sync["up_heads"] + sync["up_bodies"]
    floor = floor_seconds(sent, sync["requests"], up_bps, rtt)
    floor_one = floor_seconds(sent, 1, up_bps, rtt)
    rows = [{"name": "tablet sync", "seconds": round(m["sync_s"], 2), "requests": sync["requests"],
             "up_mb": round(sent / 1e6, 3), "floor_s": round(floor, 2), "vs_floor": ratio(m["sync_s"], floor),
             "vs_bare_same": ratio(m["sync_s"], m["bare_same_s"]), "vs_bare_one": ratio(m["sync_s"], m["bare_one_s"])}]
    if m["bare_same_s"] is not None:
        rows.append({"name": "bare: same requests", "seconds": round(m["bare_same_s"], 2), "requests": sync["requests"],
                     "up_mb": round(sent / 1e6, 3), "floor_s": round(floor, 2),
                     "vs_floor": ratio(m["bare_same_s"], floor), "vs_bare_same": 1.0,
                     "vs_bare_one": ratio(m["bare_same_s"], m["bare_one_s"])})
    rows.append({"name": "bare: one POST", "seconds": round(m["bare_one_s"], 2), "requests": 1,
                 "up_mb": round(sent / 1e6, 3), "floor_s": round(floor_one, 2),
                 "vs_floor": ratio(m["bare_one_s"], floor_one), "vs_bare_same": None, "vs_bare_one": 1.0})
    patch = sum(k["up"] for name, k in sync["kinds"].items() if name.startswith("PATCH "))
    patch_bodies = sum(r["body"] for r in m["records"] if r["request"].startswith("PATCH "))
    photo_requests = sum(k["requests"] for name, k in sync["kinds"].items() if "/uploads" in name)
    original = statistics.mean(m["originals"])
    sent_photo = statistics.mean(p["size"] for p in m["local_photos"])
    rows[0]["details"] = {
        "inspections": len(m["counts"]), "answers": m["answers"], "photos": m["photos"], "photos_per_inspection": m["counts"],
        "outbox_entries": m["queued"], "camera": m["args"]["camera"],
        "link": {"up_mbit": m["args"]["up_mbit"], "down_mbit": m["args"]["down_mbit"], "rtt_ms": m["args"]["rtt_ms"]},
        "floor_bodies_only_s": round(floor_seconds(sync["up_bodies"], sync["requests"], up_bps, rtt), 2),
        "floor_bytes_part_s": round(sent * 8 / up_bps, 2), "floor_round_trips_s": round(sync["requests"] * rtt, 2),
        "first_request_after_s": round(m["first_request_s"], 3) if m["first_request_s"] is not None else None,
        "up_heads": sync["up_heads"], "up_bodies": sync["up_bodies"], "down_bytes": sync["down"],
        "by_kind": sync["kinds"],
        "photo": {"original_bytes_mean": round(original), "sent_bytes_mean": round(sent_photo),
                  "sent_vs_original": ratio(sent_photo, original),
                  "patch_body_bytes_per_photo": round(patch_bodies / m["photos"]) if m["photos"] else None,
                  "upload_bytes_per_photo_with_heads": round((patch + sum(
                      k["up"] for name, k in sync["kinds"].items() if name.startswith("POST ") and "/uploads" in name))
                      / m["photos"]) if m["photos"] else None,
                  "upload_requests_per_photo": round(photo_requests / m["photos"], 2) if m["photos"] else None,
                  "sizes": sorted({(p["width"], p["height"]) for p in m["local_photos"]})},
        "shell": m["shell"],
    }
    return rows


def main(argv=None) -> None:
    """Parse, run the journey and the sync, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inspections", type=int, default=5)
    parser.add_argument("--photos", type=int, default=30)
    parser.add_argument("--camera", choices=("deck", "textured"), default="deck",
                        help="deck: the journey tests' flat scenes (fast); textured: phone-like 3-4 MB JPEGs (~10 min)")
    parser.add_argument("--up-mbit", type=float, default=1.5)
    parser.add_argument("--down-mbit", type=float, default=6.0)
    parser.add_argument("--rtt-ms", type=float, default=150)
    parser.add_argument("--timeout", type=float, default=900, help="seconds the sync may take before failing")
    parser.add_argument("--no-sequence", action="store_true", help="skip the bare same-requests baseline")
    args = parser.parse_args(argv)
    if not (1 <= args.inspections <= 20 and 0 <= args.photos <= 15 * args.inspections and args.up_mbit > 0
            and args.down_mbit > 0 and args.rtt_ms >= 0):
        parser.error("out of range: 1-20 inspections, at most 15 photos per inspection, positive link figures")
    with tempfile.TemporaryDirectory(prefix="baliza-bench-tablet-") as tmp:
        measured = run(args, Path(tmp))
    rows = build_rows(measured)
    details = rows[0]["details"]
    report(f"Tablet sync: {details['answers']} answers + {details['photos']} photos ({args.camera}) in "
           f"{args.inspections} inspections, {args.up_mbit:g} Mbit/s up, {args.down_mbit:g} down, "
           f"{args.rtt_ms:g} ms RTT (Chromium emulation)", rows,
           name="tablet" if args.camera == "deck" else f"tablet-{args.camera}")
    photo, shell = details["photo"], details["shell"]
    print(f"sync {rows[0]['seconds']} s = {rows[0]['vs_floor']}x the floor ({rows[0]['floor_s']} s: "
          f"{details['floor_bytes_part_s']} s of bytes + {details['floor_round_trips_s']} s of round trips); "
          f"{rows[0]['vs_bare_same']}x the bare same requests, {rows[0]['vs_bare_one']}x one bare POST")
    print(f"photo: {photo['sent_bytes_mean'] / 1e3:.0f} kB sent vs {photo['original_bytes_mean'] / 1e3:.0f} kB "
          f"original = {photo['sent_vs_original']}x ({photo['sizes']}), "
          f"{photo['upload_requests_per_photo']} requests per photo")
    print(f"app shell, cold visit: {shell['bytes'] / 1e3:.0f} kB on the wire in {shell['responses']} responses "
          f"({shell['distinct_paths']} paths; {shell['compressed_text']} of {shell['text_responses']} text responses "
          f"compressed: {shell['encodings']}); {shell['bytes_distinct'] / 1e3:.0f} kB counting each path once "
          f"({len(shell['twice'])} fetched twice: page, then the worker's precache); "
          f"plus {shell['api_bytes'] / 1e3:.0f} kB of API data (taking aboard)")


if __name__ == "__main__":
    main()
