"""Tablet screen benchmark: how soon the inspection screen answers on a mid-range tablet (Chromium at CPU ×4).

python bench/tablet_screen.py [--runs 3] [--answers 5] [--cpu 4]

One inspector has --runs seguridad inspections scheduled today. In Debian's Chromium (tests/tablet_rig.py: the
app in its own process behind a proxy), a fresh profile signs in and lands on /agenda, which takes every
inspection aboard and installs the service worker: the proxy lists every GET of that cold first visit, so the
files fetched twice (by the page, then again by the worker's install) are counted, and the worker's caches are
read for the police verifier's files (they belong on the police pages only). Then, with the CPU slowed by
CDP's Emulation.setCPUThrottlingRate, for each inspection:
  navigation -> interactive  from the navigation's start to the first frame after the screen says it is
                             ready (#inspection[data-ready]) with the main thread free again;
  Comenzar -> radios         from the tap on "Comenzar" to the first frame after an item's radios are enabled;
  one answer saved           from the tap on a radio to the first frame after the progress counts it (it is in
                             IndexedDB and queued by then), the median of the first --answers yes/no items (a
                             counted item's "Cumple" alone never counts: the bench waited on it forever);
and the screen's DOM nodes (all nodes, elements) before and after "Comenzar".
The same-run baseline is a bare static page (one module script that marks the page ready) from a bare server,
navigation -> interactive at the same throttle. Prints medians; writes bench/results/tablet_screen.json.
A wait in the page gives up after STALL_S seconds and the bench stops, saying which page waited for what.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import report, wsgi_thread

# The first frame after `ready()` holds: rAF runs before the paint, the task after it once the frame is out.
# A wait gives up after STALL_S seconds and says on what: headless Chromium at times draws no frame at all, and
# page.evaluate, which awaits the promise, has no timeout of its own.
STALL_S = 60
FRAME_AFTER = """
window.__frameAfter = (ready, what) => new Promise((resolve, reject) => {
  let held = false;
  const stalled = setTimeout(() => reject(new Error(held ? `stalled: ${what}, but no frame came in STALL_S s`
    : `stalled: ${what} did not happen in STALL_S s`)), STALL_S * 1000);
  const check = () => {
    if (!ready()) return false;
    held = true;
    requestAnimationFrame(() => setTimeout(() => { clearTimeout(stalled); resolve(performance.now()); }));
    return true;
  };
  if (check()) return;
  const watcher = new MutationObserver(() => { if (check()) watcher.disconnect(); });
  watcher.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
});
window.__interactive = window.__frameAfter(() => document.querySelector('#inspection[data-ready], body[data-ready]'),
                                           'the page marked ready');
""".replace("STALL_S", str(STALL_S))
BARE_PAGE = b"""<!doctype html><html lang="es"><head><meta charset="utf-8"><title>bare</title>
<script type="module" src="/bare.js"></script></head><body><p>bare</p></body></html>"""
BARE_SCRIPT = b"document.body.dataset.ready = '1';\n"
COUNT_NODES = """() => {
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
  let nodes = 0;
  while (walker.nextNode()) nodes += 1;
  return { nodes, elements: document.getElementsByTagName('*').length };
}"""
START = """() => {
  const radioEnabled = () => document.querySelector('#items input[type=radio]:enabled');
  const t0 = performance.now();
  document.getElementById('start-button').click();
  return window.__frameAfter(radioEnabled, 'a radio enabled').then((t) => t - t0);
}"""
ANSWER = """async ([itemId, n]) => {
  const card = () => document.querySelector(`article[data-item="${itemId}"]`);
  if (!card()) {  // a closed topic is opened first, untimed: its cards are made then
    location.hash = `item-${itemId}`;
    await window.__frameAfter(card, `the card of ${itemId} shown`);
  }
  const t0 = performance.now();
  card().querySelector('input[value=pass]').click();
  const counted = () => /\\b(\\d+)\\b/.exec(document.getElementById('progress-text').textContent)[1] === String(n);
  return window.__frameAfter(counted, `${n} answered`).then((t) => t - t0);
}"""
VERIFIER_FILES = ("jsQR.js", "zxing-reader.js", "zxing_reader.wasm", "verifier.js", "verificar.js", "qr-photo.js")
CACHED_URLS = """async () => {
  const urls = [];
  for (const name of await caches.keys()) {
    for (const request of await (await caches.open(name)).keys()) urls.push(new URL(request.url).pathname);
  }
  return urls;
}"""


def bare_site(environ, start_response):
    """The bare page's server: the static page and its one script, nothing else."""
    script = environ["PATH_INFO"] == "/bare.js"
    start_response("200 OK", [("Content-Type", "text/javascript" if script else "text/html; charset=utf-8"),
                              ("Cache-Control", "no-cache")])
    return [BARE_SCRIPT if script else BARE_PAGE]


class Stalled(RuntimeError):
    """A wait in the page gave up (FRAME_AFTER's STALL_S)."""


def awaited(page, script: str, arg=None):
    """page.evaluate of a script that awaits __frameAfter; its giving up becomes Stalled, naming the page."""
    from playwright.sync_api import Error

    try:
        return page.evaluate(script, arg)
    except Error as error:
        if "stalled: " not in error.message:
            raise
        raise Stalled(f"{page.url}: {error.message.split('stalled: ', 1)[1].splitlines()[0]}") from None


def yes_no(items: list[dict]) -> list[dict]:
    """The items a bare "Cumple" answers: a counted item (a required or maximum count) needs its count too."""
    return [item for item in items if item["required"] is None and item.get("maximum") is None]


def twice(gets: list[str]) -> list[str]:
    """The GET targets (query included) the server was asked for more than once, API calls aside."""
    counts = Counter(t for t in gets if not t.startswith("/api/"))
    return sorted(t for t, n in counts.items() if n > 1)


def navigate(page, cdp, url: str, rate: float) -> float:
    """Milliseconds from the navigation's start to the first frame after the page is ready, at CPU ×`rate`."""
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
    page.goto(url)
    return awaited(page, "window.__interactive")


def live_nodes(cdp) -> int:
    """Chromium's count of DOM nodes alive in the page (Performance.getMetrics), replaced ones until collected."""
    cdp.send("Performance.enable")
    return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "Nodes")


def run(args, base: Path) -> dict:
    """The cold first visit, then the screen at CPU ×args.cpu; returns the measured figures."""
    from playwright import sync_api

    from tests.tablet_rig import tablet_rig
    from tests.tablet_steps import open_profile, seed, sign_in_and_take_aboard

    (base / "rig").mkdir()
    with tablet_rig(base / "rig") as rig, wsgi_thread(bare_site, "bench-bare") as bare_url:
        seeded = [seed(rig, f"p{k}ntalla") for k in range(args.runs)]
        with rig.app.app_context():  # one inspector for all: the later inspections move to the first one's agenda
            from inspection.core.extensions import db
            from inspection.core.models import Inspection, User
            inspector = db.session.scalar(db.select(User).filter_by(username=seeded[0]["username"]))
            for s in seeded[1:]:
                db.session.get(Inspection, s["inspection_id"]).inspector_id = inspector.id
            db.session.commit()
        with sync_api.sync_playwright() as pw:
            context, page = open_profile(pw, base / "profile")
            visit = len(rig.faults.gets)
            print("cold first visit: sign in, /agenda, the worker's install, take aboard ...", flush=True)
            if args.typing:  # a person types for longer than the worker takes to install from the sign-in page
                page.goto(f"{rig.origin}/login")
                page.evaluate("navigator.serviceWorker.ready.then(() => true)")
            sign_in_and_take_aboard(rig, page, seeded[0], arrived=args.typing)
            for s in seeded:
                page.wait_for_selector(f"[data-inspection='{s['inspection_id']}'] .aboard.ok", timeout=60_000)
            time.sleep(1.5)  # the worker's last precache responses
            first_visit = rig.faults.gets[visit:]
            cached = page.evaluate(CACHED_URLS)
            context.add_init_script(FRAME_AFTER)
            cdp = context.new_cdp_session(page)
            bare, screens = [], []
            for s in seeded:
                print(f"inspection {s['inspection_id']}: the bare page, then the screen ...", flush=True)
                bare.append(navigate(page, cdp, bare_url, args.cpu))
                screen = {"interactive_ms": navigate(page, cdp, f"{rig.origin}/inspecciones/{s['inspection_id']}",
                                                     args.cpu)}
                screen["before_start"] = {**page.evaluate(COUNT_NODES), "live": live_nodes(cdp)}
                screen["start_ms"] = awaited(page, START)
                screen["after_start"] = {**page.evaluate(COUNT_NODES), "live": live_nodes(cdp)}
                screen["answer_ms"] = [awaited(page, ANSWER, [item["id"], n + 1])
                                       for n, item in enumerate(yes_no(s["items"])[:args.answers])]
                screens.append(screen)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
            context.close()
    return {"first_visit": first_visit, "twice": twice(first_visit), "cached": cached, "bare": bare,
            "screens": screens, "items": len(seeded[0]["items"])}


def build_rows(m: dict) -> list[dict]:
    """One row per figure: the median over the runs, each run's value, and the ratio to the bare page."""
    median = statistics.median
    bare = median(m["bare"])
    answers = [median(s["answer_ms"]) for s in m["screens"]]

    def row(figure, values, goal):
        return {"figure": figure, "median_ms": round(median(values)), "runs_ms": [round(v) for v in values],
                "vs_bare_page": round(median(values) / bare, 2) if bare else None, "goal_ms": goal}

    return [row("bare static page: navigation -> interactive", m["bare"], None),
            row("inspection: navigation -> interactive", [s["interactive_ms"] for s in m["screens"]], 300),
            row("Comenzar -> radios enabled", [s["start_ms"] for s in m["screens"]], 100),
            row("one answer saved (median per run)", answers, 50)]


def main(argv=None) -> None:
    """Parse, run, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="inspections opened, one measurement each")
    parser.add_argument("--answers", type=int, default=5, help="answers timed per inspection")
    parser.add_argument("--typing", action="store_true",
                        help="on the cold visit, sign in only once the worker is ready, as a person typing would")
    parser.add_argument("--cpu", type=float, default=4, help="CPU throttling rate")
    args = parser.parse_args(argv)
    if not (1 <= args.runs <= 10 and 1 <= args.answers <= 30 and args.cpu >= 1):
        parser.error("out of range: 1-10 runs, 1-30 answers, a CPU rate of at least 1")
    with tempfile.TemporaryDirectory(prefix="baliza-bench-screen-") as tmp:
        try:
            measured = run(args, Path(tmp))
        except Stalled as stalled:
            sys.exit(f"stalled at {stalled}: nothing measured")
    rows = build_rows(measured)
    report(f"Tablet screen at CPU x{args.cpu:g} ({measured['items']} items)", rows, name="tablet_screen")
    before = [s["before_start"] for s in measured["screens"]]
    after = [s["after_start"] for s in measured["screens"]]
    print(f"DOM before Comenzar: {before[0]['nodes']} nodes ({before[0]['elements']} elements, Chromium's live count "
          f"{before[0]['live']}); after: {after[0]['nodes']} nodes ({after[0]['elements']} elements, live {after[0]['live']})")
    verifier = sorted({u for u in measured["cached"] if u.rsplit("/", 1)[-1] in VERIFIER_FILES})
    print(f"cold first visit: {len(measured['first_visit'])} GETs to the server, "
          f"{len(measured['twice'])} fetched more than once: {measured['twice']}")
    print(f"police verifier's files cached after visiting only tablet pages: {verifier or 'none'}")


if __name__ == "__main__":
    main()
