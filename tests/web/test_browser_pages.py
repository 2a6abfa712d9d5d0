"""Every page, as each role, in Debian's Chromium: axe-core finds no serious or critical violation.

One live server for the whole module, with its state built through the real operations and API:
three vessels, a certificate issued from a passed inspection, a suspended one, and an inspection
started and half answered (the largest page). axe-core is the copy that the PyPI package
axe-playwright-python ships (axe.min.js), injected by evaluation (tests/live_site.inject_axe: the CSP
refuses an inline script tag) and run by us; nothing downloads a browser or a script. Screenshots of a few
pages at tablet and phone size go to BALIZA_SCREENSHOTS when it is set.
"""
import gzip
import urllib.request
import uuid
from datetime import datetime, timezone
from itertools import product

import pytest

from inspection.core.extensions import db
from tests.browser_kit import (
    BROWSER_MARKS,
    axe_script,
    axe_violations,
    browser,  # noqa: F401 (the fixture)
    open_page,
    shoot,
    sign_in as sign_in_as,
    small_targets,
)
from tests.live_site import PASSWORD, bearer, issue_certificate, live_app, vessel_values

pytestmark = BROWSER_MARKS
axe_script()  # skips the module without axe-playwright-python

TABLET = {"width": 800, "height": 1280}
PHONE = {"width": 412, "height": 915}
USERS = {"jefa": "admin", "inspectora": "inspector", "armador": "owner", "policia": "police"}


def _build_state(app) -> dict:
    """Owner, users of every role, three vessels; a certificate, a suspended one, a started inspection."""
    from inspection.accounts.users import create_user
    from inspection.registry.vessels import create_owner, create_vessel

    with app.app_context():
        owner = create_owner({"name": "Naviera del Sur S.A.", "tax_id": "80012345-6", "email": "sur@example.com",
                              "phone": None, "address": None})
        db.session.flush()
        users = {name: create_user(name, PASSWORD, role, owner_id=owner.id if role == "owner" else None,
                                   unit="Lancha 3" if role == "police" else None)
                 for name, role in USERS.items()}
        vessels = [create_vessel(vessel_values(reg, name, owner.id)) for reg, name in (
            ("PY-ASU-0101", "Ñandutí Purahéi"), ("PY-CON-0202", "Yacaré Guazú"), ("PY-ENC-0303", "Río Tebicuary"))]
        db.session.commit()
        inspector_id, owner_id = users["inspectora"].id, owner.id
        vessel_ids = [v.id for v in vessels]

    client = app.test_client()

    admin, inspector = bearer(client, "jefa"), bearer(client, "inspectora")
    issued = issue_certificate(client, admin, inspector, inspector_id, vessel_ids[0])
    suspended = issue_certificate(client, admin, inspector, inspector_id, vessel_ids[1])
    answer = client.post(f"/api/v1/certificates/{suspended['number']}/suspend", headers=admin,
                         json={"reason": "Detenido en puerto por deficiencia grave."})
    assert answer.status_code == 200, answer.json
    submitted = client.get(f"/api/v1/certificates/{issued['number']}", headers=admin).json["inspection_id"]

    body = {"vessel_id": vessel_ids[2], "kind": "seguridad", "inspector_id": inspector_id,
            "scheduled_on": issued["issued_on"], "port": "Asunción"}
    started = client.post("/api/v1/inspections", json=body, headers=admin).json["id"]
    assert client.post(f"/api/v1/inspections/{started}/start", headers=inspector).status_code == 200
    items = client.get(f"/api/v1/inspections/{started}", headers=inspector).json["items"]
    for item in items[: len(items) // 2]:
        answer = {"client_id": str(uuid.uuid4()), "result": "pass"}
        if item["required"] is not None:
            answer["observed"] = item["required"]
        done = client.put(f"/api/v1/inspections/{started}/answers/{item['id']}", json=answer, headers=inspector)
        assert done.status_code == 200, done.json
    police = bearer(client, "policia")  # a patrol's infraction on the first vessel (issue 23)
    check = client.post("/api/v1/patrol-checks", headers=police, json={
        "client_id": str(uuid.uuid4()), "vessel_id": vessel_ids[0], "checklist": "conducta", "place": "Km 1630",
        "checked_at": datetime.now(timezone.utc).isoformat()}).json["id"]
    for item, result in (("con.lights.night", "fail"), ("con.fire.no_smoking", "pass")):
        client.put(f"/api/v1/patrol-checks/{check}/answers/{item}", headers=police,
                   json={"client_id": str(uuid.uuid4()), "result": result})
    closed = client.post(f"/api/v1/patrol-checks/{check}/close", headers=police,
                         json={"client_id": str(uuid.uuid4()), "outcome": "infraccion", "note": "Sin luces"})
    assert closed.status_code == 200, closed.json
    return {"issued": issued, "suspended": suspended, "submitted": submitted, "started": started,
            "vessel": vessel_ids[0], "owner": owner_id, "user": inspector_id, "check": check}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The real app on a free port, its state, and every path the server was asked for."""
    with live_app(tmp_path_factory.mktemp("pages"), "browser-pages", "baliza-pages") as (app, origin, hits):
        yield {"origin": origin, "hits": hits, **_build_state(app)}


def pages_for(role: str, s: dict) -> list[str]:
    """Every GET page the role may open, with real ids."""
    token, number = s["issued"]["token"], s["issued"]["number"]
    public = ["/verificar", f"/v/{token}", f"/v/{s['suspended']['token']}", "/v/AAAA"]
    fleet = ["/buques", f"/buques/{s['vessel']}", f"/buques/{s['vessel']}/listas/seguridad",
             f"/buques/{s['vessel']}/listas/navegabilidad", f"/buques/{s['vessel']}/listas/conducta", "/cuenta",
             "/patrullas", f"/patrullas/{s['check']}"]
    staff = ["/armadores", "/inspecciones", f"/inspecciones/{s['started']}", f"/inspecciones/{s['submitted']}",
             f"/inspecciones/{s['submitted']}/informe", "/certificados", f"/certificados/{number}"]
    admin = ["/buques/nuevo", f"/buques/{s['vessel']}/editar", "/armadores/nuevo",
             f"/armadores/{s['owner']}/editar", "/usuarios", "/listas/cobertura"]
    return {
        "anonymous": ["/login", *public],
        "police": [*fleet, *public, "/patrulla"],
        "owner": [*fleet, *staff],
        "inspector": ["/agenda", *fleet, *staff],
        "admin": [*fleet, *staff, *admin],
    }[role]


def sign_in(page, origin: str, role: str) -> None:
    """Sign in through the login form as the user holding `role`."""
    if role == "anonymous":
        return
    sign_in_as(page, origin, next(name for name, r in USERS.items() if r == role), PASSWORD)


@pytest.mark.parametrize("role", ["anonymous", "police", "owner", "inspector", "admin"])
def test_every_page_passes_axe_and_has_one_h1(site, browser, role):
    """No serious or critical axe-core violation, exactly one <h1>, no request for /favicon.ico."""
    context = browser.new_context(viewport=PHONE, locale="es-PY")
    page = context.new_page()
    sign_in(page, site["origin"], role)
    problems = {}
    for n, path in enumerate(pages_for(role, site)):
        start = len(site["hits"])
        # The browser asks for a favicon after the load; every page has base.html's icon links, so waiting for
        # the network to settle (half a second a page) is needed on the first page only.
        response = open_page(page, site["origin"] + path, wait_until="load" if n else "networkidle")
        assert response.status in (200, 400), f"{role} {path}: {response.status}"
        found = axe_violations(page)
        headings = page.locator("h1").count()
        if headings != 1:
            found.append(f"{headings} <h1> elements")
        if n == 0 and "/favicon.ico" in site["hits"][start:]:
            found.append("asked for the missing /favicon.ico")
        if found:
            problems[path] = found
    context.close()
    assert not problems, "\n".join(f"{role} {path}: {p}" for path, ps in problems.items() for p in ps)


def test_police_land_on_the_verifier_and_find_it_in_the_navigation(site, browser):
    """Issue 8, defect 11: river police start at /verificar, not at the vessel list."""
    context = browser.new_context(viewport=PHONE, locale="es-PY")
    page = context.new_page()
    sign_in(page, site["origin"], "police")
    assert page.url == f"{site['origin']}/verificar"
    page.goto(f"{site['origin']}/buques")
    page.click("header nav >> text=Verificar")
    assert page.url == f"{site['origin']}/verificar"
    page.goto(site["origin"] + "/")
    assert page.url == f"{site['origin']}/verificar"
    context.close()


def test_text_is_compressed_and_images_are_not(site):
    """HTML and JSON travel gzip-compressed to a client that accepts it; a PNG goes as it is."""
    def fetch(path):
        request = urllib.request.Request(site["origin"] + path, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request) as response:
            return response.headers.get("Content-Encoding"), response.read()

    encoding, body = fetch("/verificar")
    assert encoding == "gzip" and b"<h1>" in gzip.decompress(body)
    assert fetch("/api/v1/openapi.json")[0] == "gzip"
    assert fetch("/static/icons/icon-192.png")[0] is None


@pytest.mark.parametrize("size_name, viewport", [("tablet", TABLET), ("phone", PHONE)])
def test_the_most_used_pages_fit_and_speak_the_chosen_language(site, browser, size_name, viewport):
    """The pages people use most, in both languages at tablet and phone width: in the page's language, with a
    heading, and nothing wider than the screen (a sideways scroll hides a verdict or a button)."""
    shots = {"inspector": [("inspeccion", f"/inspecciones/{site['started']}")],
             "admin": [("certificados", "/certificados"), ("certificado", f"/certificados/{site['issued']['number']}"),
                       ("buque", f"/buques/{site['vessel']}"), ("inspecciones", "/inspecciones"),
                       ("informe", f"/inspecciones/{site['submitted']}/informe")],
             "anonymous": [("v_valido", f"/v/{site['issued']['token']}"),
                           ("v_suspendido", f"/v/{site['suspended']['token']}"), ("login", "/login"),
                           ("verificar", f"/verificar#t={site['issued']['token']}")]}
    wrong = []
    for role, pages in shots.items():
        context = browser.new_context(viewport=viewport, locale="es-PY")
        page = context.new_page()
        sign_in(page, site["origin"], role)  # once per role: every address below names its language
        for lang, (name, path) in product(("es", "en"), pages):
            path = path.replace("#", f"?lang={lang}#") if "#" in path else f"{path}?lang={lang}"
            open_page(page, site["origin"] + path)
            if name == "verificar":
                page.wait_for_selector("#verdict[data-verdict]", timeout=10_000)
            seen = page.evaluate("""() => ({lang: document.documentElement.lang,
                h1: (document.querySelector('h1') || {}).textContent || '',
                wide: document.documentElement.scrollWidth - window.innerWidth,
                past: [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right
                      > window.innerWidth + 1 && e.parentElement.getBoundingClientRect().right <= window.innerWidth + 1)
                      .slice(0, 3).map(e => e.tagName + '.' + e.className)})""")
            if seen["lang"] != lang or not seen["h1"].strip() or seen["wide"] > 0:
                wrong.append((name, lang, seen))
        context.close()
    assert wrong == []


def test_a_chosen_date_reads_in_the_page_language_on_an_english_tablet(site, browser):
    """The native picker shows the browser's "12/01/2026"; beside it the page writes the date in words."""
    context = browser.new_context(viewport=TABLET, locale="en-US")
    page = context.new_page()
    sign_in(page, site["origin"], "admin")
    page.goto(f"{site['origin']}/inspecciones?lang=es", wait_until="load")
    page.click("#programar summary")
    field = page.locator("input[name=scheduled_on]")
    field.fill("")
    assert page.locator("input[name=scheduled_on] + output.date-words").inner_text() == ""
    field.fill("2026-12-01")
    assert page.locator("input[name=scheduled_on] + output.date-words").inner_text() == "1 de diciembre de 2026"
    page.locator("input[name=date_from]").fill("2027-02-28")
    assert page.locator("input[name=date_from] + output.date-words").inner_text() == "28 feb. 2027"
    assert "1 de diciembre de 2026" in page.locator("label", has=field).inner_text()  # part of its label
    shoot(page, "baliza_tablet_fecha_en_navegador.png")
    page.goto(f"{site['origin']}/inspecciones?lang=en&date_from=2026-12-01", wait_until="load")
    assert page.locator("input[name=date_from] + output.date-words").inner_text() == "Dec 1, 2026"
    context.close()


def test_the_phone_layout_fits(site, browser):
    """At 412 px: no sideways scrolling, certificate numbers whole, a two-line header, name apart from Salir."""
    context = browser.new_context(viewport=PHONE, locale="es-PY")
    page = context.new_page()
    sign_in(page, site["origin"], "admin")
    for path in ("/certificados", "/inspecciones", f"/buques/{site['vessel']}", f"/v/{site['issued']['token']}",
                 f"/inspecciones/{site['submitted']}/informe", f"/inspecciones/{site['submitted']}/informe?lang=en"):
        page.goto(site["origin"] + path, wait_until="load")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path
    page.goto(f"{site['origin']}/certificados?lang=es", wait_until="load")
    number = page.locator(f"a:text-is('{site['issued']['number']}')")
    line = page.evaluate("(a) => parseFloat(getComputedStyle(a).lineHeight)", number.element_handle())
    assert number.bounding_box()["height"] < 1.5 * line  # one line, not "SEG-/2026-/000001-/5"
    assert page.locator("header.top").bounding_box()["height"] < 100
    name = page.locator("header .top-right a", has_text="jefa").bounding_box()
    out = page.locator("header .top-right button", has_text="Salir").bounding_box()
    assert out["x"] - (name["x"] + name["width"]) >= 8
    context.close()


SMALL_PHONE = {"width": 390, "height": 844}
SCROLLS_SIDEWAYS = """[...document.querySelectorAll('header, header *, .tabs')]
    .filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.tagName + '.' + el.className)"""


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_admin_header_and_tabs_fit_a_390_px_phone(site, browser, lang):
    """Eleven sections fold under "Menú": neither the page nor the header nor the tabs scroll sideways."""
    context = browser.new_context(viewport=SMALL_PHONE, locale="es-PY")
    page = context.new_page()
    sign_in(page, site["origin"], "admin")
    menu = page.locator("header details.menu")
    for path in ("/flota", "/buques", "/tablero", f"/buques/{site['vessel']}/listas/seguridad"):
        page.goto(f"{site['origin']}{path}?lang={lang}", wait_until="load")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path
        assert page.evaluate(SCROLLS_SIDEWAYS) == [], path  # before: the nav (986 px) and the tabs (813 px)
        assert page.locator("header.top").bounding_box()["height"] < 100, path  # two lines, closed
        assert not menu.locator("nav a").first.is_visible()
    tabs = page.locator("nav.tabs a")
    assert tabs.count() >= 3 and all(tabs.nth(n).bounding_box()["height"] >= 44 for n in range(tabs.count()))
    menu.locator("summary").click()
    links = menu.locator("nav a")
    assert links.count() == 12 and all(links.nth(n).is_visible() for n in range(12))  # Refrendos joined (issue 24)
    assert small_targets(page) == [] and page.evaluate(SCROLLS_SIDEWAYS) == []
    shoot(page, f"baliza_phone390_menu_{lang}.png")
    links.nth(1).click()  # Solicitudes
    page.wait_for_load_state()
    assert page.url.startswith(f"{site['origin']}/solicitudes")
    context.close()


def test_the_sections_stay_in_the_header_at_tablet_and_desktop_width(site, browser):
    """From 601 px the menu is always open and its button hidden: the links as they were, one click away; staff's
    eleven sections under the brand and the account, the header three lines at most (it took four, 208 px)."""
    for viewport in (TABLET, {"width": 1024, "height": 768}, {"width": 1180, "height": 820}):
        context = browser.new_context(viewport=viewport, locale="es-PY")
        page = context.new_page()
        sign_in(page, site["origin"], "admin")
        page.goto(f"{site['origin']}/buques", wait_until="load")
        assert not page.locator("header details.menu summary").is_visible()
        assert page.locator("header.top").bounding_box()["height"] < 150, viewport
        brand, account = page.locator("header .brand").bounding_box(), page.locator("header .top-right").bounding_box()
        assert abs(brand["y"] - account["y"]) < 10 and page.locator("header nav a").first.bounding_box()["y"] > brand["y"]
        page.locator("header nav a", has_text="Certificados").click()
        page.wait_for_load_state()
        assert page.url == f"{site['origin']}/certificados"
        context.close()
