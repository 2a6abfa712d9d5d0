"""The documentation points only at what exists in this repository, and the README stays a newcomer's page.

Pure: reads Markdown files, no app, no database, no network. Checked in README.md, CHANGELOG.md and
docs/*.md, outside fenced code blocks:

* every Markdown link `[text](target)`: the file must exist inside the repository, an anchor `#x` must be
  produced by a heading of the target page (GitHub's slugs), and nothing may leave the repository (`../`
  past the root, an absolute path, or a URL such as `https://…`);
* every backticked relative path whose first segment is a top-level entry of the repository
  (`inspection/law/fees.py`, `docs/api.md`, `.ci/run`): it must exist. Patterns (`*`, `<kind>`) are not
  paths and are skipped.
"""
import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_README_LINES = 250
START_COMMAND = "pip install -r requirements.txt && python app.py"

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
PATH_LIKE = re.compile(r"^[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*/?$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def documents() -> list[Path]:
    """The pages checked: the README, the changelog and every page under docs/."""
    return [README, ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line outside fenced code blocks."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text without markup, lower case, punctuation dropped, spaces to -."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays, its target goes
    text = text.replace("`", "").replace("*", "").strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor the headings of a Markdown page produce (a repeated heading gets -1, -2, …)."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def inside_repository(path: Path) -> bool:
    """Whether a resolved path is the repository's root or below it."""
    return path == ROOT or ROOT in path.parents


def link_problem(page: Path, target: str) -> str | None:
    """Why a link's target is dead, or None when it is fine."""
    if not target:
        return "empty link"
    if SCHEME.match(target) or target.startswith("//"):
        return "leaves the repository (a URL)"
    if target.startswith("/"):
        return "leaves the repository (an absolute path)"
    file_part, _, anchor = target.partition("#")
    destination = (page.parent / file_part).resolve() if file_part else page
    if not inside_repository(destination):
        return "leaves the repository"
    if not destination.exists():
        return "no such file"
    if anchor:
        if destination.is_dir() or destination.suffix != ".md":
            return "an anchor into something that is not a Markdown page"
        if anchor not in anchors(destination):
            return f"no heading of {destination.relative_to(ROOT)} makes #{anchor}"
    return None


def top_level_names() -> set[str]:
    """The repository's top-level files and folders: a backticked path starting with one is a repo path."""
    return {entry.name for entry in ROOT.iterdir() if entry.name not in {".git", "instance"}}


def dead_references(page: Path) -> list[str]:
    """Every dead link and backticked path of one page, each as `page:line: what — why`."""
    top = top_level_names()
    name = page.relative_to(ROOT)
    dead = []
    for number, line in prose_lines(page.read_text(encoding="utf-8")):
        spans = [m.group(2).strip() for m in CODE_SPAN.finditer(line)]
        for target in LINK.findall(CODE_SPAN.sub("", line)):
            problem = link_problem(page, target)
            if problem:
                dead.append(f"{name}:{number}: link ({target}) — {problem}")
        for span in spans:
            if not PATH_LIKE.match(span) or span.split("/")[0] not in top:
                continue
            path = (ROOT / span).resolve()
            if not inside_repository(path) or not path.exists():
                dead.append(f"{name}:{number}: path `{span}` — no such file or folder")
    return dead


@pytest.mark.parametrize("page", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_and_path_in_the_docs_exists(page):
    assert page.exists(), f"{page.relative_to(ROOT)} is missing"
    dead = dead_references(page)
    assert not dead, "dead links or paths:\n" + "\n".join(dead)


def test_the_checker_finds_dead_links_and_paths(tmp_path):
    """The checker itself: a page full of dead references names each one, and a good page passes."""
    page = ROOT / "docs" / "api.md"
    assert link_problem(page, "security.md#refuse-before-you-read") is None
    assert link_problem(page, "../README.md") is None
    assert link_problem(page, "#the-tablet-app-offline") is None
    assert link_problem(page, "nowhere.md") == "no such file"
    assert "makes #nowhere" in link_problem(page, "security.md#nowhere")
    assert link_problem(page, "../../outside/api.md").startswith("leaves the repository")
    assert link_problem(page, "https://example.org/").startswith("leaves the repository")
    assert slug("The tablet app (offline)") == "the-tablet-app-offline"
    assert slug("Baliza's certificates as built") == "balizas-certificates-as-built"
    assert slug("When the server says wait: Retry-After") == "when-the-server-says-wait-retry-after"
    assert slug("`BALIZA_*` settings") == "baliza_-settings"


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines; move detail into docs/"


def ci_test_command() -> str:
    """The command .ci/run runs the whole suite with (the line that installs requirements-dev.txt)."""
    for line in (ROOT / ".ci" / "run").read_text().splitlines():
        if "requirements-dev.txt" in line and "pytest" in line and not line.lstrip().startswith("#"):
            return line.strip()
    raise AssertionError(".ci/run no longer installs requirements-dev.txt and runs pytest")


def test_readme_has_the_two_commands():
    """The app on SQLite with the demo, and the whole suite as CI runs it (CI only adds pip's -q)."""
    code = "\n".join(line for line in README.read_text(encoding="utf-8").splitlines() if not line.startswith("#"))
    assert START_COMMAND in code
    test_command = " ".join(word for word in ci_test_command().split() if word != "-q")
    assert test_command == "pip install -r requirements-dev.txt && python -m pytest"
    assert test_command in code
