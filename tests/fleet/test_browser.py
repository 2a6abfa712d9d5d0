"""The owner's fleet at a glance and applying for an inspection, in Debian's Chromium, at phone and desktop width.

One live server; its state built with the operations (tests/fleets.py) on 30 Nov 2026, then the
office's clock set to 10 May 2027: the first vessel's safety certificate (to 30 May 2027) is past its
application date (30 Apr, art. 222), so applying now is late and the preview shows the art. 225 fine
before anything is recorded. Screenshots go to the screenshots folder for a person to look at.
"""
from datetime import datetime, timezone

import pytest

from inspection.core import clock
from inspection.core.extensions import db
from tests.browser_kit import BROWSER_MARKS, axe_script, axe_violations, browser, shoot, small_targets  # noqa: F401 (browser: the fixture)
from tests.fleets import NOW, PARTICULARS, office_crew, submit_inspection
from tests.live_site import PASSWORD, live_app

pytestmark = BROWSER_MARKS
axe_script()  # skips the module without axe-playwright-python

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
LATE = datetime(2027, 5, 10, 15, 0, tzinfo=timezone.utc)  # 10 May 2027 in Asunción
STEAMER = {**PARTICULARS, "propulsion": "steam", "boilers": 2}


def _build_state(app) -> dict:
    """An owner with three vessels: safety due soon (navegabilidad valid), one suspended, one never certified."""
    from inspection.certificates.operations import suspend_certificate
    from inspection.registry.vessels import create_vessel

    with app.app_context():
        owner, admin, inspector = office_crew(PASSWORD)
        vessels = [create_vessel({**STEAMER, "registration": reg, "name": name, "owner_id": owner.id}) for reg, name in (
            ("PY-ASU-0101", "Ñandutí Purahéi"), ("PY-CON-0202", "Yacaré Guazú"), ("PY-ENC-0303", "Río Tebicuary"))]
        for kind in ("seguridad", "navegabilidad"):
            submit_inspection(admin, inspector, vessels[0], kind)
        _, _, certificate = submit_inspection(admin, inspector, vessels[1])
        suspend_certificate(admin, certificate, "Prohibición de zarpe.", NOW)
        db.session.commit()
        return {"vessel": vessels[0].id}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with live_app(tmp_path_factory.mktemp("fleet"), "browser-fleet", "baliza-fleet") as (app, origin, _):
        state = _build_state(app)
        with pytest.MonkeyPatch.context() as patch:  # the server runs in this process: one clock for both
            patch.setattr(clock, "system_now", lambda: LATE)
            yield {"origin": origin, **state}


def signed_in_page(browser, site, size: str):
    page = browser.new_context(viewport=SIZES[size], locale="es-PY").new_page()
    page.goto(f"{site['origin']}/login")
    page.fill("input[name=username]", "armador")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_load_state()
    return page


def sideways(page) -> list[str]:
    """The page scrolls sideways: wider than its viewport."""
    width, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    return [f"{page.url} scrolls sideways ({width} px wide)"] if width > viewport else []


def shoot_fleet(page, name: str) -> None:
    shoot(page, f"baliza_fleet_{name}.png", full_page=True)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_owner_lands_on_the_fleet_and_reads_each_vessels_state(browser, site, size):
    page = signed_in_page(browser, site, size)
    assert page.url.endswith("/flota")
    chips = page.locator(".vessel-card .vessel-head .state-chip")
    assert [" ".join(t.split()) for t in chips.all_text_contents()] == ["⚠ Por vencer", "⊘ Suspendido", "? Sin certificado"]
    first = page.locator(f"#buque-{site['vessel']}")
    assert "vencida hace 147 días" in first.inner_text()  # the observation was due on 14 Dec 2026
    assert "quedan 20 días" in first.inner_text()
    problems = axe_violations(page)
    if size == "phone":  # touch: targets of 44 px, and the page scrolls only up and down
        problems += [f"small target {p}" for p in small_targets(page)] + sideways(page)
    shoot_fleet(page, size)
    page.goto(f"{site['origin']}/flota?lang=en")
    assert " ".join(page.locator(".vessel-card .vessel-head .state-chip").first.text_content().split()) == \
        "⚠ Expiring soon"
    shoot_fleet(page, f"{size}_en")
    page.goto(f"{site['origin']}/flota?lang=es")
    page.context.close()
    assert not problems, "\n".join(problems)


def test_applying_late_shows_the_art_225_fine_before_confirming(browser, site):
    page = signed_in_page(browser, site, "phone")
    page.locator(f"#buque-{site['vessel']} a", has_text="Solicitar inspección: seguridad").click()
    assert "PY-ASU-0101" in page.locator("input[name=vessel]").input_value()  # the search box, filled from the fleet
    assert page.locator("select[name=kind]").input_value() == "seguridad"
    page.fill("input[name=preferred_on]", "2027-05-20")
    page.click("text=Ver antes de confirmar")
    late = page.locator("section.late")
    assert "Solicitud fuera de término" in late.inner_text()
    fine = late.locator("tr.fine").inner_text()
    assert "Ley 928/1927" in fine and "art. 225" in fine and "1.000,00" in fine and "30 de abril de 2027" in fine
    shoot_fleet(page, "preview_phone")
    assert not sideways(page) and not small_targets(page)
    page.dblclick("button:has-text('Confirmar la solicitud')")  # sent twice: its client_id files it once
    page.wait_for_url("**/solicitudes?presentada=*")
    filed = page.locator(".application.filed")
    assert "No: fuera de término" in filed.inner_text() and "art. 225" in filed.inner_text()
    assert page.locator(".application").count() == 1
    shoot_fleet(page, "applications_phone")
    assert not sideways(page)
    page.goto(f"{site['origin']}/flota")
    assert "Solicitud de seguridad pendiente" in page.locator(f"#buque-{site['vessel']}").inner_text()
    page.context.close()
