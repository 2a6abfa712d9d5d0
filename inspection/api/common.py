"""Helpers shared by the API blueprints: pagination and once-only writes keyed by client_id."""
import hashlib
import json

from flask import jsonify
from sqlalchemy.exc import IntegrityError

from ..exceptions import Conflict
from ..extensions import db
from ..messages import Msg
from ..models import ClientRequest

def binary(description: str, *media_types: str) -> dict:
    """The OpenAPI doc (for blp.doc) of a view whose 200 response is bytes, not JSON."""
    content = {media_type: {"schema": {"type": "string", "format": "binary"}} for media_type in media_types}
    return {"responses": {"200": {"description": description, "content": content}}}


def paginate(query, args: dict) -> dict:
    """One page of a query as {items, page, per_page, total}; the count is one indexed query."""
    page, per_page = args["page"], args["per_page"]
    total = db.session.scalar(db.select(db.func.count()).select_from(query.order_by(None).subquery()))
    items = db.session.scalars(query.limit(per_page).offset((page - 1) * per_page)).all()
    return {"items": items, "page": page, "per_page": per_page, "total": total}


def body_hash(payload) -> str:
    """A stable digest of a request body, to tell a retry from a different request under one client_id."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def prior_result(client_id: str, user, scope: str, digest: str) -> ClientRequest | None:
    """The stored first result of this client_id, or None; a different body or scope is a 409."""
    prior = db.session.get(ClientRequest, client_id)
    if prior is None:
        return None
    if prior.scope != scope or prior.body_hash != digest or prior.user_id != user.id:
        raise Conflict(Msg("Este client_id ya se usó con otro contenido; genere uno nuevo."),
                       extra={"client_id": client_id})
    return prior


def remember_result(client_id: str, user, scope: str, digest: str, status: int, response: dict) -> None:
    """Keep the first result of a client_id (flushed with the write it describes)."""
    db.session.add(ClientRequest(client_id=client_id, user_id=user.id, scope=scope, body_hash=digest,
                                 status_code=status, response=response))
    db.session.flush()


def run_once(user, scope: str, client_id: str, payload, action, status: int = 200):
    """Run `action` once per client_id and commit; a retry returns the first result with its status.

    `action()` returns a JSON-ready dict. Two simultaneous first tries race on a unique key (the
    client_id, or a photo's hash): the loser rolls back and returns the winner's stored result, or,
    when the winner was another request for the same thing, runs once more and finds its record.
    A try refused with a 409 after waiting on a row its twin held (the twin closed the inspection)
    returns the twin's result too.
    """
    return json_response(*first_result(user, scope, client_id, payload, action, status))


def first_result(user, scope: str, client_id: str, payload, action, status: int = 200) -> tuple[dict, int, bool]:
    """run_once's (body, status, replayed), for a view that wraps the result in a larger answer."""
    digest = body_hash(payload)
    for attempt in range(2):
        prior = prior_result(client_id, user, scope, digest)
        if prior is not None:
            return prior.response, prior.status_code, True
        try:
            body = action()
            remember_result(client_id, user, scope, digest, status, body)
            db.session.commit()
            return body, status, False
        except IntegrityError:
            db.session.rollback()
            if attempt:
                raise
        except Conflict:
            db.session.rollback()
            prior = prior_result(client_id, user, scope, digest)
            if prior is None:
                raise
            return prior.response, prior.status_code, True
    raise AssertionError("unreachable")


def json_response(body: dict, status: int, replayed: bool = False):
    """A JSON response marking whether it replays a stored first result."""
    response = jsonify(body)
    response.status_code = status
    response.headers["Idempotent-Replayed"] = "true" if replayed else "false"
    return response
