"""The inspector's whole day on the tablet, in Debian's Chromium: take aboard online, work offline, sync.

Each journey signs in and lets the agenda take the inspection aboard; cuts the link; starts the
inspection; answers every item (passes, failures with quantities, not-applicable with notes);
attaches a 4000 × 3000 JPEG to every evidence item through the file input; draws both signatures;
closes; reloads offline; closes the browser and reopens the same profile offline; then restores
the link, and, with no reload, the outbox empties: the server holds exactly those answers and
photos (values, counts, hashes), the inspection is closed and the certificate shows on the tablet.
The same journey runs under faults (every third request dropped, the server killed and restarted
mid-sync, a throttled link, a photo upload cut halfway) and must end in the same server state.
"""
import io
import time
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from playwright import sync_api

from inspection.clock import office_today
from inspection.extensions import db
from inspection.inspections import schedule_inspection
from inspection.models import Answer, Certificate, Inspection, Photo
from inspection.users import create_user
from inspection.vessel_checklists import pinned_items
from inspection.vessels import create_owner, create_vessel, particulars_of
from tests.live_site import ARGS, CHROMIUM
from tests.tablet_rig import tablet_rig, wait_until

pytestmark = pytest.mark.browser

TABLET = {"width": 800, "height": 1280}
PASSWORD = "tableta-de-prueba"
PARTICULARS = {
    "flag": "national", "cabotage_permit": None, "home_port": "Asunción", "propulsion": "motor",
    "service": "cargo", "hull_material": "iron", "length_m": Decimal("30"), "beam_m": Decimal("7"),
    "girth_m": Decimal("11"), "crew": 6, "max_passengers": 0, "cabins": 0, "fire_hydrants": 3, "holds": 1,
    "boilers": 0, "steam_launch": False, "boats": 1, "cooking": "galley", "hot_climate": False,
}


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    base = tmp_path_factory.mktemp("tablet")
    with tablet_rig(base) as started:
        with started.app.app_context():
            admin = create_user("jefa", PASSWORD, "admin", full_name="Jefa de Inspecciones")
            started.admin_id = admin.id
            db.session.commit()
        yield started


@pytest.fixture(scope="module")
def camera_files(tmp_path_factory) -> list[Path]:
    """Three 4000 × 3000 camera JPEGs (a deck scene of flat colours and shapes, as such photos compress)."""
    folder = tmp_path_factory.mktemp("camera")
    paths = []
    for n in range(3):
        image = Image.new("RGB", (4000, 3000), (70 + 40 * n, 110, 150))
        draw = ImageDraw.Draw(image)
        for k in range(40):
            x, y = (k * 97 + n * 300) % 3800, (k * 61 + n * 200) % 2800
            draw.rectangle([x, y, x + 180 + k * 3, y + 120 + k * 2], fill=((k * 37) % 255, (k * 91) % 255, (k * 53 + n * 70) % 255))
        draw.ellipse([1500, 1000, 2600, 2100], outline=(250, 250, 250), width=30)
        path = folder / f"IMG_000{n}.jpg"
        image.save(path, "JPEG", quality=88)
        paths.append(path)
    return paths


def seed(rig, name: str) -> dict:
    """A vessel, an inspector and a seguridad inspection scheduled for the office's today, by operations."""
    with rig.app.app_context():
        owner = create_owner({"name": f"Naviera {name}", "tax_id": f"80{abs(hash(name)) % 10**6:06d}-1"})
        vessel = create_vessel({**PARTICULARS, "registration": f"PY-{name[:6].upper()}", "name": f"Río {name}",
                                "owner_id": owner.id})
        inspector = create_user(f"insp-{name}", PASSWORD, "inspector", full_name=f"Inspector {name.title()}")
        admin = db.session.get(type(inspector), rig.admin_id)
        inspection = schedule_inspection(admin, vessel, "seguridad", inspector, office_today(), "Asunción", office_today())
        _, items = pinned_items(particulars_of(vessel), "seguridad")
        db.session.commit()
        return {"inspection_id": inspection.id, "username": inspector.username, "items": items}


def plan(items: list[dict]) -> dict:
    """The answer for every item: failures with quantities, not-applicable with notes, the rest passes."""
    answers, failed_qty, failed_plain, not_applicable = {}, 0, 0, 0
    for item in items:
        if item["required"] is not None and failed_qty < 1 and not item["detainable"]:
            answers[item["id"]] = {"result": "fail", "observed": max(0, item["required"] - 1), "note": "Faltan a bordo",
                                   "action": "before_departure"}
            failed_qty += 1
        elif item["required"] is not None:
            answers[item["id"]] = {"result": "pass", "observed": item["required"] + 1, "note": ""}
        elif not item["evidence_required"] and not item["detainable"] and not_applicable < 3:
            answers[item["id"]] = {"result": "not_applicable", "observed": None, "note": f"No lleva ({item['id']})"}
            not_applicable += 1
        elif not item["evidence_required"] and not item["detainable"] and failed_plain < 1:
            answers[item["id"]] = {"result": "fail", "observed": None, "note": "Deteriorado", "action": "within_14_days"}
            failed_plain += 1
        else:
            answers[item["id"]] = {"result": "pass", "observed": None, "note": ""}
    assert failed_qty == 1 and not_applicable == 3 and failed_plain == 1, "the checklist no longer fits the plan"
    return answers


def open_profile(pw, profile: Path, offline: bool = False):
    context = pw.chromium.launch_persistent_context(str(profile), executable_path=str(CHROMIUM), args=ARGS,
                                                    viewport=TABLET, locale="es-PY", offline=offline,
                                                    service_workers="allow")
    return context, (context.pages[0] if context.pages else context.new_page())


def sign_in_and_take_aboard(rig, page, seeded):
    page.goto(f"{rig.origin}/login")
    page.fill("input[name=username]", seeded["username"])
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{rig.origin}/agenda")
    card = f"[data-inspection='{seeded['inspection_id']}']"
    page.wait_for_selector(f"{card} .aboard.ok", timeout=30_000)
    page.wait_for_function("""async () => {
        if (!navigator.serviceWorker.controller) return false;
        const names = await caches.keys();
        for (const name of names) {
          const cache = await caches.open(name);
          if (await cache.match('/tablet/inspeccion') && await cache.match('/agenda')) return true;
        }
        return false;
    }""", timeout=30_000)
    return card


def go_offline(rig, context):
    rig.faults.down = True
    context.set_offline(True)


def answer_everything(page, seeded, answers, camera_files):
    page.click("#start-button")
    photos = 0
    for item in seeded["items"]:
        wanted = answers[item["id"]]
        card = page.locator(f"article[data-item='{item['id']}']")
        card.locator(f"input[type=radio][value='{wanted['result']}']").check()
        if wanted["observed"] is not None:
            card.locator("input[name=observed]").fill(str(wanted["observed"]))
        if wanted["note"]:
            card.locator("textarea[name=note]").fill(wanted["note"])
        if wanted.get("action"):
            card.locator("select[name=action]").select_option(wanted["action"])
        if item["evidence_required"]:
            card.locator("input[type=file]").set_input_files(str(camera_files[photos % len(camera_files)]))
            photos += 1
            card.locator("li.thumb img").wait_for(timeout=30_000)
    page.wait_for_function(f"document.getElementById('progress-text').textContent.includes('{len(seeded['items'])} de')")
    return photos


def draw_signature(page, selector: str, wave: int):
    page.locator(selector).scroll_into_view_if_needed()
    box = page.locator(selector).bounding_box()
    page.mouse.move(box["x"] + 20, box["y"] + box["height"] / 2)
    page.mouse.down()
    for step in range(1, 30):
        page.mouse.move(box["x"] + 20 + step * (box["width"] - 40) / 30,
                        box["y"] + box["height"] / 2 + (25 if (step + wave) % 2 else -25), steps=2)
    page.mouse.up()


def close_inspection(page):
    draw_signature(page, "#sig-inspector", 0)
    draw_signature(page, "#sig-master", 1)
    page.fill("#master-name", "Cap. Ramón Benítez")
    page.click("#close-button")
    try:
        page.wait_for_selector("text=Cerrada en la tableta", timeout=10_000)
    except Exception:
        page.screenshot(path="/tmp/close-fail.png", full_page=False)
        print(page.locator("#closing-problems").inner_text())
        raise


def local_record(page, inspection_id: int) -> dict:
    """What the tablet holds for the inspection: its answers and the hashes of its photos, from IndexedDB."""
    return page.evaluate("""async (id) => {
        const db = await new Promise((ok, fail) => { const r = indexedDB.open('baliza-tablet'); r.onsuccess = () => ok(r.result); r.onerror = fail; });
        const read = (store) => new Promise((ok) => { const r = db.transaction(store).objectStore(store).getAll(); r.onsuccess = () => ok(r.result); });
        const answers = (await read('answers')).filter((a) => a.inspection_id === id);
        const photos = (await read('photos')).filter((p) => p.inspection_id === id);
        const outbox = (await read('outbox')).filter((e) => e.inspection_id === id);
        db.close();
        return { answers: answers.map((a) => ({ item_id: a.item_id, result: a.result, observed: a.observed, note: a.note,
                                                action: a.action, photos: a.photos })),
                 photos: photos.map((p) => ({ item_id: p.item_id, sha256: p.sha256, size: p.size, width: p.width, height: p.height })),
                 outbox: outbox.length };
    }""", inspection_id)


def checked_count(page) -> int:
    return page.locator("#items input[type=radio]:checked").count()


def server_state(rig, inspection_id: int) -> dict:
    with rig.app.app_context():
        inspection = db.session.get(Inspection, inspection_id)
        answers = db.session.scalars(db.select(Answer).filter_by(inspection_id=inspection_id)).all()
        photos = db.session.scalars(db.select(Photo).filter_by(inspection_id=inspection_id)).all()
        certificate = db.session.scalar(db.select(Certificate).filter_by(inspection_id=inspection_id))
        state = {"status": inspection.status, "outcome": inspection.outcome, "answer_rows": len(answers),
                 "current": {a.item_id: {"result": a.result, "observed": None if a.observed is None else float(a.observed),
                                         "note": a.note, "action": a.action} for a in answers if a.current},
                 "photos": sorted((p.item_id, p.sha256) for p in photos),
                 "certificate": certificate.number if certificate else None,
                 "started_at": inspection.started_at, "submitted_at": inspection.submitted_at}
        db.session.remove()
        return state


def journey(rig, tmp_path, camera_files, name: str, fault=None, sync_timeout: float = 120):
    """The whole journey; `fault(rig, context, page)` runs as the link comes back. Returns what it saw."""
    seeded = seed(rig, name)
    answers = plan(seeded["items"])
    inspection_id = seeded["inspection_id"]
    profile = tmp_path / "profile"
    with sync_api.sync_playwright() as pw:
        context, page = open_profile(pw, profile)
        card = sign_in_and_take_aboard(rig, page, seeded)
        go_offline(rig, context)
        before_offline = time.time()
        page.click(f"{card} a.agenda-title")
        page.wait_for_selector("#inspection[data-ready] #start-button", timeout=20_000)
        photos = answer_everything(page, seeded, answers, camera_files)
        close_inspection(page)
        local = local_record(page, inspection_id)
        assert len(local["answers"]) == len(seeded["items"]) and len(local["photos"]) == photos

        page.reload()  # offline: the service worker serves the screen, IndexedDB the work
        page.wait_for_selector("text=Cerrada en la tableta", timeout=20_000)
        assert checked_count(page) == len(seeded["items"])
        context.close()

        context, page = open_profile(pw, profile, offline=True)  # the same profile, still no signal
        page.goto(f"{rig.origin}/inspecciones/{inspection_id}")
        page.wait_for_selector("text=Cerrada en la tableta", timeout=20_000)
        assert checked_count(page) == len(seeded["items"])
        assert local_record(page, inspection_id) == local
        assert server_state(rig, inspection_id)["answer_rows"] == 0  # nothing left the tablet while offline

        rig.faults.down = False
        if fault:
            fault(rig, context, page)
        context.set_offline(False)  # no reload from here on
        page.wait_for_selector("text=Inspección cerrada y enviada", timeout=sync_timeout * 1000)
        shown = page.locator(".certificate strong").inner_text()
        badge = page.locator("#sync-badge").inner_text()
        final_local = local_record(page, inspection_id)
        context.close()

    server = server_state(rig, inspection_id)
    expected_current = {k: {"result": v["result"], "observed": None if v["observed"] is None else float(v["observed"]),
                            "note": v["note"], "action": v.get("action")} for k, v in answers.items()}
    assert server["status"] == "submitted"
    assert server["current"] == expected_current
    assert server["answer_rows"] == len(seeded["items"])  # one row per item: nothing twice
    assert server["photos"] == sorted((p["item_id"], p["sha256"]) for p in local["photos"])
    assert server["certificate"] and shown == server["certificate"]
    assert server["started_at"].timestamp() >= before_offline - 1  # the tablet's clock, not the sync's
    assert server["submitted_at"].timestamp() < time.time()
    assert final_local["outbox"] == 0 and final_local["photos"] == []  # confirmed, so the bulky copy is gone
    return {"server": server, "local": local, "badge": badge, "photos": photos}


def test_a_whole_inspection_offline_then_synced(rig, tmp_path, camera_files):
    seen = journey(rig, tmp_path, camera_files, "sereno")
    assert seen["photos"] >= 10
    for photo in seen["local"]["photos"]:
        assert max(photo["width"], photo["height"]) == 2560  # downscaled from 4000 × 3000 before sending
        assert photo["size"] < 4000 * 3000 // 4
    assert "Al día" in seen["badge"]


def test_every_third_request_dropped(rig, tmp_path, camera_files):
    def drop(rig, context, page):
        rig.faults.drop_every = 3
    try:
        journey(rig, tmp_path, camera_files, "tercero", drop, sync_timeout=240)
        assert rig.faults.dropped >= 3
    finally:
        rig.faults.drop_every = 0


def test_server_killed_and_restarted_mid_sync(rig, tmp_path, camera_files):
    def kill(rig, context, page):
        import threading

        def crash_when_busy():
            wait_until(lambda: any("/uploads" in p or "/sync" in p for p in rig.faults.paths[-50:]), 60, 0.02,
                       "the sync to begin")
            rig.kill_app()
            time.sleep(1.5)
            rig.start_app()
        rig.faults.paths.clear()
        threading.Thread(target=crash_when_busy, daemon=True).start()
    journey(rig, tmp_path, camera_files, "caido", kill, sync_timeout=240)


def test_a_throttled_link(rig, tmp_path, camera_files):
    def throttle(rig, context, page):
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 400,
                                                      "downloadThroughput": 50_000, "uploadThroughput": 50_000})
    journey(rig, tmp_path, camera_files, "lento", throttle, sync_timeout=400)


def test_a_photo_upload_cut_halfway_resumes(rig, tmp_path, camera_files):
    def cut(rig, context, page):
        rig.faults.body_bytes.clear()
        rig.faults.cut_upload_once = True
    seen = journey(rig, tmp_path, camera_files, "cortado", cut)
    assert rig.faults.cuts == 1
    sent = sum(n for path, n in rig.faults.body_bytes.items() if path.startswith("PATCH"))
    photo_bytes = sum(p["size"] for p in seen["local"]["photos"])
    assert photo_bytes <= sent < photo_bytes * 1.02  # the cut photo went on from where it stopped
