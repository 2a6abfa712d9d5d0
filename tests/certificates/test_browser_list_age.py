"""Finding 8 in Debian's Chromium at 390 px, in Spanish and English: an offline verdict says how old its lists are.

The lists are stored online, the certificate is revoked afterwards and the network is cut: the phone still
reads VÁLIDO (its lists predate the revocation), and says so: "según las listas de hoy 14:05", on the office's
clock. With the phone's clock a day and an hour later, the same VÁLIDO is amber and warns that a later
suspension or revocation is not in the lists.
"""
import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import pytest

from inspection.core.clock import office_today, system_now
from inspection.core.extensions import db
from tests.browser_kit import BROWSER_MARKS, browser, shoot, visit_online  # noqa: F401 (the module's Chromium)
from tests.live_site import PASSWORD, live_app, vessel_values

PHONE = {"width": 390, "height": 844}
WORDS = {  # what the age line says, per language (the catalog's English)
    "es": {"today": "Según las listas de hoy", "yesterday": "Según las listas de ayer", "old": "más de 24 horas"},
    "en": {"today": "According to the lists of today", "yesterday": "According to the lists of yesterday",
           "old": "more than 24 hours old"},
}

pytestmark = BROWSER_MARKS


@dataclass
class Site:
    """The running app, its origin, and a certificate per language with what revokes it."""

    app: object
    origin: str
    certificates: dict


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The real app on a free port, with a seguridad certificate for each language's test."""
    from inspection.accounts.users import create_user
    from inspection.inspections.operations import schedule_inspection
    from inspection.registry.vessels import create_owner, create_vessel
    from tests.conftest import pass_and_close

    with live_app(tmp_path_factory.mktemp("list-age"), "browser-test", "baliza-list-age") as (app, origin, _):
        with app.app_context():
            owner = create_owner({"name": "Naviera del Sur S.A.", "tax_id": "80012345-6", "email": "sur@example.com",
                                  "phone": None, "address": None})
            admin = create_user("jefa", PASSWORD, "admin")
            inspector = create_user("inspector", PASSWORD, "inspector")
            now, today = system_now(), office_today()
            certificates = {}
            for lang, registration, name in (("es", "PY-ASU-0710", "Ñandutí Purahéi"), ("en", "PY-ASU-0711", "Yacaré Guazú")):
                vessel = create_vessel(vessel_values(registration, name, owner.id))
                inspection = schedule_inspection(admin, vessel, "seguridad", inspector, today, "Asunción", today)
                issued = pass_and_close(inspection, inspector, now, today)["certificate"]
                certificates[lang] = {"number": issued.number, "token": issued.token}
        yield Site(app, origin, certificates)


def revoke(app, number: str) -> None:
    """Revoke the certificate through the operation, as an admin would from its page."""
    from inspection.certificates.operations import revoke_certificate
    from inspection.core.models import Certificate, User

    with app.app_context():
        certificate = db.session.execute(db.select(Certificate).filter_by(number=number)).scalar_one()
        admin = db.session.execute(db.select(User).filter_by(username="jefa")).scalar_one()
        revoke_certificate(admin, certificate, "Emitido con datos de máquina erróneos.", system_now())
        db.session.commit()


def verify(page, token: str) -> str:
    """Type the token, press the button, return the verdict code shown."""
    page.fill("#token-input", token)
    page.click("#verify")
    page.wait_for_selector("#verdict[data-verdict]", timeout=10_000)
    return page.get_attribute("#verdict", "data-verdict")


def lists_moment(page, zone: ZoneInfo) -> dt.datetime:
    """When the stored lists were current (the older of the keys' arrival and the status list's issue), office time."""
    ms = page.evaluate("""() => {
        const keys = JSON.parse(localStorage.getItem('baliza.verificador.keys.v1'));
        const status = JSON.parse(localStorage.getItem('baliza.verificador.status.v1'));
        return Math.min(keys.fetched_at, status.iat * 1000);
    }""")
    return dt.datetime.fromtimestamp(ms / 1000, zone)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_an_offline_verdict_says_how_old_its_lists_are(site, browser, lang):  # noqa: F811
    """Revoked after the lists were stored, offline: VÁLIDO "según las listas de hoy HH:MM"; a day later, amber."""
    cert, words = site.certificates[lang], WORDS[lang]
    zone = ZoneInfo(site.app.config["OFFICE_TZ"])
    context = browser.new_context(viewport=PHONE, locale="es-PY" if lang == "es" else "en-GB")
    page = context.new_page()
    visit_online(page, f"{site.origin}/verificar?lang={lang}")  # until the worker has kept the verifier and lists
    revoke(site.app, cert["number"])
    context.set_offline(True)

    assert verify(page, cert["token"]) == "valid"  # the stored list predates the revocation
    current = lists_moment(page, zone)
    age = page.inner_text("#verdict-age")
    day = words["today"] if current.date() == dt.datetime.now(zone).date() else words["yesterday"]
    assert age == f"{day} {current:%H:%M}.", age
    assert page.get_attribute("#verdict", "class") == "verdict verdict-ok"
    assert "old" not in page.get_attribute("#verdict-age", "class")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shoot(page, f"verdicts-age-fresh-{lang}.png")

    # A day and an hour later, still without signal: the same VÁLIDO is no longer a plain green one. Lists stored
    # after 23:00 would then be two days old (dated, not "yesterday"): those are seen at 23:59 the next day instead.
    later = system_now() + dt.timedelta(hours=25)
    if later.astimezone(zone).date() != current.date() + dt.timedelta(days=1):
        later = dt.datetime.combine(current.date() + dt.timedelta(days=1), dt.time(23, 59), zone)
    page.clock.install(time=later)
    page.reload()  # from the service worker's copy
    page.wait_for_selector("#offline", state="visible", timeout=10_000)
    assert verify(page, cert["token"]) == "valid"
    assert page.get_attribute("#verdict", "class") == "verdict verdict-ok-old"
    assert "old" in page.get_attribute("#verdict-age", "class")
    age = page.inner_text("#verdict-age")
    # the lists as stored now: a refresh in flight when the signal went may have stored a copy a minute newer
    stored = lists_moment(page, zone)
    assert abs((stored - current).total_seconds()) < 180
    assert age.startswith(f"{words['yesterday']} {stored:%H:%M}.") and words["old"] in age, age
    colours = page.evaluate("""() => [getComputedStyle(document.getElementById('verdict')).backgroundColor,
                                      getComputedStyle(document.getElementById('verdict-age')).backgroundColor]""")
    assert colours == ["rgb(154, 90, 0)", "rgb(255, 244, 224)"]  # --warn, and the warning chip; not --ok's green
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shoot(page, f"verdicts-age-old-{lang}.png", full_page=True)
    context.close()
