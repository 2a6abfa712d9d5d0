"""The layout's rules as a table: which package may import which, faces above the domain, pure modules pure.

Each rule is a row; a wrong import fails with the sentence of the rule it breaks and the file and line
that broke it. The scanner reads every import, at the top of a file or inside a function, as text.
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "inspection"

# Each package may import only those before it (and itself); checklists/ stands below them all.
ORDER = ("i18n", "law", "core", "media", "documents", "web", "accounts", "registry", "certificates", "cycle",
         "inspections", "review", "tablet", "patrol", "planning", "fleet", "notices", "dashboard", "ops")
# The faces of a package: HTTP in, HTTP out. Only inspection/blueprints.py gathers them.
FACES = ("api", "views")
# Values in, values out: no Flask, no clock, no tables, no configuration, even through another module.
PURE_PACKAGES = ("law",)
PURE_MODULES = ("i18n.formats", "i18n.messages", "i18n.labels", "core.exceptions", "media.photos", "media.places",
                "media.signatures", "media.storage", "media.storage_s3", "media.marks", "documents.certificate_pdf",
                "documents.pdf",
                "certificates.signing", "certificates.numbering", "certificates.status_list", "certificates.qrcodes",
                "inspections.outcomes", "inspections.evidence", "inspections.pins", "dashboard.charts")
NOT_IN_PURE = ("flask", "flask_", "inspection.core.clock", "inspection.core.models", "inspection.core.extensions",
               "inspection.core.config")
CLOCK_READS = {"now", "today", "utcnow", "time", "time_ns", "monotonic"}


def module_name(path: Path) -> str:
    """'inspection/core/models.py' -> 'inspection.core.models'."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, source: str | None = None) -> list[tuple[int, str]]:
    """Every module a file imports, with its line: `from a import b` counts as `a` and, for submodules, `a.b`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text() if source is None else source, str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}:{node.lineno} a relative import: write it whole (`from inspection...`)"
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names
                      if module_file(f"{node.module}.{alias.name}") is not None]
    return found


def module_file(name: str) -> Path | None:
    """The file of an `inspection.*` or `checklists.*` module, or None for anything else."""
    path = ROOT.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def package_of(name: str) -> str | None:
    """The capability package a module belongs to ('inspection.core.models' -> 'core'), None at the root."""
    parts = name.split(".")
    return parts[1] if len(parts) > 2 and parts[0] == "inspection" and parts[1] in ORDER else None


def broken_rules(path: Path, source: str | None = None) -> list[str]:
    """Every rule of the table one file breaks, each as a sentence naming the file, line and import."""
    me = module_name(path)
    mine = package_of(me) or package_of(f"{me}.__init__")  # a package's own __init__.py belongs to it
    if mine is None:  # the root: `__init__.py` says what the whole is, blueprints.py gathers every face
        return []
    face = me.rsplit(".", 1)[-1] in FACES
    out = []
    for line, name in imports_of(path, source):
        if not name.startswith("inspection."):
            continue
        where = f"{path.relative_to(ROOT)}:{line} imports {name}"
        theirs = package_of(name) or package_of(f"{name}.__init__")  # `inspection.core` is the package core
        if theirs is None:
            out.append(f"{where}: only app.py may reach the root's modules (blueprints.py gathers the faces)")
            continue
        if theirs != mine and ORDER.index(theirs) > ORDER.index(mine):
            out.append(f"{where}: {mine} comes before {theirs} in the order, so it may not import it "
                       f"(move the shared piece down, or take it as a value from the caller)")
        if name.rsplit(".", 1)[-1] in FACES and package_of(name):
            out.append(f"{where}: a face (api.py, views.py) is imported by blueprints.py alone; "
                       f"what two faces share lives in the domain")
        if name == "inspection.web.schemas" and not face and not me.endswith(".schemas") and me not in (
                "inspection.web.openapi", "inspection.web.forms", "inspection.web.api_common"):
            out.append(f"{where}: the base schemas serve the packages' schemas and faces, not the domain")
        if not face and not me.endswith(".schemas") and name.endswith(".schemas") and theirs != mine:
            out.append(f"{where}: a domain module uses its own package's schemas at most, never another's contract")
    return out


def python_files():
    return sorted(p for p in PACKAGE.rglob("*.py") if "translations" not in p.parts)


def test_every_module_lives_in_a_package():
    """Nothing but the face of the whole (`__init__.py`) and the one list of blueprints at the root."""
    assert sorted(p.name for p in PACKAGE.glob("*.py")) == ["__init__.py", "blueprints.py"]
    assert sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__") == sorted(ORDER)


@pytest.mark.parametrize("package", ORDER)
def test_each_package_is_small_and_says_what_it_is(package):
    """About a dozen modules at most, and a paragraph that says what the capability is."""
    modules = [p for p in (PACKAGE / package).glob("*.py") if p.name != "__init__.py"]
    assert 0 < len(modules) <= 12
    doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text()))
    assert doc and len(doc.split()) >= 15, f"inspection/{package}/__init__.py needs a paragraph saying what it holds"


@pytest.mark.parametrize("path", python_files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_table(path):
    """Packages import only those before them; faces are gathered by blueprints.py alone."""
    assert broken_rules(path) == []


@pytest.mark.parametrize("source, rule", [
    ("from inspection.web.errors import problem\n", "core comes before web in the order"),
    ("from inspection.fleet.overview import fleet_of\n", "core comes before fleet in the order"),
    ("def f():\n    from inspection.ops.demo import seed_demo\n", "core comes before ops in the order"),
])
def test_a_wrong_import_fails_with_its_rule(source, rule):
    """The table is live: the office's clock importing upward breaks the order, and says so."""
    broken = broken_rules(PACKAGE / "core" / "clock.py", source)
    assert len(broken) == 1 and rule in broken[0] and "inspection/core/clock.py" in broken[0]


def test_a_face_imported_by_another_module_fails_with_its_rule():
    """A view reaching into an API module (what the old api/uploads.py did) names the rule."""
    broken = broken_rules(PACKAGE / "tablet" / "views.py", "from inspection.inspections.api import blp\n")
    assert broken and "is imported by blueprints.py alone" in broken[0]


def test_a_read_model_using_another_packages_contract_fails():
    broken = broken_rules(PACKAGE / "fleet" / "overview.py", "from inspection.cycle.schemas import FineSchema\n")
    assert broken and "never another's contract" in broken[0]


def pure_targets():
    names = [f"inspection.{m}" for m in PURE_MODULES]
    names += [module_name(p) for pkg in PURE_PACKAGES for p in sorted((PACKAGE / pkg).glob("*.py"))
              if p.name != "__init__.py"]
    return names


def imported_closure(name: str) -> dict[str, str]:
    """Every module reached from `name` through the project's own modules: {module: imported by}."""
    reached, todo = {}, [name]
    while todo:
        current = todo.pop()
        for _, module in imports_of(module_file(current)):
            if module not in reached:
                reached[module] = current
                if module_file(module) is not None and module.startswith(("inspection.", "checklists")):
                    todo.append(module)
    return reached


@pytest.mark.parametrize("name", pure_targets())
def test_pure_modules_import_no_flask_clock_config_or_database(name):
    """Values in, values out: no Flask, no clock, no tables, no settings, even through another module."""
    reached = imported_closure(name)
    assert {m: by for m, by in reached.items() if m.startswith(NOT_IN_PURE)} == {}


def clock_reads(path: Path) -> list[str]:
    """Every call of a method named in CLOCK_READS in a file (a clock read), with its line."""
    return [f"{path.name}:{node.lineno} {ast.unparse(node.func)}()"
            for node in ast.walk(ast.parse(path.read_text(), str(path)))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CLOCK_READS]


def test_clock_reads_are_found():
    """The scanner itself sees the office clock's own reads."""
    assert clock_reads(PACKAGE / "core" / "clock.py")


@pytest.mark.parametrize("name", pure_targets())
def test_pure_modules_read_no_clock(name):
    """`today` and `now` are parameters: the boundary reads the office's clock once and passes it down."""
    assert clock_reads(module_file(name)) == []
