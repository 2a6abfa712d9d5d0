"""Frozen snapshots of each released checklist version (history/<kind>/<version>.json) and their diff.

An inspection pins a checklist version; the snapshot keeps what that version asked, so a later edit
without a version bump is caught (the loader compares the current items with their snapshot) and the
coverage page can say what changed from one version to the next. Pure: no Flask, no database.
"""

import json
import re
from collections.abc import Mapping
from pathlib import Path

HISTORY = "history"
# What an item asks and on what legal basis; a change to any of these is a new version.
FIELDS = ("title_es", "title_en", "source", "article", "clauses", "applies", "required", "maximum", "detainable",
          "evidence_required", "certificate", "foreign", "restriction", "fine")
RULES = ("applies", "required", "maximum")
VERSION = re.compile(r"^\d+(\.\d+)*$")


def version_key(version: str) -> tuple[int, ...]:
    """Sort key of a version such as "2026.3" (numeric parts, so 2026.10 follows 2026.9)."""
    if not VERSION.match(version):
        raise ValueError(f"version {version!r} is not numbers separated by dots")
    return tuple(int(part) for part in version.split("."))


def snapshot(checklist) -> dict:
    """The frozen form of a loaded checklist: kind, version and each item's FIELDS (rules as their source).

    A field an item does not use (no maximum; no clauses; a Paraguayan source, so not `foreign`; no restriction) is
    left out, so snapshots frozen before the field existed compare equal where nothing changed.
    """
    items = []
    for item in checklist.items:
        entry = {"id": item.id}
        for field in FIELDS:
            if field == "foreign":
                value = checklist.context.sources[item.source].foreign or None
            elif field == "clauses":
                value = list(item.clauses) or None
            elif field == "fine":
                value = item.fine.as_dict() if item.fine else None
            else:
                value = getattr(item, field)
                value = value.source if field in RULES and value is not None else value
            if value is not None:
                entry[field] = value
        items.append(entry)
    return {"kind": checklist.kind, "version": checklist.version, "items": items}


def snapshot_path(directory: str | Path, kind: str, version: str) -> Path:
    """Where the snapshot of `kind` at `version` lives under a data directory."""
    return Path(directory) / HISTORY / kind / f"{version}.json"


def read_snapshots(directory: str | Path, kind: str) -> dict[str, dict]:
    """Every frozen snapshot of `kind`, by version, oldest first (empty when none was frozen)."""
    folder = Path(directory) / HISTORY / kind
    found = {}
    for path in folder.glob("*.json") if folder.is_dir() else ():
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("kind") != kind or data.get("version") != path.stem:
            raise ValueError(f"{path.name}: kind and version must match the file's place ({kind}/{path.stem})")
        found[path.stem] = data
    return {version: found[version] for version in sorted(found, key=version_key)}


def previous_version(snapshots: Mapping[str, dict], version: str) -> str | None:
    """The newest frozen version older than `version`, or None."""
    older = [v for v in snapshots if version_key(v) < version_key(version)]
    return max(older, key=version_key) if older else None


def diff_snapshots(old: Mapping, new: Mapping) -> dict:
    """Items added, removed and changed (with the FIELDS that changed) from snapshot `old` to `new`."""
    before = {item["id"]: item for item in old["items"]}
    after = {item["id"]: item for item in new["items"]}

    def brief(item):
        return {"id": item["id"], "title_es": item["title_es"], "title_en": item["title_en"]}

    changed = []
    for item_id, item in after.items():
        if item_id in before:
            fields = [f for f in FIELDS if before[item_id].get(f) != item.get(f)]
            if fields:
                changed.append({**brief(item), "fields": fields})
    return {"added": [brief(i) for i in after.values() if i["id"] not in before],
            "removed": [brief(i) for i in before.values() if i["id"] not in after],
            "changed": changed}


def is_empty(diff: Mapping) -> bool:
    """True when a diff_snapshots() result records no change at all."""
    return not (diff["added"] or diff["removed"] or diff["changed"])


def write_snapshot(directory: str | Path, frozen: Mapping, replace: bool = False) -> str:
    """Write `frozen` to its place: "written", "unchanged", "replaced", or "differs" (left alone, no replace)."""
    path = snapshot_path(directory, frozen["kind"], frozen["version"])
    text = json.dumps(frozen, ensure_ascii=False, indent=1) + "\n"
    if path.exists():
        if json.loads(path.read_text(encoding="utf-8")) == json.loads(text):
            return "unchanged"
        if not replace:
            return "differs"
    status = "replaced" if path.exists() else "written"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return status
