"""What every browser test shares: its marks and skips, Chromium, and the axe-core and touch-target checks.

Only browser test modules import this: importing it skips the module when Python Playwright is missing
(tests/live_site.py, which other tests import, needs no Playwright). A module takes `pytestmark = BROWSER_MARKS`,
imports the `browser` fixture (module scope: one Chromium per test module), and calls `axe_script()` at import
when it runs axe-core, so it skips, rather than fails, without axe-playwright-python.
"""
import io
import os
from contextlib import contextmanager
from pathlib import Path

import pytest
from PIL import Image

from tests.live_site import ARGS, CHROMIUM, inject_axe

sync_api = pytest.importorskip("playwright.sync_api", reason="Python Playwright is not installed")

BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian Chromium is not installed at /usr/bin/chromium"),
]
BLOCKING = ("serious", "critical")
# Screenshots for a person to look at go to the folder this names; none is taken without it (CI), a full page
# costs up to a second.
SHOTS = Path(os.environ["BALIZA_SCREENSHOTS"]) if os.environ.get("BALIZA_SCREENSHOTS") else None
TARGETS = ("button, a[href], select, textarea, summary, label.choice, label.photo-button, canvas, "
           "input:not([type=radio]):not([type=file]):not([type=checkbox]):not([type=hidden])")


def axe_script() -> Path:
    """The axe.min.js that axe-playwright-python ships; skips the caller (at import: its module) without the package."""
    axe_package = pytest.importorskip("axe_playwright_python", reason="axe-playwright-python is not installed")
    return Path(axe_package.__file__).parent / "axe.min.js"


def open_page(page, url: str, wait_until: str = "load"):
    """Go to `url` and wait until the page is whole: loaded, and a tablet screen ready (it builds itself from the
    inspection it holds); the response."""
    response = page.goto(url, wait_until=wait_until)
    if page.locator("#inspection").count():
        page.wait_for_selector("#inspection[data-ready]", timeout=20_000)
    return response


def shoot(target, name: str, **options) -> None:
    """A screenshot of a page or an element as SHOTS/`name` when BALIZA_SCREENSHOTS is set; nothing otherwise."""
    if SHOTS:
        SHOTS.mkdir(parents=True, exist_ok=True)
        target.screenshot(path=str(SHOTS / name), **options)


def fake_camera_video(png: bytes, path: Path, size=(640, 480)) -> None:
    """One-frame YUV4MPEG2 video of the QR on white, which Chromium's fake camera loops."""
    qr = Image.open(io.BytesIO(png)).convert("L")
    side = min(size) - 40
    qr = qr.resize((side, side), Image.NEAREST)
    frame = Image.new("L", size, 255)
    frame.paste(qr, ((size[0] - side) // 2, (size[1] - side) // 2))
    w, h = size
    chroma = bytes([128]) * ((w // 2) * (h // 2))
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{w} H{h} F10:1 Ip A1:1 C420jpeg\n".encode())
        out.write(b"FRAME\n" + frame.tobytes() + chroma + chroma)


def fake_camera_args(video: Path) -> list[str]:
    """Chromium's arguments for a camera that shows `video` (fake_camera_video) and asks no permission."""
    return ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-video-capture={video}"]


@contextmanager
def chromium(*args: str):
    """Debian's Chromium, launched by Playwright with the test arguments and any `args` more; closed after."""
    with sync_api.sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS + list(args))
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the test module."""
    with chromium() as launched:
        yield launched


def axe_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page, one line each."""
    inject_axe(page, axe_script())
    found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']})).violations
        .map((v) => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' '))}))""")
    return [f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes'][:3]}" for v in found if v["impact"] in BLOCKING]


def small_targets(page, within: str = "") -> list[str]:
    """Visible targets (inside `within`, a selector, when given) smaller than 44 × 44 CSS px, as 'selector-ish text:
    w×h'."""
    selector = ", ".join(f"{within} {target.strip()}" for target in TARGETS.split(",")) if within else TARGETS
    return page.evaluate("""(selector) => [...document.querySelectorAll(selector)]
        .filter((el) => el.offsetParent !== null && getComputedStyle(el).visibility !== 'hidden')
        .map((el) => ({el, box: el.getBoundingClientRect()}))
        .filter(({box}) => box.width < 43.5 || box.height < 43.5)
        .map(({el, box}) => `${el.tagName.toLowerCase()}.${el.className} "${(el.textContent || el.name || '').trim().slice(0, 30)}": ${Math.round(box.width)}×${Math.round(box.height)}`)""",
                         selector)


def sign_in(page, origin: str, username: str, password: str) -> None:
    """Sign in through the login form; the page then shows the user's landing page."""
    page.goto(f"{origin}/login")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state()


def wait_until_kept(page, path: str, timeout: float = 30) -> None:
    """Until the service worker's caches hold `path` (a police page asks the worker to keep the verifier)."""
    import time

    deadline = time.monotonic() + timeout
    # a static file is kept under its fingerprinted URL (?v=…)
    while not page.evaluate("async (path) => !!(await caches.match(path, { ignoreSearch: true }))", path):
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never reached the worker's caches")
        page.wait_for_timeout(100)


def visit_online(page, url: str) -> None:
    """Open the police verifier with signal and wait until it works offline: the worker controls the page, both
    lists are stored and the worker has kept the verifier's page and decoders (a police page asks it to)."""
    page.goto(url)
    page.wait_for_function("() => navigator.serviceWorker.controller !== null"  # a function: the CSP refuses eval
                           " && document.getElementById('verificador').dataset.lists === 'fresh'", timeout=20_000)
    wait_until_kept(page, "/verificar")
    wait_until_kept(page, "/static/vendor/jsQR.js")
