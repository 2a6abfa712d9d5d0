"""The one mapping of refusals to responses: problem+json for the API, a page otherwise."""
from contextlib import suppress

from flask import Flask, current_app, jsonify, render_template, request
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from werkzeug.exceptions import HTTPException

from inspection.core.exceptions import DomainError, Unavailable
from inspection.core.extensions import db
from inspection.i18n.language import current_language, localize
from inspection.i18n.formats import format_megabytes
from inspection.i18n.labels import field_label
from inspection.i18n.messages import LANGUAGES, Localized, Msg
from inspection.media.storage import StorageUnavailable
from inspection.web.body_limits import PHOTO_ENDPOINTS
from inspection.web.request_log import current_request_id

PROBLEM_BASE = "https://baliza.example/problems/"


_HTTP_TITLES = {
    400: Msg("Solicitud no válida"),
    401: Msg("Debe iniciar sesión"),
    403: Msg("No tiene permiso para esta acción"),
    404: Msg("No encontrado"),
    405: Msg("Método no permitido"),
    409: Msg("Conflicto con el estado actual"),
    413: Msg("Contenido demasiado grande"),
    414: Msg("Dirección demasiado larga"),
    415: Msg("Tipo de contenido no admitido"),
    422: Msg("Datos no válidos"),
    429: Msg("Demasiadas solicitudes"),
    500: Msg("Error interno del servidor"),
    503: Msg("Servicio no disponible por el momento"),
}


def wants_json() -> bool:
    """API paths and fetch() callers get JSON; browsers get a page."""
    if request.path.startswith("/api/"):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def problem(status: int, code: str, title, detail=None, errors=None, extra=None):
    """An RFC 9457 problem document in the request's language."""
    lang = current_language()
    body = {
        "type": PROBLEM_BASE + code,
        "title": localize(title, lang),
        "status": status,
        "detail": localize(detail, lang) if detail is not None else localize(title, lang),
    }
    if errors:
        body["errors"] = localize(errors, lang)
    body.update(_messages_in(extra or {}, lang))
    if status >= 500 and current_request_id():
        body["request_id"] = current_request_id()  # the reference a user quotes, found in the logs
    response = jsonify(body)
    response.status_code = status
    response.mimetype = "application/problem+json"
    response.headers["Content-Language"] = lang
    return response


def _messages_in(value, lang: str):
    """The messages inside a problem's extra members (such as item titles) in `lang`; other values as they are."""
    if isinstance(value, (Msg, Localized)):
        return value.in_language(lang)
    if isinstance(value, dict):
        return {key: _messages_in(item, lang) for key, item in value.items()}
    if isinstance(value, list):
        return [_messages_in(item, lang) for item in value]
    return value


def _summary(errors: dict):
    """A one-line summary: the one whole-body error itself, else the fields at fault by the labels people read
    (FIELD_LABELS: "Motivo", not "reason"), in each language."""
    if list(errors) == ["body"] and len(errors["body"]) == 1:
        return errors["body"][0]
    return _in_each_language(lambda lang: Msg("Revise estos campos: {fields}.", fields=", ".join(
        sorted(field_label(str(name), lang) for name in errors))))


def _in_each_language(message_in) -> Localized:
    """A message whose parameters are words too (labels, sizes), written once per language."""
    return Localized({lang: message_in(lang).in_language(lang) for lang in LANGUAGES})


def _too_large() -> Localized:
    """A 413 names the limit it met: the photo's on a form that carries one, else the request's."""
    if request.endpoint in PHOTO_ENDPOINTS:
        limit = current_app.config["PHOTO_MAX_BYTES"]
        return _in_each_language(lambda lang: Msg(
            "La foto supera el máximo admitido de {limit}. Elija una más liviana o reduzca su resolución.",
            limit=format_megabytes(limit, lang)))
    limit = request.max_content_length or current_app.config["MAX_CONTENT_LENGTH"]
    return _in_each_language(lambda lang: Msg("El envío supera el máximo admitido de {limit}.",
                                              limit=format_megabytes(limit, lang)))


def handle_domain_error(error: DomainError):
    """Map a domain refusal to problem+json or an error page."""
    detail = error.detail or (_summary(error.errors) if error.errors else error.title)
    if wants_json():
        response = problem(error.status, error.code, error.title, detail, error.errors, error.extra)
        response.headers.update(error.headers)
        return response
    html, status = _page(error.status, error.title, detail, error.errors)
    return html, status, error.headers


DATABASE_RETRY_AFTER = 10  # seconds: a PostgreSQL restart or failover is over in a few


def _unavailable(what: str, error: Exception, detail: Msg, retry_after: int):
    """A backing service is down: roll back what the request did, log it, answer 503 with Retry-After."""
    with suppress(Exception):  # the session's connection may be the one that died
        db.session.rollback()
    current_app.logger.warning("%s unavailable: %s: %s", what, type(error).__name__, error)
    return handle_domain_error(Unavailable(detail, headers={"Retry-After": str(retry_after)}))


def handle_storage_unavailable(error):
    """The photo store is down: 503 with Retry-After, and nothing of the request kept (its files came first)."""
    return _unavailable("media storage", error, Msg(
        "El almacén de fotos no responde; no se guardó nada. Intente de nuevo en unos minutos."), error.retry_after)


def is_connection_failure(error: Exception) -> bool:
    """Whether a database error means the server cannot be reached (restart, failover), not a refused statement."""
    return isinstance(error, (OperationalError, InterfaceError)) or (
        isinstance(error, DBAPIError) and error.connection_invalidated)


def handle_database_error(error):
    """The database went away mid-request: 503 with Retry-After (nothing committed); any other DB error stays a 500."""
    if not is_connection_failure(error):
        return handle_unexpected(error)
    return _unavailable("database", error, Msg(
        "La base de datos no responde; no se guardó nada. Intente de nuevo en unos segundos."), DATABASE_RETRY_AFTER)


def handle_http_error(error: HTTPException):
    """Werkzeug and webargs errors (including schema validation) in the same shapes."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    errors = data.get("messages") or data.get("errors")
    if isinstance(errors, dict) and set(errors) <= {"json", "query", "form", "files", "headers", "view_args"}:
        merged = {}
        for where, location in errors.items():
            if isinstance(location, dict):
                merged.update(location)
            else:  # a whole-body error, such as JSON that does not parse
                merged.setdefault("body" if where == "json" else where, []).extend(location)
        if "_schema" in merged:  # a schema-level error is about the whole body
            merged.setdefault("body", []).extend(merged.pop("_schema"))
        errors = merged
    title = _HTTP_TITLES.get(status, Msg("Error"))
    code = {422: "validation", 413: "too-large"}.get(status, error.name.lower().replace(" ", "-"))
    detail = _summary(errors) if errors else title
    if status == 413:
        detail = _too_large()
    if status == 414:
        detail = Msg("La dirección es demasiado larga; acorte la búsqueda o los filtros.")
    # The error's own headers (Allow on a 405, WWW-Authenticate on a 401) go with the answer, whatever its shape.
    headers = [(name, value) for name, value in error.get_headers() if name.lower() != "content-type"]
    if wants_json():
        response = problem(status, code, title, detail, errors, data.get("extra"))
        response.headers.extend(headers)
        return response
    html, status = _page(status, title, detail, errors)
    return html, status, headers


def handle_unexpected(error: Exception):
    """Anything unforeseen: log it, answer 500 without leaking internals."""
    current_app.logger.exception("unhandled error")
    db.session.rollback()
    if wants_json():
        return problem(500, "internal", _HTTP_TITLES[500])
    return _page(500, _HTTP_TITLES[500], None, None)


def _page(status, title, detail, errors):
    """The error page; a 5xx names the request id, the reference a user quotes to the authority's IT."""
    lang = current_language()
    html = render_template(
        "error.html",
        title=localize(title, lang),
        detail=localize(detail, lang) if detail else None,
        errors=localize(errors, lang) if errors else None,
        status=status,
        request_id=current_request_id() if status >= 500 else None,
        back_url=_form_page() if status == 413 else None,
    )
    return html, status


def _form_page() -> str | None:
    """The page whose form was refused, to go back to (the browser keeps what was typed); only our own pages."""
    referrer = request.referrer or ""
    return referrer if referrer.startswith(request.host_url) else None


def register_error_handlers(app: Flask) -> None:
    """One place where every refusal becomes a response."""
    app.register_error_handler(DomainError, handle_domain_error)
    app.register_error_handler(StorageUnavailable, handle_storage_unavailable)
    app.register_error_handler(DBAPIError, handle_database_error)
    app.register_error_handler(HTTPException, handle_http_error)
    app.register_error_handler(Exception, handle_unexpected)
