"""Resumable photo uploads of an inspection's photos (inspection/tablet/uploads.py has the protocol): declare, append
from an offset, ask where it stands; the inspector's tablet sends each photo this way.

A finished upload goes through the same pipeline as `POST /photos` (`item_photo_once`): same limits,
same refusals, same idempotency record. The same steps serve a patrol check's photos (inspection/patrol/api.py).
"""
from flask_smorest import Blueprint

from inspection.inspections.operations import add_photo, check_photo, get_inspection_for
from inspection.tablet.upload_steps import upload_routes

blp = Blueprint("api_uploads", __name__, description="Subidas reanudables de fotos")
upload_routes(blp, "/inspections/<int:inspection_id>/uploads", "inspector", get_inspection_for, check_photo, add_photo)
