"""What a police phone carries to check without signal: each list's patrol items for an unregistered craft of each
type, for a registered vessel (its particulars known), and for a vessel known only by its certificate's QR.

Values in, values out: the catalog and the installation's settings are read through registry.vessel_checklists.
The server pins the real list when the check reaches it (checks.start_check); what the phone showed is a preview.
"""
from checklists import load_catalog
from inspection.core.models import PATROL_CHECKLISTS
from inspection.patrol.checks import craft_particulars
from inspection.registry.vessel_checklists import bilingual_items, patrol_checklist_for

# What the phone does not show of an item: the law's text and clauses are on the check's page once it is sent.
UNSHOWN = ("text", "clauses", "restriction", "restriction_label", "restriction_label_en", "standing", "practice",
           "certificate", "foreign", "consequence")
# The craft a patrol meets unregistered: canoes and rowing boats, small sail, outboard skiffs.
CRAFT_TYPES = ("rowing", "sail", "motor")
# The length a described craft is taken to have until the officer says otherwise; no patrol item reads it.
CRAFT_LENGTH_M = 5


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
    vessel known only by its certificate's QR. An item with a quantity is `counted` (the officer counts; the server
    checks the count against the vessel's bound). Items the server does not pin for that vessel are not sent."""
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


def patrol_kit() -> dict:
    """The phone's lists: per craft type (at CRAFT_LENGTH_M) and for a vessel known only by its QR."""
    crafts = {kind: lists_for(craft_particulars({"type": kind, "length_m": CRAFT_LENGTH_M})) for kind in CRAFT_TYPES}
    return {"crafts": crafts, "unknown": unknown_vessel_lists()}
