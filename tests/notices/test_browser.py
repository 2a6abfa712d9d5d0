"""The notices page and the account's calendar section in Chromium: axe-core, phone and desktop screenshots."""
from datetime import datetime, timedelta, timezone

import pytest

from inspection.core.extensions import db
from tests.browser_kit import BROWSER_MARKS, axe_script, axe_violations, browser, shoot  # noqa: F401 (browser: the fixture)
from tests.live_site import PASSWORD, bearer, issue_certificate, live_app, vessel_values

pytestmark = BROWSER_MARKS
axe_script()  # skips the module without axe-playwright-python

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A live app where the owner has reminders: 30 days before apply_by, then expiry and the art. 225 fine."""
    from inspection.accounts.users import create_user
    from inspection.core.clock import office_zone
    from inspection.notices.reminders import run_reminders
    from inspection.registry.vessels import create_owner, create_vessel

    with live_app(tmp_path_factory.mktemp("notices"), "browser-notices", "baliza-notices") as (app, origin, _hits):
        with app.app_context():
            owner = create_owner({"name": "Naviera del Sur S.A.", "tax_id": "80012345-6", "email": None,
                                  "phone": None, "address": None})
            db.session.flush()
            users = {name: create_user(name, PASSWORD, role, owner_id=owner.id if role == "owner" else None)
                     for name, role in (("jefa", "admin"), ("inspectora", "inspector"), ("armador", "owner"))}
            vessel = create_vessel(vessel_values("PY-ASU-0101", "Ñandutí Purahéi", owner.id))
            db.session.commit()
            inspector_id, vessel_id = users["inspectora"].id, vessel.id
        client = app.test_client()
        issued = issue_certificate(client, bearer(client, "jefa"), bearer(client, "inspectora"), inspector_id, vessel_id)
        with app.app_context():
            from inspection.core.models import Certificate
            from inspection.law.cycle import apply_by

            certificate = db.session.scalar(db.select(Certificate).filter_by(number=issued["number"]))
            for day in (apply_by(certificate.valid_until) - timedelta(days=30), certificate.valid_until + timedelta(1)):
                run_reminders(day, datetime.now(timezone.utc), office_zone(), None, origin)
        yield {"origin": origin}


def signed_in(browser, origin: str, viewport: dict):
    context = browser.new_context(viewport=viewport, locale="es-PY")
    page = context.new_page()
    page.goto(f"{origin}/login")
    page.fill("input[name=username]", "armador")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_load_state()
    return context, page


@pytest.mark.parametrize("size", SIZES)
def test_the_owner_reads_notices_and_finds_the_calendar(site, browser, size):
    context, page = signed_in(browser, site["origin"], SIZES[size])
    for lang in ("es", "en"):
        page.goto(f"{site['origin']}/avisos?lang={lang}", wait_until="load")
        assert page.locator("header .badge").inner_text() == "3"
        assert page.locator(".notices li").count() == 3
        assert not axe_violations(page)
        shoot(page, f"avisos_{size}_{lang}.png", full_page=True)
        page.goto(f"{site['origin']}/cuenta?lang={lang}", wait_until="load")
        url = page.locator("#calendario input.feed-url").input_value()
        assert "/calendario/" in url and url.endswith(".ics")
        assert not axe_violations(page)
        shoot(page, f"cuenta_{size}_{lang}.png", full_page=True)
    context.close()


def test_marking_read_empties_the_headers_count(site, browser):
    context, page = signed_in(browser, site["origin"], SIZES["phone"])
    page.goto(f"{site['origin']}/avisos?lang=es", wait_until="load")
    page.locator(".notices li").first.get_by_role("button").click()
    page.wait_for_load_state()
    assert page.locator("header .badge").inner_text() == "2"
    page.locator("form[action$='/avisos/leidos'] button").click()
    page.wait_for_load_state()
    assert page.locator("header .badge").count() == 0
    context.close()

