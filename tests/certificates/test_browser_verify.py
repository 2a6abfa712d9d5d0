"""The police verifier (/verificar) in Debian's Chromium: one online visit, then verdicts offline.

The real app runs on a werkzeug server in a thread, certificates are issued through the real
API (schedule, start, answer, photos, submit; revoke), and the page is driven by Playwright at
phone size (390 x 844). Every request that reaches the server is recorded, so "offline" is
proven by the server not hearing from the browser at all, not only by the emulation.
"""
import datetime as dt
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

import pytest

from inspection.core.clock import system_now
from tests.browser_kit import BROWSER_MARKS, chromium, fake_camera_args, fake_camera_video, shoot, visit_online
from tests.live_site import bearer, issue_certificate, live_app, seed_office

PHONE = {"width": 390, "height": 844}
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

pytestmark = BROWSER_MARKS


@dataclass
class Site:
    """The running app: its origin, the issued certificates and the paths the server has served."""

    origin: str
    certificates: dict
    hits: list = field(default_factory=list)


def _issue_certificates(app) -> dict:
    """A valid certificate and a revoked one, on two vessels, through the real operations and API."""
    inspector_id, (first_id, second_id, third_id, fourth_id) = seed_office(
        app, ("PY-ASU-0101", "Ñandutí Purahéi"), ("PY-CON-0202", "Yacaré Guazú"), ("PY-ENC-0303", "Río Tebicuary"),
        ("PY-PIL-0404", "Pirapó"))

    client = app.test_client()

    admin, inspector_h = bearer(client, "jefa"), bearer(client, "inspector")
    valid = issue_certificate(client, admin, inspector_h, inspector_id, first_id)
    revoked = issue_certificate(client, admin, inspector_h, inspector_id, second_id)
    late = issue_certificate(client, admin, inspector_h, inspector_id, third_id)
    to_suspend = issue_certificate(client, admin, inspector_h, inspector_id, fourth_id)

    def revoke(number):
        answer = client.post(f"/api/v1/certificates/{number}/revoke", headers=admin,
                             json={"reason": "Certificado emitido con datos de máquina erróneos."})
        assert answer.status_code == 200 and answer.json["status"] == "revoked", answer.json

    def suspend(number):
        answer = client.post(f"/api/v1/certificates/{number}/suspend", headers=admin,
                             json={"reason": "Detenido en puerto por deficiencia grave (art. 5)."})
        assert answer.status_code == 200 and answer.json["status"] == "suspended", answer.json

    revoke(revoked["number"])
    token = valid["token"]
    flipped = token[:-10] + B32[(B32.index(token[-10]) + 1) % 32] + token[-9:]
    return {"valid": valid, "revoked": revoked, "late": late, "to_suspend": to_suspend, "revoke": revoke,
            "suspend": suspend,
            "flipped_url": valid["verify_url"].replace(token, flipped)}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The real app on 127.0.0.1 and a free port, with PUBLIC_URL set to that origin."""
    with live_app(tmp_path_factory.mktemp("verificar"), "browser-test", "baliza-live") as (app, origin, hits):
        yield Site(origin, _issue_certificates(app), hits)


@pytest.fixture
def browser():
    """A Chromium for each test of this module (browser_kit's `browser` is one per module)."""
    with chromium() as launched:
        yield launched


def verify(page, text: str) -> str:
    """Paste a link or token into the field, press Verificar, return the verdict code shown."""
    page.fill("#token-input", text)
    page.click("#verify")
    page.wait_for_selector("#verdict[data-verdict]", timeout=10_000)
    return page.get_attribute("#verdict", "data-verdict")


def test_verdicts_offline_after_one_online_visit(site, browser):
    """Online once (worker active, lists cached), then offline: VÁLIDO, REVOCADO, FIRMA INVÁLIDA."""
    valid, revoked = site.certificates["valid"], site.certificates["revoked"]
    context = browser.new_context(viewport=PHONE, locale="es-PY")
    page = context.new_page()
    visit_online(page, f"{site.origin}/verificar")
    cached = page.evaluate("""async () => {
        const kept = [];
        for (const name of await caches.keys()) {  // the app's precache and the verifier's
          kept.push(...(await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname));
        }
        return kept;
    }""")
    assert {"/verificar", "/api/v1/keys", "/api/v1/status-list", "/static/js/verificar.js",
            "/static/js/verifier.js", "/static/vendor/jsQR.js", "/static/css/baliza.css",
            "/manifest.webmanifest"} <= set(cached)
    assert page.evaluate("localStorage.getItem('baliza.verificador.status.v1') !== null")
    assert page.is_hidden("#offline")

    # Online, the server confirms what the phone decided.
    assert verify(page, revoked["verify_url"]) == "revoked"
    page.wait_for_selector("#confirm:not([hidden])", timeout=10_000)
    assert "Confirmado" in page.inner_text("#confirm")

    context.set_offline(True)
    heard = len(site.hits)
    page.reload()  # the page itself now comes from the service worker
    page.wait_for_selector("#offline", state="visible", timeout=10_000)
    # the page tries to refresh the lists first ("Actualizando las listas…"); offline, it says the stored ones' age
    page.wait_for_selector("#lists-age:has-text('Listas actualizadas')", timeout=15_000)

    assert verify(page, valid["verify_url"]) == "valid"
    assert "VÁLIDO" in page.inner_text("#verdict-word")
    assert page.inner_text("#f-registration") == "PY-ASU-0101"
    assert page.inner_text("#f-vessel") == "Ñandutí Purahéi"
    assert page.inner_text("#f-number") == valid["number"]
    assert "quedan" in page.inner_text("#f-valid")
    assert page.is_hidden("#confirm")
    text = page.inner_text("#verificador")
    assert "Naviera" not in text and "Insp." not in text  # nothing about owner or inspector
    shoot(page, "baliza_verificar_valido.png")

    assert verify(page, revoked["verify_url"]) == "revoked"
    assert "REVOCADO" in page.inner_text("#verdict-word")
    assert page.inner_text("#f-registration") == "PY-CON-0202"
    shoot(page, "baliza_verificar_revocado.png")

    assert verify(page, site.certificates["flipped_url"]) == "invalid_signature"
    assert "FIRMA INVÁLIDA" in page.inner_text("#verdict-word")
    assert page.is_hidden("#facts")  # forged particulars are never shown
    shoot(page, "baliza_verificar_firma_invalida.png")

    # The QR's own link, opened with the network off, falls back to the cached verifier.
    page.goto(valid["verify_url"])
    page.wait_for_selector("#verdict[data-verdict]", timeout=10_000)
    assert page.get_attribute("#verdict", "data-verdict") == "valid"

    assert site.hits[heard:] == [], "the browser reached the server while offline"
    context.close()


def test_old_status_list_turns_amber_and_dates_expire(site, browser):
    """Eight days later without signal: NO CONFIRMADO, with what the signature and dates say; later, VENCIDO."""
    valid = site.certificates["valid"]
    context = browser.new_context(viewport=PHONE, locale="es-PY")
    page = context.new_page()
    visit_online(page, f"{site.origin}/verificar")
    context.set_offline(True)
    page.clock.install(time=system_now() + dt.timedelta(days=8))  # the server's clock issued the lists
    page.reload()
    page.wait_for_selector("#offline", state="visible", timeout=10_000)
    assert verify(page, valid["token"]) == "unconfirmed"
    assert "NO CONFIRMADO" in page.inner_text("#verdict-word")
    assert "7 días" in page.inner_text("#verdict-note")
    assert page.inner_text("#f-registration") == "PY-ASU-0101"
    assert "hace 8 días" in page.inner_text("#lists-age")
    shoot(page, "baliza_verificar_no_confirmado.png")

    # A week past valid_until in Asunción: VENCIDO, whatever the age of the list.
    after = dt.date.fromisoformat(valid["valid_until"]) + dt.timedelta(days=8)
    page.clock.set_system_time(dt.datetime.combine(after, dt.time(12), ZoneInfo("America/Asuncion")))
    assert verify(page, f"{site.origin}/verificar#t={valid['token']}") == "expired"  # a shared link works too
    assert "VENCIDO" in page.inner_text("#verdict-word")
    assert "vencido hace" in page.inner_text("#f-valid")
    context.close()


def test_online_the_server_has_the_last_word(site, browser):
    """Revoked after the phone stored its lists: the phone says VÁLIDO, the server REVOCADO, and that shows."""
    late = site.certificates["late"]
    context = browser.new_context(viewport=PHONE, locale="es-PY")
    page = context.new_page()
    visit_online(page, f"{site.origin}/verificar")
    site.certificates["revoke"](late["number"])
    verify(page, late["verify_url"])  # the stored list says valid; the server's answer follows at once
    page.wait_for_selector("#verdict[data-verdict='revoked']", timeout=10_000)
    assert "REVOCADO" in page.inner_text("#verdict-word")
    assert "sin conexión daba VÁLIDO" in page.inner_text("#confirm")
    assert page.inner_text("#f-registration") == "PY-ENC-0303"
    context.close()


def test_a_suspension_seen_online_on_the_qr_page_holds_offline(site, browser):
    """Issue 8, defect 11: /v/<token> opened with signal refreshes the lists the verifier keeps, so
    the same certificate checked offline a minute later is SUSPENDIDO, not VÁLIDO."""
    cert = site.certificates["to_suspend"]
    context = browser.new_context(viewport=PHONE, locale="es-PY")
    page = context.new_page()
    visit_online(page, f"{site.origin}/verificar")
    assert verify(page, cert["verify_url"]) == "valid"
    site.certificates["suspend"](cert["number"])

    page.goto(cert["verify_url"], wait_until="networkidle")  # the QR's link, online: the server's page
    assert "SUSPENDIDO" in page.inner_text("main")

    context.set_offline(True)
    page.goto(f"{site.origin}/verificar")
    page.wait_for_selector("#offline", state="visible", timeout=10_000)
    assert verify(page, cert["token"]) == "suspended"
    assert "SUSPENDIDO" in page.inner_text("#verdict-word")
    context.close()


def test_english_page_and_camera_scan(site, tmp_path):
    """The camera path: a fake camera shows the certificate QR; jsQR (no BarcodeDetector here) reads it."""
    from inspection.certificates.qrcodes import make_qr

    valid = site.certificates["valid"]
    png = make_qr(site.origin, valid["token"]).png
    video = tmp_path / "qr.y4m"
    fake_camera_video(png, video)
    with chromium(*fake_camera_args(video)) as cam:
        context = cam.new_context(viewport=PHONE, locale="en-GB", permissions=["camera"])
        page = context.new_page()
        page.goto(f"{site.origin}/verificar?lang=en")
        assert page.get_attribute("html", "lang") == "en"
        page.wait_for_function("() => document.getElementById('verificador').dataset.lists === 'fresh'", timeout=20_000)
        page.click("#scan")
        page.wait_for_selector("#verdict[data-verdict]", timeout=20_000)
        assert page.get_attribute("#verdict", "data-verdict") == "valid"
        assert "VALID" in page.inner_text("#verdict-word")
        assert page.is_hidden("#camera")  # the camera is released once a code is read
        assert page.input_value("#token-input") == valid["verify_url"]
        shoot(page, "baliza_verificar_camera_en.png")


def test_english_offline_reads_as_the_english_pages(site, browser):
    """Offline in English on a Spanish phone: the catalog's words and Babel's dates, as /v/ online."""
    from inspection.i18n.formats import format_day
    from inspection.i18n.language import translate
    from tests.fixtures.pages import DAY_CASES

    valid = site.certificates["valid"]
    context = browser.new_context(viewport=PHONE, locale="es-PY")
    page = context.new_page()
    visit_online(page, f"{site.origin}/verificar?lang=en")
    in_chromium = page.evaluate("""async (cases) => {
        const { formatDay } = await import('/static/js/formats.js');
        return cases.map(({ iso, lang, width }) => formatDay(iso, lang, width));
    }""", DAY_CASES)
    assert in_chromium == [format_day(c["iso"], c["lang"], c["width"]) for c in DAY_CASES]

    context.set_offline(True)
    page.reload()
    page.wait_for_selector("#offline", state="visible", timeout=10_000)
    assert verify(page, valid["verify_url"]) == "valid"
    assert page.inner_text("#verdict-word").endswith(translate("VÁLIDO", "en"))
    assert page.inner_text("#verdict-note") == translate("Certificado auténtico y vigente.", "en")
    until = dt.date.fromisoformat(valid["valid_until"])
    assert page.inner_text("#f-valid").startswith(f"{format_day(until, 'en')} (")
    assert page.inner_text("#f-issued") == format_day(valid["issued_on"], "en")
    assert page.inner_text("#f-kind") == translate("Seguridad (máquinas y calderas)", "en")
    context.close()


def test_offline_expiry_follows_the_offices_calendar_not_the_phones(site, browser):
    """A phone set to UTC+14 on the last evening in Asunción: the certificate is still in force, as online."""
    valid = site.certificates["valid"]
    last_day = dt.date.fromisoformat(valid["valid_until"])
    asuncion = ZoneInfo("America/Asuncion")
    context = browser.new_context(viewport=PHONE, locale="es-PY", timezone_id="Pacific/Kiritimati")
    page = context.new_page()
    visit_online(page, f"{site.origin}/verificar")
    context.set_offline(True)
    evening = dt.datetime.combine(last_day, dt.time(20, 0), asuncion)  # already the next day in Kiritimati
    page.clock.install(time=evening)
    page.reload()
    page.wait_for_selector("#offline", state="visible", timeout=10_000)
    assert verify(page, valid["token"]) == "unconfirmed"  # months later the list is stale, but not expired
    assert "vence hoy" in page.inner_text("#f-valid")
    page.clock.set_system_time(dt.datetime.combine(last_day + dt.timedelta(days=1), dt.time(0, 30), asuncion))
    assert verify(page, f"{site.origin}/verificar#t={valid['token']}") == "expired"
    context.close()
