"""The JSON API under /api/v1: one flask-smorest blueprint per area, documented from the schemas."""
import http

from apispec.ext.marshmallow import MarshmallowPlugin
from flask_smorest import Api

from ..schemas import ProblemSchema
from . import applications, auth, certificates, checklists, fees, inspections, registry, reports, uploads, users

PROBLEM = "application/problem+json"

BLUEPRINTS = (auth, registry, users, checklists, inspections, uploads, fees, reports, certificates, applications)


def schema_name(schema) -> str:
    """OpenAPI component names: the class name, marked when a view uses a partial or trimmed copy."""
    cls = schema if isinstance(schema, type) else type(schema)
    name = cls.__name__.removesuffix("Schema")
    if not isinstance(schema, type):
        if schema.partial:
            name += "Patch"
        if schema.only:
            name += "Only" + "".join(part.title() for part in sorted(schema.only))
    return name


class ProblemApi(Api):
    """flask-smorest's Api with its error responses documented as errors.py sends them: problem+json."""

    ERROR_SCHEMA = ProblemSchema

    def _register_responses(self):
        """The named responses the decorators refer to (UNPROCESSABLE_ENTITY, UNAUTHORIZED, ...,
        DEFAULT_ERROR), as flask-smorest registers them but with the problem+json media type."""
        problem = {"content": {PROBLEM: {"schema": self.ERROR_SCHEMA}}}
        for status in http.HTTPStatus:
            self.spec.components.response(status.name, {"description": status.phrase, **(problem if status >= 400 else {})},
                                          lazy=True)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, {"description": "Problema (RFC 9457)", **problem},
                                      lazy=True)


def register_api(app) -> Api:
    """Create this app's Api (the OpenAPI document at /api/v1/openapi.json) and attach the blueprints."""
    api = ProblemApi(app, spec_kwargs={
        "marshmallow_plugin": MarshmallowPlugin(schema_name_resolver=schema_name),
        "info": {"description": "API de Baliza: registro, listas de verificación, inspecciones y certificados."},
    })
    api.spec.components.security_scheme("bearerAuth", {"type": "http", "scheme": "bearer"})
    api.spec.components.security_scheme("pageSession", {
        "type": "apiKey", "in": "cookie", "name": app.config["SESSION_COOKIE_NAME"],
        "description": "La sesión de las páginas; una escritura lleva además su token CSRF en X-CSRFToken"})
    for module in BLUEPRINTS:
        api.register_blueprint(module.blp, url_prefix="/api/v1")
    for name, schema in api.spec.components.schemas.items():
        if name.endswith("Patch"):  # BaseSchema refuses an empty partial load: the document says so
            schema["minProperties"] = 1
    return api
