"""The review of art. 221 in Debian's Chromium: the reviewer returns one inspection and countersigns another from
its report, drawing on the pad; then a police phone, offline, reads which certificate is countersigned and which
waits for it."""
from dataclasses import dataclass, field

import pytest

from tests.browser_kit import BROWSER_MARKS, chromium, shoot, sign_in, visit_online
from tests.live_site import PASSWORD, bearer, issue_certificate, live_app, seed_office

pytestmark = BROWSER_MARKS
DESK = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


@dataclass
class Site:
    origin: str
    app: object
    made: dict
    hits: list = field(default_factory=list)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A pending certificate issued at the closing (A); then, issued only at the countersignature, two passed
    inspections waiting (B to countersign, C to return); a reviewer with his title."""
    from inspection.accounts.users import create_user
    from inspection.core.extensions import db

    with live_app(tmp_path_factory.mktemp("refrendo"), "browser-test", "baliza-live") as (app, origin, hits):
        inspector_id, (a, b, c) = seed_office(app, ("PY-ASU-0501", "Tacuary"), ("PY-ASU-0502", "Humaitá"),
                                              ("PY-ASU-0503", "Paraguarí"))
        with app.app_context():
            create_user("prefecto", PASSWORD, "reviewer", full_name="Cnel. Aurelio Ramírez",
                        title="Prefecto General de Puertos")
            db.session.commit()
        client = app.test_client()
        admin, inspector = bearer(client, "jefa"), bearer(client, "inspector")
        made = {"pending": issue_certificate(client, admin, inspector, inspector_id, a)}
        app.config["COUNTERSIGN_VALIDITY"] = "countersignature"
        made["to_sign"] = issue_certificate(client, admin, inspector, inspector_id, b, issued=False)
        made["to_return"] = issue_certificate(client, admin, inspector, inspector_id, c, issued=False)
        yield Site(origin, app, made, hits)


def act(page, button: str, path_end: str) -> None:
    """Press the act's button, then, on the confirmation page it answers with, the one that acts."""
    page.click(f"button:has-text('{button}')")
    page.wait_for_url(f"**/{path_end}", timeout=10_000)
    page.click("button[type=submit]:has-text('Sí')")
    page.wait_for_url("**/refrendos", timeout=10_000)


def test_the_reviewer_returns_one_countersigns_another_and_the_police_read_it_offline(site):
    with chromium() as browser:
        context = browser.new_context(viewport=DESK, locale="es-PY")
        page = context.new_page()
        sign_in(page, site.origin, "prefecto", PASSWORD)
        assert page.url.endswith("/refrendos")
        queue = page.inner_text("main")
        assert "PY-ASU-0502" in queue and "PY-ASU-0503" in queue and "PY-ASU-0501" in queue
        shoot(page, "baliza_refrendos.png")

        page.goto(f"{site.origin}/inspecciones/{site.made['to_return']['inspection_id']}/informe")
        page.fill("textarea[name=note]", "Falta la foto del manómetro de la caldera 2.")
        act(page, "Devolver al inspector", "devolver")
        assert "devuelta a su inspector con la nota" in page.inner_text("main")
        assert "PY-ASU-0503" not in page.inner_text("table")

        page.goto(f"{site.origin}/inspecciones/{site.made['to_sign']['inspection_id']}/informe")
        pad = page.locator("canvas.signature-pad").bounding_box()
        page.mouse.move(pad["x"] + 30, pad["y"] + pad["height"] * 0.7)
        page.mouse.down()
        for step in range(1, 20):
            page.mouse.move(pad["x"] + 30 + step * 12, pad["y"] + pad["height"] * (0.7 - 0.4 * (step % 2)), steps=3)
        page.mouse.up()
        shoot(page, "baliza_refrendo_firma.png")
        act(page, "Refrendar", "refrendar")
        said = page.inner_text("main")
        assert "refrendada: el certificado" in said and "lleva las dos firmas" in said
        context.close()

        tablet = browser.new_context(viewport={"width": 820, "height": 1180}, locale="es-PY")
        page = tablet.new_page()
        sign_in(page, site.origin, "inspector", PASSWORD)  # the returned inspection is back on his agenda
        page.goto(f"{site.origin}/agenda")
        note = page.locator(f".agenda-card[data-inspection='{site.made['to_return']['inspection_id']}'] .returned-note")
        note.wait_for(timeout=15_000)
        assert note.inner_text() == "Devuelta por el revisor: Falta la foto del manómetro de la caldera 2."
        tablet.close()

    with site.app.app_context():
        from inspection.core.extensions import db
        from inspection.core.models import Certificate
        signed = db.session.scalar(db.select(Certificate).filter_by(inspection_id=site.made["to_sign"]["inspection_id"]))
        signed_url = f"{site.origin}/v/{signed.token}"
        assert signed.countersigned_on is not None

    with chromium() as browser:
        context = browser.new_context(viewport=PHONE, locale="es-PY")
        page = context.new_page()
        sign_in(page, site.origin, "jefa", PASSWORD)  # any phone: the verifier needs no police account
        visit_online(page, f"{site.origin}/verificar")
        context.set_offline(True)
        heard = len(site.hits)
        page.reload()
        page.wait_for_selector("#offline", state="visible", timeout=10_000)
        for url, words in ((site.made["pending"]["verify_url"], "Pendiente de refrendo (plazo hasta el"),
                           (signed_url, "Refrendado el ")):
            page.fill("#token-input", url)
            page.click("#verify")
            page.wait_for_selector(f"#f-countersign:has-text('{words}')", timeout=10_000)
            assert page.get_attribute("#verdict", "data-verdict") == "valid"
        shoot(page, "baliza_verificar_refrendado.png")
        assert site.hits[heard:] == [], "the browser reached the server while offline"
        context.close()
