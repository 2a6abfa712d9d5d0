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
from inspection.core.extensions import db
from inspection.core.models import Photo
from inspection.media.photos import PhotoLimits
from tests.browser_kit import BROWSER_MARKS, sync_api
from tests.tablet_journey import camera_files, journey, rig, working_link  # noqa: F401 (fixtures)
from tests.tablet_rig import wait_until
from tests.tablet_steps import (
    PASSWORD,
    go_offline,
    local_record,
    open_from_agenda,
    open_profile,
    seed,
    server_state,
    show_item,
    sign_in_and_take_aboard,
)

pytestmark = BROWSER_MARKS


def test_a_whole_inspection_offline_then_synced(rig, tmp_path, camera_files):
    seen = journey(rig, tmp_path, camera_files, "sereno", shots=True)
    assert seen["photos"] >= 10
    for photo in seen["local"]["photos"]:
        assert max(photo["width"], photo["height"]) == PhotoLimits().upload_px  # downscaled from 4000 × 3000
        assert photo["size"] < 4000 * 3000 // 4
    with rig.app.app_context():  # Chromium's JPEG carries no metadata: the server kept it as the display copy
        kept = db.session.scalars(db.select(Photo.display_key == Photo.original_key)).all()
        db.session.remove()
    assert len(kept) >= 10 and all(kept)
    assert "Al día" in seen["badge"]


def test_a_revoked_tablet_keeps_its_work_until_the_inspector_signs_in_again(rig, tmp_path):
    """The admin ends the tablet's device session while it is offline: the outbox waits, says why, loses
    nothing; signing out with unsent work warns and keeps it; after a new sign-in it all goes through."""
    from inspection.accounts.devices import revoke_devices
    from inspection.core.clock import office_now
    from inspection.core.models import User

    seeded = seed(rig, "revocada")
    inspection_id, first, second = seeded["inspection_id"], seeded["items"][0], seeded["items"][1]
    with sync_api.sync_playwright() as pw:
        context, page = open_profile(pw, tmp_path / "profile")
        card = sign_in_and_take_aboard(rig, page, seeded)
        go_offline(rig, context)
        open_from_agenda(page, card)
        page.click("#start-button")
        page.locator(f"article[data-item='{first['id']}'] input[value=fail]").check()
        page.locator(f"article[data-item='{second['id']}'] input[value=pass]").check()
        wait_until(lambda: local_record(page, inspection_id)["outbox"] == 3, 10, what="start and two answers queued")

        with rig.app.app_context():
            inspector = db.session.scalar(db.select(User).filter_by(username=seeded["username"]))
            admin = db.session.get(User, rig.admin_id)
            assert revoke_devices(admin, inspector, office_now()) == 1
            db.session.commit()
        rig.faults.down = False
        context.set_offline(False)
        page.wait_for_selector("#sync-badge[data-state=signin]", timeout=30_000)
        assert "Inicie sesión de nuevo" in page.locator("#sync-badge").inner_text()
        assert local_record(page, inspection_id)["outbox"] == 3  # waiting, not dropped
        assert server_state(rig, inspection_id)["answer_rows"] == 0

        messages = []

        def answer_dialog(dialog):
            messages.append(dialog.message)
            dialog.dismiss() if len(messages) == 1 else dialog.accept()

        page.on("dialog", answer_dialog)
        page.click("header button.link")  # Salir: warned, stays
        page.wait_for_timeout(300)
        assert page.url.endswith(f"/inspecciones/{inspection_id}") and "3 cambios sin enviar" in messages[0]
        page.click("header button.link")  # Salir again, accepted: signed out, the work stays on the tablet
        page.wait_for_url(f"{rig.origin}/login")
        assert len(messages) == 2
        assert local_record(page, inspection_id)["outbox"] == 3

        page.fill("input[name=username]", seeded["username"])
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{rig.origin}/agenda")
        wait_until(lambda: local_record(page, inspection_id)["outbox"] == 0, 30, what="the outbox to empty")
        context.close()

    server = server_state(rig, inspection_id)
    assert server["status"] == "in_progress" and server["answer_rows"] == 2
    assert server["current"][first["id"]]["result"] == "fail" and server["current"][second["id"]]["result"] == "pass"


def test_a_503_with_retry_after_holds_the_outbox_that_long_and_keeps_it_in_order(rig, tmp_path):
    """The server answers the start 503 with Retry-After: 120: the badge says the server asked to wait
    and when it tries next; a new answer does not knock before then; "Sincronizar ahora" sends both, in order."""
    seeded = seed(rig, "esperar")
    inspection_id, first = seeded["inspection_id"], seeded["items"][0]
    with sync_api.sync_playwright() as pw:
        context, page = open_profile(pw, tmp_path / "profile")
        card = sign_in_and_take_aboard(rig, page, seeded)
        open_from_agenda(page, card)
        rig.faults.busy_once = ("/start", "120")
        page.click("#start-button")
        page.wait_for_selector("#sync-badge[data-state=retrying]", timeout=20_000)
        badge = page.locator("#sync-badge .sync-text").inner_text()
        assert "El servidor pidió esperar" in badge and "Próximo intento:" in badge and rig.faults.busy_once is None
        sent = len(rig.faults.paths)
        page.locator(f"article[data-item='{first['id']}'] input[value=pass]").check()  # a new entry wakes the engine
        wait_until(lambda: local_record(page, inspection_id)["outbox"] == 2, 10, what="the answer queued")
        page.wait_for_timeout(3000)
        knocked = [p for p in rig.faults.paths[sent:] if p.startswith("POST /api/v1/inspections/")]
        assert knocked == [], knocked  # held for the server's two minutes, not the 1 s backoff
        assert server_state(rig, inspection_id)["status"] == "scheduled"
        page.click("#sync-badge button.sync-now")  # the inspector's own "sync now" goes at once
        wait_until(lambda: local_record(page, inspection_id)["outbox"] == 0, 30, what="the outbox to empty")
        context.close()
    posts = [p for p in rig.faults.paths[sent:] if p.startswith("POST /api/v1/inspections/")]
    assert posts == [f"POST /api/v1/inspections/{inspection_id}/start", f"POST /api/v1/inspections/{inspection_id}/sync"]
    server = server_state(rig, inspection_id)
    assert server["status"] == "in_progress" and server["current"][first["id"]]["result"] == "pass"


def test_a_start_refused_because_the_vessel_changed_is_shown_and_put_right(rig, tmp_path):
    """The office corrects the crew while the tablet is out: the offline start no longer matches (409
    checklist-changed). The tablet shows why and what to do, holds the answers, and after "Descargar de
    nuevo" starts against the new checklist, keeping the answers whose items still exist."""
    from inspection.core.models import Vessel
    from inspection.registry.vessels import update_vessel

    seeded = seed(rig, "corregida")
    inspection_id = seeded["inspection_id"]
    buckets = next(i for i in seeded["items"] if i["id"] == "seg.buckets.total")
    other = next(i for i in seeded["items"] if i["required"] is None and not i["evidence_required"])
    with sync_api.sync_playwright() as pw:
        context, page = open_profile(pw, tmp_path / "profile")
        card = sign_in_and_take_aboard(rig, page, seeded)
        with rig.app.app_context():
            vessel = db.session.scalar(db.select(Vessel).filter_by(name="Río corregida"))
            update_vessel(vessel, {"crew": vessel.crew + 4})  # more crew: more buckets required (art. 144)
            db.session.commit()
        go_offline(rig, context)
        open_from_agenda(page, card)
        page.click("#start-button")
        page.locator(f"article[data-item='{other['id']}'] input[value=pass]").check()
        show_item(page, buckets["id"]).locator("input[value=pass]").check()
        page.locator(f"article[data-item='{buckets['id']}'] input[name=observed]").fill(str(buckets["required"] + 10))
        wait_until(lambda: local_record(page, inspection_id)["outbox"] == 3, 10, what="start and two answers queued")

        rig.faults.down = False
        context.set_offline(False)
        problems = page.locator("#sync-problems")
        problems.wait_for(state="visible", timeout=30_000)
        text = problems.inner_text()
        assert "cambiaron" in text and "Vuelva a descargar la inspección" in text, text
        assert server_state(rig, inspection_id)["answer_rows"] == 0  # nothing sent past the refused start
        assert local_record(page, inspection_id)["outbox"] == 3

        page.on("dialog", lambda dialog: dialog.accept())
        problems.get_by_role("button", name="Descargar de nuevo").click()
        page.wait_for_load_state()
        page.wait_for_selector("#inspection[data-ready]")
        wait_until(lambda: local_record(page, inspection_id)["outbox"] == 0, 30, what="the outbox to empty")
        shown = show_item(page, buckets["id"]).locator(".qty strong").inner_text()
        context.close()

    server = server_state(rig, inspection_id)
    assert server["status"] == "in_progress" and server["answer_rows"] == 2
    assert server["current"][buckets["id"]]["observed"] == buckets["required"] + 10
    assert int(shown) > buckets["required"]  # the screen now asks for the new quantity


def test_work_refused_by_the_server_is_shown_never_dropped(rig, tmp_path, camera_files):
    """An admin interrupts the inspection while the tablet is out: its answers and its photo are refused
    when the signal returns; each refusal stays on the device, on its item and in the list, in Spanish."""
    from inspection.core.clock import office_now
    from inspection.core.models import Inspection, User
    from inspection.inspections.operations import interrupt_inspection

    seeded = seed(rig, "interrumpida")
    inspection_id = seeded["inspection_id"]
    item = next(i for i in seeded["items"] if i["evidence_required"] and i["required"] is None)
    with sync_api.sync_playwright() as pw:
        context, page = open_profile(pw, tmp_path / "profile")
        card = sign_in_and_take_aboard(rig, page, seeded)
        open_from_agenda(page, card)
        page.click("#start-button")  # online: the start reaches the server
        wait_until(lambda: server_state(rig, inspection_id)["status"] == "in_progress", 20, what="the start")
        go_offline(rig, context)
        card_item = page.locator(f"article[data-item='{item['id']}']")
        card_item.locator("input[value=pass]").check()
        card_item.locator("input[type=file]").set_input_files(str(camera_files[0]))
        card_item.locator("li.thumb img").wait_for()
        with rig.app.app_context():
            admin = db.session.get(User, rig.admin_id)
            interrupt_inspection(admin, db.session.get(Inspection, inspection_id), "El buque zarpó antes de tiempo.",
                                 office_now())
            db.session.commit()
        rig.faults.down = False
        context.set_offline(False)
        page.locator("#sync-problems").wait_for(state="visible", timeout=30_000)
        wait_until(lambda: page.locator("#sync-problems li").count() == 2, 20, what="both refusals listed")
        listed = page.locator("#sync-problems").inner_text()
        assert "esta acción no corresponde" in listed, listed  # the server's own words
        assert "Tome la foto de nuevo o descártela." in listed and "Corrija la respuesta del ítem" in listed
        card_item.locator("li.thumb-failed").wait_for(timeout=10_000)
        assert "rechazada" in card_item.locator("li.thumb").inner_text()
        assert "Rechazado por el servidor" in card_item.locator(".item-status").inner_text()
        assert local_record(page, inspection_id)["outbox"] == 2  # kept for the inspector to decide
        context.close()
    server = server_state(rig, inspection_id)
    assert server["status"] == "interrupted" and server["answer_rows"] == 0 and server["photos"] == []
