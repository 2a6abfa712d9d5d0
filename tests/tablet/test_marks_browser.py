"""Marks on the defect in Debian's Chromium at 820 × 1180 (issue 24): with the link cut, the inspector photographs
an item and draws a circle, an arrow and a label over it; once the signal returns the tablet sends the photo, then
its marks; the closed inspection's report shows them over the photo, whose SHA-256 never changed.

Only the marking is done through the screen; the rest of the inspection is answered and closed by operations.
"""
import hashlib
import time

from inspection.core.extensions import db
from inspection.core.models import Photo, PhotoMarks
from tests.browser_kit import BROWSER_MARKS, axe_script, axe_violations, shoot, sign_in, sync_api
from tests.live_site import ARGS, CHROMIUM
from tests.tablet_journey import camera_files, rig, working_link  # noqa: F401 (fixtures)
from tests.tablet_rig import wait_until
from tests.tablet_steps import PASSWORD, close_by_operations, go_offline, open_from_agenda, seed, show_item, sign_in_and_take_aboard

pytestmark = BROWSER_MARKS
axe_script()  # skips the module without axe-playwright-python
SCREEN = {"width": 820, "height": 1180}


def drag(page, box, start, end):
    """A finger's drag over `box` from `start` to `end` (fractions of it)."""
    page.mouse.move(box["x"] + start[0] * box["width"], box["y"] + start[1] * box["height"])
    page.mouse.down()
    page.mouse.move(box["x"] + end[0] * box["width"], box["y"] + end[1] * box["height"], steps=8)
    page.mouse.up()


def stored_marks(rig, inspection_id):
    with rig.app.app_context():
        rows = db.session.execute(db.select(PhotoMarks, Photo).join(Photo, Photo.id == PhotoMarks.photo_id)
                                  .where(Photo.inspection_id == inspection_id)).all()
        found = [(marks.layer, marks.sha256, photo.sha256, photo.original_key) for marks, photo in rows]
        db.session.remove()
        return found


ABOARD = {"latitude": -25.2807, "longitude": -57.6349, "accuracy": 9}  # at the port of Asunción


def test_marks_drawn_offline_reach_the_report(rig, tmp_path, camera_files):
    from inspection.media.configured import media_storage

    seeded = seed(rig, "marcas")
    inspection_id = seeded["inspection_id"]
    item = next(i for i in seeded["items"] if i["evidence_required"])
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(str(tmp_path / "profile"), executable_path=str(CHROMIUM),
                                                        args=ARGS, viewport=SCREEN, locale="es-PY",
                                                        service_workers="allow", geolocation=ABOARD,
                                                        permissions=["geolocation"])
        page = context.pages[0] if context.pages else context.new_page()
        card = sign_in_and_take_aboard(rig, page, seeded)
        go_offline(rig, context)
        open_from_agenda(page, card)
        page.click("#start-button")
        article = show_item(page, item["id"])
        article.locator("input[type=file]").set_input_files(str(camera_files[0]))
        article.locator("li.thumb img").wait_for(timeout=60_000)
        local_sha = page.evaluate("""async () => {
            const db = await new Promise((ok) => { const r = indexedDB.open('baliza-tablet'); r.onsuccess = () => ok(r.result); });
            const photos = await new Promise((ok) => { const r = db.transaction('photos').objectStore('photos').getAll(); r.onsuccess = () => ok(r.result); });
            db.close();
            return photos[0].sha256;
        }""")

        article.locator("button.mark-button").click()
        editor = page.locator("dialog.marks-editor")
        editor.wait_for()
        box = editor.locator("svg.marks-layer").bounding_box()
        drag(page, box, (0.5, 0.5), (0.6, 0.5))                    # a circle round the defect
        editor.locator("[data-tool=arrow]").click()
        drag(page, box, (0.15, 0.85), (0.42, 0.56))                 # an arrow pointing at it
        editor.locator("[data-tool=label]").click()
        editor.locator("input.marks-text").fill("Corrosión en el casco")
        page.mouse.click(box["x"] + 0.08 * box["width"], box["y"] + 0.94 * box["height"])
        assert editor.locator("svg.marks-layer ellipse").count() == 1 and editor.locator("svg.marks-layer line").count() == 1
        assert editor.locator("svg.marks-layer text").text_content() == "Corrosión en el casco"
        for button in editor.locator("button").all():  # touch-friendly: every control at least 44 × 44
            size = button.bounding_box()
            assert size["width"] >= 44 and size["height"] >= 44, button.inner_text()
        assert axe_violations(page) == []
        shoot(page, "baliza_marks_editor.png")
        editor.locator("button.primary").click()
        article.get_by_text("Marcas (3)").wait_for()
        assert stored_marks(rig, inspection_id) == []  # nothing left the tablet while offline

        rig.faults.down = False
        context.set_offline(False)
        wait_until(lambda: stored_marks(rig, inspection_id), 120, 0.25, "the marks to reach the server")
        time.sleep(0.5)
        context.close()

    [(layer, marks_sha, photo_sha, original_key)] = stored_marks(rig, inspection_id)
    assert photo_sha == local_sha == layer["photo_sha256"]
    assert [s["kind"] for s in layer["shapes"]] == ["circle", "arrow", "label"]
    assert layer["shapes"][2]["text"] == "Corrosión en el casco"
    with rig.app.app_context():
        original = media_storage().get(original_key)
    assert hashlib.sha256(original).hexdigest() == photo_sha  # the evidence's bytes are those the tablet hashed

    close_by_operations(rig, inspection_id)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport=SCREEN, locale="es-PY")
        sign_in(page, rig.origin, "jefa", PASSWORD)
        page.goto(f"{rig.origin}/inspecciones/{inspection_id}/informe")
        marked = page.locator(f".gallery a.marked[data-marks='{marks_sha}']")
        marked.scroll_into_view_if_needed()  # the copy loads lazily
        page.wait_for_function("(sha) => { const i = document.querySelector(`.gallery a.marked[data-marks='${sha}'] img`);"
                               " return i && i.complete && i.naturalWidth > 0; }", arg=marks_sha)
        assert marked.locator("svg ellipse").count() == 1 and "Corrosión en el casco" in marked.locator("svg text").text_content()
        overlay, picture = marked.locator("svg").bounding_box(), marked.locator("img").bounding_box()
        assert abs(overlay["width"] - picture["width"]) < 2 and abs(overlay["height"] - picture["height"]) < 2
        assert page.locator("#deficiencias a.marked").count() == 0  # the item passed: no deficiency to show it on
        # the same photo, taken offline with the tablet's position: its stamp beside the marks (issue 24 whole)
        figure = page.locator(".gallery figure", has=page.locator(f"a.marked[data-marks='{marks_sha}']"))
        stamp = figure.locator("ul.stamp")
        assert stamp.get_attribute("data-position-source") == "device"
        assert "-25.28070, -57.63490 ± 9 m (dispositivo)" in stamp.inner_text()
        shoot(page, "baliza_marks_report.png")
        browser.close()
