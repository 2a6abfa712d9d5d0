"""The law's checklists applied to a vessel, with the interpretation settings of this installation."""
from flask import current_app

from checklists import KINDS, build_checklist, build_patrol_checklist, checklist_versions, clause_coverage, clause_totals, load_catalog
from inspection.core.exceptions import Invalid, NotFound
from inspection.core.extensions import db
from inspection.core.models import Inspection, Vessel
from inspection.i18n.messages import Msg
from inspection.registry.vessels import particulars_of

# Every kind the catalog loads; "menores" (art. 210 small craft) is a check, never an inspection (models.KINDS).
CHECKLIST_KINDS = KINDS


def checklist_for(particulars: dict, kind: str, lang: str = "es") -> dict:
    """The checklist of `kind` for these particulars, in `lang` (api.md shape)."""
    if kind not in CHECKLIST_KINDS:
        raise NotFound(Msg("No existe la lista de verificación {kind}.", kind=kind))
    settings = current_app.config.get("CHECKLIST_SETTINGS") or {}
    return build_checklist(load_catalog().get(kind), particulars, settings, lang)


def law_coverage() -> dict:
    """Every clause of the texts with its items or why it is left out, the totals; each checklist's version and
    changes."""
    catalog = load_catalog()
    texts = clause_coverage(catalog)
    return {"texts": texts, "totals": clause_totals(texts), "checklists": checklist_versions(catalog)}


def vessel_checklist(vessel: Vessel, kind: str, lang: str = "es") -> dict:
    """The checklist of `kind` for a registered vessel."""
    return checklist_for(particulars_of(vessel), kind, lang)


def pinned_items(particulars: dict, kind: str) -> tuple[dict, list[dict]]:
    """What an inspection of `kind` pins at its start: versions and items (with both languages).

    Documents and books aboard are checked in both inspections, so `documentacion` items join either kind.
    An exempt checklist (art. 210; no machinery) cannot be inspected.
    """
    versions, items = {}, []
    for part in (kind, "documentacion"):
        spanish = checklist_for(particulars, part, "es")
        if spanish["exempt"]:
            exemption = spanish["exemption"]
            raise Invalid(Msg("El buque está exento de esta inspección ({source}, art. {article}): {reason}",
                              source=exemption["source"], article=exemption["article"], reason=exemption["reason"]))
        versions[part] = spanish["version"]
        items += bilingual_items(spanish, checklist_for(particulars, part, "en"), part)
    return versions, items


def bilingual_items(spanish: dict, english: dict, part: str) -> list[dict]:
    """A built checklist's items as pinned: the Spanish item with its list's kind and the English words beside."""
    by_id = {item["id"]: item for item in english["items"]}
    return [{**item, "checklist": part, "title_en": by_id[item["id"]]["title"], "unit_en": by_id[item["id"]]["unit"],
             "topic_title_en": by_id[item["id"]]["topic_title"],
             "restriction_label_en": by_id[item["id"]]["restriction_label"]} for item in spanish["items"]]


def patrol_checklist_for(particulars: dict, kind: str, lang: str = "es") -> dict:
    """The items a patrol checks of `kind` for these particulars (the data's patrol subset), in `lang`."""
    settings = current_app.config.get("CHECKLIST_SETTINGS") or {}
    return build_patrol_checklist(load_catalog().get(kind), particulars, settings, lang)


def localized_item(item: dict, lang: str) -> dict:
    """A pinned item with its title, unit, topic and restriction in `lang`; the Spanish words stay beside the
    English ones as `*_es` (as the English stay beside the Spanish as `*_en`), so a tablet can switch offline."""
    if lang == "en":
        return {**item, "title": item["title_en"], "unit": item["unit_en"], "topic_title": item["topic_title_en"],
                "restriction_label": item.get("restriction_label_en"), "title_es": item["title"],
                "unit_es": item["unit"], "topic_title_es": item["topic_title"],
                "restriction_label_es": item.get("restriction_label")}
    return item


def localized_description(description: str, item: dict | None, lang: str) -> str:
    """A deficiency's description in `lang`: its item's title translated, the inspector's note and figures kept
    (outcomes.py writes "title: note (observed / required)")."""
    if item is None or lang != "en" or not description.startswith(item["title"]):
        return description
    return item["title_en"] + description[len(item["title"]):]


def deficiency_items(deficiencies) -> dict[tuple[int, str], dict]:
    """(inspection id, item id) -> the pinned checklist item each deficiency (anything with `inspection_id` and
    `item_id`) was found on, for localized_description; one query."""
    wanted = {(d.inspection_id, d.item_id) for d in deficiencies}
    if not wanted:
        return {}
    rows = db.session.execute(db.select(Inspection.id, Inspection.items)
                              .where(Inspection.id.in_({inspection_id for inspection_id, _ in wanted}))).all()
    return {(inspection_id, item["id"]): item for inspection_id, items in rows for item in items or []
            if (inspection_id, item["id"]) in wanted}


def items_titled(text: str) -> set[str]:
    """The ids of the catalog's items whose title, in Spanish or English, contains `text` (case aside): a search
    for an item's title in either language (a deficiency's description holds only the Spanish one)."""
    wanted = text.casefold()
    return {item.id for checklist in load_catalog().checklists.values() for item in checklist.items
            if wanted in item.title_es.casefold() or wanted in item.title_en.casefold()}


def group_by_topic(items: list[dict]) -> list[dict]:
    """Items grouped under their topic, topics in the order the data first names them."""
    groups: dict[str, dict] = {}
    for item in items:
        key = (item.get("checklist"), item["topic"])
        groups.setdefault(key, {"topic": item["topic"], "title": item["topic_title"],
                                "checklist": item.get("checklist"), "items": []})["items"].append(item)
    return list(groups.values())
