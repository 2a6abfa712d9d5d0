"""Helpers shared by the API blueprints: their Blueprint, pagination and once-only writes keyed by client_id."""

import flask_smorest
from flask import current_app, jsonify, request
from flask_smorest.fields import Upload
from marshmallow import Schema
from webargs.flaskparser import FlaskParser

from inspection.core.client_requests import body_hash, first_result, prior_result, remember_result
from inspection.core.extensions import db, page_total
from inspection.core.readcache import cached
from inspection.media.configured import photo_limits

__all__ = ["Blueprint", "binary", "body_hash", "cached_json", "first_result", "json_bytes", "json_response", "paginate",
           "paginate_rows", "prior_result", "remember_result", "run_once"]


QUERIES_KEPT = 256  # query strings per process: the lists' pages and filters in use (a URL is at most 8 kB)


class QueryParser(FlaskParser):
    """webargs' parser, keeping what each query string loaded to: a list asked again with the same arguments is
    not parsed again (a tenth of a cached vessel list's time, issue 22). Only schemas whose load depends on the
    query string alone are kept (no field's default is computed), and only a query that loaded: a refusal is
    parsed, and refused, every time."""

    def parse(self, argmap, req=None, *, location=None, **kwargs):
        if location not in ("query", "querystring") or kwargs.get("validate") or not _pure(argmap):
            return super().parse(argmap, req, location=location, **kwargs)
        key = (argmap, location, kwargs.get("unknown"), request.query_string)
        loaded = cached("query_args", key, lambda: super(QueryParser, self).parse(argmap, req, location=location,
                                                                                  **kwargs), size=QUERIES_KEPT)
        return dict(loaded)  # the view's own copy: a view that changes its arguments changes no one else's


def _pure(schema) -> bool:
    """Whether `schema` (an instance) loads the same values from the same input whenever it runs."""
    pure = getattr(schema, "_baliza_pure", None)
    if pure is None:
        pure = isinstance(schema, Schema) and not any(callable(field.load_default) for field in schema.fields.values())
        if isinstance(schema, Schema):
            schema._baliza_pure = pure
    return pure


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint with the QueryParser: every API blueprint is one of these."""

    ARGUMENTS_PARSER = QueryParser()


def binary(description: str, *media_types: str) -> dict:
    """The OpenAPI doc (for blp.doc) of a view whose 200 response is bytes, not JSON."""
    content = {media_type: {"schema": {"type": "string", "format": "binary"}} for media_type in media_types}
    return {"responses": {"200": {"description": description, "content": content}}}


def paginate(query, args: dict) -> dict:
    """One page of a query as {items, page, per_page, total}; counted (one indexed query) only when page_total must."""
    page, per_page = args["page"], args["per_page"]
    items = db.session.scalars(query.limit(per_page).offset((page - 1) * per_page)).all()
    return {"items": items, "page": page, "per_page": per_page,
            "total": page_total(page, per_page, len(items), lambda: _count(query))}


def paginate_rows(query, args: dict) -> dict:
    """One page of a column query as plain rows (no ORM objects to build), with the same count as paginate().

    (A count(*) over () riding on the page was tried: the window makes the database sort every match
    instead of walking the index for LIMIT rows, three times slower on 1,000 vessels.)
    """
    page, per_page = args["page"], args["per_page"]
    rows = db.session.execute(query.limit(per_page).offset((page - 1) * per_page)).all()
    return {"items": rows, "page": page, "per_page": per_page,
            "total": page_total(page, per_page, len(rows), lambda: _count(query))}


def _count(query) -> int:
    """How many rows `query` matches."""
    return db.session.scalar(db.select(db.func.count()).select_from(query.order_by(None).subquery()))


def run_once(user, scope: str, client_id: str, payload, action, status: int = 200):
    """Run `action` once per client_id and commit; a retry returns the first result with its status.

    `action()` returns a JSON-ready dict. Two simultaneous first tries race on a unique key (the
    client_id, or a photo's hash): the loser rolls back and returns the winner's stored result, or,
    when the winner was another request for the same thing, runs once more and finds its record.
    A try refused with a 409 after waiting on a row its twin held (the twin closed the inspection)
    returns the twin's result too.
    """
    return json_response(*first_result(user, scope, client_id, payload, action, status))


def json_response(body: dict, status: int, replayed: bool = False):
    """A JSON response marking whether it replays a stored first result."""
    response = jsonify(body)
    response.status_code = status
    response.headers["Idempotent-Replayed"] = "true" if replayed else "false"
    return response


def cached_json(name: str, key, compute, size: int):
    """A 200 JSON response of the bytes `compute()` makes, kept per process under `key` (readcache.cached): the
    key must hold every stamp and argument the body depends on; a refusal compute() raises is never kept."""
    response = current_app.response_class(cached(name, key, compute, size=size), status=200,
                                          mimetype="application/json")
    response.headers["Idempotent-Replayed"] = "false"  # as json_response
    return response


def json_bytes(body: dict) -> bytes:
    """The bytes json_response would send for `body` (to keep in a cache)."""
    return json_response(body, 200).get_data()


class PhotoFileSchema(Schema):
    """The uploaded file (multipart)."""

    file = Upload(required=True)


def read_upload(upload) -> bytes:
    """A multipart file's bytes, at most one past the limit (enough to refuse it without reading it all)."""
    return upload.read(photo_limits().max_bytes + 1)
