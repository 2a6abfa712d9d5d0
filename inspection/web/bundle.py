"""One module script for a page's whole module graph, so the tablet loads one file instead of two dozen (issue 22).

Each module of the graph keeps its own scope: its body runs inside a function of its own, in the order the browser
would evaluate the modules (depth first, imports in source order, each once), and hands its exports on as a frozen
object; an import becomes a `const` read from that object. Names cannot collide across modules, and `this`, strict
mode and evaluation order stay those of modules. Copied bindings equal live ones only for bindings never reassigned,
so the bundler takes only what it can prove is that: exports declared `const`, `function` or `class` (a function or
class the module assigns to again is refused), or re-exported imports. Anything else (`export let`, a default export,
`export *`, `export … from`, `import.meta`, `import()`, an `await` opening a line at the top level, an import of a
name its module does not export, a cycle, a specifier outside static/) is refused with the reason, never bundled
wrongly.
"""
import posixpath
import re
from collections.abc import Callable

# One import statement at the start of a line (a line comment may follow): its clause (none for `import './x.js'`)
# and its specifier.
IMPORT = re.compile(r"""^import\s*(?:([^'";]*?)\s*from\s*)?(['"])([^'"]+)\2[ \t]*;?[ \t]*(?://[^\n]*)?$""",
                    re.MULTILINE)
# A declaration exported at the start of a line.
EXPORT_DECLARATION = re.compile(r"^export\s+(?=(?:async\s+function\b|function\b|class\b|const\b))", re.MULTILINE)
DECLARED = re.compile(r"^(?:async\s+)?(?:function\s*\*?|class|const)\s*(\{[^}]*\}|[A-Za-z_$][\w$]*)", re.MULTILINE)
# `export { a, b as c };`, names already in the module's scope.
EXPORT_LIST = re.compile(r"^export\s*\{([^}]*)\}\s*;?[ \t]*$", re.MULTILINE)
NAME = re.compile(r"^[A-Za-z_$][\w$]*$")
REFUSED = (
    (re.compile(r"^export\s+(?:let|var)\b", re.MULTILINE), "an exported let or var (a live binding)"),
    (re.compile(r"^export\s+default\b", re.MULTILINE), "a default export"),
    (re.compile(r"^export\s*\*", re.MULTILINE), "export *"),
    (re.compile(r"^export\s*\{[^}]*\}\s*from\b", re.MULTILINE), "export … from"),
    (re.compile(r"\bimport\s*\.\s*meta\b"), "import.meta"),
    (re.compile(r"\bimport\s*\("), "a dynamic import()"),
    (re.compile(r"^(?:(?:const|let|var)\s[^=\n]*=\s*)?await\b", re.MULTILINE), "a top-level await"),
)
PREFIX = "__bundled_"
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
        if not (NAME.match(inner) and NAME.match(outer)):
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
        if not NAME.match(part):  # a renaming, default or rest pattern: not read here
            raise Unbundlable(f"{where}: cannot read the exported pattern {name!r}")
        outer.append(part)
    return outer


def _module(name: str, source: str) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]], str]:
    """A module's imports (clause, specifier, statement), its exports (local name, exported name), and its body
    with the import and export syntax taken out."""
    for pattern, what in REFUSED:
        if pattern.search(source):
            raise Unbundlable(f"{name}: {what}")
    if PREFIX in source:
        raise Unbundlable(f"{name}: uses the bundler's prefix {PREFIX}")
    imports = [(m[1] or "", m[3], m[0]) for m in IMPORT.finditer(source)]
    exports: list[tuple[str, str]] = []
    for m in EXPORT_LIST.finditer(source):
        exports += _pairs(m[1], name)
    body = EXPORT_LIST.sub("", IMPORT.sub("", source))
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
    variable = {name: f"{PREFIX}{k}" for k, name in enumerate(order)}
    exported = {name: {outer for _inner, outer in parsed[name][1]} for name in order}
    parts = [f"// {entry} and the modules it imports, one scope each (inspection/web/bundle.py).\n"]
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
        if not NAME.match(alias):
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


def resolver(known: Callable[[str], bool]) -> Callable[[str, str], str | None]:
    """A `resolve` for static/: a relative or /static/ specifier, as a path relative to static/ that `known`."""
    def resolve(name: str, specifier: str) -> str | None:
        if not specifier.startswith((".", "/static/")):
            return None
        url = posixpath.normpath(posixpath.join(posixpath.dirname(f"/static/{name}"), specifier))
        target = url.removeprefix("/static/")
        return target if url.startswith("/static/") and known(target) else None
    return resolve
