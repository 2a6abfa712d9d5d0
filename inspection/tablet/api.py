"""Resumable photo uploads of an inspection's photos (inspection/tablet/uploads.py has the protocol): declare, append
from an offset, ask where it stands; the inspector's tablet sends each photo this way. And the marks the inspector
draws over a photo (tablet/marks.py), sent by the tablet once the photo is confirmed.

A finished upload goes through the same pipeline as `POST /photos` (`item_photo_once`): same limits,
same refusals, same idempotency record. The same steps serve a patrol check's photos (inspection/patrol/api.py).
"""

from inspection.accounts.auth import api_user, require
from inspection.core.clock import office_now
from inspection.inspections.operations import add_photo, check_photo, get_inspection_for
from inspection.tablet.marks import marks_body, marks_for, put_marks
from inspection.tablet.schemas import MarksInSchema, MarksSchema
from inspection.tablet.upload_steps import upload_routes
from inspection.web.api_common import Blueprint, json_response, run_once

blp = Blueprint("api_uploads", __name__, description="Subidas reanudables de fotos")
upload_routes(blp, "/inspections/<int:inspection_id>/uploads", "inspector", get_inspection_for, check_photo, add_photo)

marks_blp = Blueprint("api_marks", __name__, description="Marcas sobre las fotos: una capa aparte, con su SHA-256")
READERS = ("admin", "inspector", "owner")


@marks_blp.route("/inspections/<int:inspection_id>/photos/<int:photo_id>/marks", methods=["PUT"])
@marks_blp.arguments(MarksInSchema)
@marks_blp.response(200, MarksSchema)
@marks_blp.alt_response(409, response="CONFLICT")
@require("inspector")
def put_photo_marks(data, inspection_id, photo_id):
    """Draw marks over a photo (a new version of its layer; the earlier is kept), idempotent by client_id."""
    actor = api_user()
    inspection = get_inspection_for(actor, inspection_id)
    client_id = str(data["client_id"])
    payload = {"photo_id": photo_id, "marks": data["marks"]}

    def action():
        return MarksSchema().dump(marks_body(put_marks(actor, inspection, photo_id, client_id, data["marks"],
                                                       office_now())))

    return run_once(actor, f"marks:{inspection.id}", client_id, payload, action)


@marks_blp.route("/inspections/<int:inspection_id>/photos/<int:photo_id>/marks")
@marks_blp.response(200, MarksSchema)
@require(*READERS)
def get_photo_marks(inspection_id, photo_id):
    """A photo's current marks with their SHA-256 and the photo's; 404 when none were drawn."""
    inspection = get_inspection_for(api_user(), inspection_id)
    return json_response(MarksSchema().dump(marks_body(marks_for(inspection, photo_id))), 200)
