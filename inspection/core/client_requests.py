"""Once-only writes keyed by client_id: the first result is kept, and a retry is answered with it.

Shared by the API (tablet retries) and the pages (a form submitted twice); the caller commits nothing
itself: first_result commits the write with the record of its result.
"""
import hashlib
import json

from sqlalchemy.exc import IntegrityError

from inspection.core.exceptions import Conflict
from inspection.core.extensions import db
from inspection.core.models import ClientRequest
from inspection.i18n.messages import Msg

# The refusal of a client_id already used for another write (another body, scope, record or user): a 409, or a sync
# entry's conflict. Every once-only write says it in these words.
REUSED_CLIENT_ID = Msg("Este client_id ya se usó con otro contenido; genere uno nuevo.")


def body_hash(payload) -> str:
    """A stable digest of a request body, to tell a retry from a different request under one client_id."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def prior_results(client_ids: list[str]) -> dict[str, ClientRequest | None]:
    """The stored first results of many client_ids in one statement (a batch's), None where there is none yet."""
    known: dict[str, ClientRequest | None] = dict.fromkeys(client_ids)
    known.update((row.client_id, row) for row in db.session.scalars(
        db.select(ClientRequest).where(ClientRequest.client_id.in_(client_ids))))
    return known


def prior_result(client_id: str, user, scope: str, digest: str,
                 known: dict[str, ClientRequest | None] | None = None) -> ClientRequest | None:
    """The stored first result of this client_id, or None; a different body or scope is a 409.

    `known` is prior_results' answer for a batch (kept up to date by it); a client_id not in it is read.
    """
    prior = known[client_id] if known is not None and client_id in known else db.session.get(ClientRequest, client_id)
    if prior is None:
        return None
    if prior.scope != scope or prior.body_hash != digest or prior.user_id != user.id:
        raise Conflict(REUSED_CLIENT_ID,
                       extra={"client_id": client_id})
    return prior


def remember_result(client_id: str, user, scope: str, digest: str, status: int, response: dict) -> ClientRequest:
    """Keep the first result of a client_id, written with the write it describes (at their flush or commit)."""
    kept = ClientRequest(client_id=client_id, user_id=user.id, scope=scope, body_hash=digest, status_code=status,
                         response=response)
    db.session.add(kept)
    return kept


def first_result(user, scope: str, client_id: str, payload, action, status: int = 200,
                 known: dict[str, ClientRequest | None] | None = None) -> tuple[dict, int, bool]:
    """run_once's (body, status, replayed), for a view that wraps the result in a larger answer.

    `known` is what the caller has just read of this client_id (prior_result's `known`), for the first look only.
    """
    digest = body_hash(payload)
    for attempt in range(2):
        prior = prior_result(client_id, user, scope, digest, None if attempt else known)
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


def once(user, scope: str, client_id, payload, action, status: int = 200) -> tuple[dict, int, bool]:
    """first_result when the caller sent a client_id; without one, run `action` and commit (nothing to replay)."""
    if client_id is None:
        body = action()
        db.session.commit()
        return body, status, False
    return first_result(user, scope, str(client_id), payload, action, status)
