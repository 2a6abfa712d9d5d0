"""The law's checklists as pages: one vessel's, grouped by topic, and the coverage of the law's articles."""
from flask import Blueprint, render_template
from flask_login import current_user

from ..access import get_vessel_for
from ..auth import require_page
from ..i18n import current_language
from ..vessel_checklists import CHECKLIST_KINDS, law_coverage, vessel_checklist

bp = Blueprint("checklists", __name__)


def group_by_topic(items: list[dict]) -> list[dict]:
    """Items grouped under their topic, topics in the order the data first names them."""
    groups: dict[str, dict] = {}
    for item in items:
        key = (item.get("checklist"), item["topic"])
        groups.setdefault(key, {"topic": item["topic"], "title": item["topic_title"],
                                "checklist": item.get("checklist"), "items": []})["items"].append(item)
    return list(groups.values())


@bp.route(f"/buques/<int:vessel_id>/listas/<any({', '.join(CHECKLIST_KINDS)}):kind>")
@require_page("admin", "inspector", "owner", "police")
def vessel_checklist_page(vessel_id, kind):
    """A vessel's checklist of one kind (owners only their own vessels'; 404 otherwise)."""
    vessel = get_vessel_for(current_user, vessel_id)
    checklist = vessel_checklist(vessel, kind, current_language())
    return render_template("checklists/vessel.html", vessel=vessel, kind=kind, kinds=CHECKLIST_KINDS,
                           checklist=checklist, groups=group_by_topic(checklist["items"]))


@bp.route("/listas/cobertura")
@require_page("admin")
def coverage_page():
    """Per text and article: the items covering it or why it is left out; each checklist's version."""
    return render_template("checklists/coverage.html", **law_coverage())
