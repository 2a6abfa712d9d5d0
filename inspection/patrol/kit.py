"""What a police phone carries to check without signal: each list's patrol items for an unregistered craft of each
type, for every registered vessel the officer may meet, and for a vessel known only by its certificate's QR.

Values in, values out: the catalog and the installation's settings are read through registry.vessel_checklists.
Which items apply is decided here only, by the checklists' own builder, once per set of the particulars the patrol
lists read (checklists.patrol_particulars): the phone looks a vessel's lists up, it evaluates no rule. The server
pins the list again when the check reaches it (checks.start_check), from the same particulars, so both agree.
"""
import json

from checklists import load_catalog, patrol_particulars
from inspection.core.models import PATROL_CHECKLISTS, Vessel
from inspection.patrol.checks import craft_particulars
from inspection.registry.vessel_checklists import bilingual_items, patrol_checklist_for
from inspection.registry.vessels import particulars_of, vessel_label

# What the phone does not show of an item: the law's text and clauses are on the check's page once it is sent.
UNSHOWN = ("text", "clauses", "restriction", "restriction_label", "restriction_label_en", "standing", "practice",
           "certificate", "foreign", "consequence")


def craft_types() -> tuple[str, ...]:
    """The craft a patrol meets unregistered, as checklists/craft.toml lists them."""
    return load_catalog().craft.types


def lists_for(particulars: dict) -> dict[str, dict]:
    """Each patrol list for these particulars: {"items": [...]} in both languages, or {"exemption": {...}}."""
    lists = {}
    for kind in PATROL_CHECKLISTS:
        spanish = patrol_checklist_for(particulars, kind, "es")
        if spanish["exempt"]:
            english = patrol_checklist_for(particulars, kind, "en")["exemption"]
            lists[kind] = {"exemption": {**spanish["exemption"], "reason_en": english["reason"]}}
        else:
            items = bilingual_items(spanish, patrol_checklist_for(particulars, kind, "en"), kind)
            lists[kind] = {"items": [{k: v for k, v in item.items() if k not in UNSHOWN} for item in items]}
    return lists


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


class _Profiles:
    """The kit's lists without repeats: each distinct item (with its bounds for a vessel) and exemption once, each
    distinct set of lists (a profile) once as indexes into them; built once per set of the particulars read."""

    def __init__(self):
        catalog = load_catalog()
        self.read = sorted(set().union(*(patrol_particulars(catalog.get(kind)) for kind in PATROL_CHECKLISTS)))
        self.items, self.exemptions, self.profiles = [], [], []
        self._seen: dict[str, dict[str, int]] = {"items": {}, "exemptions": {}, "profiles": {}}
        self._built: dict[str, int] = {}

    def _index(self, table: list, name: str, value) -> int:
        key = json.dumps(value, sort_keys=True, default=str)
        if key not in self._seen[name]:
            self._seen[name][key] = len(table)
            table.append(value)
        return self._seen[name][key]

    def profile(self, particulars: dict) -> int:
        """The index of the profile these particulars get."""
        key = json.dumps([particulars.get(name) for name in self.read], default=str)
        if key not in self._built:
            profile = {}
            for kind, found in lists_for(particulars).items():
                profile[kind] = ({"exemption": self._index(self.exemptions, "exemptions", found["exemption"])}
                                 if "exemption" in found else
                                 {"items": [self._index(self.items, "items", item) for item in found["items"]]})
            self._built[key] = self._index(self.profiles, "profiles", profile)
        return self._built[key]


def patrol_kit(vessels: list[Vessel]) -> dict:
    """The phone's lists: a profile per craft type (checklists/craft.toml) and per registered vessel (its id,
    label and registration only: the QR's registration finds it), and every item for a vessel known only by its QR.

    The phone rebuilds a profile's lists from `items` and `exemptions` (static/js/patrol/flow.js listsOf).
    """
    table = _Profiles()
    craft = load_catalog().craft
    crafts = {kind: table.profile(craft_particulars({"type": kind, "length_m": craft.length_m}))
              for kind in craft.types}
    entries = [{"id": v.id, "label": vessel_label(v), "registration": v.registration,
                "lists": table.profile(particulars_of(v))} for v in vessels]
    return {"items": table.items, "exemptions": table.exemptions, "profiles": table.profiles, "crafts": crafts,
            "vessels": entries, "unknown": unknown_vessel_lists()}
