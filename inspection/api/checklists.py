"""The law's checklists computed for a vessel."""
from flask_smorest import Blueprint

from ..access import get_vessel_for
from ..auth import api_user, require
from ..i18n import current_language
from ..schemas import ChecklistSchema
from ..vessel_checklists import vessel_checklist
from .common import json_response

blp = Blueprint("api_checklists", __name__, description="Listas de verificación de la ley")


@blp.route("/vessels/<int:vessel_id>/checklists/<kind>")
@blp.response(200, ChecklistSchema)
@require("admin", "inspector", "owner", "police")
def get_checklist(vessel_id, kind):
    """The checklist of `kind` (navegabilidad, seguridad, documentacion, menores) for this vessel, with quantities."""
    vessel = get_vessel_for(api_user(), vessel_id)
    return json_response(vessel_checklist(vessel, kind, current_language()), 200)
