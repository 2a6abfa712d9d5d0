"""The review of art. 221 over the API: countersign, or return to the inspector; each once per client_id."""
from flask import request

from inspection.accounts.auth import api_user, require
from inspection.certificates.countersign import open_seal
from inspection.certificates.keys import key_set, signer
from inspection.certificates.operations import certificates_json
from inspection.core.clock import office_date, office_now, office_zone
from inspection.core.office import current_office
from inspection.inspections.operations import get_inspection_for
from inspection.media.configured import media_storage
from inspection.core.exceptions import NotFound
from inspection.i18n.messages import Msg
from inspection.review.operations import countersign_inspection, countersignature_seal, return_inspection
from inspection.review.schemas import CountersignInSchema, ReturnInSchema, ReviewOutSchema, SealOutSchema
from inspection.web.api_common import Blueprint, run_once

blp = Blueprint("api_review", __name__, description="Refrendo del Prefecto (art. 221)")


@blp.route("/inspections/<int:inspection_id>/countersign", methods=["POST"])
@blp.arguments(CountersignInSchema)
@blp.response(200, ReviewOutSchema)
@blp.alt_response(409, response="CONFLICT")
@require("reviewer")
def post_countersign(data, inspection_id):
    """Countersign a pending inspection: its certificate is issued (or the closing's confirmed) with both signatures."""
    actor = api_user()
    inspection = get_inspection_for(actor, inspection_id)

    def action():
        now = office_now()
        today, office = office_date(now), current_office()
        certificate = countersign_inspection(actor, inspection, data["signature"], office, signer(office, now), today,
                                             now, office_zone(), media_storage())
        return ReviewOutSchema().dump({
            "inspection_id": inspection.id, "review_status": inspection.review_status, "countersigned_on": today,
            "certificate": certificates_json([certificate], today, office.public_url)[0] if certificate else None})

    return run_once(actor, f"countersign:{inspection.id}", str(data["client_id"]), request.get_json(), action)


@blp.route("/inspections/<int:inspection_id>/return", methods=["POST"])
@blp.arguments(ReturnInSchema)
@blp.response(200, ReviewOutSchema)
@blp.alt_response(409, response="CONFLICT")
@require("reviewer")
def post_return(data, inspection_id):
    """Return a pending inspection to its inspector with a note: open again, what its closing produced withdrawn
    (and kept in the audit)."""
    actor = api_user()
    inspection = get_inspection_for(actor, inspection_id)

    def action():
        return_inspection(actor, inspection, data["note"], office_now())
        return ReviewOutSchema().dump({"inspection_id": inspection.id, "review_status": inspection.review_status,
                                       "countersigned_on": None, "certificate": None})

    return run_once(actor, f"review-return:{inspection.id}", str(data["client_id"]), request.get_json(), action)


@blp.route("/inspections/<int:inspection_id>/countersignature")
@blp.response(200, SealOutSchema)
@require()
def get_countersignature(inspection_id):
    """The countersignature's seal, for whoever may read the inspection: the office's signature over its facts
    (inspection, vessel, certificate, day, reviewer, the drawn signature's SHA-256), checked here and by anyone
    with the published keys. 404 while the inspection is not countersigned."""
    inspection = get_inspection_for(api_user(), inspection_id)
    seal = countersignature_seal(inspection)
    if seal is None:
        raise NotFound(Msg("La inspección n.º {id} no está refrendada.", id=inspection.id))
    return SealOutSchema().dump({"inspection_id": inspection.id, "seal": seal, "facts": open_seal(seal, key_set().keys)})
