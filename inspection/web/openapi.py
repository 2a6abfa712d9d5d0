"""flask-smorest's Api with its error responses documented as they are sent: problem+json (RFC 9457)."""
import http

from flask_smorest import Api

from inspection.web.schemas import ProblemSchema

PROBLEM = "application/problem+json"


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
