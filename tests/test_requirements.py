"""requirements.lock pins every package the requirements files name, within their ranges, and the installs use it."""
import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
INPUTS = ("requirements.txt", "requirements-dev.txt")


def requirement_lines(name: str) -> list[str]:
    """A requirements file's lines without comments and blanks."""
    lines = (line.split(" #")[0].strip() for line in (ROOT / name).read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def locked() -> dict[str, str]:
    """{canonical name: pinned version} from requirements.lock."""
    pins = {}
    for line in requirement_lines("requirements.lock"):
        match = re.fullmatch(r"([A-Za-z0-9._-]+)==(\S+)", line)
        assert match, f"requirements.lock: not a plain pin: {line!r}"
        pins[canonicalize_name(match[1])] = match[2]
    return pins


@pytest.mark.parametrize("name", INPUTS)
def test_every_requirement_is_pinned_in_the_lock_within_its_range(name):
    pins = locked()
    for line in requirement_lines(name):
        if line.startswith("-"):
            continue
        requirement = Requirement(line)
        version = pins.get(canonicalize_name(requirement.name))
        assert version is not None, f"{requirement.name} ({name}) is not in requirements.lock: run bin/lock"
        assert requirement.specifier.contains(version, prereleases=True), \
            f"requirements.lock pins {requirement.name}=={version} outside {name}'s {requirement.specifier}: run bin/lock"
        for extra in requirement.extras:  # psycopg[binary] brings psycopg-binary, pinned as well
            assert canonicalize_name(f"{requirement.name}-{extra}") in pins


def test_both_install_commands_are_constrained_by_the_lock():
    assert "-c requirements.lock" in requirement_lines("requirements.txt")
    assert "-r requirements.txt" in requirement_lines("requirements-dev.txt")
