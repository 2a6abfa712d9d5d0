"""Page sessions: a signed cookie that costs nothing when none came, naming a row the server can revoke.

Flask's default interface builds an itsdangerous serializer on every request, even without a
cookie; on the public verification endpoint that was the largest single cost (bench/verify.py).
API calls and police scans carry no cookie and never reach the `user_sessions` table.
"""
import hashlib
import secrets
from datetime import datetime, timedelta

from flask.sessions import SecureCookieSessionInterface
from sqlalchemy import update
from sqlalchemy.orm import joinedload

from inspection.core.extensions import db
from inspection.core.models import User, UserSession

TOUCH_EVERY = timedelta(minutes=1)  # last_seen_at is written at most this often per session


class LazyCookieSessionInterface(SecureCookieSessionInterface):
    """The standard signed-cookie session, with its serializer built once per secret key."""

    def get_signing_serializer(self, app):
        cached = getattr(self, "_serializer", None)
        key = (app.secret_key, tuple(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        if cached is None or cached[0] != key:
            cached = self._serializer = (key, super().get_signing_serializer(app))
        return cached[1]

    def open_session(self, app, request):
        if app.config["SESSION_COOKIE_NAME"] not in request.cookies:
            return self.session_class()
        return super().open_session(app, request)

    def save_session(self, app, session, response):
        if not session and not session.modified:
            return  # nothing was stored and nothing must be deleted: no cookie work at all
        if response.cache_control.immutable:
            # A fingerprinted static file is everyone's: no `Vary: Cookie` (the HTTP cache would then miss the copy
            # fetched before a sign-in) and no cookie refreshed on it.
            return
        super().save_session(app, session, response)


# --- server-side sessions: the cookie carries a random id; the database says whether it still holds ---

def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def start_session(user: User, now: datetime, user_agent: str = "") -> str:
    """Open a page session for `user` and return its random id (only its SHA-256 is stored; flushes)."""
    raw = secrets.token_urlsafe(32)
    db.session.add(UserSession(session_hash=_digest(raw), user_id=user.id, created_at=now, last_seen_at=now,
                               user_agent=user_agent[:200]))
    db.session.flush()
    return raw


def standing_session(raw: str, now: datetime, idle: timedelta, lifetime: timedelta) -> UserSession | None:
    """The session behind a cookie with its active user, or None when revoked, idle or too old."""
    record = db.session.execute(
        db.select(UserSession).options(joinedload(UserSession.user)).filter_by(session_hash=_digest(raw))
    ).scalar_one_or_none()
    if (record is None or record.revoked_at is not None or not record.user.active
            or now - record.last_seen_at > idle or now - record.created_at > lifetime):
        return None
    return record


def touch_session(record: UserSession, now: datetime) -> bool:
    """Note that the session was used; True when that needs a write (at most once per TOUCH_EVERY).

    Writing on every request would turn each page view into a write; the idle limit is then
    exact to within that minute.
    """
    if now - record.last_seen_at < TOUCH_EVERY:
        return False
    record.last_seen_at = now
    return True


def revoke_session(raw: str, now: datetime) -> None:
    """End one session (logout), so a copy of its cookie is refused from now on."""
    db.session.execute(update(UserSession).where(UserSession.session_hash == _digest(raw),
                                                 UserSession.revoked_at.is_(None)).values(revoked_at=now))


def revoke_user_sessions(user: User, now: datetime) -> None:
    """End every session of a user (password change, account disabled), on every app server at once."""
    db.session.execute(update(UserSession).where(UserSession.user_id == user.id,
                                                 UserSession.revoked_at.is_(None)).values(revoked_at=now))
