"""The tablet's sync batch: each queued answer applied in its own savepoint, once per client_id, never failing the batch."""
from dataclasses import dataclass

from marshmallow import ValidationError
from sqlalchemy.exc import IntegrityError

from inspection.core.client_requests import body_hash, prior_result, prior_results, remember_result
from inspection.core.clock import office_now
from inspection.core.exceptions import Conflict, DomainError
from inspection.core.extensions import db
from inspection.core.models import ClientRequest
from inspection.i18n.language import localize
from inspection.i18n.messages import Msg
from inspection.inspections.operations import AnswerBook, record_answer, recorded_answer
from inspection.inspections.schemas import AnswerSchema, SyncEntrySchema


def answer_scope(inspection_id: int, item_id: str) -> str:
    """The once-only scope of one item's answer: a PUT and a sync entry with one client_id are one write."""
    return f"answer:{inspection_id}:{item_id}"


@dataclass
class _Batch:
    """What every entry of one batch reads: the answers (AnswerBook), the earlier results, one output schema."""

    book: AnswerBook
    priors: dict[str, ClientRequest | None]
    dump: AnswerSchema

    def forget(self, client_id: str) -> None:
        """Another request stored this client_id meanwhile: read it afresh."""
        self.book.forget(client_id)
        self.priors.pop(client_id, None)


def sync_entry(actor, inspection, raw: dict, entry: dict | ValidationError, batch: _Batch) -> dict:
    """One entry in its own savepoint: applied, duplicate, conflict or rejected, never an error for the batch."""
    client_id, item_id = raw.get("client_id"), raw.get("item_id")
    outcome = {"client_id": client_id, "item_id": item_id, "reason": None, "answer": None}
    if isinstance(entry, ValidationError):
        return {**outcome, "status": "rejected", "reason": localize(entry.messages)}
    body = {k: v for k, v in raw.items() if k != "item_id"}
    digest, scope = body_hash(body), answer_scope(inspection.id, entry["item_id"])
    for attempt in range(2):
        try:
            return {**outcome, **_apply_entry(actor, inspection, entry, scope, digest, batch)}
        except IntegrityError:
            # Another request (a photo, a submission) took this client_id meanwhile: look again,
            # now that it has committed; a second clash is that other write's, not ours.
            batch.forget(str(entry["client_id"]))
            if attempt:
                return {**outcome, "status": "conflict",
                        "reason": localize(Msg("Este client_id ya se usó con otro contenido; genere uno nuevo."))}
        except Conflict as error:
            return {**outcome, "status": "conflict", "reason": localize(error.detail or error.title)}
        except DomainError as error:
            reason = localize(error.errors) if error.errors else localize(error.detail or error.title)
            return {**outcome, "status": "rejected", "reason": reason}
    raise AssertionError("unreachable")


def _apply_entry(actor, inspection, entry: dict, scope: str, digest: str, batch: _Batch) -> dict:
    """Apply one sync entry inside a savepoint (rolled back alone on failure); its status and answer."""
    client_id = str(entry["client_id"])
    with db.session.begin_nested():
        prior = prior_result(client_id, actor, scope, digest, batch.priors)
        if prior is not None:
            return {"status": "duplicate", "answer": prior.response}
        stored = recorded_answer(actor, inspection, entry["item_id"], entry, batch.book)  # a page form or the demo
        written = stored or record_answer(actor, inspection, entry["item_id"], entry, office_now(), batch.book)
        answer = batch.dump.dump(written)
        kept = remember_result(client_id, actor, scope, digest, 200, answer)
    batch.book.note(written)  # only once its savepoint is released: a rolled-back entry wrote nothing
    batch.priors[client_id] = kept
    return {"status": "duplicate" if stored else "applied", "answer": answer}


def _load(schema: SyncEntrySchema, raw: dict) -> dict | ValidationError:
    try:
        return schema.load(raw)
    except ValidationError as error:
        return error


def apply_sync_batch(actor, inspection, entries: list[dict]) -> list[dict]:
    """Every entry of a batch in order, each its own outcome; the caller commits once.

    The inspection's row is held from here to the commit (AnswerBook), so a copy of the batch sent at the same
    time waits, then finds every entry applied; what the entries need is read once for all of them.
    """
    schema = SyncEntrySchema()
    loaded = [_load(schema, raw) for raw in entries]
    client_ids = list(dict.fromkeys(str(e["client_id"]) for e in loaded if not isinstance(e, ValidationError)))
    batch = _Batch(AnswerBook(inspection, client_ids), prior_results(client_ids), AnswerSchema())
    return [sync_entry(actor, inspection, raw, entry, batch) for raw, entry in zip(entries, loaded)]
