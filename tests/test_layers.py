"""Dependencies point one way: api/ and views/ are two faces of the domain, and the pure modules stay pure."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "inspection"
PURE = ("tonnage", "fees", "outcomes", "evidence", "signing", "numbering", "status_list", "qrcodes",
        "certificate_pdf", "photos", "signatures", "storage", "storage_s3", "formats", "messages", "exceptions", "labels", "pins")
NOT_IN_PURE = ("flask", "flask_", "inspection.core.clock", "inspection.core.models", "inspection.core.extensions")


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, relative imports resolved to absolute names (`inspection.x`)."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)  # `from . import api`
    return found


def test_imports_are_resolved_relative_to_the_package():
    """The scanner itself: `from ..api.x import y` inside views is `inspection.blueprints_api.x`."""
    assert "inspection.accounts.access" in imported_modules(PACKAGE / "views" / "inspections.py")
    assert "inspection.core.extensions" in imported_modules(PACKAGE / "views" / "registry.py")
    assert "inspection.core.models" in imported_modules(PACKAGE / "access.py")


@pytest.mark.parametrize("face, other", [("views", "api"), ("api", "views")])
def test_api_and_views_do_not_import_each_other(face, other):
    """A page that needs what an endpoint computes gets it from the domain, never across (style: one way down)."""
    offenders = {path.name: sorted(m for m in imported_modules(path) if m.startswith(f"inspection.{other}"))
                 for path in sorted((PACKAGE / face).glob("*.py"))}
    assert {name: found for name, found in offenders.items() if found} == {}


def module_path(name: str) -> Path | None:
    """The file of an `inspection.*` module, or None for anything else (or a name inside a module)."""
    parts = name.split(".")
    if parts[0] != "inspection" or len(parts) < 2:
        return None
    path = PACKAGE.joinpath(*parts[1:])
    return path.with_suffix(".py") if path.with_suffix(".py").exists() else None


def imported_closure(name: str) -> dict[str, str]:
    """Every module reached from `inspection.<name>` through the package's own modules: {module: imported by}."""
    reached, todo = {}, [f"inspection.{name}"]
    while todo:
        current = todo.pop()
        for module in imported_modules(module_path(current)):
            if module not in reached:
                reached[module] = current
                if module_path(module) is not None:
                    todo.append(module)
    return reached


@pytest.mark.parametrize("name", PURE)
def test_pure_modules_import_no_flask_clock_or_database(name):
    """Values in, values out: no Flask, no clock, no tables, even through another module (docs/architecture.md: Faces and domain)."""
    reached = imported_closure(name)
    assert {m: by for m, by in reached.items() if m.startswith(NOT_IN_PURE)} == {}


CLOCK_READS = {"now", "today", "utcnow", "time", "time_ns", "monotonic"}


def clock_reads(path: Path) -> list[str]:
    """Every call of a method named in CLOCK_READS in a file (a clock read), with its line."""
    return [f"{path.name}:{node.lineno} {ast.unparse(node.func)}()"
            for node in ast.walk(ast.parse(path.read_text(), str(path)))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CLOCK_READS]


def test_clock_reads_are_found():
    """The scanner itself sees the office clock's own reads."""
    assert clock_reads(PACKAGE / "clock.py")


@pytest.mark.parametrize("name", PURE)
def test_pure_modules_read_no_clock(name):
    """`today` and `now` are parameters: the boundary reads the office's clock once and passes it down."""
    assert clock_reads(PACKAGE / f"{name}.py") == []
