"""Domain errors: refusals a user can understand and act on, each with its HTTP status.

No Flask here, so domain modules raise them freely; `errors.py` maps them to responses in one place.
"""
from inspection.i18n.messages import Msg


class DomainError(Exception):
    """A refusal that the user can understand and act on; carries its HTTP status."""

    status = 400
    code = "bad-request"
    title = Msg("Solicitud no válida")

    def __init__(self, detail: Msg | None = None, errors: dict | None = None, extra: dict | None = None,
                 headers: dict | None = None):
        super().__init__(str(detail or self.title))
        self.detail = detail
        self.errors = errors
        self.extra = extra or {}
        self.headers = headers or {}


class Invalid(DomainError):
    status, code, title = 422, "validation", Msg("Datos no válidos")


class Unauthorized(DomainError):
    status, code, title = 401, "unauthorized", Msg("Debe iniciar sesión")


class Forbidden(DomainError):
    status, code, title = 403, "forbidden", Msg("No tiene permiso para esta acción")


class NotFound(DomainError):
    status, code, title = 404, "not-found", Msg("No encontrado")


class Conflict(DomainError):
    status, code, title = 409, "conflict", Msg("Conflicto con el estado actual")


class TooLarge(DomainError):
    status, code, title = 413, "too-large", Msg("Contenido demasiado grande")


class UnsupportedMedia(DomainError):
    status, code, title = 415, "unsupported-media-type", Msg("Tipo de contenido no admitido")


class Unavailable(DomainError):
    status, code, title = 503, "unavailable", Msg("Servicio no disponible por el momento")
