"""Issue 21, finding 10 in Debian's Chromium: the certificate list searches, filters and sorts by its headers, and
offline the menu's other pages open Baliza's offline page in the reader's language instead of the browser's own.

One live site for the module, its records written as rows (three certificates of three vessels, one revoked);
phone (390 px), tablet (820 px) and desktop (1366 px), Spanish and English. Screenshots (lists-*.png) go to
BALIZA_SCREENSHOTS when it is set.
"""
from datetime import datetime, timedelta, timezone

import pytest

from inspection.core.clock import office_today
from inspection.core.extensions import db
from tests.browser_kit import BROWSER_MARKS, browser, shoot, sign_in, wait_until_kept  # noqa: F401 (the fixture)
from tests.live_site import PASSWORD, live_app, vessel_values

pytestmark = BROWSER_MARKS
SIZES = {"phone": 390, "tablet": 820, "desktop": 1366}


def _build_state(app) -> dict:
    """An admin; three vessels, each with a certificate: valid until the furthest, valid, revoked."""
    from inspection.accounts.users import create_user
    from inspection.core.models import Certificate, Inspection, SigningKey
    from inspection.registry.vessels import create_owner, create_vessel

    with app.app_context():
        today = office_today()
        owner = create_owner({"name": "Naviera del Sur S.A.", "tax_id": "80012345-6", "email": "sur@example.com",
                              "phone": None, "address": None})
        db.session.flush()
        admin = create_user("jefa", PASSWORD, "admin")
        db.session.add(SigningKey(kid="k-lists", office_code="PGP", public_jwk={}))
        numbers = {}
        for n, (registration, name, days, revoked) in enumerate((
                ("PY-ASU-0101", "Ñandutí Purahéi", 300, False), ("PY-CON-0202", "Yacaré Guazú", 60, False),
                ("PY-ENC-0303", "Río Tebicuary", 120, True)), start=1):
            vessel = create_vessel(vessel_values(registration, name, owner.id))
            db.session.flush()
            inspection = Inspection(vessel_id=vessel.id, kind="seguridad", inspector_id=admin.id, scheduled_on=today,
                                    port="Asunción", status="submitted", created_by_id=admin.id)
            db.session.add(inspection)
            db.session.flush()
            db.session.add(Certificate(
                number=f"S-2026-{n:04d}", kind="seguridad", vessel_id=vessel.id, inspection_id=inspection.id,
                issued_on=today, inspected_on=today, valid_until=today + timedelta(days=days), status_index=n,
                office_code="PGP", kid="k-lists", token="", qr_png=b"", qr_version=1,
                revoked_at=datetime(2026, 1, 1, tzinfo=timezone.utc) if revoked else None))
            numbers[registration] = f"S-2026-{n:04d}"
        db.session.commit()
    return numbers


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with live_app(tmp_path_factory.mktemp("lists"), "browser-lists", "baliza-lists") as (app, origin, hits):
        yield {"origin": origin, "numbers": _build_state(app)}


def _signed_in(browser, site, lang: str):
    """A context signed in as the admin, reading `lang`; its page on /certificados."""
    context = browser.new_context(viewport={"width": SIZES["phone"], "height": 900}, locale="es-PY")
    page = context.new_page()
    page.goto(f"{site['origin']}/login?lang={lang}")  # the language stays with the session
    sign_in(page, site["origin"], "jefa", PASSWORD)
    page.goto(f"{site['origin']}/certificados")
    return context, page


def _numbers(page) -> list[str]:
    return page.locator("a.cert-number").all_inner_texts()


def _sorts_and_filters(page, site, size: str, lang: str) -> None:
    """At `size`: the header sorts ascending then descending and says so; the search and status filter keep it."""
    page.set_viewport_size({"width": SIZES[size], "height": 900})
    page.goto(f"{site['origin']}/certificados")
    n = site["numbers"]
    valid_until = page.locator("th", has_text="Válido hasta" if lang == "es" else "Valid until")
    assert valid_until.get_attribute("aria-sort") is None
    valid_until.locator("a").click()
    page.wait_for_load_state()
    assert valid_until.get_attribute("aria-sort") == "ascending"
    assert _numbers(page) == [n["PY-CON-0202"], n["PY-ENC-0303"], n["PY-ASU-0101"]]
    valid_until.locator("a").click()
    page.wait_for_load_state()
    assert valid_until.get_attribute("aria-sort") == "descending"
    assert _numbers(page) == [n["PY-ASU-0101"], n["PY-ENC-0303"], n["PY-CON-0202"]]

    page.select_option("select[name=status]", "valid")
    page.fill("input[name=q]", "yacaré" if lang == "es" else "CON")
    page.locator("form.filters button[type=submit]").click()
    page.wait_for_load_state()
    assert _numbers(page) == [n["PY-CON-0202"]]
    assert valid_until.get_attribute("aria-sort") == "descending"  # the order survives the search
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]
    shoot(page, f"lists-certificados-{size}-{lang}.png", full_page=True)


def _offline_from_the_menu(context, page, site, lang: str) -> None:
    """At 390 px, offline, "Certificados" in the menu opens the offline page in `lang`, which links what works."""
    page.set_viewport_size({"width": SIZES["phone"], "height": 900})
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=30_000)
    page.goto(f"{site['origin']}/inspecciones")  # the worker notes the language of the pages it passes on
    context.set_offline(True)
    page.locator("details.menu summary").click()
    page.locator("nav.sections a", has_text="Certificados" if lang == "es" else "Certificates").click()
    page.wait_for_load_state()
    assert page.url.endswith("/certificados")
    heading = page.locator("h1").inner_text()
    assert heading == ("Sin conexión" if lang == "es" else "Offline")
    assert page.evaluate("document.documentElement.lang") == lang
    links = [a.get_attribute("href") for a in page.locator(".offline-works a:visible").all()]
    assert links == ["/agenda"]  # this device never opened the police verifier: it is not kept, so not offered
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES["phone"]
    shoot(page, f"lists-offline-{lang}.png", full_page=True)

    page.locator("a.button", has_text="Reintentar" if lang == "es" else "Retry").click()  # still offline
    page.wait_for_load_state()
    assert page.url.endswith("/certificados") and page.locator("h1").inner_text() == heading
    context.set_offline(False)
    page.goto(f"{site['origin']}/verificar?lang={lang}")  # a police page: the worker keeps the verifier
    wait_until_kept(page, "/static/vendor/jsQR.js")
    context.set_offline(True)
    page.goto(f"{site['origin']}/certificados")
    page.locator(".offline-works a:visible").last.click()  # now offered, and it works offline
    page.wait_for_selector("#verificador")


@pytest.mark.parametrize("lang, sizes", [("es", ("phone", "desktop")), ("en", ("tablet",))])
def test_the_certificate_list_sorts_and_filters_and_offline_the_menu_opens_the_offline_page(site, browser, lang,
                                                                                           sizes):
    context, page = _signed_in(browser, site, lang)
    for size in sizes:
        _sorts_and_filters(page, site, size, lang)
    _offline_from_the_menu(context, page, site, lang)
    context.close()
