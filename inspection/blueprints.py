"""The one list of every capability's blueprints: the JSON API under /api/v1 and the HTML pages.

The order is the OpenAPI document's tag order and the order pages are matched in; each blueprint keeps its
name, so endpoint names (`api_inspections.post_sync`, `pages.login`) never depend on where a module lives.
"""
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask
from flask_smorest import Api

from inspection.accounts import api as accounts_api
from inspection.accounts import views as accounts_views
from inspection.certificates import api as certificates_api
from inspection.certificates import views as certificates_views
from inspection.dashboard import views as dashboard_views
from inspection.fleet import api as fleet_api
from inspection.fleet import views as fleet_views
from inspection.i18n.formats import format_day, format_megabytes, format_money, format_number, format_week
from inspection.i18n.labels import field_label, label
from inspection.i18n.language import current_language, gettext
from inspection.inspections import api as inspections_api
from inspection.inspections import views as inspections_views
from inspection.law.tonnage import format_tonnage
from inspection.media.marks import overlay
from inspection.notices import api as notices_api
from inspection.notices import views as notices_views
from inspection.ops import views as ops_views
from inspection.patrol import api as patrol_api
from inspection.review import api as review_api
from inspection.review import views as review_views
from inspection.patrol import views as patrol_views
from inspection.planning import views as planning_views
from inspection.registry import api as registry_api
from inspection.registry import views as registry_views
from inspection.tablet import api as tablet_api
from inspection.tablet import views as tablet_views
from inspection.web import pwa
from inspection.web.acts import pending_reports
from inspection.web.forms import list_url, sort_link
from inspection.web.openapi import ProblemApi, schema_name

API_BLUEPRINTS = (accounts_api.blp, registry_api.blp, accounts_api.users_blp, registry_api.checklists_blp,
                  inspections_api.blp, tablet_api.blp, inspections_api.fees_blp, inspections_api.reports_blp,
                  tablet_api.marks_blp, patrol_api.blp, review_api.blp, certificates_api.blp, fleet_api.blp,
                  fleet_api.arqueos_blp, notices_api.blp)

PAGE_BLUEPRINTS = (accounts_views.bp, registry_views.bp, fleet_views.bp, certificates_views.bp,
                   registry_views.checklists_bp, dashboard_views.bp, ops_views.bp, inspections_views.bp,
                   notices_views.bp, planning_views.bp, pwa.bp, tablet_views.bp, accounts_views.users_bp, patrol_views.bp,
                   review_views.bp)


def register_api(app: Flask) -> Api:
    """Create this app's Api (the OpenAPI document at /api/v1/openapi.json) and attach the blueprints."""
    api = ProblemApi(app, spec_kwargs={
        "marshmallow_plugin": MarshmallowPlugin(schema_name_resolver=schema_name),
        "info": {"description": "API de Baliza: registro, listas de verificación, inspecciones y certificados."},
    })
    api.spec.components.security_scheme("bearerAuth", {"type": "http", "scheme": "bearer"})
    api.spec.components.security_scheme("pageSession", {
        "type": "apiKey", "in": "cookie", "name": app.config["SESSION_COOKIE_NAME"],
        "description": "La sesión de las páginas; una escritura lleva además su token CSRF en X-CSRFToken"})
    for blueprint in API_BLUEPRINTS:
        api.register_blueprint(blueprint, url_prefix="/api/v1")
    for name, schema in api.spec.components.schemas.items():
        if name.endswith("Patch"):  # BaseSchema refuses an empty partial load: the document says so
            schema["minProperties"] = 1
    return api


def _unread_notices() -> int:
    """The signed-in user's unread notices for the header: one count query per page, none when anonymous."""
    from flask import request
    from flask_login import current_user

    from inspection.notices.notices import unread_count

    if not current_user.is_authenticated:
        return 0
    cache = request.environ  # per request (`g` lives as long as the app context)
    if "baliza.unread_notices" not in cache:
        cache["baliza.unread_notices"] = unread_count(current_user)
    return cache["baliza.unread_notices"]


def register_views(app: Flask) -> None:
    """Attach the page blueprints and the template helpers."""
    for blueprint in PAGE_BLUEPRINTS:
        app.register_blueprint(blueprint)
    app.jinja_env.globals.update(_=gettext, label=lambda kind, value: label(kind, value, current_language()),
                                 field_label=lambda field: field_label(field, current_language()),
                                 lang=current_language, unread_notices=_unread_notices,
                                 pending_reports=pending_reports, list_url=list_url, sort_link=sort_link,
                                 module_graph=pwa.module_graph)
    app.jinja_env.filters["number"] = lambda value, places=None: format_number(value, places, current_language())
    app.jinja_env.filters["week"] = lambda monday: format_week(monday, current_language())
    app.jinja_env.filters["money"] = lambda value: format_money(value, current_language())
    app.jinja_env.filters["megabytes"] = lambda size: format_megabytes(size, current_language())
    app.jinja_env.filters["day"] = lambda value, width="long": format_day(value, current_language(), width)
    app.jinja_env.filters["tonnage"] = lambda value: format_tonnage(value, current_language())
    # A photo's marks (issue 24), placed for an SVG over its display copy: the photo's JSON (PhotoSchema) in.
    app.jinja_env.filters["marks_overlay"] = lambda photo: overlay(photo["marks"]["layer"], photo["width"],
                                                                   photo["height"])

