"""The police verifier as an installable web app: /verificar, its service worker and manifest.

The page is public (river police check certificates on board, often without signal): no login,
and nothing on it but what the signed token says. The service worker is served from the root
so it controls the whole app (docs/style.md), and its cache name carries a hash of every file it
precaches, so a deploy that changes any of them installs a fresh worker and drops the old cache.
"""
import base64
import hashlib
import json
import posixpath
import re
from functools import cache, lru_cache
from pathlib import Path

from babel.messages.extract import extract
from flask import Blueprint, Response, current_app, render_template, send_from_directory

from checklists import load_catalog
from inspection.i18n.labels import TERMS
from inspection.i18n.language import current_language, term, translate
from inspection.web.security import policy_for, with_webassembly

bp = Blueprint("pwa", __name__)

BUILD_MARKER = "__BUILD__"
INTEGRITY_MARKER = "{/*__INTEGRITY__*/}"
# The files the service worker may take from the HTTP cache, each with its Subresource Integrity digest.
INTEGRITY_FOLDERS = ("js", "vendor", "css", "icons")
# Everything the service worker precaches or renders into /verificar: a change to any of them
# must change the worker's bytes, or browsers would keep serving the old copies offline.
VERSIONED = (
    "static/sw.js",
    "static/manifest.webmanifest",
    "static/js",
    "static/vendor",
    "static/css",
    "static/icons",
    "templates/base.html",
    "templates/verify",
    "templates/offline.html",
    "checklists/restrictions.toml",
    "templates/tablet",
    "inspection/i18n/translations/en",
)
_build_cache: dict[tuple, str] = {}


def _versioned_files(root: Path) -> list[Path]:
    """The files behind VERSIONED, in a stable order."""
    files = []
    for name in VERSIONED:
        path = root / name
        files.extend(sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path])
    return [p for p in files if p.is_file()]


def build_id(root: Path) -> str:
    """A short hash over the versioned files; recomputed only when one of them changes."""
    files = _versioned_files(root)
    signature = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    if signature not in _build_cache:
        digest = hashlib.sha256()
        for path in files:
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
        _build_cache.clear()
        _build_cache[signature] = digest.hexdigest()[:12]
    return _build_cache[signature]


@lru_cache(maxsize=1)
def integrity_map(root: Path, build: str) -> str:
    """{url path: "sha256-…"} of the static files, as JSON: the worker's install takes a copy the page already
    fetched (in the HTTP cache) only when its bytes are this build's. `build` keys the cache (build_id)."""
    static = root / "static"
    files = [p for folder in INTEGRITY_FOLDERS for p in sorted((static / folder).rglob("*")) if p.is_file()]
    digests = {f"/static/{p.relative_to(static).as_posix()}": p for p in files}
    digests["/manifest.webmanifest"] = static / "manifest.webmanifest"
    return json.dumps({url: "sha256-" + base64.b64encode(hashlib.sha256(path.read_bytes()).digest()).decode()
                       for url, path in digests.items()}, separators=(",", ":"))


@cache
def script_messages(path: Path) -> tuple[str, ...]:
    """The Spanish strings a script marks with gettext('...') or N_('...'), read as pybabel does (babel.cfg),
    inside `${...}` of template strings too."""
    with path.open("rb") as source:
        found = extract("javascript", source, keywords={"gettext": None, "N_": None},
                        options={"parse_template_string": True})
        return tuple(dict.fromkeys(message for _line, message, _comments, _context in found))


def script_strings(*names: str) -> dict[str, str]:
    """The page language's translations of the scripts' strings, for the page's JSON data block."""
    lang = current_language()
    static = Path(current_app.static_folder)
    messages = [m for name in names for m in script_messages(static / name)]
    return {m: translate(m, lang) for m in messages if translate(m, lang) != m}


def restriction_words(lang: str) -> dict[str, str]:
    """Each restriction's token code and its words with the article that orders it, for the offline verifier."""
    restrictions = load_catalog().context.restrictions.values()
    return {r.code: f"{getattr(r, f'label_{lang}')} ({r.source}, art. {r.article})" for r in restrictions}


@bp.route("/verificar")
def verificar():
    """The scanner and offline verifier for river police (Spanish first, `?lang=en`)."""
    offices = {current_app.config["OFFICE_CODE"]: current_app.config["OFFICE_NAME"]}
    strings = script_strings("js/verificar.js", "js/verdicts.js")
    response = current_app.make_response(render_template("verify/verificar.html", offices=offices, strings=strings,
                                                         office_tz=current_app.config["OFFICE_TZ"],
                                                         restrictions=restriction_words(current_language())))
    # Revalidate every time: the service worker keeps the offline copy, not the HTTP cache.
    response.headers["Cache-Control"] = "no-cache"
    response.vary.update(("Cookie", "Accept-Language"))
    # Its QR photo reader is WebAssembly (static/js/qr-photo.js); every other page keeps the plain policy.
    response.headers["Content-Security-Policy"] = with_webassembly(policy_for(current_app.config))
    return response


@bp.route("/sin-conexion")
def offline():
    """What the service worker shows for a page that needs the network when there is none: what still works
    offline (the tablet's inspections, the police verifier), in the page's language (`?lang=`); public, no records."""
    response = current_app.make_response(render_template("offline.html"))
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.after_app_request
def say_language(response):
    """Every page names its language, so the service worker answers offline in the one the user reads."""
    if response.mimetype == "text/html" and "Content-Language" not in response.headers:
        response.headers["Content-Language"] = current_language()
    return response


@bp.route("/sw.js")
def service_worker():
    """The service worker, from the root with scope `/`, stamped with the current build."""
    root = Path(current_app.root_path)
    source = (root / "static" / "sw.js").read_text(encoding="utf-8")
    build = build_id(root)
    body = source.replace(BUILD_MARKER, build).replace(INTEGRITY_MARKER, integrity_map(root, build))
    return Response(body, mimetype="text/javascript", headers={
        "Service-Worker-Allowed": "/",
        "Cache-Control": "no-cache",
    })


@bp.route("/manifest.webmanifest")
def manifest():
    """The web app manifest (name, start URL, icons) so phones can install the verifier."""
    response = send_from_directory(
        current_app.static_folder, "manifest.webmanifest", mimetype="application/manifest+json"
    )
    response.headers["Cache-Control"] = "no-cache"
    return response


SCRIPTS = tuple(f"js/tablet/{name}.js" for name in (
    "agenda", "app", "aboard", "backoff", "engine", "errors", "inspection", "net", "outbox", "photos", "queue", "rules",
    "screen", "signature", "store", "sync", "uploads")) + ("js/i18n.js",)


SHOWN_TERMS = ("kind", "status", "outcome", "result", "action", "standing")
IMPORT = re.compile(r"""^import\s[^'";]*?from\s+['"]([^'"]+)['"]""", re.MULTILINE)


@cache
def module_graph(entry: str) -> tuple[str, ...]:
    """The URLs of every module `entry` (a static path) imports, deeply: the page preloads them all at once
    instead of discovering them level by level (three round trips through the service worker)."""
    static = Path(current_app.static_folder)
    found, todo = [], [f"/static/{entry}"]
    while todo:
        module = todo.pop()
        for target in IMPORT.findall((static / module.removeprefix("/static/")).read_text(encoding="utf-8")):
            url = posixpath.normpath(posixpath.join(posixpath.dirname(module), target))
            if url not in found:
                found.append(url)
                todo.append(url)
    return tuple(sorted(found))


def tablet_page(template: str, status: int = 200):
    """A tablet shell in the user's language; never cached by HTTP (the service worker keeps its copy)."""
    terms = {group: {value: term(group, value) for value in TERMS[group]} for group in SHOWN_TERMS}
    response = current_app.make_response((render_template(template, strings=script_strings(*SCRIPTS), terms=terms),
                                          status))
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Baliza-Shell"] = "1"
    response.vary.update(("Cookie", "Accept-Language"))
    return response
