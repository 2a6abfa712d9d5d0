"""The semestral cycle: the fleet at a glance, the applications for inspection (art. 222) with their fines, and the
vessels' arqueos with their fee and fine (arts. 194-200)."""

from inspection.accounts.access import get_owner_for, get_vessel_for
from inspection.accounts.auth import api_user, require
from inspection.core.client_requests import once
from inspection.core.clock import office_date, office_now, office_today
from inspection.core.exceptions import Invalid
from inspection.core.extensions import db
from inspection.core.models import Application, User
from inspection.cycle.applications import (
    application_json,
    applications_query,
    file_application,
    fine_json,
    get_fine,
    preview_application,
    waive_fine,
)
from inspection.cycle.arqueos import arqueo_json, arqueos_of, record_arqueo
from inspection.cycle.schemas import (
    ApplicationInSchema,
    ApplicationQuery,
    ApplicationSchema,
    ArqueoInSchema,
    ArqueoSchema,
    ArqueosSchema,
    FineSchema,
    FleetQuery,
    WaiveInSchema,
)
from inspection.fleet.overview import fleet_of, fleet_query
from inspection.fleet.schemas import FleetVesselSchema
from inspection.i18n.language import current_language
from inspection.i18n.messages import Msg
from inspection.planning.board import ASSIGNERS, assign_application, get_application_for
from inspection.planning.schemas import AssignInSchema
from inspection.web.api_common import Blueprint, json_response, paginate, run_once
from inspection.web.schemas import page_schema

blp = Blueprint("api_applications", __name__, description="Ciclo semestral: flota y solicitudes de inspección")
APPLICANTS = ("admin", "inspector", "owner")


@blp.route("/fleet")
@blp.arguments(FleetQuery, location="query")
@blp.response(200, page_schema(FleetVesselSchema, "FleetPage"))
@require(*APPLICANTS)
def get_fleet(args):
    """The caller's vessels (owners their own; staff all or ?owner_id=) with state, certificates and what is due."""
    user, owner_id = api_user(), args.get("owner_id")
    if owner_id is not None:
        get_owner_for(user, owner_id)  # another owner's fleet is not found
    page, per_page = args["page"], args["per_page"]
    total = db.session.scalar(db.select(db.func.count()).select_from(fleet_query(user, owner_id).subquery()))
    items = fleet_of(user, office_today(), owner_id, limit=per_page, offset=(page - 1) * per_page,
                     lang=current_language())
    return {"items": items, "page": page, "per_page": per_page, "total": total}


@blp.route("/applications")
@blp.arguments(ApplicationQuery, location="query")
@blp.response(200, page_schema(ApplicationSchema, "ApplicationPage"))
@require(*APPLICANTS)
def list_applications(args):
    """Applications for inspection, newest first (owners: their fleet's)."""
    query = applications_query(api_user())
    for name in ("vessel_id", "kind", "status"):
        if args.get(name) is not None:
            query = query.where(getattr(Application, name) == args[name])
    found = paginate(query, args)
    lang = current_language()
    return {**found, "items": [application_json(a, lang) for a in found["items"]]}


@blp.route("/applications/preview", methods=["POST"])
@blp.arguments(ApplicationInSchema)
@blp.response(200, ApplicationSchema)
@require(*APPLICANTS)
def post_application_preview(data):
    """What applying now would record (lateness and fines, arts. 204, 225), shown before confirming; writes nothing."""
    actor = api_user()
    assessment = preview_application(actor, get_vessel_for(actor, data["vessel_id"]), data["kind"], data["port"],
                                     data["preferred_on"], office_today())
    return application_json(assessment, current_language())


@blp.route("/applications", methods=["POST"])
@blp.arguments(ApplicationInSchema)
@blp.response(201, ApplicationSchema)
@require(*APPLICANTS)
def post_application(data):
    """File a solicitud de inspección dated today (art. 222); a late one records its fines (arts. 204, 225)."""
    actor = api_user()
    lang = current_language()

    def apply() -> dict:
        return ApplicationSchema().dump(application_json(file_application(actor, data, office_today()), lang))

    payload = {key: value for key, value in data.items() if key != "client_id"}
    return json_response(*once(actor, "application", data["client_id"], payload, apply, status=201))



@blp.route("/applications/<int:application_id>/assign", methods=["POST"])
@blp.arguments(AssignInSchema)
@blp.response(200, ApplicationSchema)
@require(*ASSIGNERS)
def post_assign(data, application_id):
    """Assign a pending application: schedule its inspection (art. 214 conflicts refused) and link it, once."""
    actor, lang = api_user(), current_language()

    def assign() -> dict:
        application = get_application_for(actor, application_id)
        inspector = db.session.get(User, data["inspector_id"])
        if inspector is None:
            raise Invalid(errors={"inspector_id": [Msg("No existe ese inspector.")]})
        assign_application(actor, application, inspector, data["scheduled_on"], data["port"], office_today())
        return ApplicationSchema().dump(application_json(application, lang))

    if data["client_id"] is None:
        body = assign()
        db.session.commit()
        return json_response(body, 200)
    payload = {"application_id": application_id, **{k: v for k, v in data.items() if k != "client_id"}}
    return run_once(actor, "application.assign", str(data["client_id"]), payload, assign)


@blp.route("/fines/<int:fine_id>/waive", methods=["POST"])
@blp.arguments(WaiveInSchema)
@blp.response(200, FineSchema)
@require("admin")
def post_waive(data, fine_id):
    """Waive a fine with its reason (the Prefectura only; audited); the fine stays on record, marked waived."""
    fine = get_fine(fine_id)
    waive_fine(api_user(), fine, data["reason"], office_now())
    body = fine_json(fine, current_language())
    db.session.commit()
    return body


# The arqueo: each measurement of a vessel's tonnage, its fee (art. 199) and fine (art. 200).
arqueos_blp = Blueprint("api_arqueos", __name__,
                        description="Arqueo: medida del tonelaje, su arancel y su multa (Ley 928, arts. 194-200)")


@arqueos_blp.route("/vessels/<int:vessel_id>/arqueos")
@arqueos_blp.response(200, ArqueosSchema)
@require(*APPLICANTS)
def get_arqueos(vessel_id):
    """The vessel's arqueos, newest first, with their fee and fines; or why the law does not measure it."""
    return arqueos_of(get_vessel_for(api_user(), vessel_id), current_language())


@arqueos_blp.route("/vessels/<int:vessel_id>/arqueos", methods=["POST"])
@arqueos_blp.arguments(ArqueoInSchema)
@arqueos_blp.response(201, ArqueoSchema)
@require("admin", "inspector")
def post_arqueo(data, vessel_id):
    """Record an arqueo measured today: the dimensions become the vessel's, the fee is art. 199's and a vessel an
    inspection found unmeasured is fined twice it (art. 200); 422 for a vessel the law does not measure."""
    actor, lang = api_user(), current_language()

    def measure() -> dict:
        now = office_now()
        arqueo = record_arqueo(actor, get_vessel_for(actor, vessel_id), data, office_date(now), now)
        return ArqueoSchema().dump(arqueo_json(arqueo, lang))

    payload = {"vessel_id": vessel_id, **{key: str(value) for key, value in data.items() if key != "client_id"}}
    return json_response(*once(actor, "arqueo", data["client_id"], payload, measure, status=201))
