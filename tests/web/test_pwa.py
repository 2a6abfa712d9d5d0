"""The installable app: the public verifier page, the root-scoped module service worker, the manifest."""
import hashlib
import io
import json
import os
import re
import shutil
from pathlib import Path, PurePosixPath

import pytest
from PIL import Image

from inspection.i18n.language import translate
from inspection.web.pwa import build_id, fingerprint_files

ROOT = Path(__file__).resolve().parents[2]
CACHE_NAME = re.compile(r"""const CACHE = '(baliza-v\d+-[0-9a-f]{12})';""")


def listed(sw_source: str, name: str) -> list[str]:
    """The URLs of one of the worker's arrays (STATIC: every visitor's precache; VERIFIER: the police pages')."""
    return re.findall(r"'([^']+)'", re.search(rf"const {name} = \[(.*?)\];", sw_source, re.DOTALL).group(1))


def precached(sw_source: str) -> list[str]:
    """The URLs the worker may keep: the verifier page, the STATIC and the VERIFIER arrays."""
    page = re.search(r"const PAGE = '([^']+)';", sw_source).group(1)
    return [page, *listed(sw_source, "STATIC"), *listed(sw_source, "VERIFIER")]


def unversioned(urls) -> set[str]:
    """The URLs without their fingerprint (`?v=…`)."""
    return {url.split("?v=")[0] for url in urls}


@pytest.mark.parametrize("lang, html_lang, heading, button", [
    ("es", "es", "Verificar certificado", "Escanear código QR"),
    ("en", "en", "Verify a certificate", "Scan QR code"),
])
def test_verifier_page_needs_no_login(client, lang, html_lang, heading, button):
    response = client.get(f"/verificar?lang={lang}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert f'<html lang="{html_lang}" ' in html
    assert heading in html and button in html
    assert 'rel="manifest" href="/manifest.webmanifest?v=' in html
    assert re.search(r'type="module" src="/static/js/verificar\.js\?v=[0-9a-f]{16}"', html)
    assert response.headers["Cache-Control"] == "no-cache"


def test_verifier_page_knows_the_office_names(client, app):
    html = client.get("/verificar").get_data(as_text=True)
    offices = json.loads(re.search(r"data-offices='([^']*)'", html).group(1))
    assert offices == {app.config["OFFICE_CODE"]: app.config["OFFICE_NAME"]}


def test_service_worker_controls_the_whole_app(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.headers["Service-Worker-Allowed"] == "/"
    assert response.mimetype in ("text/javascript", "application/javascript")
    assert response.headers["Cache-Control"] == "no-cache"
    source = response.get_data(as_text=True)
    assert CACHE_NAME.search(source), "the cache name must carry a version"
    assert "__BUILD__" not in source
    again = client.get("/sw.js", headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304  # the browser's update check, when nothing changed


def test_everything_the_worker_precaches_is_served(client):
    source = client.get("/sw.js").get_data(as_text=True)
    urls = precached(source)
    assert {"/verificar", "/static/js/verificar.js", "/static/js/verifier.js", "/static/vendor/jsQR.js",
            "/manifest.webmanifest"} <= unversioned(urls)
    for url in urls:
        assert client.get(url).status_code == 200, url


def test_tablets_precache_none_of_the_verifier_and_every_file_is_fingerprinted(client):
    """The verifier's 1.3 MB (decoders, lists, page) is kept for police pages only; each static file the worker keeps
    is named with the hash of the bytes served under that name and served immutable there, so the worker's install
    takes the page's copy from the HTTP cache; the bare name is revalidated, and so is a stale fingerprint."""
    source = client.get("/sw.js").get_data(as_text=True)
    tablet, verifier = set(listed(source, "STATIC")), set(listed(source, "VERIFIER"))
    assert not tablet & verifier and "/static/vendor/jsQR.js" in unversioned(verifier)
    assert {"/static/vendor/zxing_reader.wasm", "/static/js/verifier.js"} <= unversioned(verifier)
    for url in tablet | verifier:
        bare, version = url.split("?v=")
        response = client.get(url)
        assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable", url
        assert hashlib.sha256(response.data).hexdigest()[:16] == version, url
        assert client.get(bare).headers["Cache-Control"] == "no-cache", bare
        assert client.get(f"{bare}?v=0123456789abcdef").headers["Cache-Control"] == "no-cache", bare


def test_a_module_names_its_imports_fingerprinted_and_changes_with_them(tmp_path):
    """A module's fingerprint covers the modules it reaches: a change two imports down gives the page new URLs."""
    (tmp_path / "js" / "tablet").mkdir(parents=True)
    (tmp_path / "vendor").mkdir()
    (tmp_path / "js/i18n.js").write_text("export const gettext = (t) => t;\n")
    (tmp_path / "vendor/idb.js").write_text("export const openDB = () => null;\n")
    (tmp_path / "js/tablet/store.js").write_text("import { openDB } from '/static/vendor/idb.js';\n"
                                                 "import {\n  gettext,\n} from '../i18n.js';\n")
    (tmp_path / "js/tablet/app.js").write_text("import * as store from './store.js';\nexport { store };\n")
    first = fingerprint_files(tmp_path)
    store = first["js/tablet/store.js"].body.decode()
    assert f"from '/static/vendor/idb.js?v={first['vendor/idb.js'].version}';" in store
    assert f"}} from '/static/js/i18n.js?v={first['js/i18n.js'].version}';" in store
    assert first["js/i18n.js"].body is None  # nothing to rewrite: served from the file
    (tmp_path / "js/i18n.js").write_text("export const gettext = (t) => t.trim();\n")
    second = fingerprint_files(tmp_path)
    assert second["js/tablet/app.js"].version != first["js/tablet/app.js"].version
    assert second["vendor/idb.js"].version == first["vendor/idb.js"].version
    (tmp_path / "js/i18n.js").write_text("import './tablet/app.js';\n")
    with pytest.raises(ValueError, match="import cycle"):
        fingerprint_files(tmp_path)


def test_a_fingerprinted_file_is_the_same_for_everyone(app, make_user, login_as):
    """Signed in, a fingerprinted file still carries no `Vary: Cookie` nor a cookie: the copy the worker's install
    fetched before the sign-in serves the signed-in page too."""
    client = login_as(make_user("inspector"))
    with app.test_request_context():
        from flask import url_for
        url = url_for("static", filename="js/tablet/app.js")
    response = client.get(url)
    assert response.status_code == 200 and "?v=" in url
    assert "Cookie" not in response.headers.get("Vary", "") and "Set-Cookie" not in response.headers
    assert "/static/js/tablet/store.js?v=" in response.get_data(as_text=True)


@pytest.mark.parametrize("lang, heading, works", [
    ("es", "Sin conexión", "Sin señal funcionan:"), ("en", "Offline", "Without signal, these work:")])
def test_the_offline_page_says_what_works_without_signal_in_each_language(client, lang, heading, works):
    response = client.get(f"/sin-conexion?lang={lang}")
    assert response.status_code == 200 and response.headers["Content-Language"] == lang
    html = response.get_data(as_text=True)
    assert f"<h1>{heading}</h1>" in html and works in html
    assert 'href="/agenda"' in html and f'href="/verificar?lang={lang}"' in html
    source = client.get("/sw.js").get_data(as_text=True)
    assert "const OFFLINE = '/sin-conexion';" in source and "`${OFFLINE}?lang=${lang}`" in source


def test_every_page_names_its_language_for_the_worker(client):
    assert client.get("/login?lang=en").headers["Content-Language"] == "en"
    assert client.get("/login").headers["Content-Language"] == "en"  # the session keeps it
    assert "Content-Language" not in client.get("/sw.js").headers


def test_the_photo_qr_reader_works_offline_from_this_origin(client):
    """The police page's photo decoder and its WebAssembly are precached, and the .wasm is served as such."""
    decoder = {"/static/js/qr-photo.js", "/static/vendor/zxing-reader.js", "/static/vendor/zxing_reader.wasm"}
    assert decoder <= unversioned(precached(client.get("/sw.js").get_data(as_text=True)))
    wasm = client.get("/static/vendor/zxing_reader.wasm")
    assert wasm.mimetype == "application/wasm"  # what WebAssembly.instantiateStreaming insists on
    assert wasm.data[:4] == b"\0asm"
    page = client.get("/verificar").get_data(as_text=True)
    assert re.search(r'data-zxing-wasm="/static/vendor/zxing_reader\.wasm\?v=\w+"', page) and "cdn" not in page.lower()


def test_build_id_changes_with_any_precached_file(tmp_path):
    for name in ("static/sw.js", "static/manifest.webmanifest", "static/js/verificar.js",
                 "templates/verify/verificar.html"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    first = build_id(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{12}", first) and build_id(tmp_path) == first
    page = tmp_path / "templates/verify/verificar.html"
    page.write_text(page.read_text() + "\n<!-- changed -->\n")
    assert build_id(tmp_path) != first


def test_manifest(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.mimetype == "application/manifest+json"
    manifest = json.loads(response.get_data(as_text=True))
    assert manifest["name"].startswith("Baliza") and manifest["id"] == "/"
    # one app: "/" sends each user where they work (inspectors to their agenda, police to the verifier)
    assert manifest["start_url"] == "/" and manifest["scope"] == "/" and manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        served = client.get(icon["src"])
        assert served.status_code == 200, icon["src"]
        with Image.open(io.BytesIO(served.data)) as image:
            assert image.format == "PNG" and f"{image.width}x{image.height}" == icon["sizes"]


def module_graph(*entries: str) -> set[str]:
    """Every module URL the entry modules import, followed through relative and absolute imports."""
    root = Path(__file__).resolve().parents[2]
    found, todo = set(), list(entries)
    while todo:
        url = todo.pop()
        found.add(url)
        source = (root / url.lstrip("/")).read_text()
        for target in re.findall(r"^import [^;]*? from '([^']+\.js)';", source, re.M | re.S):
            resolved = str(PurePosixPath(url).parent / target) if target.startswith(".") else target
            resolved = os.path.normpath(resolved)
            if resolved not in found:
                todo.append(resolved)
    return found


def test_the_worker_precaches_every_module_the_pages_import(client):
    """Offline, a module import the worker never cached fails and the page never starts (the inspection screen loads
    one bundle instead, tests/web/test_bundle.py)."""
    imports = module_graph("/static/js/verificar.js", "/static/js/tablet/agenda.js", "/static/js/pwa.js")
    assert {"/static/js/formats.js", "/static/js/i18n.js", "/static/vendor/idb.js",
            "/static/js/tablet/sync.js", "/static/js/tablet/uploads.js"} <= imports
    assert imports <= unversioned(precached(client.get("/sw.js").get_data(as_text=True)))


def test_the_worker_sends_the_outbox_on_background_sync(client):
    """A module worker importing the sync engine, listening for the outbox's Background Sync tag."""
    source = client.get("/sw.js").get_data(as_text=True)
    assert re.search(r"import \{ syncNow \} from '/static/js/tablet/sync\.js\?v=[0-9a-f]{16}';", source)
    assert "addEventListener('sync'" in source and "const OUTBOX_TAG = 'baliza-outbox';" in source
    assert "const LOCK = 'baliza-outbox';" in (Path(__file__).resolve().parents[2]
                                               / "static/js/tablet/sync.js").read_text()


def test_the_verifier_words_come_from_the_catalog(client):
    """The script's Spanish strings, translated from messages.po into a JSON data block (no inline code)."""
    english = client.get("/verificar?lang=en").get_data(as_text=True)
    block = re.search(r'<script type="application/json" id="strings">(.*?)</script>', english, re.S)
    strings = json.loads(block.group(1))
    assert strings["NO CONFIRMADO"] == "NOT CONFIRMED"
    assert strings["queda 1 día"] == "1 day left"
    assert strings["Certificado auténtico y vigente."] == translate("Certificado auténtico y vigente.", "en")
    spanish = client.get("/verificar?lang=es").get_data(as_text=True)
    assert '<script type="application/json" id="strings">{}</script>' in spanish


def test_the_worker_keeps_the_verifier_in_every_language(client):
    """The install fetches without cookies (so no Set-Cookie can sign anyone out), hence one copy per language."""
    from inspection.i18n.messages import LANGUAGES

    source = client.get("/sw.js").get_data(as_text=True)
    listed = re.search(r"const LANGUAGES = \[([^\]]*)\];", source).group(1)
    assert tuple(re.findall(r"'(\w+)'", listed)) == LANGUAGES
    assert "credentials: 'omit'" in source
    for lang in LANGUAGES:
        assert f'<html lang="{lang}" ' in client.get(f"/verificar?lang={lang}").get_data(as_text=True)


def test_strings_inside_template_literals_reach_the_page_too():
    """`${gettext('Sin conexión')} · …` in the tablet's badge: read as pybabel reads babel.cfg, so English pages say "Offline"."""
    from inspection.web.pwa import script_messages

    static = Path(__file__).resolve().parents[2] / "static"
    badge = script_messages(static / "js/tablet/app.js")
    assert {"Sin conexión", "Al día", "{n} pendientes", "Próximo intento: {when}"} <= set(badge)
    assert "válido hasta el {day}" in script_messages(static / "js/tablet/inspection.js")
    assert translate("Sin conexión", "en") == "Offline"
