"""Every page each role sees fits the screen, in Debian's Chromium at 390, 820 and 1366 px, in Spanish and English.

Issue 21, findings 3 and 10: the inspection report and the inspection page ran to 1,209–1,222 px on an 820 px
tablet (400 px on a 390 px phone), the planning board's load table was cut off, the dashboard clipped an axis
label and the coverage table overflowed a phone. Here the page never scrolls sideways and no element reaches past
the viewport's right edge, except inside an element that scrolls on purpose (a wide table in its own
`overflow-x:auto` wrapper); and no chart text reaches past its drawing, where the SVG would clip it.

One live server and one Chromium for the module; the state is built with the operations, with the long names
people really give (a vessel named for a saint and a city, a port with its terminal, an armador's full legal
name, an inspector's two surnames). One page per role loads each path once per language and is resized to each
width (a resize lays the page out again; no reload). Screenshots of the pages of the finding go to the folder
BALIZA_SCREENSHOTS names, when it is set.
"""
import uuid
from datetime import timedelta

import pytest

from inspection.core.clock import office_today
from inspection.core.extensions import db
from tests.browser_kit import BROWSER_MARKS, SHOTS, browser, shoot, sign_in  # noqa: F401 (browser: the fixture)
from tests.fleets import LATE_ON, NOW, PARTICULARS, PASSWORD, TODAY, submit_inspection
from tests.live_site import live_app

pytestmark = BROWSER_MARKS

WIDTHS = (390, 820, 1366)
HEIGHT = 900
LONG_PORT = "Puerto Villeta – Terminal Multimodal de Contenedores del Río Paraguay"
# What an inspector types: a note citing the resolution by its address (one 90-character word)
NOTE = "Ver https://www.mopc.gov.py/normativa/resolucion_2026_000123_extintores_portatiles_clase_ABC.pdf"
VESSELS = (  # registration, name, home port
    ("PY-ASU-000123", "Nuestra Señora de la Santísima Asunción del Paraguay", LONG_PORT),
    ("PY-CON-004567", "Aquidabán-Nigüí-Tebicuarymí-Paranapanemá", "Concepción"),
    ("PY-ENC-008901", "Yacaré Guazú", "Encarnación"),
)


def _build_state() -> dict:
    """An owner with a long name and three vessels: two inspected (report, certificate, deficiency, detention, a late
    application with its fine), one started, one scheduled; a suspended certificate; users of every role."""
    from inspection.accounts.users import create_user
    from inspection.certificates.operations import suspend_certificate
    from inspection.cycle.applications import apply_for_inspection
    from inspection.inspections.operations import detain_vessel, record_answer, schedule_inspection, start_inspection
    from inspection.registry.vessels import create_owner, create_vessel

    owner = create_owner({"name": "Compañía Fluvial Paraguaya de Transporte de Cargas y Pasajeros S.A.",
                          "tax_id": "80098765-4", "email": "administracion.flota@companiafluvialparaguaya.com.py",
                          "phone": None, "address": None})
    db.session.flush()
    users = {role: create_user(role, PASSWORD, role, owner_id=owner.id if role == "owner" else None,
                               full_name="Insp. María Auxiliadora Benítez Villalba" if role == "inspector" else "")
             for role in ("admin", "inspector", "owner", "police")}
    admin, inspector = users["admin"], users["inspector"]
    vessels = [create_vessel({**PARTICULARS, "registration": reg, "name": name, "home_port": port,
                              "owner_id": owner.id}) for reg, name, port in VESSELS]
    report, _, certificate = submit_inspection(admin, inspector, vessels[0], port=LONG_PORT, note=NOTE)
    _, _, suspended = submit_inspection(admin, inspector, vessels[1])
    suspend_certificate(admin, suspended, "Prohibición de zarpe hasta subsanar la deficiencia.", NOW)
    started = schedule_inspection(admin, vessels[1], "navegabilidad", inspector, TODAY, LONG_PORT, TODAY)
    start_inspection(inspector, started, NOW)
    for item in started.items[:3]:
        record_answer(inspector, started, item["id"], {
            "client_id": str(uuid.uuid4()), "result": "pass", "observed": item["required"], "note": NOTE,
            "recorded_at": NOW, "photos": [], "action": None}, NOW)
    scheduled = schedule_inspection(admin, vessels[2], "seguridad", inspector, office_today() + timedelta(days=9),
                                    LONG_PORT, TODAY)
    detain_vessel(admin, vessels[0], "Falta de extintores en la sala de máquinas y en la cocina.", NOW, report)
    apply_for_inspection(admin, vessels[0], "seguridad", LONG_PORT, LATE_ON, LATE_ON)
    db.session.commit()
    return {"report": report.id, "started": started.id, "scheduled": scheduled.id, "vessel": vessels[0].id,
            "owner": owner.id, "number": certificate.number, "token": certificate.token,
            "suspended": suspended.token}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with live_app(tmp_path_factory.mktemp("overflow"), "browser-overflow", "baliza-overflow") as (app, origin, _):
        with app.app_context():
            state = _build_state()
        yield {"origin": origin, **state}


def pages_for(role: str, s: dict) -> list[str]:
    """The pages the role opens, with real ids: the admin every page; the other roles the pages whose content is
    theirs (the owner's fleet and report form, the inspector's agenda and closing forms, the police verdicts), as the
    rest are the admin's pages under a shorter menu (tests/web/test_browser_pages.py opens those for every role)."""
    report, vessel = f"/inspecciones/{s['report']}/informe", f"/buques/{s['vessel']}"
    return {
        "admin": ["/buques", vessel, f"{vessel}/listas/seguridad", f"{vessel}/listas/navegabilidad", "/inspecciones",
                  f"/inspecciones/{s['report']}", report, f"/inspecciones/{s['started']}",
                  f"/inspecciones/{s['scheduled']}", "/certificados", f"/certificados/{s['number']}", "/solicitudes",
                  "/avisos", "/cuenta", "/flota", "/planificacion", "/tablero", "/listas/cobertura", "/armadores",
                  "/armadores/nuevo", f"/armadores/{s['owner']}/editar", "/buques/nuevo", f"{vessel}/editar",
                  "/usuarios"],
        "inspector": ["/agenda", report, f"/inspecciones/{s['started']}", "/planificacion"],
        "owner": ["/flota", report, vessel, f"/certificados/{s['number']}", "/solicitudes", "/solicitudes/nueva"],
        "police": ["/verificar", f"/v/{s['token']}", f"/v/{s['suspended']}", vessel, "/patrulla"],
        "anonymous": ["/login", f"/v/{s['token']}"],
    }[role]


# What reaches past the viewport's right (or left) edge and is not inside an element that scrolls sideways on
# purpose; only the outermost such element is named. The page's own width comes first.
OVERFLOW = """() => {
  const edge = window.innerWidth + 1;
  const scrollsOnPurpose = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX)
      && el.getBoundingClientRect().right <= edge;
  const insideScroller = (el) => { for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
      if (scrollsOnPurpose(a)) return true; return false; };
  const past = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && (r.right > edge || r.left < -1); };
  const named = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string'
      ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' ' + Math.round(el.getBoundingClientRect().right)
      + ' "' + (el.textContent || '').trim().slice(0, 40) + '"';
  const found = [...document.querySelectorAll('body *')]
      .filter((el) => past(el) && !past(el.parentElement)).filter((el) => !insideScroller(el))
      .slice(0, 4).map(named);
  return {width: document.documentElement.scrollWidth, found};
}"""

# Chart text the SVG clips: its box, as drawn (rotated labels too), reaching past the drawing's box.
CLIPPED_TEXT = """() => [...document.querySelectorAll('svg.chart')].filter((svg) => svg.getClientRects().length)
  .flatMap((svg) => { const box = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('text')].filter((t) => { const r = t.getBoundingClientRect();
      return r.left < box.left - .5 || r.right > box.right + .5 || r.top < box.top - .5 || r.bottom > box.bottom + .5; })
    .map((t) => `"${t.textContent.trim()}" in ${svg.getAttribute('aria-labelledby') || svg.className.baseVal}`); })"""

SHOOT = {"/planificacion", "/tablero"}


@pytest.mark.parametrize("role", ["admin", "inspector", "owner", "police", "anonymous"])
def test_no_page_runs_past_the_screen(site, browser, role):
    """At 390, 820 and 1366 px, in es and en: the page no wider than the screen, nothing past its edge outside a
    scroller, no chart text clipped."""
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": HEIGHT}, locale="es-PY")
    page = context.new_page()
    if role != "anonymous":
        sign_in(page, site["origin"], role, PASSWORD)
    wrong = []
    for path in pages_for(role, site):
        for lang in ("es", "en"):
            page.set_viewport_size({"width": WIDTHS[0], "height": HEIGHT})
            response = page.goto(f"{site['origin']}{path}?lang={lang}", wait_until="load")
            assert response.status == 200, f"{role} {path}: {response.status}"
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": HEIGHT})
                seen = page.evaluate(OVERFLOW)
                clipped = page.evaluate(CLIPPED_TEXT)
                if seen["width"] > width or seen["found"] or clipped:
                    wrong.append(f"{path} {lang} {width}px: page {seen['width']} px; past the edge {seen['found']};"
                                 f" clipped chart text {clipped}")
                if SHOTS and role == "admin" and lang == "es" and width < 1366 and (
                        path in SHOOT or path.startswith("/inspecciones/")):
                    name = path.strip("/").replace("/", "-") or "home"
                    tall = min(page.evaluate("document.documentElement.scrollHeight"), 4000)
                    shoot(page, f"layout-{name}-{width}.png", full_page=True,
                          clip={"x": 0, "y": 0, "width": width, "height": tall})
    context.close()
    assert not wrong, "\n".join(wrong)
