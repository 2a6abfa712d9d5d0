"""What a police phone carries to check without signal: each list's patrol items for an unregistered craft of each
type, for every registered vessel the officer may meet, and for a vessel known only by its certificate's QR.

The lists are built through registry.vessel_checklists (the catalog and the installation's settings). Which items
apply is decided on the server only, by the checklists' own builder, once per set of the particulars a list reads
(checklists.patrol_particulars): the phone looks a vessel's lists up and evaluates no rule. The server pins the list
again when the check reaches it (checks.start_check), from the same particulars and builder, so both agree.
"""
import json
from functools import lru_cache

from flask import current_app

from checklists import exemption_particulars, load_catalog, patrol_particulars
from inspection.core.models import PATROL_CHECKLISTS, Vessel
from inspection.patrol.checks import craft_particulars
from inspection.registry.needs import exemption_for
from inspection.registry.vessel_checklists import bilingual_items, patrol_checklist_for
from inspection.registry.vessels import particulars_of, vessel_label

# What the phone does not show of an item: the law's text and clauses are on the check's page once it is sent.
UNSHOWN = ("text", "clauses", "restriction", "restriction_label", "restriction_label_en", "standing", "practice",
           "certificate", "foreign", "consequence")


def craft_types() -> tuple[str, ...]:
    """The craft a patrol meets unregistered, as checklists/craft.toml lists them."""
    return load_catalog().craft.types


def list_for(particulars: dict, kind: str) -> dict:
    """One patrol list for these particulars: {"items": [...]} in both languages, or {"exemption": {...}}."""
    spanish = patrol_checklist_for(particulars, kind, "es")
    if spanish["exempt"]:
        english = patrol_checklist_for(particulars, kind, "en")["exemption"]
        return {"exemption": {**spanish["exemption"], "reason_en": english["reason"]}}
    items = bilingual_items(spanish, patrol_checklist_for(particulars, kind, "en"), kind)
    return {"items": [{k: v for k, v in item.items() if k not in UNSHOWN} for item in items]}


def lists_for(particulars: dict) -> dict[str, dict]:
    """Each patrol list for these particulars (list_for), by kind."""
    return {kind: list_for(particulars, kind) for kind in PATROL_CHECKLISTS}


def unknown_vessel_lists() -> dict[str, dict]:
    """Each list's every patrol item, applicable or not, without quantities: what a phone offline shows for a
    vessel known only by its certificate's QR and not among the kit's vessels (registered after the phone last
    had signal). An item with a quantity is `counted` (the officer counts; the server checks the count against the
    vessel's bound). Items the server does not pin for that vessel are not sent."""
    catalog = load_catalog()
    lists = {}
    for kind in PATROL_CHECKLISTS:
        checklist = catalog.get(kind)
        topics = checklist.context.topics
        lists[kind] = {"items": [{
            "id": item.id, "checklist": kind, "title": item.title_es, "title_en": item.title_en, "topic": item.topic,
            "topic_title": topics[item.topic]["es"], "topic_title_en": topics[item.topic]["en"],
            "source": item.source, "article": item.article, "required": None, "maximum": None,
            "unit": item.unit_es, "unit_en": item.unit_en, "whole": item.whole, "detainable": item.detainable,
            "evidence_required": item.evidence_required, "fine": item.fine.as_dict() if item.fine else None,
            "counted": item.required is not None or item.maximum is not None, "preview": True} for item in checklist.items if item.id in checklist.patrol]}
    return lists


@lru_cache(maxsize=4096)
def _read_list(kind: str, read: tuple[tuple[str, object], ...], settings: tuple) -> dict:
    """list_for over the only particulars the list reads (`read`), kept for the process: the catalog does not change
    while it runs and the settings are part of the key, so a kept list is never stale. Not to be modified."""
    return list_for(dict(read), kind)


class _Profiles:
    """The kit's lists without repeats: each distinct item (with its bounds for a vessel) and exemption once, each
    distinct list once as indexes into them, each distinct set of lists (a profile) once as indexes into those.
    A list is built once per set of the particulars its kind reads (checklists.patrol_particulars; for a vessel its
    exemption exempts, those the exemption reads)."""

    def __init__(self):
        catalog = load_catalog()
        self.read = {kind: sorted(patrol_particulars(catalog.get(kind))) for kind in PATROL_CHECKLISTS}
        self.exempt_read = {kind: sorted(exemption_particulars(catalog.get(kind))) for kind in PATROL_CHECKLISTS}
        self.exempt = {kind: exemption_for(kind) for kind in PATROL_CHECKLISTS}
        self.settings = tuple(sorted((current_app.config.get("CHECKLIST_SETTINGS") or {}).items()))
        self.tables: dict[str, list] = {"items": [], "exemptions": [], "lists": [], "profiles": []}
        self._seen: dict[str, dict] = {name: {} for name in self.tables}
        self._built: dict[tuple, int] = {}

    def _index(self, name: str, value, key=None) -> int:
        """The index of `value` in the table `name` (told apart by `key`, else by its JSON), added when first seen."""
        key = json.dumps(value, sort_keys=True, default=str) if key is None else key
        if key not in self._seen[name]:
            self._seen[name][key] = len(self.tables[name])
            self.tables[name].append(value)
        return self._seen[name][key]

    def _list(self, particulars: dict, kind: str) -> int:
        """The index of the kind's list for these particulars; an exempt vessel's is its exemption's alone."""
        read = self.exempt_read[kind] if self.exempt[kind](particulars) else self.read[kind]
        key = (kind, tuple((name, particulars.get(name)) for name in read))
        if key not in self._built:
            found = _read_list(*key, self.settings)
            listed = ({"exemption": self._index("exemptions", found["exemption"])} if "exemption" in found
                      else {"items": [self._index("items", item) for item in found["items"]]})
            self._built[key] = self._index("lists", listed)
        return self._built[key]

    def profile(self, particulars: dict) -> int:
        """The index of the profile (a list per kind) these particulars get."""
        lists = {kind: self._list(particulars, kind) for kind in PATROL_CHECKLISTS}
        return self._index("profiles", lists, tuple(lists.values()))


def patrol_kit(vessels: list[Vessel]) -> dict:
    """The phone's lists: a profile per craft type (checklists/craft.toml) and per registered vessel (its id,
    label and registration only: the QR's registration finds it), and every item for a vessel known only by its QR.

    The phone rebuilds a profile's lists from `lists`, `items` and `exemptions` (static/js/patrol/flow.js listsOf).
    """
    table = _Profiles()
    craft = load_catalog().craft
    crafts = {kind: table.profile(craft_particulars({"type": kind, "length_m": craft.length_m}))
              for kind in craft.types}
    entries = [{"id": v.id, "label": vessel_label(v), "registration": v.registration,
                "lists": table.profile(particulars_of(v))} for v in vessels]
    return {**table.tables, "crafts": crafts, "vessels": entries, "unknown": unknown_vessel_lists()}
