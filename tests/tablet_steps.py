"""The inspector's steps on the tablet, in Playwright: shared by the journeys (tests/tablet_journey.py),
the page checks (tests/test_tablet_pages.py) and the benchmark (bench/tablet.py).

State the browser does not need to build (the vessel, the inspector, the schedule) is made with the
operations against the rig's database; everything the inspector does goes through the screen.
"""
from pathlib import Path

from PIL import Image, ImageDraw

from inspection.accounts.users import create_user
from inspection.core.clock import office_today
from inspection.core.extensions import db
from inspection.core.models import Answer, Certificate, Inspection, Photo
from inspection.inspections.operations import schedule_inspection
from inspection.registry.vessel_checklists import pinned_items
from inspection.registry.vessels import create_owner, create_vessel, particulars_of
from tests.fleets import PARTICULARS
from tests.live_site import ARGS, CHROMIUM

TABLET = {"width": 800, "height": 1280}
PASSWORD = "tableta-de-prueba"


def seed(rig, name: str, **particulars) -> dict:
    """A vessel (PARTICULARS, overridden by `particulars`), an inspector and a seguridad inspection scheduled
    for the office's today, by operations."""
    with rig.app.app_context():
        owner = create_owner({"name": f"Naviera {name}", "tax_id": f"80{abs(hash(name)) % 10**6:06d}-1"})
        vessel = create_vessel({**PARTICULARS, **particulars, "registration": f"PY-{name[:6].upper()}", "name": f"Río {name}",
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


def sign_in_and_take_aboard(rig, page, seeded, arrived: bool = False):
    """Sign in (from the sign-in page, opened here unless `arrived`), land on the agenda, wait for the inspection
    aboard and both tablet shells kept by the service worker; returns the inspection's agenda card selector."""
    if not arrived:
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
          if (await cache.match('/tablet/inspeccion', { ignoreSearch: true }) && await cache.match('/agenda', { ignoreSearch: true })) return true;
        }
        return false;
    }""", timeout=30_000)
    return card


def open_from_agenda(page, card: str) -> None:
    """Open the inspection of an agenda card (served offline by the worker) and wait for its screen."""
    page.click(f"{card} a.agenda-title")
    page.wait_for_selector("#inspection[data-ready] #start-button", timeout=60_000)  # a loaded CI machine


def go_offline(rig, context):
    rig.faults.down = True
    context.set_offline(True)


def answer_everything(page, seeded, answers, camera_files) -> int:
    """Start and answer every item, a camera file (in turn) on every evidence item; how many photos."""
    evidence = [item for item in seeded["items"] if item["evidence_required"]]
    photo_files = {item["id"]: camera_files[n % len(camera_files)] for n, item in enumerate(evidence)}
    answer_items(page, seeded["items"], answers, photo_files)
    return len(photo_files)


def show_item(page, item_id: str):
    """The item's card, its topic opened as a link to it would (a topic's cards are made when it opens)."""
    page.evaluate("(id) => { location.hash = `item-${id}`; }", item_id)
    return page.locator(f"article[data-item='{item_id}']")


def answer_items(page, items: list[dict], answers: dict, photo_files: dict) -> None:
    """Start, answer every item through the screen and attach `photo_files[item_id]` through the file input."""
    page.click("#start-button")
    for item in items:
        wanted = answers[item["id"]]
        card = show_item(page, item["id"])
        card.locator(f"input[type=radio][value='{wanted['result']}']").check()
        if wanted["observed"] is not None:
            card.locator("input[name=observed]").fill(str(wanted["observed"]))
        if wanted["note"]:
            card.locator("textarea[name=note]").fill(wanted["note"])
        if wanted.get("action"):
            card.locator("select[name=action]").select_option(wanted["action"])
        if item["id"] in photo_files:
            card.locator("input[type=file]").set_input_files(str(photo_files[item["id"]]))
            card.locator("li.thumb img").wait_for(timeout=60_000)
    page.wait_for_function(f"() => document.getElementById('progress-text').textContent.includes('{len(items)} de')")


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
    page.click("#confirm-close")  # the closing screen asks once
    page.wait_for_selector("#undo-close", timeout=10_000)


def local_record(page, inspection_id: int) -> dict:
    """What the tablet holds for the inspection: its answers and the hashes of its photos, from IndexedDB.

    The inspection screen reloads itself after a new download; a read cut by that reload is read again
    once the new page has loaded (the store outlives the page, so nothing is lost between the two reads).
    """
    from playwright.sync_api import Error as PlaywrightError

    for attempt in range(3):
        try:
            return _read_local_record(page, inspection_id)
        except PlaywrightError as error:
            if "context was destroyed" not in str(error) or attempt == 2:
                raise
            page.wait_for_load_state()


def _read_local_record(page, inspection_id: int) -> dict:
    """One read of the tablet's IndexedDB for the inspection (see local_record)."""
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
    """The radios checked on the screen, every topic opened."""
    page.evaluate("() => document.querySelectorAll('#items details.topic-block').forEach((topic) => { topic.open = true; })")
    page.wait_for_function("() => !document.querySelector('#items details.topic-block:not([data-built])')")
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


def camera_jpegs(folder: Path, count: int = 3, size=(4000, 3000)) -> list[Path]:
    """Camera JPEGs of `size` (a deck scene of flat colours and shapes, as such photos compress)."""
    paths = []
    for n in range(count):
        image = Image.new("RGB", size, (70 + 40 * (n % 4), 110, 150))
        draw = ImageDraw.Draw(image)
        for k in range(40):
            x, y = (k * 97 + n * 300) % (size[0] - 200), (k * 61 + n * 200) % (size[1] - 200)
            draw.rectangle([x, y, x + 180 + k * 3, y + 120 + k * 2],
                           fill=((k * 37 + n) % 255, (k * 91) % 255, (k * 53 + n * 70) % 255))
        draw.ellipse([size[0] * 3 // 8, size[1] // 3, size[0] * 5 // 8, size[1] * 2 // 3], outline=(250, 250, 250),
                     width=30)
        path = folder / f"IMG_{n:04d}.jpg"
        image.save(path, "JPEG", quality=88)
        paths.append(path)
    return paths


def close_by_operations(rig, inspection_id: int) -> None:
    """Answer every item and close the inspection through the operations, as the inspector would (the journeys test
    the closing screen; here it is not what is tested)."""
    import uuid

    from inspection.certificates.keys import signer
    from inspection.core.clock import office_zone, system_now
    from inspection.core.models import User
    from inspection.core.office import current_office
    from inspection.inspections.closing import close_inspection
    from inspection.media.configured import media_storage
    from tests.conftest import pass_every_item
    from tests.media_samples import signature_images

    with rig.app.test_request_context():
        inspection = db.session.get(Inspection, inspection_id)
        inspector, now = db.session.get(User, inspection.inspector_id), system_now()
        pass_every_item(inspection, inspector, now, started=True)
        close_inspection(inspector, inspection, {"client_id": str(uuid.uuid4()), "signature": "Insp.",
                                                 "master_name": "Cap.", "signatures": signature_images()},
                         current_office(), signer(current_office(), now), office_today(), now, media_storage(),
                         office_zone())
        db.session.commit()
        db.session.remove()
