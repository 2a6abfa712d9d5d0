"""The tablet's two screens as people meet them, in Debian's Chromium: accessible, touchable, no sideways scroll.

axe-core finds no serious or critical violation on the agenda and the inspection screen (scheduled,
then started and partly answered, with a failed item showing its action); every target is at least
44 × 44 px; at phone and tablet widths the pages scroll only vertically. Screenshots are written to
the screenshots folder for a person to look at.
"""
import pytest

from tests.browser_kit import BROWSER_MARKS, axe_script, axe_violations, chromium, small_targets, sync_api
from tests.tablet_rig import tablet_rig
from tests.tablet_steps import PASSWORD, SHOTS, open_profile, seed, sign_in_and_take_aboard

pytestmark = BROWSER_MARKS
axe_script()  # skips the module without axe-playwright-python
SIZES = {"tablet": {"width": 800, "height": 1280}, "phone": {"width": 412, "height": 915}}


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    with tablet_rig(tmp_path_factory.mktemp("tablet-pages")) as started:
        yield started


def check(page, name: str, size: str) -> list[str]:
    problems = [f"{name}: {p}" for p in axe_violations(page)]
    problems += [f"{name}: small target {p}" for p in small_targets(page)]
    width = page.evaluate("document.documentElement.scrollWidth")
    if width > SIZES[size]["width"]:
        problems.append(f"{name}: scrolls sideways ({width} px wide)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"baliza_{size}_tablet_{name}.png"), full_page=True)
    return problems


@pytest.mark.parametrize("size", ["tablet", "phone"])
def test_agenda_and_inspection_screen(rig, tmp_path, size):
    seeded = seed(rig, f"vista{size}")
    with chromium() as browser:
        page = browser.new_context(viewport=SIZES[size], locale="es-PY").new_page()
        sign_in_and_take_aboard(rig, page, seeded)
        problems = check(page, "agenda", size)
        page.goto(f"{rig.origin}/inspecciones/{seeded['inspection_id']}")
        page.wait_for_selector("#inspection[data-ready] #start-button")
        problems += check(page, "inspeccion_programada", size)
        page.click("#start-button")
        first, second, third = seeded["items"][:3]
        page.locator(f"article[data-item='{first['id']}'] input[value=pass]").check()
        page.locator(f"article[data-item='{second['id']}'] input[value=fail]").check()
        page.locator(f"article[data-item='{third['id']}'] input[value=not_applicable]").check()  # a note is due
        page.wait_for_function("() => document.getElementById('progress-text').textContent.includes('2 de')")
        problems += check(page, "inspeccion_en_curso", size)
        page.goto(f"{rig.origin}/inspecciones/{seeded['inspection_id']}?lang=en")
        page.wait_for_selector("#inspection[data-ready] article.item")
        assert page.locator(f"article[data-item='{first['id']}'] label.choice-pass").inner_text().strip() == "Pass"
        problems += check(page, "inspection_en", size)
    assert not problems, "\n".join(problems)


def test_a_foreign_practice_item_says_so_on_the_item_screen(rig):
    """Colombian decree art. 36 on a hot-climate motor vessel with kerosene: adopted practice, never a detention."""
    seeded = seed(rig, "practica", hot_climate=True, flammable_cargo_kg=2_000)
    meta = "article[data-item='seg.fire.flammables_hold'] .line-meta"
    with chromium() as browser:
        page = browser.new_context(viewport=SIZES["tablet"], locale="es-PY").new_page()
        sign_in_and_take_aboard(rig, page, seeded)
        page.goto(f"{rig.origin}/inspecciones/{seeded['inspection_id']}")
        page.wait_for_selector("#inspection[data-ready] #start-button")
        page.click("#start-button")
        spanish = page.locator(meta).inner_text()
        page.goto(f"{rig.origin}/inspecciones/{seeded['inspection_id']}?lang=en")
        page.wait_for_selector("#inspection[data-ready] article.item")
        english = page.locator(meta).inner_text()
        lifebuoys = page.locator("article[data-item='seg.lifebuoys.total'] .line-meta").inner_text()  # Ley 928
    assert "Práctica adoptada (instrumento extranjero): su incumplimiento es una observación" in spanish
    assert "Causa detención" not in spanish
    assert "Practice adopted from a foreign instrument: a failure is an observation, not a detention" in english
    assert "foreign" not in lifebuoys


def test_chromium_finds_the_app_installable(rig, tmp_path):
    """The manifest linked from the page, its icons and the service worker controlling it: no installability errors."""
    seeded = seed(rig, "instalable")
    with sync_api.sync_playwright() as pw:
        context, page = open_profile(pw, tmp_path / "profile")  # a real profile: incognito never installs
        sign_in_and_take_aboard(rig, page, seeded)
        cdp = context.new_cdp_session(page)
        errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        manifest = cdp.send("Page.getAppManifest")
        context.close()
    assert errors == [], errors
    assert manifest["url"].endswith("/manifest.webmanifest") and not manifest.get("errors")


def test_a_sideways_camera_photo_is_sent_upright_and_smaller(rig, tmp_path):
    """A 3000 × 2000 JPEG whose EXIF says "rotate 90°" (a phone held upright): the tablet sends it upright,
    2560 px on its long side, hashed as sent, and the server stores those exact bytes."""
    import hashlib

    from inspection.core.models import Photo
    from tests.media_samples import make_exif, make_jpeg

    seeded = seed(rig, "girada")
    item = next(i for i in seeded["items"] if i["evidence_required"])
    camera = make_jpeg((3000, 2000), exif=make_exif(orientation=6), quality=85)
    with sync_api.sync_playwright() as pw:
        context, page = open_profile(pw, tmp_path / "profile")
        sign_in_and_take_aboard(rig, page, seeded)
        page.goto(f"{rig.origin}/inspecciones/{seeded['inspection_id']}")
        page.wait_for_selector("#inspection[data-ready] #start-button")
        page.click("#start-button")
        page.locator(f"article[data-item='{item['id']}'] input[type=file]").set_input_files(
            {"name": "IMG_2041.jpg", "mimeType": "image/jpeg", "buffer": camera})
        page.locator(f"article[data-item='{item['id']}'] li.thumb-sent").wait_for(timeout=30_000)
        context.close()
    with rig.app.app_context():
        from inspection.core.extensions import db
        from inspection.media.configured import media_storage
        photo = db.session.scalar(db.select(Photo).filter_by(inspection_id=seeded["inspection_id"]))
        original = media_storage().get(photo.original_key)
        db.session.remove()
    assert (photo.width, photo.height) == (1706, 2560)  # upright (taller than wide), long side 2560
    assert hashlib.sha256(original).hexdigest() == photo.sha256 and len(original) < len(camera)


def test_the_workers_install_never_signs_anyone_out(tmp_path):
    """The worker installs while the login form is sent: its fetch of the public /verificar, answered
    after the sign-in, must not bring back the signed-out session cookie (it sends and keeps none)."""
    import time as clock

    from inspection.accounts.users import create_user
    from inspection.core.extensions import db
    from tests.live_site import PASSWORD as LIVE_PASSWORD
    from tests.live_site import live_app

    with live_app(tmp_path, "install-race", "baliza-install-race") as (app, origin, hits):
        with app.app_context():
            create_user("jefa", LIVE_PASSWORD, "admin")
            db.session.commit()
        serve = app.wsgi_app

        def slow_worker_fetches(environ, start_response):
            if environ.get("PATH_INFO") == "/verificar" and environ.get("HTTP_SEC_FETCH_DEST") == "empty":
                clock.sleep(1.5)  # the worker's precache answer lands after the sign-in's cookie
            return serve(environ, start_response)

        app.wsgi_app = slow_worker_fetches
        with sync_api.sync_playwright() as pw:
            context, page = open_profile(pw, tmp_path / "profile")
            page.goto(f"{origin}/login")
            page.fill("input[name=username]", "jefa")
            page.fill("input[name=password]", LIVE_PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_url(f"{origin}/buques")
            page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=20_000)
            clock.sleep(0.5)
            response = page.goto(f"{origin}/certificados")
            context.close()
        assert response.url == f"{origin}/certificados" and response.status == 200  # still signed in


# --- issue 21: the closing screen, controls served disabled, photo and quantity checks in the user's language ---

ISSUE_TABLET = {"width": 820, "height": 1180}
ISSUE_PHONE = {"width": 390, "height": 844}


def outbox_types(page, inspection_id: int) -> list[str]:
    return page.evaluate("""async (id) => {
        const db = await new Promise((ok, fail) => { const r = indexedDB.open('baliza-tablet'); r.onsuccess = () => ok(r.result); r.onerror = fail; });
        const rows = await new Promise((ok) => { const r = db.transaction('outbox').objectStore('outbox').getAll(); r.onsuccess = () => ok(r.result); });
        db.close();
        return rows.filter((e) => e.inspection_id === id).map((e) => e.type);
    }""", inspection_id)


def looks_disabled(page, selector: str) -> bool:
    return page.eval_on_selector(selector, """(b) => b.disabled && Number(getComputedStyle(b).opacity) < 0.6
        && getComputedStyle(b).cursor === 'not-allowed'""")


def test_the_served_controls_are_disabled_until_the_script_wires_them(rig):
    seeded = seed(rig, "servida")
    with chromium() as browser:
        page = browser.new_context(viewport=ISSUE_TABLET, locale="es-PY").new_page()
        sign_in_and_take_aboard(rig, page, seeded)
        served = page.request.get(f"{rig.origin}/tablet/inspeccion").text()  # what the worker keeps for offline
        page.goto(f"{rig.origin}/inspecciones/{seeded['inspection_id']}")
        page.wait_for_selector("#inspection[data-ready] #start-button")
        assert page.eval_on_selector(".sync-now", "(b) => !b.disabled && !b.hasAttribute('aria-disabled')")
    assert '<button type="button" class="sync-now" disabled aria-disabled="true">' in served


def test_closing_shows_what_will_be_sent_asks_and_can_be_undone_until_sent(rig):
    """Offline at 820 px: the closing screen counts the answers and names the outcome the server then gives;
    "back" leaves nothing queued; after confirming, the closing and signature controls are disabled and look it;
    "undo" takes the closing out of the outbox; closed again, it syncs and the undo is gone. Spanish, then English."""
    from inspection.core.clock import office_now
    from inspection.core.extensions import db
    from inspection.core.models import Inspection
    from tests.conftest import pass_every_item
    from tests.tablet_steps import draw_signature, go_offline, server_state

    seeded = seed(rig, "resumen")
    inspection_id = seeded["inspection_id"]
    with rig.app.app_context():  # every item passed (with its photos) before the tablet takes it aboard
        inspection = db.session.get(Inspection, inspection_id)
        pass_every_item(inspection, inspection.inspector, office_now())
        db.session.commit()
        db.session.remove()
    observation = next(i for i in seeded["items"] if not i["detainable"] and not i["evidence_required"]
                       and i["required"] is None and i.get("maximum") is None)
    total = len(seeded["items"])
    with chromium() as browser:
        context = browser.new_context(viewport=ISSUE_TABLET, locale="es-PY")
        page = context.new_page()
        sign_in_and_take_aboard(rig, page, seeded)
        page.goto(f"{rig.origin}/inspecciones/{inspection_id}")
        page.wait_for_selector("#inspection[data-ready] #close-button")
        go_offline(rig, context)
        page.locator(f"article[data-item='{observation['id']}'] input[value=fail]").check()
        draw_signature(page, "#sig-inspector", 0)
        draw_signature(page, "#sig-master", 1)
        page.fill("#master-name", "Cap. Ramón Benítez")
        page.click("#close-button")
        summary = page.locator("#closing-summary")
        summary.wait_for()
        text = summary.inner_text()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#cerrar").screenshot(path=str(SHOTS / "baliza_tablet_closing_summary_es.png"))
        assert "Revise lo que se enviará" in text and "Aprobada con observaciones" in text
        assert f"{total} de {total}" in text and "Firma del capitán o patrón\nfirmada" in text
        assert "Observaciones\n1" in text and "Causan detención\n0" in text
        assert "submit" not in outbox_types(page, inspection_id)  # nothing is closed before the confirmation
        page.click("#back-from-close")
        assert summary.is_hidden() and page.locator("#close-button").is_enabled()
        assert "submit" not in outbox_types(page, inspection_id)

        rig.faults.down = False
        context.set_offline(False)
        page.goto(f"{rig.origin}/inspecciones/{inspection_id}?lang=en")
        page.wait_for_selector("#inspection[data-ready] #close-button")
        go_offline(rig, context)
        page.fill("#master-name", "Cap. Ramón Benítez")  # the names are kept with the closing, not before
        page.click("#close-button")
        summary.wait_for()
        english = summary.inner_text()
        assert "Review what will be sent" in english and "Passed with observations" in english
        assert f"{total} of {total}" in english and "Observations\n1" in english
        page.click("#confirm-close")
        page.wait_for_selector("#undo-close")
        assert "submit" in outbox_types(page, inspection_id)
        assert looks_disabled(page, "#close-button")
        assert all(looks_disabled(page, f".signature:nth-child({n}) .clear-signature") for n in (1, 2))
        page.locator("#cerrar").screenshot(path=str(SHOTS / "baliza_tablet_closed_offline_en.png"))
        page.click("#undo-close")
        page.wait_for_selector("#close-button:enabled")
        assert "submit" not in outbox_types(page, inspection_id)
        assert "still open on the tablet" in page.locator("#screen-message").inner_text()

        page.click("#close-button")
        page.click("#confirm-close")
        page.wait_for_selector("#undo-close")
        rig.faults.down = False
        context.set_offline(False)
        page.wait_for_selector("text=Inspection closed and sent", timeout=60_000)
        assert page.locator("#undo-close").count() == 0
    assert server_state(rig, inspection_id)["outcome"] == "passed_with_observations"
