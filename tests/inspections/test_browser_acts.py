"""Staff's and owners' acts on the certificate and report pages, in Debian's Chromium, at phone and desktop width.

Issue 21's findings 4, 5 and 7 as a person meets them: revoking asks once and the certificate's page
then offers nothing more, saying why, with the result atop it; a detention shows on the report and is
lifted there (the detain form comes back only then); a 32 MB photo on "Informar subsanada" is refused
in the browser naming the limit, nothing sent and the note kept. One live server, its state built with
the operations (tests/fleets.py) on 30 Nov 2026: a vessel per walk with a certificate, an open
deficiency and an open detention. Screenshots go to the screenshots folder for a person to look at.
"""
import re

import pytest

from inspection.core import clock
from inspection.core.extensions import db
from tests.browser_kit import BROWSER_MARKS, browser, shoot  # noqa: F401 (browser: the fixture)
from tests.fleets import NOW, PARTICULARS, office_crew, submit_inspection
from tests.live_site import PASSWORD, live_app

pytestmark = BROWSER_MARKS

WALKS = [(390, "es"), (1366, "en")]  # both widths where the findings were met, both languages
BIG_PHOTO = 32 * 1024 * 1024
WORDS = {
    "es": {"revoke": "Revocar", "yes": "Sí, revocar", "asked": "¿Revocar el certificado {n}?",
           "revoked": "Certificado {n} revocado.", "why": "Revocado: la revocación no se deshace.",
           "lift": "Levantar detención", "lifted": "Detención del buque {r} levantada.", "detain": "Detener buque",
           "report": "Informar subsanada", "too_large": "La foto pesa 32 MB; el máximo es 15 MB."},
    "en": {"revoke": "Revoke", "yes": "Yes, revoke", "asked": "Revoke certificate {n}?",
           "revoked": "Certificate {n} revoked.", "why": "Revoked: a revocation cannot be undone.",
           "lift": "Lift detention", "lifted": "Detention of vessel {r} lifted.", "detain": "Detain vessel",
           "report": "Report fixed", "too_large": "The photo is 32 MB; the maximum is 15 MB."},
}


def _build_state(app) -> list[dict]:
    """Per walk: a vessel whose closed inspection left a certificate, an open deficiency and an open detention."""
    from inspection.inspections.operations import detain_vessel
    from inspection.registry.vessels import create_vessel

    with app.app_context():
        owner, admin, inspector = office_crew(PASSWORD)
        walks = []
        for n in range(len(WALKS)):
            vessel = create_vessel({**PARTICULARS, "registration": f"PY-ASU-07{n:02d}", "name": f"Ybytu {n}",
                                    "owner_id": owner.id})
            inspection, deficiency, certificate = submit_inspection(admin, inspector, vessel)
            detain_vessel(admin, vessel, "Sin salvavidas suficientes.", NOW, inspection)
            walks.append({"inspection": inspection.id, "deficiency": deficiency.id, "number": certificate.number,
                          "registration": vessel.registration})
        db.session.commit()
        return walks


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with live_app(tmp_path_factory.mktemp("acts"), "browser-acts", "baliza-acts") as (app, origin, hits):
        walks = _build_state(app)
        photo = tmp_path_factory.mktemp("camera") / "manguera.jpg"  # a path: the browser reads it from disk
        with photo.open("wb") as out:
            out.write(b"\xff\xd8\xff\xe0")
            out.truncate(BIG_PHOTO)
        with pytest.MonkeyPatch.context() as patch:  # the server runs in this process: one clock for both
            patch.setattr(clock, "system_now", lambda: NOW)
            yield {"origin": origin, "walks": walks, "hits": hits, "photo": photo}


def _signed_in(browser, site, who: str, width: int, lang: str):
    """A page signed in as `who` (the login form's own POST, through the context's cookies; no service worker:
    the tablet's tests walk it)."""
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US" if lang == "en" else "es-PY",
                                  service_workers="block")
    form = context.request.get(f"{site['origin']}/login?lang={lang}").text()
    token = re.search(r'name="csrf_token" value="([^"]+)"', form).group(1)
    signed = context.request.post(f"{site['origin']}/login", max_redirects=0,
                                  form={"username": who, "password": PASSWORD, "csrf_token": token})
    assert signed.status == 302, signed.text()
    return context.new_page()


def _sideways(page, selector: str = "html") -> list[str]:
    """What of `selector` reaches past the viewport's right edge (the report's own width is another finding's)."""
    return page.evaluate("""(selector) => [...document.querySelectorAll(selector)]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
        .map((el) => `${location.pathname} ${el.id || el.className || el.tagName} reaches ${el.getBoundingClientRect().right} px`)""",
                         selector)


def _shoot(page, name: str, selector: str = "main") -> None:
    shoot(page.locator(selector).first, f"baliza_acts_{name}.png")


@pytest.mark.parametrize("width, lang", WALKS)
def test_revoke_lift_and_a_photo_too_large(browser, site, width, lang):
    walk, words, problems = site["walks"][WALKS.index((width, lang))], WORDS[lang], []
    number, origin = walk["number"], site["origin"]

    staff = _signed_in(browser, site, "jefa", width, lang)
    staff.goto(f"{origin}/certificados/{number}?lang={lang}")
    revoke = staff.locator("form.decision", has=staff.get_by_role("button", name=words["revoke"], exact=True))
    revoke.locator("input[name=reason]").fill("Casco perdido en la varadura.")
    revoke.get_by_role("button", name=words["revoke"], exact=True).click()
    assert staff.get_by_role("heading", name=words["asked"].format(n=number)).is_visible()
    staff.get_by_role("button", name=words["yes"]).click()
    staff.wait_for_load_state()
    assert staff.get_by_role("status").filter(has_text=words["revoked"].format(n=number)).is_visible()
    assert staff.locator("form.decision").count() == 0  # before: revocar, suspender and rehabilitar stayed
    assert staff.get_by_text(words["why"]).is_visible()
    problems += _sideways(staff)
    _shoot(staff, f"revoked_{width}_{lang}", "#decisiones")

    staff.goto(f"{origin}/inspecciones/{walk['inspection']}/informe?lang={lang}#detencion")
    assert staff.get_by_role("button", name=words["detain"]).count() == 0  # before: the form stayed after detaining
    staff.locator("form.lift input[name=reason]").fill("Salvavidas repuestos y verificados.")
    staff.get_by_role("button", name=words["lift"]).click()
    staff.wait_for_load_state()
    assert staff.get_by_role("status").filter(
        has_text=words["lifted"].format(r=walk["registration"])).is_visible()
    assert staff.get_by_role("button", name=words["detain"]).is_visible()
    problems += _sideways(staff, "#detencion, #detencion *")
    _shoot(staff, f"lifted_{width}_{lang}", "#detencion")
    staff.context.close()

    owner = _signed_in(browser, site, "armador", width, lang)
    owner.goto(f"{origin}/inspecciones/{walk['inspection']}/informe?lang={lang}")
    form = owner.locator(f"#def-{walk['deficiency']} form")
    form.locator("input[name=reason]").fill("Manguera nueva colocada")
    form.locator("input[type=file]").set_input_files(site["photo"])
    sent = len(site["hits"])
    form.get_by_role("button", name=words["report"]).click()
    error = owner.locator(f"#photo-error-{walk['deficiency']}")
    assert error.text_content().startswith(words["too_large"])  # before: a generic 413 page, the limit not named
    assert not [hit for hit in site["hits"][sent:] if hit.endswith("/subsanada")]  # nothing sent
    assert form.locator("input[name=reason]").input_value() == "Manguera nueva colocada"
    problems += _sideways(owner, f"#def-{walk['deficiency']}, #def-{walk['deficiency']} *")
    _shoot(owner, f"photo_{width}_{lang}", f"#def-{walk['deficiency']}")
    owner.context.close()
    assert not problems, problems
