"""Who is asking: slow password hashes, session login for pages, expiring bearer tokens for the API."""
import hashlib
import secrets
from datetime import datetime, timedelta
from functools import wraps

from flask import current_app, request
from flask_login import current_user
from sqlalchemy.orm import joinedload
from werkzeug.security import check_password_hash, generate_password_hash

from .errors import DomainError, Forbidden, Unauthorized
from .extensions import db, login_manager
from .i18n import Msg
from .models import ApiToken, LoginFailure, User, utcnow

# A constant hash to compare against when the user does not exist, so timing does not tell.
_DUMMY_HASH = None


def hash_password(password: str) -> str:
    """A slow, salted hash (scrypt by default) of a password."""
    return generate_password_hash(password, method=current_app.config["PASSWORD_METHOD"])


MAX_FAILURES = 10  # per username in LOCKOUT; then 429 until the oldest failure ages out
LOCKOUT = timedelta(minutes=15)


class TooManyAttempts(DomainError):
    """Too many failed sign-ins for one username."""

    status, code, title = 429, "too-many-attempts", Msg("Demasiados intentos")


def authenticate(username: str, password: str, now: datetime) -> User | None:
    """The active user with these credentials, or None (the failure is recorded; the caller commits).

    Unknown and known users cost the same slow hash, so timing does not reveal which exist; after
    MAX_FAILURES failures in LOCKOUT a username is refused outright (429) without checking anything.
    """
    global _DUMMY_HASH
    name = username.strip().lower()
    since = now - LOCKOUT
    failures = db.session.scalar(db.select(db.func.count(LoginFailure.id))
                                 .where(LoginFailure.username == name, LoginFailure.at > since))
    if failures >= MAX_FAILURES:
        raise TooManyAttempts(Msg("Demasiados intentos fallidos para este usuario. Espere 15 minutos."))
    user = db.session.scalar(db.select(User).filter_by(username=name))
    if user is None or not user.active:
        _DUMMY_HASH = _DUMMY_HASH or hash_password(secrets.token_hex(8))
        check_password_hash(_DUMMY_HASH, password)
        user = None
    elif not check_password_hash(user.password_hash, password):
        user = None
    if user is None:
        db.session.add(LoginFailure(username=name[:80], at=now))
    else:
        db.session.execute(db.delete(LoginFailure).where(LoginFailure.username == name))
    return user


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue_token(user: User, now: datetime) -> tuple[str, ApiToken]:
    """A new random bearer token for `user`; only its digest is stored."""
    raw = secrets.token_urlsafe(32)
    ttl = timedelta(hours=current_app.config["TOKEN_TTL_HOURS"])
    record = ApiToken(user=user, token_hash=_digest(raw), created_at=now, expires_at=now + ttl)
    db.session.add(record)
    return raw, record


def revoke_token(raw: str, now: datetime) -> None:
    """Revoke a bearer token so it is refused from now on."""
    record = db.session.scalar(db.select(ApiToken).filter_by(token_hash=_digest(raw)))
    if record and record.revoked_at is None:
        record.revoked_at = now


def _bearer_user() -> User | None:
    header = request.headers.get("Authorization", "")
    if not header.lower().startswith("bearer "):
        return None
    raw = header[7:].strip()
    record = db.session.scalar(db.select(ApiToken).options(joinedload(ApiToken.user))  # one query, not two
                               .filter_by(token_hash=_digest(raw)))
    if record is None or record.revoked_at is not None or record.expires_at <= utcnow():
        raise Unauthorized(Msg("El token no es válido o ha vencido. Inicie sesión de nuevo."))
    if not record.user.active:
        raise Unauthorized(Msg("La cuenta está desactivada."))
    return record.user


def api_user() -> User | None:
    """The caller of an API request: a bearer token, or, for reads only, the page session.

    Pages show thumbnails, QR images and PDFs from the API with their session cookie; every API
    write needs a bearer token, so no form on another site can write with a user's cookie.
    """
    cache = request.environ  # per request; `g` lives as long as the app context
    if "baliza.user" not in cache:
        user = _bearer_user()
        if user is None and request.method in ("GET", "HEAD") and current_user.is_authenticated:
            user = current_user._get_current_object()
        cache["baliza.user"] = user
    return cache["baliza.user"]


def require(*roles: str):
    """Decorator for API views: a signed-in caller with one of `roles` (any role if none given)."""

    def decorate(view):
        @wraps(view)
        def wrapper(*args, **kwargs):
            user = api_user()
            if user is None:
                raise Unauthorized()
            if roles and user.role not in roles:
                raise Forbidden()
            return view(*args, **kwargs)

        return wrapper

    return decorate


def require_page(*roles: str):
    """Decorator for pages: redirect to login when anonymous, 403 when the role is wrong."""

    def decorate(view):
        @wraps(view)
        def wrapper(*args, **kwargs):
            if not current_user.is_authenticated:
                return login_manager.unauthorized()
            if roles and current_user.role not in roles:
                raise Forbidden()
            return view(*args, **kwargs)

        return wrapper

    return decorate


@login_manager.user_loader
def _load_user(user_id: str) -> User | None:
    user = db.session.get(User, int(user_id))
    return user if user and user.active else None
