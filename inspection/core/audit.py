"""The append-only audit trail: who did what, when, with which client_id."""
from inspection.core.extensions import db
from inspection.core.models import AuditEvent, User, utcnow


def record_event(actor: User | None, action: str, entity: str, entity_id, *, inspection_id: int | None = None,
                 client_id: str | None = None, details: dict | None = None, at=None) -> AuditEvent:
    """Append one event (flushed with the action it describes, so both land or neither does)."""
    event = AuditEvent(user_id=actor.id if actor else None, action=action, entity=entity, entity_id=str(entity_id),
                       inspection_id=inspection_id, client_id=client_id, details=details or {}, at=at or utcnow())
    db.session.add(event)
    return event
