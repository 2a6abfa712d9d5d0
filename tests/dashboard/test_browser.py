"""The dashboard in Debian's Chromium: four SVG charts drawn with a size, no serious axe-core violation,
screenshots at phone and desktop width in BALIZA_SCREENSHOTS when it is set (look at them).

The fleet is bench/scale.py's seed at a small size (bulk rows, the same shape as the scale bench).
"""

import pytest

from bench import scale
from tests.browser_kit import BROWSER_MARKS, axe_script, axe_violations, browser, shoot  # noqa: F401 (browser: the fixture)
from tests.live_site import live_app

pytestmark = BROWSER_MARKS
axe_script()  # skips the module without axe-playwright-python
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    base = tmp_path_factory.mktemp("dashboard")
    with live_app(base, "browser-dashboard", "baliza-dashboard") as (app, origin, _):
        scale.seed({"DATABASE_URL": app.config["SQLALCHEMY_DATABASE_URI"], "SECRET_KEY": "seed",
                    "KEYS_DIR": str(base / "keys"), "MEDIA_DIR": str(base / "media")},
                   vessels=40, inspections=400, answered=40)
        yield origin


@pytest.mark.parametrize("size", SIZES)
def test_the_charts_render(site, browser, size):
    context = browser.new_context(viewport=SIZES[size], locale="es-PY")
    page = context.new_page()
    page.goto(f"{site}/login")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", scale.PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_load_state()
    page.goto(f"{site}/tablero", wait_until="load")
    charts = page.locator("svg.chart:visible")  # each chart is drawn twice (wide, narrow); the CSS shows one
    # four charts of inspections and the patrols' months (their three bar charts have no check to draw here)
    assert charts.count() == 5 and page.locator("svg.chart").count() == 10
    assert charts.first.get_attribute("class") == ("chart chart-narrow" if size == "phone" else "chart chart-wide")
    for n in range(5):
        box = charts.nth(n).bounding_box()
        assert box and box["width"] > 200 and box["height"] > 50, box
        assert charts.nth(n).locator("polyline, rect").count() > 0  # something drawn in each (lines, bars, cells)
        assert box["x"] + box["width"] <= SIZES[size]["width"]  # nothing runs off the screen
    # the text as drawn: its font size in the SVG's units times the SVG's scale (rotated labels too)
    sizes = page.evaluate("""[...document.querySelectorAll('svg.chart text')].filter((t) => t.getClientRects().length)
        .map((t) => { const m = t.getScreenCTM(); return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b); })""")
    assert len(sizes) > 20 and min(sizes) >= 12, min(sizes)  # 7.4 px on a phone before the narrow drawing
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    violations = axe_violations(page)
    assert not violations, "\n".join(violations)
    shoot(page, f"dashboard_{size}.png", full_page=True)
    context.close()
