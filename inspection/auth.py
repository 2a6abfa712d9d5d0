"""Who is asking: slow password hashes, session login for pages, expiring bearer tokens for the API."""
import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app, request
from flask_login import current_user
from flask_smorest import Blueprint
from sqlalchemy.orm import joinedload
from werkzeug.security import check_password_hash, generate_password_hash

from .access import refuse_unseen_records
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


BEARER = [{"bearerAuth": []}]  # the OpenAPI security requirement; the scheme is declared in api/__init__.py


@dataclass(frozen=True)
class Access:
    """Who may call a view: `roles` (any signed-in role when empty), on the API or on a page."""

    roles: tuple[str, ...]
    page: bool


def require(*roles: str):
    """Mark an API view as needing a bearer token with one of `roles` (any role if none given).

    `authorize_request` enforces it before the body or the query is parsed, whatever the order of the
    decorators; the OpenAPI document shows the bearer security and its 401/403 problems.
    """

    def decorate(view):
        refusals = {"401": "UNAUTHORIZED", **({"403": "FORBIDDEN"} if roles else {})}
        view = Blueprint.doc(security=BEARER, responses=refusals)(view)
        view.access = Access(roles, page=False)
        return view

    return decorate


def require_page(*roles: str):
    """Mark a page as needing a session with one of `roles`: login when anonymous, 403 when the role is wrong."""

    def decorate(view):
        view.access = Access(roles, page=True)
        return view

    return decorate


def authorize_request():
    """Refuse a caller the view does not admit before anything reads the request (before_request).

    It runs ahead of argument parsing and of the CSRF check, which both read the body, so a caller
    who may not do something learns nothing about the form: 401 (the login page for a browser), 404
    for a record outside an owner's fleet (existence does not leak), then 403 for a role the view
    does not allow.
    """
    access = getattr(current_app.view_functions.get(request.endpoint), "access", None)
    if access is None:
        return None
    if access.page:
        if not current_user.is_authenticated:
            return login_manager.unauthorized()
        user = current_user
    else:
        user = api_user()
        if user is None:
            raise Unauthorized()
    refuse_unseen_records(user, request.view_args or {})
    if access.roles and user.role not in access.roles:
        raise Forbidden()
    return None


@login_manager.user_loader
def _load_user(user_id: str) -> User | None:
    user = db.session.get(User, int(user_id))
    return user if user and user.active else None
