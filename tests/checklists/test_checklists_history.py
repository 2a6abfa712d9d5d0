"""Frozen checklist versions (checklists/history): the diff between two, and the guard against silent edits."""
import json
import shutil

import pytest

from checklists import ChecklistError, history, load_catalog
from checklists.loader import DATA_DIR


def item(item_id, **changes):
    """A snapshot item with every field, overridden by `changes`."""
    base = {"id": item_id, "title_es": f"Título {item_id}", "title_en": f"Title {item_id}", "source": "Ley 928/1927",
            "article": "141", "applies": "true", "required": None, "detainable": False, "evidence_required": False,
            "certificate": "navegabilidad"}
    return {**base, **changes}


def snap(*items, version="2026.1"):
    return {"kind": "navegabilidad", "version": version, "items": list(items)}


@pytest.mark.parametrize("name, old, new, added, removed, changed", [
    ("identical", [item("a"), item("b")], [item("a"), item("b")], [], [], {}),
    ("reordered only", [item("a"), item("b")], [item("b"), item("a")], [], [], {}),
    ("one added", [item("a")], [item("a"), item("b")], ["b"], [], {}),
    ("one removed", [item("a"), item("b")], [item("a")], [], ["b"], {}),
    ("quantity and rule changed", [item("a", required="crew")], [item("a", required="crew + 1", applies="crew > 0")],
     [], [], {"a": ["applies", "required"]}),
    ("quantity added", [item("a")], [item("a", required="2")], [], [], {"a": ["required"]}),
    ("legal basis and flags", [item("a")], [item("a", article="143", detainable=True, certificate="both")],
     [], [], {"a": ["article", "detainable", "certificate"]}),
    ("titles", [item("a")], [item("a", title_es="Nuevo", title_en="New")], [], [], {"a": ["title_es", "title_en"]}),
    ("an id renamed is a removal and an addition", [item("a")], [item("z")], ["z"], ["a"], {}),
])
def test_diff_snapshots(name, old, new, added, removed, changed):
    diff = history.diff_snapshots(snap(*old), snap(*new, version="2026.2"))
    assert [i["id"] for i in diff["added"]] == added
    assert [i["id"] for i in diff["removed"]] == removed
    assert {i["id"]: i["fields"] for i in diff["changed"]} == changed
    assert history.is_empty(diff) == (not (added or removed or changed))
    for entry in (*diff["added"], *diff["changed"]):
        assert entry["title_es"] == next(i for i in new if i["id"] == entry["id"])["title_es"]


@pytest.mark.parametrize("versions, current, previous", [
    (["2026.1", "2026.2"], "2026.3", "2026.2"),
    (["2026.1", "2026.2", "2026.3"], "2026.3", "2026.2"),
    (["2026.9", "2026.10"], "2026.11", "2026.10"),  # numeric, not alphabetical
    (["2026.1"], "2026.1", None),
    ([], "2026.1", None),
])
def test_previous_version(versions, current, previous):
    assert history.previous_version(dict.fromkeys(versions, {}), current) == previous


def test_every_current_version_is_frozen_as_it_stands():
    """The guard: each checklist's items equal its version's snapshot (else bump it and run `checklists freeze`)."""
    catalog = load_catalog()
    for kind in catalog.kinds:
        checklist = catalog.get(kind)
        frozen = catalog.history[kind].get(checklist.version)
        assert frozen is not None, f"{kind} {checklist.version} not frozen: run `flask --app app checklists freeze`"
        assert history.is_empty(history.diff_snapshots(frozen, history.snapshot(checklist))), kind


def test_earlier_versions_were_reconstructed_from_git():
    catalog = load_catalog()
    assert {"2026.1", "2026.2"} <= set(catalog.history["navegabilidad"])
    nav_2 = catalog.history["navegabilidad"]["2026.2"]["items"]
    location = next(i for i in nav_2 if i["id"] == "nav.pilots.cabin_location")
    assert location["required"] is None and location["applies"] == "pilot_cabins"


@pytest.fixture
def frozen_dir(data_dir):
    """A private data copy with its history."""
    shutil.copytree(DATA_DIR / history.HISTORY, data_dir / history.HISTORY)
    return data_dir


def change_a_title(directory):
    path = directory / "navegabilidad.toml"
    path.write_text(path.read_text(encoding="utf-8").replace(
        'title_es = "Camarotes de prácticos no usados como pañol o depósito"',
        'title_es = "Camarotes de prácticos libres de carga"', 1), encoding="utf-8")


def test_an_item_changed_without_a_version_bump_fails_the_load(frozen_dir):
    change_a_title(frozen_dir)
    version = load_catalog(frozen_dir, frozen=False).get("navegabilidad").version
    with pytest.raises(ChecklistError) as error:
        load_catalog(frozen_dir)
    message = str(error.value)
    assert message.startswith("navegabilidad.toml: ") and "nav.pilots.cabin_use" in message
    assert f"history/navegabilidad/{version}.json" in message
    assert "bump the version and run `flask --app app checklists freeze`" in message


def test_bump_and_freeze_then_the_page_data_shows_the_change(runner, frozen_dir):
    change_a_title(frozen_dir)
    path = frozen_dir / "navegabilidad.toml"
    old = load_catalog(frozen_dir, frozen=False).get("navegabilidad").version
    path.write_text(path.read_text(encoding="utf-8").replace(f'version = "{old}"', 'version = "2099.1"', 1),
                    encoding="utf-8")
    result = runner.invoke(args=["checklists", "check", "--dir", str(frozen_dir)])
    assert result.exit_code == 0 and "Aviso: navegabilidad 2099.1 no está congelada" in result.output
    result = runner.invoke(args=["checklists", "freeze", "--dir", str(frozen_dir)])
    assert result.exit_code == 0, result.output
    assert "navegabilidad 2099.1: written" in result.output and "seguridad" in result.output
    assert json.loads((frozen_dir / "history/navegabilidad/2099.1.json").read_text())["version"] == "2099.1"
    from checklists import checklist_versions
    nav = next(r for r in checklist_versions(load_catalog(frozen_dir)) if r["kind"] == "navegabilidad")
    assert nav["previous"] == old and nav["frozen"]
    assert [(i["id"], i["fields"]) for i in nav["changes"]["changed"]] == [("nav.pilots.cabin_use", ["title_es"])]


def test_freeze_refuses_to_rewrite_a_frozen_version_unless_told(runner, frozen_dir):
    change_a_title(frozen_dir)
    result = runner.invoke(args=["checklists", "freeze", "--dir", str(frozen_dir)])
    assert result.exit_code != 0 and "Suba la versión" in result.output and "--replace" in result.output
    with pytest.raises(ChecklistError):
        load_catalog(frozen_dir)
    result = runner.invoke(args=["checklists", "freeze", "--dir", str(frozen_dir), "--replace"])
    assert result.exit_code == 0 and ": replaced" in result.output
    assert load_catalog(frozen_dir).get("navegabilidad")
