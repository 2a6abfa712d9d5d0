"""The planning board in Chromium: phone and desktop screenshots in both languages, no sideways scrolling on a
phone, and assigning an application from the page."""
from datetime import datetime, time, timedelta, timezone

import pytest

from inspection.core import clock
from inspection.core.clock import office_today, office_zone
from inspection.core.extensions import db
from inspection.core.models import User
from inspection.cycle.applications import apply_for_inspection
from tests.browser_kit import BROWSER_MARKS, browser, shoot  # noqa: F401 (browser: the fixture)
from tests.live_site import PASSWORD, bearer, issue_certificate, live_app, vessel_values

pytestmark = BROWSER_MARKS

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
LATER = 165  # days after the certificates are issued: 17 days before they expire, past the art. 222 date


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Two certified vessels whose certificates expire soon, one applied for late (a fine), one never inspected."""
    from inspection.accounts.users import create_user
    from inspection.registry.vessels import create_owner, create_vessel

    monkeypatch = pytest.MonkeyPatch()
    with live_app(tmp_path_factory.mktemp("planning"), "browser-planning", "baliza-planning") as (app, origin, _):
        with app.app_context():
            owner = create_owner({"name": "Naviera del Sur S.A.", "tax_id": "80012345-6", "email": None,
                                  "phone": None, "address": None})
            db.session.flush()
            for name, role in (("jefa", "admin"), ("inspectora", "inspector")):
                create_user(name, PASSWORD, role, full_name="Insp. Benítez" if role == "inspector" else None)
            vessels = [create_vessel(vessel_values(reg, name, owner.id)) for reg, name in (
                ("PY-ASU-0101", "Ñandutí Purahéi"), ("PY-CON-0202", "Yacaré Guazú"), ("PY-ENC-0303", "Río Tebicuary"))]
            db.session.commit()
            inspector_id = db.session.scalar(db.select(User.id).filter_by(username="inspectora"))
            ids = [v.id for v in vessels]
        client = app.test_client()
        admin, inspector = bearer(client, "jefa"), bearer(client, "inspectora")
        for vessel_id in ids[:2]:
            issue_certificate(client, admin, inspector, inspector_id, vessel_id)
        with app.app_context():
            later = office_today() + timedelta(days=LATER)
            moment = datetime.combine(later, time(12), office_zone()).astimezone(timezone.utc)
            monkeypatch.setattr(clock, "system_now", lambda: moment)
            admin_user = db.session.scalar(db.select(User).filter_by(username="jefa"))
            apply_for_inspection(admin_user, vessels[0], "seguridad", "Encarnación", later + timedelta(days=3), later)
            db.session.commit()
        yield {"origin": origin}
    monkeypatch.undo()


def signed_in(browser, origin, username, viewport):
    context = browser.new_context(viewport=viewport, locale="es-PY")
    page = context.new_page()
    page.goto(f"{origin}/login")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_load_state()
    return context, page


@pytest.mark.parametrize("size_name, viewport", [("phone", PHONE), ("desktop", DESKTOP)])
def test_the_board_at_phone_and_desktop_width(site, browser, size_name, viewport):
    context, page = signed_in(browser, site["origin"], "jefa", viewport)
    for lang in ("es", "en"):
        page.goto(f"{site['origin']}/planificacion?lang={lang}", wait_until="load")
        page.locator("details.assign summary").first.click()
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        shoot(page, f"planificacion_{size_name}_{lang}.png", full_page=True)
    context.close()


def test_assigning_from_the_board_puts_it_on_the_inspectors_agenda(site, browser):
    context, page = signed_in(browser, site["origin"], "jefa", DESKTOP)
    page.goto(f"{site['origin']}/planificacion?lang=es", wait_until="load")
    pending = page.locator("[aria-labelledby=pending-title] .planning-item").first
    pending.locator("details.assign summary").click()
    pending.locator("button[type=submit]", has_text="Asignar y programar").click()
    page.wait_for_load_state()
    assert "No hay solicitudes pendientes." in page.locator("[aria-labelledby=pending-title]").inner_text()
    assert "1" in page.locator("table.load tbody tr").first.inner_text()
    context.close()
    context, page = signed_in(browser, site["origin"], "inspectora", PHONE)
    page.goto(f"{site['origin']}/agenda", wait_until="load")
    page.wait_for_selector("text=Encarnación", timeout=10_000)
    context.close()
