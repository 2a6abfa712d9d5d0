"""The tablet's sync batch: each queued answer applied once per client_id, with its own outcome, never failing the batch.

A batch is checked and built in memory entry by entry, in order (a later answer to an item sees the earlier one), and
written at once in one savepoint: the answers in one statement, then their once-only records and audit events. Only
when another request stored one of its client_ids meanwhile (the write's IntegrityError) is it applied again entry by
entry, each in its own savepoint, reading afresh what that request committed.
"""
from dataclasses import dataclass, field

from marshmallow import ValidationError
from sqlalchemy.exc import IntegrityError

from inspection.core.client_requests import REUSED_CLIENT_ID, body_hash, prior_result, prior_results, remember_result
from inspection.core.clock import office_now
from inspection.core.exceptions import Conflict, DomainError
from inspection.core.extensions import db
from inspection.core.models import Answer, ClientRequest
from inspection.i18n.language import localize
from inspection.inspections.operations import (
    AnswerBook,
    answer_recorded,
    new_answer,
    recorded_answer,
    require_inspector,
)
from inspection.inspections.schemas import AnswerSchema, SyncEntrySchema


def answer_scope(inspection_id: int, item_id: str) -> str:
    """The once-only scope of one item's answer: a PUT and a sync entry with one client_id are one write."""
    return f"answer:{inspection_id}:{item_id}"


@dataclass
class _Batch:
    """What the entries read (the answers, the earlier results, read once) and the new answers they wrote, each with
    whether it was current when written (its audit event says so)."""

    book: AnswerBook
    priors: dict[str, ClientRequest | None]
    dump: AnswerSchema = field(default_factory=AnswerSchema)
    written: list[tuple[Answer, bool]] = field(default_factory=list)


def _read(inspection, loaded: list) -> _Batch:
    """Hold the inspection's row and read what these entries need: their answers and their once-only records."""
    client_ids = list(dict.fromkeys(str(e["client_id"]) for e in loaded if not isinstance(e, ValidationError)))
    return _Batch(AnswerBook(inspection, client_ids), prior_results(client_ids))


def _load(schema: SyncEntrySchema, raw: dict) -> dict | ValidationError:
    try:
        return schema.load(raw)
    except ValidationError as error:
        return error


def apply_sync_batch(actor, inspection, entries: list[dict]) -> list[dict]:
    """Every entry of a batch in order, each its own outcome; the caller commits once.

    The inspection's row is held from here to the commit (AnswerBook), so a copy of the batch sent at the same
    time waits, then finds every entry applied.
    """
    schema = SyncEntrySchema()
    pairs = [(raw, _load(schema, raw)) for raw in entries]
    batch = _read(inspection, [entry for _, entry in pairs])
    try:
        with db.session.begin_nested():
            return _apply(actor, inspection, pairs, batch)
    except IntegrityError:
        # Another request (a photo, a submission) took one of these client_ids meanwhile: the savepoint is undone,
        # and each entry goes on its own, so only that one is refused.
        return [_apply_alone(actor, inspection, pair) for pair in pairs]


def _apply_alone(actor, inspection, pair: tuple) -> dict:
    """One entry in its own savepoint, reading afresh; a second clash on its client_id is that other write's."""
    for attempt in range(2):
        try:
            with db.session.begin_nested():
                return _apply(actor, inspection, [pair], _read(inspection, [pair[1]]))[0]
        except IntegrityError:
            if attempt:
                return {**_outcome(pair[0]), "status": "conflict",
                        "reason": localize(REUSED_CLIENT_ID)}
    raise AssertionError("unreachable")


def _outcome(raw: dict) -> dict:
    return {"client_id": raw.get("client_id"), "item_id": raw.get("item_id"), "reason": None, "answer": None}


def _apply(actor, inspection, pairs: list[tuple], batch: _Batch) -> list[dict]:
    """Each entry's outcome, then the writes of the applied ones: one flush for the answers (the replaced ones'
    UPDATEs first) and their records, their audit events (which name the answers' ids) with the savepoint."""
    outcomes = []
    for raw, entry in pairs:
        outcome = _outcome(raw)
        if isinstance(entry, ValidationError):
            outcomes.append({**outcome, "status": "rejected", "reason": localize(entry.messages)})
            continue
        try:
            outcomes.append({**outcome, **_entry(actor, inspection, raw, entry, batch)})
        except Conflict as error:
            outcomes.append({**outcome, "status": "conflict", "reason": localize(error.detail or error.title)})
        except DomainError as error:
            reason = localize(error.errors) if error.errors else localize(error.detail or error.title)
            outcomes.append({**outcome, "status": "rejected", "reason": reason})
    if batch.written:
        db.session.flush()
        for answer, current in batch.written:
            answer_recorded(actor, answer, current)
    return outcomes


def _entry(actor, inspection, raw: dict, entry: dict, batch: _Batch) -> dict:
    """One entry checked and built, not yet written: its status and answer. A refusal raises before any change."""
    client_id, item_id = str(entry["client_id"]), entry["item_id"]
    body = {k: v for k, v in raw.items() if k != "item_id"}
    scope, digest = answer_scope(inspection.id, item_id), body_hash(body)
    prior = prior_result(client_id, actor, scope, digest, batch.priors)
    if prior is not None:
        return {"status": "duplicate", "answer": prior.response}
    answer = recorded_answer(actor, inspection, item_id, entry, batch.book)  # a page form's or the demo's
    stored = answer is not None
    if not stored:
        require_inspector(actor, inspection)
        answer = new_answer(actor, inspection, item_id, entry, office_now(), batch.book)
        db.session.add(answer)
        batch.book.note(answer)
        batch.written.append((answer, answer.current))
    dumped = batch.dump.dump(answer)  # as written: a later entry may yet replace it
    batch.priors[client_id] = remember_result(client_id, actor, scope, digest, 200, dumped)
    return {"status": "duplicate" if stored else "applied", "answer": dumped}
