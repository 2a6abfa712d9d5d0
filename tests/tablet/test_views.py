"""The tablet's two screens as people meet them, in Debian's Chromium: accessible, touchable, no sideways scroll.

axe-core finds no serious or critical violation on the agenda and the inspection screen (scheduled,
then started and partly answered, with a failed item showing its action); every target is at least
44 × 44 px; at phone and tablet widths the pages scroll only vertically. Screenshots are written to
the screenshots folder for a person to look at.
"""
import re

import pytest

from tests.browser_kit import BROWSER_MARKS, axe_script, axe_violations, chromium, shoot, small_targets, sync_api
from tests.tablet_rig import Faults, tablet_rig
from tests.tablet_steps import PASSWORD, open_profile, seed, show_item, sign_in_and_take_aboard

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
    shoot(page, f"baliza_{size}_tablet_{name}.png", full_page=True)
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
    flammables = "seg.fire.flammables_hold"
    with chromium() as browser:
        page = browser.new_context(viewport=SIZES["tablet"], locale="es-PY").new_page()
        sign_in_and_take_aboard(rig, page, seeded)
        page.goto(f"{rig.origin}/inspecciones/{seeded['inspection_id']}")
        page.wait_for_selector("#inspection[data-ready] #start-button")
        page.click("#start-button")
        spanish = show_item(page, flammables).locator(".line-meta").inner_text()
        page.goto(f"{rig.origin}/inspecciones/{seeded['inspection_id']}?lang=en")
        page.wait_for_selector("#inspection[data-ready] article.item")
        english = show_item(page, flammables).locator(".line-meta").inner_text()
        lifebuoys = show_item(page, "seg.lifebuoys.total").locator(".line-meta").inner_text()  # Ley 928
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
    assert "/manifest.webmanifest?v=" in manifest["url"] and not manifest.get("errors")  # fingerprinted: the app's id is "/"


def test_a_sideways_camera_photo_is_sent_upright_and_smaller(rig, tmp_path):
    """A 3000 × 2000 JPEG whose EXIF says "rotate 90°" (a phone held upright): the tablet sends it upright,
    at the published `upload_px` (2048) on its long side, hashed as sent, and the server stores those exact bytes,
    which serve as the display copy too (the canvas writes no metadata)."""
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
    assert (photo.width, photo.height) == (1365, 2048)  # upright (taller than wide), long side 2048
    assert hashlib.sha256(original).hexdigest() == photo.sha256 and len(original) < len(camera)
    assert photo.display_key == photo.original_key


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
        show_item(page, observation["id"]).locator("input[value=fail]").check()
        draw_signature(page, "#sig-inspector", 0)
        draw_signature(page, "#sig-master", 1)
        page.fill("#master-name", "Cap. Ramón Benítez")
        page.click("#close-button")
        summary = page.locator("#closing-summary")
        summary.wait_for()
        text = summary.inner_text()
        shoot(page.locator("#cerrar"), "baliza_tablet_closing_summary_es.png")
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
        page.fill("#master-name", "Cap. Ramón Benítez")
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
        shoot(page.locator("#cerrar"), "baliza_tablet_closed_offline_en.png")
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


PHOTO_LIMIT = 1024 * 1024  # the page's decode limit, lowered so a 1.5 MB file is "too large" without making 256 MB
REFUSALS = {  # what the tablet says to each refused file and to 2.5 counted units, in each language
    "es": {"large": "La foto supera el límite de 1 MB.",
           "pdf": "«acta.pdf» no es una foto: elija una imagen JPEG, PNG o WebP.",
           "corrupt": "No se pudo leer la foto «IMG_0007.jpg»: el archivo está dañado o no es una imagen que la tableta pueda abrir.",
           "half": "La cantidad observada debe ser un número entero: se cuentan unidades."},
    "en": {"large": "The photo exceeds the 1 MB limit.",
           "pdf": "“acta.pdf” is not a photo: choose a JPEG, PNG or WebP image.",
           "corrupt": "Could not read the photo “IMG_0007.jpg”: the file is damaged or is not an image the tablet can open.",
           "half": "The observed quantity must be a whole number: units are counted."},
}


def lower_photo_limit(page, inspection_id: int, most: int) -> None:
    """The package kept on the tablet, its photo limits lowered to `most` bytes (the page reads them from there)."""
    page.evaluate("""async ([id, most]) => {
        const db = await new Promise((ok, fail) => { const r = indexedDB.open('baliza-tablet'); r.onsuccess = () => ok(r.result); r.onerror = fail; });
        const store = db.transaction('packages', 'readwrite').objectStore('packages');
        const pkg = await new Promise((ok) => { const r = store.get(id); r.onsuccess = () => ok(r.result); });
        pkg.package.photo_limits = { ...(pkg.package.photo_limits || {}), max_decode_bytes: most };
        await new Promise((ok) => { const r = store.put(pkg); r.onsuccess = ok; });
        db.close();
    }""", [inspection_id, most])


def test_refused_photos_and_half_units_are_said_in_the_page_language_and_nothing_is_queued(rig):
    """Issue 21 finding 7 at 820 px (Spanish, English) and 390 px: a photo over the limit names it, a PDF is not a
    photo, a damaged JPEG is said wholly in the page's language, 2.5 of a counted item is refused; none is queued.
    The names typed for the closing survive a reload (finding 6)."""
    seeded = seed(rig, "rechazos")
    inspection_id = seeded["inspection_id"]
    photo_item = next(i for i in seeded["items"] if i["evidence_required"])
    counted = next(i for i in seeded["items"] if i["required"] is not None and i.get("whole", True) is not False)
    files = {"large": {"name": "IMG_0006.jpg", "mimeType": "image/jpeg", "buffer": b"\xff\xd8\xff\xe0" + bytes(PHOTO_LIMIT * 3 // 2)},
             "pdf": {"name": "acta.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.4\n%\xe2\xe3\n1 0 obj\n"},
             "corrupt": {"name": "IMG_0007.jpg", "mimeType": "image/jpeg", "buffer": b"\xff\xd8\xff\xe0\x00\x10JFIF" + bytes(4000)}}
    with chromium() as browser:
        context = browser.new_context(viewport=ISSUE_TABLET, locale="es-PY")
        page = context.new_page()
        sign_in_and_take_aboard(rig, page, seeded)
        lower_photo_limit(page, inspection_id, PHOTO_LIMIT)
        for lang, viewport in (("es", ISSUE_TABLET), ("en", ISSUE_TABLET), ("en", ISSUE_PHONE)):
            page.set_viewport_size(viewport)
            page.goto(f"{rig.origin}/inspecciones/{inspection_id}?lang={lang}")
            page.wait_for_selector("#inspection[data-ready]")
            if page.locator("#start-button").count():
                page.click("#start-button")
            card = show_item(page, photo_item["id"])
            at_phone = viewport is ISSUE_PHONE  # there, the longest message only: does it wrap within the screen
            for kind, upload in files.items() if not at_phone else [("corrupt", files["corrupt"])]:
                card.locator("input[type=file]").set_input_files(upload)
                page.wait_for_function("(text) => document.getElementById('screen-message').textContent === text",
                                       arg=REFUSALS[lang][kind])
            quantity = show_item(page, counted["id"])
            quantity.locator("input[value=pass]").check()
            quantity.locator("input[name=observed]").fill("2.5")
            quantity.locator(".item-status", has_text=REFUSALS[lang]["half"]).wait_for()
            width = page.evaluate("document.documentElement.scrollWidth")
            shoot(page, f"baliza_tablet_refusals_{lang}_{viewport['width']}.png")
            assert width <= viewport["width"], f"{lang} at {viewport['width']} px scrolls sideways ({width} px)"
            assert card.locator("li.thumb").count() == 0
            queued = outbox_types(page, inspection_id)
            assert "photo" not in queued and "answer" not in queued, queued

        page.fill("#master-name", "Cap. Ramón Benítez")
        page.fill("#signature-name", "Insp. Rosa Ayala")
        page.wait_for_timeout(500)  # kept on the tablet as typed (300 ms after the last key)
        page.reload()
        page.wait_for_selector("#inspection[data-ready] #master-name")
        assert page.input_value("#master-name") == "Cap. Ramón Benítez"
        assert page.input_value("#signature-name") == "Insp. Rosa Ayala"


def test_the_tablet_pages_serve_every_button_disabled_until_their_script_wires_it(rig):
    """Issue 21 finding 6: a tap before the page's module has run did nothing on a control that looked ready.
    With the module blocked, every button of the agenda and of the inspection page (the sync button, "Salir",
    which warns of unsent work once wired) is disabled and says so; with it, they work, and "Comenzar" too."""
    seeded = seed(rig, "cableada")
    inspection_id = seeded["inspection_id"]
    pages = (f"{rig.origin}/agenda", f"{rig.origin}/inspecciones/{inspection_id}")
    every_button_disabled = """() => [...document.querySelectorAll('button')].map((b) => [b.textContent.trim(),
        b.disabled && b.getAttribute('aria-disabled') === 'true'])"""
    with chromium() as browser:
        context = browser.new_context(viewport=ISSUE_TABLET, locale="es-PY", service_workers="block")  # routes see all
        page = context.new_page()
        page.goto(f"{rig.origin}/login")
        page.fill("input[name=username]", seeded["username"])
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{rig.origin}/agenda")
        # fingerprinted: ?v=; every tablet module imports app.js, and the inspection page's bundle holds it
        app_js = re.compile(r"/static/js/tablet/(app|inspection\.bundle)\.js(\?|$)")
        page.route(app_js, lambda route: route.abort())
        for url in pages:
            page.goto(url)
            buttons = page.evaluate(every_button_disabled)
            assert ["Salir", True] in buttons and all(disabled for _, disabled in buttons), (url, buttons)
        page.unroute(app_js)
        page.reload()
        page.wait_for_selector("#inspection[data-ready]")
        assert page.evaluate("""() => [...document.querySelectorAll('header button, .sync-now')]
            .every((b) => !b.disabled && !b.hasAttribute('aria-disabled'))""")
        page.click("#start-button")
        page.wait_for_selector("#items input[type=radio]:enabled")
        page.once("dialog", lambda dialog: dialog.accept())  # "Salir" warns first if the start is not sent yet
        page.click("header button[type=submit]")
        page.wait_for_url(f"{rig.origin}/login*")


def test_offline_the_tablet_pages_come_in_the_language_asked(rig):
    """Issue 21: offline, /inspecciones/N?lang=en came back in Spanish and later ?lang=es in English (the worker
    kept one copy of each page whatever its language). Now a copy per language is kept; offline, ?lang= picks
    it and a page without ?lang= follows the last language asked. Keeping both copies leaves the session's language."""
    from tests.tablet_steps import go_offline

    seeded = seed(rig, "idiomas")
    inspection_id = seeded["inspection_id"]
    with chromium() as browser:
        context = browser.new_context(viewport=ISSUE_TABLET, locale="es-PY")
        page = context.new_page()
        sign_in_and_take_aboard(rig, page, seeded)
        page.wait_for_function("""async () => {
            for (const name of await caches.keys()) {
              const cache = await caches.open(name);
              const kept = await Promise.all(['/agenda?lang=es', '/agenda?lang=en', '/tablet/inspeccion?lang=es',
                                              '/tablet/inspeccion?lang=en'].map((key) => cache.match(key)));
              if (kept.every(Boolean)) return true;
            }
            return false;
        }""", timeout=30_000)
        page.goto(f"{rig.origin}/agenda")
        assert page.get_attribute("html", "lang") == "es"  # the worker's English copy did not switch the session
        go_offline(rig, context)

        def offline_page(path: str) -> tuple[str, str]:
            page.goto(f"{rig.origin}{path}")
            page.wait_for_selector("#tablet [data-ready], #tablet[data-ready], #inspection[data-ready]")
            return page.get_attribute("html", "lang"), page.locator("h1").first.inner_text()

        assert offline_page(f"/inspecciones/{inspection_id}?lang=en")[0] == "en"
        assert page.locator("#start-button").inner_text() == "Start"
        first_item = page.locator("#items article.item h3").first
        english = first_item.inner_text(), page.locator("#items .topic-title").first.inner_text()
        shoot(page, "baliza_tablet_offline_en.png")
        assert offline_page(f"/inspecciones/{inspection_id}?lang=es")[0] == "es"
        assert page.locator("#start-button").inner_text() == "Comenzar"
        spanish = first_item.inner_text(), page.locator("#items .topic-title").first.inner_text()
        # taken aboard in Spanish, the checklist's own words follow the page's language too
        assert english[0] != spanish[0] and english[1].split()[0] != spanish[1].split()[0], (english, spanish)
        assert offline_page("/agenda?lang=en") == ("en", "My inspections")
        assert offline_page(f"/inspecciones/{inspection_id}")[0] == "en"  # no ?lang=: the last language asked
        assert offline_page("/agenda?lang=es") == ("es", "Mis inspecciones")


NEXT_FRAME = "new Promise((done) => requestAnimationFrame(() => setTimeout(done)))"
VERIFIER_CACHED = """async () => {
  const names = ['jsQR.js', 'zxing_reader.wasm', 'verifier.js', 'verificar.js', 'qr-photo.js'];
  const found = [];
  for (const name of await caches.keys()) {
    for (const request of await (await caches.open(name)).keys()) {
      if (names.includes(new URL(request.url).pathname.split('/').pop())) found.push(new URL(request.url).pathname);
    }
  }
  return found.sort();
}"""


def test_a_first_visit_fetches_each_file_once_and_comenzar_enables_the_same_cards(rig, tmp_path):
    """Signed in after the worker installed (as a person types): no file reaches the server twice, the police
    verifier is not kept on a tablet; "Comenzar" enables the cards already on screen (the same elements) into
    exactly the screen a reload renders; a police page then has the worker keep the verifier."""
    seeded = seed(rig, "unavez")
    rig.faults = Faults()  # a working link: an earlier test here cut it
    with sync_api.sync_playwright() as pw:
        context, page = open_profile(pw, tmp_path / "profile")
        visit = len(rig.faults.gets)
        page.goto(f"{rig.origin}/login")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        sign_in_and_take_aboard(rig, page, seeded, arrived=True)
        # The worker's script aside: the browser checks it for updates after a navigation (a 304 when unchanged).
        files = [t for t in rig.faults.gets[visit:] if not t.startswith(("/api/", "/login", "/agenda")) and t != "/sw.js"]
        assert files and len(files) == len(set(files)), sorted(t for t in files if files.count(t) > 1)
        assert page.evaluate(VERIFIER_CACHED) == []

        page.goto(f"{rig.origin}/inspecciones/{seeded['inspection_id']}")
        page.wait_for_selector("#inspection[data-ready] #start-button")
        page.evaluate("window.kept = [...document.querySelectorAll('#items article.item, #items fieldset')]")
        page.click("#start-button")
        page.wait_for_selector("#items input[type=radio]:enabled")
        assert page.evaluate("""() => {
            const now = [...document.querySelectorAll('#items article.item, #items fieldset')];
            return now.length === window.kept.length && now.every((node, n) => node === window.kept[n]);
        }""")
        page.evaluate(NEXT_FRAME)  # the signature pads take their size from the first layout
        enabled = page.inner_html("#inspection")
        page.reload()
        page.wait_for_selector("#inspection[data-ready] #items input[type=radio]:enabled")
        page.evaluate(NEXT_FRAME)
        assert page.inner_html("#inspection") == enabled

        page.goto(f"{rig.origin}/verificar")
        page.wait_for_function(f"({VERIFIER_CACHED})().then((found) => found.length === 5)", timeout=30_000)
        context.close()


STORE_AT_VERSION_1 = """async () => {
    // The stores as version 1 made them, with an inspection's work in them: an answer the server refused, a photo's entry.
    const db = await new Promise((resolve, reject) => {
        const asked = indexedDB.open('baliza-tablet', 1);
        asked.onupgradeneeded = () => {
            const d = asked.result;
            d.createObjectStore('meta');
            d.createObjectStore('packages', { keyPath: 'id' });
            d.createObjectStore('work', { keyPath: 'id' });
            d.createObjectStore('answers', { keyPath: ['inspection_id', 'item_id'] }).createIndex('by_inspection', 'inspection_id');
            d.createObjectStore('photos', { keyPath: 'client_id' }).createIndex('by_inspection', 'inspection_id');
            d.createObjectStore('outbox', { keyPath: 'seq', autoIncrement: true }).createIndex('by_inspection', 'inspection_id');
        };
        asked.onsuccess = () => resolve(asked.result);
        asked.onerror = () => reject(asked.error);
    });
    const tx = db.transaction(['answers', 'outbox'], 'readwrite');
    tx.objectStore('answers').put({ inspection_id: 7, item_id: 'a1', result: 'fail', state: 'failed' });
    tx.objectStore('outbox').put({ type: 'answer', user_id: 1, inspection_id: 7, item_id: 'a1', state: 'failed', reason: 'no' });
    tx.objectStore('outbox').put({ type: 'photo', user_id: 1, inspection_id: 7, item_id: 'a1', client_id: 'p1', state: 'pending' });
    await new Promise((resolve) => { tx.oncomplete = resolve; });
    db.close();
    const outbox = await import('/static/js/tablet/outbox.js');
    await outbox.keepAnswer(1, { inspection_id: 7, item_id: 'a1', result: 'pass', state: 'pending' });
    await outbox.keepAnswer(1, { inspection_id: 7, item_id: 'a2', result: 'pass', state: 'pending' });
    return (await outbox.entries()).map((e) => [e.seq, e.type, e.item_id, e.state]);
}"""


def test_a_store_of_the_first_version_keeps_its_work_and_finds_a_queued_answer_by_its_key(rig, tmp_path):
    """Version 2 of the tablet's database indexes the outbox by item (issue 22: an answer no longer reads the whole
    outbox): a tablet upgraded with work on it keeps every entry, and its refused answer is queued again, not twice."""
    with sync_api.sync_playwright() as pw:
        context, page = open_profile(pw, tmp_path / "profile")
        page.goto(f"{rig.origin}/login")
        assert page.evaluate(STORE_AT_VERSION_1) == [[1, "answer", "a1", "pending"], [2, "photo", "a1", "pending"],
                                                     [3, "answer", "a2", "pending"]]
        context.close()
