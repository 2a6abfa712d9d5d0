"""The police verifier as an installable web app: /verificar, its service worker and manifest.

The page is public (river police check certificates on board, often without signal): no login,
and nothing on it but what the signed token says. The service worker is served from the root
so it controls the whole app (docs/style.md), and its cache name carries a hash of every file it
precaches, so a deploy that changes any of them installs a fresh worker and drops the old cache.

Static files are fingerprinted: every URL the pages and the worker use carries `?v=` and the file's content hash
and is served `immutable` for a year, so the worker's install takes what the page just fetched from the HTTP cache
instead of asking again, and a deploy changes the URLs. A module's imports are rewritten to fingerprinted URLs (its
hash covers theirs), so a module graph is one fetch per file in the pages and in the worker alike: an import map
would not reach the worker, which imports the sync engine.

A page whose module graph is big loads it as one script instead (BUNDLES, `bundle`): two dozen module requests cost the
tablet more than the bytes (issue 22).
"""
import hashlib
import posixpath
import re
from dataclasses import dataclass
from collections.abc import Callable
from functools import cache
from pathlib import Path

from babel.messages.extract import extract
from flask import Blueprint, Response, current_app, render_template, request, send_from_directory

from checklists import load_catalog
from inspection.i18n.labels import TERMS
from inspection.i18n.language import current_language, term, translate
from inspection.web.security import policy_for, with_webassembly

bp = Blueprint("pwa", __name__)

BUILD_MARKER = "__BUILD__"
IMMUTABLE = "public, max-age=31536000, immutable"
# A module's import specifier (`import … from '…'`, `export … from '…'`, `import '…'`), to be fingerprinted.
SPECIFIER = re.compile(r"""^((?:import|export)\s[^'";]*?\sfrom\s*|import\s*)(['"])([^'"]+)\2""", re.MULTILINE)
# A static file named in the worker's source ('/static/…' or the manifest), to be fingerprinted there.
NAMED_IN_WORKER = re.compile(r"'/(static/[^'?]+|manifest\.webmanifest)'")
# A static file named in the manifest (its icons).
NAMED_IN_MANIFEST = re.compile(r'"/static/([^"?]+)"')
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
    "templates/patrol/phone.html",
    "inspection/i18n/translations/en",
)
_build_cache: dict[tuple, str] = {}
# The bundles served (as static paths) and the entry module each holds with all it imports.
BUNDLES = {"js/tablet/inspection.bundle.js": "js/tablet/inspection.js"}


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
    built = _build_cache.get(signature)
    if built is None:  # returned from here, not read back: another thread may clear the cache meanwhile
        digest = hashlib.sha256()
        for path in files:
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
        built = digest.hexdigest()[:12]
        _build_cache.clear()
        _build_cache[signature] = built
    return built


@dataclass(frozen=True)
class Asset:
    """A static file as served: its fingerprint, and its bytes when they are not the file's (a rewritten module)."""

    version: str
    body: bytes | None = None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _imported(module: str, specifier: str) -> str | None:
    """The static path (relative to static/) a module's import names, or None when it names no static file."""
    url = posixpath.normpath(posixpath.join(posixpath.dirname(f"/static/{module}"), specifier))
    return url.removeprefix("/static/") if specifier.startswith((".", "/static/")) else None


def fingerprint_files(static: Path) -> dict[str, Asset]:
    """Every static file (path relative to `static`) with its fingerprint; each module with its imports pointed at
    their fingerprinted URLs (and the manifest with its icons'), so its hash changes with any file it names. An
    import cycle is refused."""
    files = {p.relative_to(static).as_posix(): p for p in sorted(static.rglob("*")) if p.is_file()}
    assets: dict[str, Asset] = {}

    def fingerprint(name: str, importers: tuple[str, ...] = ()) -> Asset:
        if name in importers:
            raise ValueError(f"an import cycle: {' -> '.join((*importers, name))}")
        if name not in assets:
            data = files[name].read_bytes()
            named = SPECIFIER if name.endswith(".js") else NAMED_IN_MANIFEST if name.endswith(".webmanifest") else None

            def pinned(match: re.Match) -> str:
                if named is NAMED_IN_MANIFEST:
                    return f'"/static/{match[1]}?v={fingerprint(match[1]).version}"' if match[1] in files else match[0]
                target = _imported(name, match[3])
                if target not in files:
                    return match[0]
                return f"{match[1]}{match[2]}/static/{target}?v={fingerprint(target, (*importers, name)).version}{match[2]}"

            rewritten = named.sub(pinned, data.decode("utf-8")).encode("utf-8") if named else data
            assets[name] = Asset(_digest(rewritten), rewritten if rewritten != data else None)
        return assets[name]

    for name in files:
        fingerprint(name)

    def resolve(module: str, specifier: str) -> str | None:
        target = _imported(module, specifier)
        return target if target in files else None

    for name, entry in BUNDLES.items():
        if entry in files:
            body = bundle(entry, lambda module: files[module].read_text(encoding="utf-8"), resolve).encode("utf-8")
            assets[name] = Asset(_digest(body), body)
    return assets


# --- one script for a module graph ------------------------------------------------------------------------------------
# One module script for a page's whole module graph, so the tablet loads one file instead of two dozen (issue 22).
#
# Each module of the graph keeps its own scope: its body runs inside a function of its own, in the order the browser
# would evaluate the modules (depth first, imports in source order, each once), and hands its exports on as a frozen
# object; an import becomes a `const` read from that object. Names cannot collide across modules, and `this`, strict
# mode and evaluation order stay those of modules. Copied bindings equal live ones only for bindings never reassigned,
# so the bundler takes only what it can prove is that: exports declared `const`, `function` or `class` (a function or
# class the module assigns to again is refused), or re-exported imports. Anything else (`export let`, a default export,
# `export *`, `export … from`, `import.meta`, `import()`, an `await` opening a line at the top level, an import of a
# name its module does not export, a cycle, a specifier outside static/) is refused with the reason, never bundled
# wrongly.

# One import statement at the start of a line (a line comment may follow): its clause (none for `import './x.js'`)
# and its specifier.
IMPORT_STATEMENT = re.compile(r"""^import\s*(?:([^'";]*?)\s*from\s*)?(['"])([^'"]+)\2[ \t]*;?[ \t]*(?://[^\n]*)?$""",
                              re.MULTILINE)
# A declaration exported at the start of a line.
EXPORT_DECLARATION = re.compile(r"^export\s+(?=(?:async\s+function\b|function\b|class\b|const\b))", re.MULTILINE)
DECLARED = re.compile(r"^(?:async\s+)?(?:function\s*\*?|class|const)\s*(\{[^}]*\}|[A-Za-z_$][\w$]*)", re.MULTILINE)
# `export { a, b as c };`, names already in the module's scope.
EXPORT_LIST = re.compile(r"^export\s*\{([^}]*)\}\s*;?[ \t]*$", re.MULTILINE)
JS_NAME = re.compile(r"^[A-Za-z_$][\w$]*$")
UNBUNDLABLE = (
    (re.compile(r"^export\s+(?:let|var)\b", re.MULTILINE), "an exported let or var (a live binding)"),
    (re.compile(r"^export\s+default\b", re.MULTILINE), "a default export"),
    (re.compile(r"^export\s*\*", re.MULTILINE), "export *"),
    (re.compile(r"^export\s*\{[^}]*\}\s*from\b", re.MULTILINE), "export … from"),
    (re.compile(r"\bimport\s*\.\s*meta\b"), "import.meta"),
    (re.compile(r"\bimport\s*\("), "a dynamic import()"),
    (re.compile(r"^(?:(?:const|let|var)\s[^=\n]*=\s*)?await\b", re.MULTILINE), "a top-level await"),
)
BUNDLE_PREFIX = "__bundled_"
# After a name: an assignment to it (`=`, `+=`, `??=`, …), not a comparison or an arrow.
ASSIGNED = r"\s*(?:[-+*/%&|^]|\*\*|<<|>>>?|&&|\|\||\?\?)?=(?![=>])"


class Unbundlable(ValueError):
    """A module graph the bundler cannot turn into one script without changing what it does."""


def _pairs(names: str, where: str) -> list[tuple[str, str]]:
    """`a, b as c` as (a, a), (b, c): (name in the source, name seen by the other side)."""
    pairs = []
    for part in filter(None, (p.strip() for p in names.split(","))):
        inner, _, outer = (s.strip() for s in part.partition(" as "))
        outer = outer or inner
        if not (JS_NAME.match(inner) and JS_NAME.match(outer)):
            raise Unbundlable(f"{where}: cannot read the names {part!r}")
        pairs.append((inner, outer))
    return pairs


def _declared(rest: str, where: str) -> list[str]:
    """The names an exported declaration (the text after `export `) binds."""
    found = DECLARED.match(rest)
    if not found:
        raise Unbundlable(f"{where}: cannot read the exported declaration {rest[:40]!r}")
    name = found[1]
    if not name.startswith("{"):
        return [name]
    outer = []
    for part in filter(None, (p.strip() for p in name[1:-1].split(","))):
        if not JS_NAME.match(part):  # a renaming, default or rest pattern: not read here
            raise Unbundlable(f"{where}: cannot read the exported pattern {name!r}")
        outer.append(part)
    return outer


def _module(name: str, source: str) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]], str]:
    """A module's imports (clause, specifier, statement), its exports (local name, exported name), and its body
    with the import and export syntax taken out."""
    for pattern, what in UNBUNDLABLE:
        if pattern.search(source):
            raise Unbundlable(f"{name}: {what}")
    if BUNDLE_PREFIX in source:
        raise Unbundlable(f"{name}: uses the bundler's prefix {BUNDLE_PREFIX}")
    imports = [(m[1] or "", m[3], m[0]) for m in IMPORT_STATEMENT.finditer(source)]
    exports: list[tuple[str, str]] = []
    for m in EXPORT_LIST.finditer(source):
        exports += _pairs(m[1], name)
    body = EXPORT_LIST.sub("", IMPORT_STATEMENT.sub("", source))
    for m in EXPORT_DECLARATION.finditer(body):
        declared = _declared(body[m.end():], name)
        if not body[m.end():].startswith("const"):  # a const cannot be assigned again, in a module or here
            reassigned = [n for n in declared if re.search(rf"(?<![\w$.]){re.escape(n)}{ASSIGNED}", body)]
            if reassigned:
                raise Unbundlable(f"{name}: assigns to its export {reassigned[0]} (a live binding)")
        exports += [(n, n) for n in declared]
    body = EXPORT_DECLARATION.sub("", body)
    if re.search(r"^(?:import|export)\b", body, re.MULTILINE):
        raise Unbundlable(f"{name}: an import or export statement the bundler cannot read")
    return imports, exports, body


def bundle(entry: str, read: Callable[[str], str], resolve: Callable[[str, str], str | None]) -> str:
    """The module script that does what `entry` and its imports do. `read(name)` gives a module's source, and
    `resolve(name, specifier)` the name of the module a specifier names (None: not one of ours, refused)."""
    order: list[str] = []
    parsed: dict[str, tuple] = {}

    def visit(name: str, importers: tuple[str, ...]) -> None:
        if name in importers:
            raise Unbundlable(f"an import cycle: {' -> '.join((*importers, name))}")
        if name in parsed:
            return
        parsed[name] = _module(name, read(name))
        for _clause, specifier, _statement in parsed[name][0]:
            target = resolve(name, specifier)
            if target is None:
                raise Unbundlable(f"{name}: {specifier!r} names no module of ours")
            visit(target, (*importers, name))
        order.append(name)

    visit(entry, ())
    variable = {name: f"{BUNDLE_PREFIX}{k}" for k, name in enumerate(order)}
    exported = {name: {outer for _inner, outer in parsed[name][1]} for name in order}
    parts = [f"// {entry} and the modules it imports, one scope each (inspection/web/pwa.py bundle).\n"]
    for name in order:
        imports, exports, body = parsed[name]
        lines = []
        for clause, specifier, _statement in imports:
            target = resolve(name, specifier)
            lines.append(_binding(name, clause, variable[target], exported[target], target))
        values = ", ".join(inner if inner == outer else f"{outer}: {inner}" for inner, outer in exports)
        parts.append(f"// --- {name}\nconst {variable[name]} = (() => {{\n{''.join(lines)}{body.rstrip()}\n"
                     f"return Object.freeze({{ {values} }});\n}})();\n")
    return "".join(parts)


def _binding(name: str, clause: str, variable: str, offered: set[str], target: str) -> str:
    """The `const` line an import clause becomes (nothing for a bare `import './x.js'`)."""
    clause = clause.strip()
    if not clause:
        return ""
    if clause.startswith("*"):
        alias = clause[1:].strip().removeprefix("as").strip()
        if not JS_NAME.match(alias):
            raise Unbundlable(f"{name}: cannot read the import {clause!r}")
        return f"const {alias} = {variable};\n"
    if not (clause.startswith("{") and clause.endswith("}")):
        raise Unbundlable(f"{name}: a default import ({clause!r})")
    pairs = _pairs(clause[1:-1], name)  # (the name it exports, the name here)
    missing = sorted(exported for exported, _local in pairs if exported not in offered)
    if missing:
        raise Unbundlable(f"{name}: {target} exports no {', '.join(missing)}")
    names = ", ".join(exported if exported == local else f"{exported}: {local}" for exported, local in pairs)
    return f"const {{ {names} }} = {variable};\n"


_assets_cache: dict[tuple, dict[str, Asset]] = {}


def static_assets() -> dict[str, Asset]:
    """The app's fingerprinted static files: read once per process; in debug, again whenever a file changes."""
    static = Path(current_app.static_folder)
    key: tuple = (str(static),)
    if current_app.debug:
        key += tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(static.rglob("*")) if p.is_file())
    assets = _assets_cache.get(key)
    if assets is None:  # returned from here, not read back: another thread may clear the cache meanwhile
        assets = fingerprint_files(static)
        _assets_cache.clear()
        _assets_cache[key] = assets
    return assets


def fingerprinted(url: str) -> str:
    """`url` (/static/… or /manifest.webmanifest) with this build's ?v= of its file; unchanged for any other."""
    name = "manifest.webmanifest" if url == "/manifest.webmanifest" else url.removeprefix("/static/")
    asset = static_assets().get(name) if name != url else None
    return f"{url}?v={asset.version}" if asset else url


def add_fingerprint(endpoint: str, values: dict) -> None:
    """url_for('static', …) and the manifest's URL carry the file's fingerprint (Flask's url_defaults)."""
    name = values.get("filename") if endpoint == "static" else "manifest.webmanifest" if endpoint == "pwa.manifest" else None
    asset = static_assets().get(name) if name else None
    if asset and "v" not in values:
        values["v"] = asset.version


def cache_for(name: str, response: Response) -> Response:
    """A year, immutable, for the URL of this build's fingerprint; otherwise revalidated every time (an old page's
    or an unversioned URL gets today's file, which must not be kept as that version)."""
    asset = static_assets().get(name)
    response.headers["Cache-Control"] = IMMUTABLE if asset and request.args.get("v") == asset.version else "no-cache"
    return response


def static_file(filename: str):
    """A static file (Flask's `static` endpoint): a module with its imports fingerprinted, anything else as it is."""
    return cache_for(filename, send_asset(filename))


def send_asset(filename: str, mimetype: str | None = None) -> Response:
    """A static file's bytes as served: rewritten (fingerprinted names) when they differ from the file's."""
    asset = static_assets().get(filename)
    if asset is None or asset.body is None:
        return send_from_directory(current_app.static_folder, filename, mimetype=mimetype)
    response = Response(asset.body, mimetype=mimetype or "text/javascript")
    response.set_etag(asset.version)
    return response.make_conditional(request)


def serve_fingerprinted(state) -> None:
    """Fingerprinted URLs from url_for, and the static files served with their caching (see the module's docstring)."""
    state.app.url_defaults(add_fingerprint)
    state.app.view_functions["static"] = static_file


bp.record_once(serve_fingerprinted)


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
    body = NAMED_IN_WORKER.sub(lambda m: f"'{fingerprinted('/' + m[1])}'", source.replace(BUILD_MARKER, build_id(root)))
    response = Response(body, mimetype="text/javascript", headers={
        "Service-Worker-Allowed": "/",
        "Cache-Control": "no-cache",
    })
    response.set_etag(_digest(body.encode("utf-8")))  # the browser's update check gets a 304 when nothing changed
    return response.make_conditional(request)


@bp.route("/manifest.webmanifest")
def manifest():
    """The web app manifest (name, start URL, icons) so phones can install the verifier."""
    return cache_for("manifest.webmanifest", send_asset("manifest.webmanifest", "application/manifest+json"))


SCRIPTS = tuple(f"js/tablet/{name}.js" for name in (
    "agenda", "app", "aboard", "backoff", "engine", "errors", "inspection", "net", "outbox", "photos", "position", "queue",
    "rules", "screen", "signature", "store", "sync", "uploads")) + ("js/i18n.js",)


SHOWN_TERMS = ("kind", "status", "outcome", "result", "action", "standing")
IMPORT = re.compile(r"""^import\s[^'";]*?from\s+['"]([^'"]+)['"]""", re.MULTILINE)


def module_graph(entry: str) -> tuple[str, ...]:
    """The fingerprinted URLs of every module `entry` (a static path) imports, deeply: the page preloads them all at
    once instead of discovering them level by level (three round trips through the service worker)."""
    return tuple(fingerprinted(url) for url in imported_modules(entry))


@cache
def imported_modules(entry: str) -> tuple[str, ...]:
    """The URLs (unversioned) of every module `entry` imports, deeply."""
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


def tablet_page(template: str, status: int = 200, scripts: tuple[str, ...] = SCRIPTS, **context):
    """A device shell (the tablet's, the police phone's) in the user's language, with the words of its `scripts`;
    never cached by HTTP (the service worker keeps its copy)."""
    terms = {group: {value: term(group, value) for value in TERMS[group]} for group in SHOWN_TERMS}
    response = current_app.make_response((render_template(template, strings=script_strings(*scripts), terms=terms,
                                                           **context), status))
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Baliza-Shell"] = "1"
    response.vary.update(("Cookie", "Accept-Language"))
    return response
