"""The JSON API under /api/v1: one flask-smorest blueprint per area, documented from the schemas."""
from apispec.ext.marshmallow import MarshmallowPlugin
from flask_smorest import Api

from . import auth, certificates, checklists, fees, inspections, registry, users

BLUEPRINTS = (auth, registry, users, checklists, inspections, fees, certificates)


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


def register_api(app) -> Api:
    """Create this app's Api (the OpenAPI document at /api/v1/openapi.json) and attach the blueprints."""
    api = Api(app, spec_kwargs={
        "marshmallow_plugin": MarshmallowPlugin(schema_name_resolver=schema_name),
        "info": {"description": "API de Baliza: registro, listas de verificación, inspecciones y certificados."},
    })
    api.spec.components.security_scheme("bearerAuth", {"type": "http", "scheme": "bearer"})
    for module in BLUEPRINTS:
        api.register_blueprint(module.blp, url_prefix="/api/v1")
    return api
