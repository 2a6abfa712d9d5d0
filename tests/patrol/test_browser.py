"""The police phone's journey (issue 23) in Debian's Chromium at 390 × 844 with the network cut: a certified vessel's
QR read offline by the verifier's camera (Chromium's fake camera shows it), "Registrar control", the conduct check with one infraction and a photo; then an
unregistered canoe, compliant; the browser restarted offline; the sync with no reload. The server holds each
record once, the owner's fleet shows the infraction, the staff dashboard counts both.
"""
import re
import time

import pytest
from playwright import sync_api

from inspection.accounts.users import create_user
from inspection.certificates.qrcodes import make_qr
from inspection.core.extensions import db
from inspection.core.models import PatrolAnswer, PatrolCheck, Photo
from inspection.inspections.operations import schedule_inspection
from inspection.registry.vessels import create_owner, create_vessel
from tests.browser_kit import (
    BROWSER_MARKS,
    fake_camera_args,
    fake_camera_video,
    shoot,
    small_targets,
    visit_online,
    wait_until_kept,
)
from tests.conftest import CERTIFIED_AT, CERTIFIED_ON, pass_and_close
from tests.fleets import PARTICULARS
from tests.live_site import ARGS, CHROMIUM
from tests.tablet_rig import tablet_rig, wait_until
from tests.tablet_steps import PASSWORD, camera_jpegs

pytestmark = BROWSER_MARKS
PHONE = {"width": 390, "height": 844}
PLACE = "Km 1630, Río Paraguay"


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    with tablet_rig(tmp_path_factory.mktemp("patrol")) as started:
        yield started


def seed(rig) -> dict:
    """A certified cargo motor vessel with its owner's user, an inspector, and a police officer, by operations."""
    with rig.app.app_context():
        owner = create_owner({"name": "Naviera Patrulla S.A.", "tax_id": "80077777-1"})
        vessel = create_vessel({**PARTICULARS, "registration": "PY-PATRU", "name": "Río Patrulla", "owner_id": owner.id})
        create_user("armador-p", PASSWORD, "owner", owner_id=owner.id)
        inspector = create_user("insp-p", PASSWORD, "inspector", full_name="Insp. Patrulla")
        admin = db.session.get(type(inspector), rig.admin_id)
        police = create_user("agente", PASSWORD, "police", full_name="Agente Ortiz", unit="Lancha 3")
        inspection = schedule_inspection(admin, vessel, "seguridad", inspector, CERTIFIED_ON, "Asunción", CERTIFIED_ON)
        certificate = pass_and_close(inspection, inspector, CERTIFIED_AT, CERTIFIED_ON)["certificate"]
        db.session.commit()
        return {"vessel_id": vessel.id, "token": certificate.token, "police_id": police.id}


def open_phone(pw, profile, offline=False, camera=None):
    """The officer's phone (one profile across restarts); `camera`: the video its fake camera shows."""
    args = ARGS + (fake_camera_args(camera) if camera else [])
    context = pw.chromium.launch_persistent_context(str(profile), executable_path=str(CHROMIUM), args=args,
                                                    viewport=PHONE, locale="es-PY", offline=offline,
                                                    service_workers="allow", has_touch=True,
                                                    permissions=["camera"] if camera else [])
    return context, (context.pages[0] if context.pages else context.new_page())


def ready(page):
    page.wait_for_selector("#tablet[data-ready]", timeout=20_000)


def device_enrolled(page, user_id) -> bool:
    return page.evaluate("""(key) => new Promise((resolve) => {
        const open = indexedDB.open('baliza-tablet');
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('meta')) { db.close(); resolve(false); return; }
          const got = db.transaction('meta').objectStore('meta').get(key);
          got.onsuccess = () => { db.close(); resolve(!!got.result); };
          got.onerror = () => { db.close(); resolve(false); };
        };
        open.onerror = () => resolve(false);
    })""", f"device:{user_id}")


class Taps:
    """Clicks on the screen, counted."""

    def __init__(self, page):
        self.page, self.count = page, 0

    def __call__(self, selector):
        self.page.click(selector)
        self.count += 1


def test_two_checks_offline_reach_the_server_once_and_their_consequences(rig, tmp_path):
    seeded = seed(rig)
    (tmp_path / "camera").mkdir()
    [photo] = camera_jpegs(tmp_path / "camera", count=1, size=(1600, 1200))
    profile, camera = tmp_path / "profile", tmp_path / "qr.y4m"
    fake_camera_video(make_qr(rig.origin, seeded["token"]).png, camera)  # the QR printed on the certificate
    started = time.monotonic()
    with sync_api.sync_playwright() as pw:
        context, page = open_phone(pw, profile, camera=camera)
        page.goto(f"{rig.origin}/login")
        page.fill("input[name=username]", "agente")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_load_state()
        visit_online(page, f"{rig.origin}/verificar")  # the lists, to verify offline
        page.click("a[href='/patrulla']")  # the police navigation
        ready(page)
        wait_until(lambda: device_enrolled(page, seeded["police_id"]), 20, what="the phone's device token")
        wait_until_kept(page, "/patrulla")
        wait_until_kept(page, "/static/js/patrol/phone.js")

        rig.faults.down = True
        context.set_offline(True)
        # 1. the certified vessel: its QR read offline, "Registrar control", conduct with one infraction and a photo
        page.goto(f"{rig.origin}/verificar")
        page.click("#scan")  # the camera reads the certificate's QR
        page.wait_for_selector("#verdict[data-verdict='valid']", timeout=20_000)
        page.click("#record-check")
        ready(page)
        assert "VÁLIDO" in page.inner_text("#scanned")
        page.fill("#place", PLACE)
        assert not small_targets(page, "#tablet"), "one hand, outdoors: every target at least 44 px"
        page.click("#use-scanned")
        page.wait_for_selector("#step-list:not([hidden])")  # offline, the server's lists are asked for first and fail
        assert "PY-PATRU" in page.inner_text("#craft-label")  # the QR's registration found among the kit's vessels
        page.click("[data-list='conducta']")
        lights = "#items [data-item='con.lights.night']"
        page.wait_for_selector(f"{lights} button.no")
        shown = {"scanned": page.locator("#items [data-item]").evaluate_all("els => els.map((el) => el.dataset.item)")}
        assert not small_targets(page, "#tablet"), "one hand, outdoors: every target at least 44 px"
        page.click(f"{lights} button.no")
        page.set_input_files(f"{lights} input[type=file]", str(photo))
        page.wait_for_selector(f"{lights} .photo:has-text('Foto (1)')", timeout=20_000)
        page.click("#pass-all")
        shoot(page, "baliza_patrol_1_items.png")
        page.click("#to-outcome")
        shoot(page, "baliza_patrol_2_outcome.png")
        assert page.is_checked("#outcomes input[value='infraccion']")
        assert "art. 68" in page.inner_text("#failures")
        page.fill("#note", "Navegaba de noche sin luces")
        page.click("#close-check")
        page.wait_for_selector("#step-done:not([hidden])")

        # 2. an unregistered canoe, compliant: the taps an officer makes (the place is remembered)
        taps = Taps(page)
        taps("#new-check")
        taps("#craft-types [data-craft='rowing']")
        taps("[data-list='menores']")
        page.wait_for_selector("#items [data-item='men.buckets.total'] button[aria-label='Uno más']")
        shown["canoe"] = page.locator("#items [data-item]").evaluate_all("els => els.map((el) => el.dataset.item)")
        taps("#pass-all")
        taps("#items [data-item='men.buckets.total'] button[aria-label='Uno más']")
        taps("#to-outcome")
        assert page.is_checked("#outcomes input[value='sin_novedad']")
        taps("#close-check")
        page.wait_for_selector("#step-done:not([hidden])")
        print(f"\ncompliant canoe: {taps.count} taps")
        assert taps.count <= 7
        assert page.locator("#recent [data-state='pending']").count() == 2
        context.close()

        # 3. the browser restarted, still offline: the page and both checks are on the phone; nothing reached the server
        context, page = open_phone(pw, profile, offline=True)
        page.goto(f"{rig.origin}/patrulla")
        ready(page)
        page.wait_for_function("() => document.querySelectorAll(\"#recent [data-state='pending']\").length === 2")
        page.wait_for_selector("#sync-badge[data-state='offline']", timeout=20_000)  # the badge says work waits
        page.fill("#place", PLACE)
        page.fill("#vessel-query", "río patru")  # no signal: the search looks among the vessels the page brought
        page.click("#vessel-results button:has-text('PY-PATRU')")
        page.wait_for_selector("#step-list:not([hidden])")
        assert page.is_disabled("[data-list='menores']")  # a motor vessel: no small-craft list (art. 210)
        assert page.is_enabled("[data-list='conducta']") and "PY-PATRU" in page.inner_text("#craft-label")
        with rig.app.app_context():
            assert db.session.scalar(db.select(db.func.count()).select_from(PatrolCheck)) == 0

        # 4. signal back: the outbox empties by itself, no reload
        rig.faults.down = False
        context.set_offline(False)
        page.wait_for_function("() => document.querySelectorAll(\"#recent [data-state='sent']\").length === 2",
                               timeout=60_000)  # a function: the CSP refuses eval
        shoot(page, "baliza_patrol_3_synced.png", full_page=True)
        assert "PY-PATRU" in page.inner_text("#recent")  # the scanned vessel, named once the server knew it
        context.close()
    print(f"journey: {time.monotonic() - started:.1f} s")

    with rig.app.app_context():
        checks = db.session.scalars(db.select(PatrolCheck).order_by(PatrolCheck.id)).all()
        assert len(checks) == 2  # each once
        scanned, canoe = checks
        assert (scanned.vessel_id, scanned.checklist, scanned.outcome) == (seeded["vessel_id"], "conducta", "infraccion")
        assert (scanned.verification_token, scanned.verification_verdict) == (seeded["token"], "valid")
        assert scanned.list_age_s is not None and scanned.place == PLACE
        assert [f["article"] for f in scanned.infringements] == ["68"]
        assert scanned.note == "Navegaba de noche sin luces"
        # offline, the phone showed what the server pinned: the items that apply to each craft, in the list's order
        assert shown == {"scanned": [i["id"] for i in scanned.items], "canoe": [i["id"] for i in canoe.items]}
        pinned = {item["id"] for item in scanned.items}
        answers = db.session.scalars(db.select(PatrolAnswer).filter_by(check_id=scanned.id)).all()
        assert {a.item_id for a in answers} <= pinned and len(answers) == len({a.item_id for a in answers})
        assert {a.item_id: a.result for a in answers}["con.lights.night"] == "fail"
        [kept] = db.session.scalars(db.select(Photo).filter_by(patrol_check_id=scanned.id)).all()
        assert kept.item_id == "con.lights.night"
        assert (canoe.vessel_id, canoe.craft_type, canoe.checklist, canoe.outcome) == (None, "rowing", "menores", "sin_novedad")
        buckets = db.session.scalar(db.select(PatrolAnswer).filter_by(check_id=canoe.id, item_id="men.buckets.total"))
        assert (buckets.result, float(buckets.observed)) == ("pass", 1.0)
        assert db.session.scalar(db.select(db.func.count()).select_from(Photo).where(Photo.patrol_check_id.is_not(None))) == 1

    owner = rig.app.test_client()
    token = owner.post("/api/v1/auth/token", json={"username": "armador-p", "password": PASSWORD}).json["token"]
    [vessel] = owner.get("/api/v1/fleet", headers={"Authorization": f"Bearer {token}"}).json["items"]
    [finding] = vessel["patrol_infractions"]
    assert finding["outcome"] == "infraccion" and [f["article"] for f in finding["infringements"]] == ["68"]
    staff = rig.app.test_client()
    form = staff.get("/login").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', form)[1]
    assert staff.post("/login", data={"username": "jefa", "password": PASSWORD, "csrf_token": csrf}).status_code == 302
    months = staff.get("/tablero/patrullas.csv").get_data(as_text=True).splitlines()
    assert months[-1].endswith(",2,1")  # this month: both checks, one infraction
