"""Owners and vessels: the fleet registry."""
from sqlalchemy import or_

from inspection.accounts.access import get_owner_for, get_vessel_for, owner_scope, vessel_scope
from inspection.accounts.auth import api_user, require
from inspection.core.exceptions import NotFound
from inspection.core.extensions import db
from inspection.core.models import Owner, Vessel
from inspection.core.readcache import data_stamp
from inspection.i18n.language import current_language
from inspection.registry.schemas import (
    VESSEL_COLUMNS,
    ChecklistSchema,
    OwnerQuery,
    OwnerSchema,
    VesselQuery,
    VesselSchema,
    vessel_row_json,
)
from inspection.registry.vessel_checklists import vessel_checklist
from inspection.registry.vessels import create_owner, create_vessel, filter_vessels, update_owner, update_vessel
from inspection.web.api_common import Blueprint, cached_json, json_bytes, json_response, paginate, paginate_rows
from inspection.web.schemas import page_schema

blp = Blueprint("api_registry", __name__, description="Registro de armadores y buques")

READERS = ("admin", "inspector", "owner")
# The vessel list reads rows of the dumped columns, not Vessel objects: building 50 of them was a third of its time.
VESSEL_ROWS = db.select(*(Vessel.__table__.c[name] for name in VESSEL_COLUMNS))


@blp.route("/owners")
@blp.arguments(OwnerQuery, location="query")
@blp.response(200, page_schema(OwnerSchema, "OwnerPage"))
@require(*READERS)
def list_owners(args):
    """Owners, by name; an owner sees only itself."""
    query = owner_scope(db.select(Owner), api_user()).order_by(Owner.name, Owner.id)
    if args.get("q"):
        like = f"%{args['q'].strip()}%"
        query = query.where(or_(Owner.name.ilike(like), Owner.tax_id.ilike(like)))
    return paginate(query, args)


@blp.route("/owners", methods=["POST"])
@blp.arguments(OwnerSchema)
@blp.response(201, OwnerSchema)
@require("admin")
def post_owner(values):
    """Register an owner."""
    owner = create_owner(values)
    db.session.commit()
    return owner


@blp.route("/owners/<int:owner_id>")
@blp.response(200, OwnerSchema)
@require(*READERS)
def get_owner(owner_id):
    """One owner."""
    return get_owner_for(api_user(), owner_id)


@blp.route("/owners/<int:owner_id>", methods=["PATCH"])
@blp.arguments(OwnerSchema(partial=True))
@blp.response(200, OwnerSchema)
@require("admin")
def patch_owner(changes, owner_id):
    """Change an owner's details."""
    owner = update_owner(get_owner_for(api_user(), owner_id), changes)
    db.session.commit()
    return owner


@blp.route("/vessels")
@blp.arguments(VesselQuery(), location="query")  # an instance: given the class, webargs builds one every request
@blp.response(200, page_schema(VesselSchema, "VesselPage"))
@require("admin", "inspector", "owner", "police")
def list_vessels(args):
    """Vessels, filtered by owner, text (registration or name), propulsion and service.

    The page's JSON is kept in the process's cache (readcache) under the caller's scope, the arguments and
    the registry's stamp, redrawn by every write of a vessel and read with the caller's token in one query:
    a repeated list costs no query of its own, not the page, the count and 50 rows made JSON.
    """
    user = api_user()
    key = (_scope_of(user), tuple(sorted(args.items())), data_stamp("registry"))
    return cached_json("vessel_list", key, lambda: _vessel_page(user, args), size=VESSEL_PAGES_KEPT)


VESSEL_PAGES_KEPT = 64  # pages per process: a few users' lists and searches at a time
VESSELS_KEPT = 1024  # single vessels per process: a busy office's fleet


def _scope_of(user):
    """What decides which vessels `user` sees, as a cache key: an owner's fleet, else all (vessel_scope)."""
    return user.owner_id if user.role == "owner" else None


def _vessel_page(user, args) -> bytes:
    """The JSON bytes of one page of the vessel list as `user` may see it."""
    query = vessel_scope(VESSEL_ROWS, user).order_by(Vessel.registration_key)
    page = paginate_rows(filter_vessels(query, args), args)
    return json_bytes({**page, "items": [vessel_row_json(row) for row in page["items"]]})


@blp.route("/vessels", methods=["POST"])
@blp.arguments(VesselSchema)
@blp.response(201, VesselSchema)
@require("admin")
def post_vessel(values):
    """Register a vessel; its tonnage is computed by art. 195."""
    vessel = create_vessel(values)
    db.session.commit()
    return vessel


@blp.route("/vessels/<int:vessel_id>")
@blp.response(200, VesselSchema)
@require("admin", "inspector", "owner", "police")
def get_vessel(vessel_id):
    """One vessel with its particulars, read as a plain row (no Vessel built for a read); 404 outside one's scope."""
    # Kept per process like the list: a query of its own only when the registry's stamp moved.
    user = api_user()
    key = (_scope_of(user), vessel_id, data_stamp("registry"))
    return cached_json("vessel_detail", key, lambda: _vessel_detail(user, vessel_id), size=VESSELS_KEPT)


def _vessel_detail(user, vessel_id: int) -> bytes:
    """The JSON bytes of one vessel if `user` may see it, else 404."""
    row = db.session.execute(vessel_scope(VESSEL_ROWS.where(Vessel.id == vessel_id), user)).one_or_none()
    if row is None:
        raise NotFound()
    return json_bytes(vessel_row_json(row))


@blp.route("/vessels/<int:vessel_id>", methods=["PATCH"])
@blp.arguments(VesselSchema(partial=True))
@blp.response(200, VesselSchema)
@require("admin")
def patch_vessel(changes, vessel_id):
    """Change particulars; the merged record is re-checked and the tonnage recomputed."""
    vessel = update_vessel(get_vessel_for(api_user(), vessel_id), changes)
    db.session.commit()
    return vessel


# The law's checklists computed for a vessel.
checklists_blp = Blueprint("api_checklists", __name__, description="Listas de verificación de la ley")


@checklists_blp.route("/vessels/<int:vessel_id>/checklists/<kind>")
@checklists_blp.response(200, ChecklistSchema)
@require("admin", "inspector", "owner", "police")
def get_checklist(vessel_id, kind):
    """The checklist of `kind` (navegabilidad, seguridad, documentacion, menores) for this vessel, with quantities."""
    vessel = get_vessel_for(api_user(), vessel_id)
    return json_response(vessel_checklist(vessel, kind, current_language()), 200)
