"""What an inspection costs: the fee lines of Ley 928 arts. 209 and 233."""
from flask_smorest import Blueprint

from ..auth import api_user, require
from ..billing import charges_of
from ..i18n import current_language
from ..inspections import get_inspection_for
from ..schemas import FeeStatementSchema

blp = Blueprint("api_fees", __name__, description="Aranceles de inspección")


@blp.route("/inspections/<int:inspection_id>/fees")
@blp.response(200, FeeStatementSchema)
@require("admin", "inspector", "owner")
def get_fees(inspection_id):
    """The inspection's fee lines (source, article, the scale's row, both printed figures), total, fines and what is owed."""
    return charges_of(get_inspection_for(api_user(), inspection_id), current_language())
