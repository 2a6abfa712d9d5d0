"""The private calendar URL: a per-user secret, renewable like a device token, for phones that subscribe without a session."""
import base64
import hashlib
import hmac
import secrets
from datetime import datetime

from inspection.core.audit import record_event
from inspection.core.extensions import db
from inspection.core.models import User

FEED_ROLES = ("owner", "inspector")


def feed_secret(user: User, key: str) -> str:
    """The secret of the user's current feed URL (32 URL-safe characters, 192 bits)."""
    digest = hmac.new(key.encode(), f"baliza-calendar:{user.id}:{user.calendar_nonce or ''}".encode(),
                      hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()


def feed_url(user: User, key: str, public_url: str) -> str:
    """The private .ics URL a phone subscribes to."""
    return f"{public_url}/calendario/{user.id}/{feed_secret(user, key)}.ics"


def feed_user(user_id: int, secret: str, key: str) -> User | None:
    """The active owner or inspector whose feed this secret opens, else None (compared in constant time)."""
    user = db.session.get(User, user_id)
    if user is None or not user.active or user.role not in FEED_ROLES:
        return None
    return user if hmac.compare_digest(feed_secret(user, key).encode(), secret.encode()) else None


def renew_feed(user: User, now: datetime) -> User:
    """Draw a new nonce: the feed gets a new URL and the old one is refused from now on (audited)."""
    user.calendar_nonce, user.calendar_renewed_at = secrets.token_urlsafe(24), now
    record_event(user, "calendar.renewed", "user", user.id, at=now)
    return user
