"""Device sessions: the tablets a user has signed in, each a long-lived bearer token they or an admin can end."""
from datetime import datetime

from sqlalchemy import update

from inspection.core.audit import record_event
from inspection.core.exceptions import NotFound
from inspection.core.extensions import db
from inspection.core.models import ApiToken, User

DEFAULT_DEVICE_NAME = "Dispositivo"


def device_name_for(name: str | None, user_agent: str) -> str:
    """The name a device token is listed under: the one typed on the tablet, else its browser's User-Agent."""
    return ((name or "").strip() or user_agent.strip() or DEFAULT_DEVICE_NAME)[:120]


def _standing(user: User, now: datetime):
    """A query of the user's device tokens that still open the API (neither revoked nor expired)."""
    return db.select(ApiToken).where(ApiToken.user_id == user.id, ApiToken.kind == "device",
                                     ApiToken.revoked_at.is_(None), ApiToken.expires_at > now)


def list_devices(user: User, now: datetime, current_id: int | None = None) -> list[dict]:
    """The user's signed-in devices, newest first; `current` marks the token of this request."""
    tokens = db.session.scalars(_standing(user, now).order_by(ApiToken.created_at.desc(), ApiToken.id.desc()))
    return [{"id": t.id, "device_name": t.device_name, "created_at": t.created_at, "last_used_at": t.last_used_at,
             "expires_at": t.expires_at, "current": t.id == current_id} for t in tokens]


def get_device(user: User, device_id: int) -> ApiToken:
    """One of the user's own device sessions; another user's (or an API token) is not found."""
    token = db.session.get(ApiToken, device_id)
    if token is None or token.user_id != user.id or token.kind != "device":
        raise NotFound()
    return token


def revoke_device(user: User, device_id: int, now: datetime) -> ApiToken:
    """End one of the user's own device sessions; another user's (or an API token) is not found (flushes)."""
    token = get_device(user, device_id)
    if token.revoked_at is None:
        token.revoked_at = now
        record_event(user, "device.revoked", "user", user.id, details={"device_id": token.id}, at=now)
    return token


def revoke_devices(actor: User, user: User, now: datetime) -> int:
    """An admin ends every device session of a user (a lost tablet); how many were standing (audited)."""
    ended = db.session.execute(update(ApiToken).where(ApiToken.user_id == user.id, ApiToken.kind == "device",
                                                      ApiToken.revoked_at.is_(None), ApiToken.expires_at > now)
                               .values(revoked_at=now)).rowcount
    record_event(actor, "user.devices_revoked", "user", user.id, details={"devices": ended}, at=now)
    return ended


def device_counts(now: datetime) -> dict[int, int]:
    """User id -> how many device sessions stand (the admin's user list), in one query."""
    rows = db.session.execute(db.select(ApiToken.user_id, db.func.count(ApiToken.id))
                              .where(ApiToken.kind == "device", ApiToken.revoked_at.is_(None), ApiToken.expires_at > now)
                              .group_by(ApiToken.user_id))
    return dict(rows.all())
