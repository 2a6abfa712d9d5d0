"""Who is asking: slow password hashes, revocable session login for pages, expiring bearer tokens for the API."""
import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app, request, session
from flask_login import current_user, login_user, logout_user
from flask_wtf.csrf import validate_csrf
from sqlalchemy import bindparam, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import make_transient_to_detached
from werkzeug.security import check_password_hash, generate_password_hash
from wtforms.validators import ValidationError

from inspection.accounts.access import refuse_unseen_records
from inspection.accounts.sessions import TOUCH_EVERY, revoke_session, standing_session, start_session, touch_session
from inspection.core.clock import office_now
from inspection.core.exceptions import DomainError, Forbidden, Unauthorized
from inspection.core.extensions import SAFE_METHODS, db, login_manager
from inspection.core.models import ApiToken, User
from inspection.core.readcache import cached, data_stamp
from inspection.i18n.messages import Msg
from inspection.web.api_common import Blueprint
from inspection.web.rate_limits import USER_LOCKOUT, clear_hits, count_hit

# A constant hash to compare against when the user does not exist, so timing does not tell.
_DUMMY_HASH = None


def hash_password(password: str) -> str:
    """A slow, salted hash (scrypt by default) of a password."""
    return generate_password_hash(password, method=current_app.config["PASSWORD_METHOD"])


MAX_FAILURES, LOCKOUT = USER_LOCKOUT.count, USER_LOCKOUT.window  # passwords checked per username and window; then 429


class TooManyAttempts(DomainError):
    """Too many failed sign-ins for one username."""

    status, code, title = 429, "too-many-attempts", Msg("Demasiados intentos")


def authenticate(username: str, password: str, now: datetime) -> User | None:
    """The active user with these credentials, or None (the attempt stays counted).

    The attempt is counted first and committed at once (rate_limits.count_hit: one UPDATE ... RETURNING
    on the username's counter, the row every app server shares), so however many arrive at once, each
    gets its own count: at most MAX_FAILURES passwords are checked per LOCKOUT window, and the rest are
    refused (429).
    Unknown and known users cost the same slow hash, so timing does not reveal which exist; a
    success clears the count.
    """
    global _DUMMY_HASH
    name = username.strip().lower()
    if count_hit(_user_bucket(name), now, LOCKOUT)[0] > MAX_FAILURES:
        raise TooManyAttempts(Msg("Demasiados intentos fallidos para este usuario. Espere 15 minutos."))
    user = db.session.scalar(db.select(User).filter_by(username=name))
    if user is None or not user.active:
        _DUMMY_HASH = _DUMMY_HASH or hash_password(secrets.token_hex(8))
        check_password_hash(_DUMMY_HASH, password)
        return None
    if not check_password_hash(user.password_hash, password):
        return None
    clear_hits(_user_bucket(name), now)
    return user


def _user_bucket(name: str) -> str:
    """The username's counter in rate_counters (its address-free lockout)."""
    return f"user:{name}"[:120]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class TokenRefused(Unauthorized):
    """A bearer token that no longer opens anything: the tablet must sign in again (its outbox waits)."""

    code = "token-invalid"


class CsrfRefused(DomainError):
    """A cookie-authenticated API write without this page's CSRF token."""

    status, code, title = 400, "csrf-invalid", Msg("Solicitud no válida")


def issue_token(user: User, now: datetime, device_name: str | None = None) -> tuple[str, ApiToken]:
    """A new random bearer token for `user` (a device token when `device_name` is given); only its digest is stored.

    An API token lives TOKEN_TTL_HOURS; a device token DEVICE_TOKEN_DAYS, so a tablet offline for
    days can still sync when it returns.
    """
    raw = secrets.token_urlsafe(32)
    config = current_app.config
    if device_name is None:
        record = ApiToken(user=user, token_hash=_digest(raw), kind="api", created_at=now,
                          expires_at=now + timedelta(hours=config["TOKEN_TTL_HOURS"]))
    else:
        record = ApiToken(user=user, token_hash=_digest(raw), kind="device", device_name=device_name[:120],
                          created_at=now, expires_at=now + timedelta(days=config["DEVICE_TOKEN_DAYS"]))
    db.session.add(record)
    return raw, record


def revoke_token(raw: str, now: datetime) -> None:
    """Revoke a bearer token so it is refused from now on."""
    record = db.session.scalar(db.select(ApiToken).filter_by(token_hash=_digest(raw)))
    if record and record.revoked_at is None:
        record.revoked_at = now


# One indexed query on the token's digest, as plain values: the user's columns and the token's few.
_TOKEN_LOOKUP = (db.select(*User.__table__.c, ApiToken.id.label("token_id"), ApiToken.kind.label("token_kind"),
                           ApiToken.expires_at.label("token_expires_at"), ApiToken.revoked_at.label("token_revoked_at"),
                           ApiToken.last_used_at.label("token_last_used_at"))
                 .join(ApiToken, ApiToken.user_id == User.id)
                 .where(ApiToken.token_hash == bindparam("token_hash")))
TOKENS_KEPT = 512  # bearer tokens a process remembers: every tablet and script of a busy office


@dataclass
class _Token:
    """A bearer token as this process last read it, with its user detached: a read is served by this User itself,
    a write by a copy merged into its session (_bearer_user)."""

    id: int
    kind: str
    expires_at: datetime
    revoked_at: datetime | None
    last_used_at: datetime | None
    user: User


def _read_token(digest: str) -> _Token:
    """The token with this digest and its user from the database, the user built in no session (so no
    request's own User is ever touched); an unknown token is refused (and not kept)."""
    found = db.session.connection().execute(_TOKEN_LOOKUP, {"token_hash": digest}).one_or_none()
    if found is None:
        raise TokenRefused(Msg("El token no es válido o ha vencido. Inicie sesión de nuevo."))
    user = User(**{column.key: found._mapping[column] for column in User.__table__.c})
    make_transient_to_detached(user)
    return _Token(found.token_id, found.token_kind, found.token_expires_at, found.token_revoked_at,
                  found.token_last_used_at, user)


def _bearer_user() -> User | None:
    """The bearer token's user. The token and user are kept per process under the access stamp, which every
    revocation, deactivation or change of a user redraws in its transaction: a refusal holds on every server at
    once for a write (which reads the stamp) and within a notice's milliseconds for a read (which hears it), and a
    known token costs no query and no User built.

    A read (GET, HEAD, OPTIONS) gets the kept User itself, in no session: reads only look at who the caller is
    (role, owner, id) and never change, attach or lazy-load it (tests/accounts/test_auth.py holds it), so they need
    no copy in the request's session; attaching one, opening that session and closing it were a fifth of a kept
    vessel list's time (issue 22). A write gets its own copy in its session, as anything it changes must be."""
    header = request.headers.get("Authorization", "")
    if not header.lower().startswith("bearer "):
        return None
    raw, now = header[7:].strip(), office_now()
    digest = _digest(raw)
    found = cached("bearer_tokens", (digest, data_stamp("access")), lambda: _read_token(digest), size=TOKENS_KEPT)
    if found.revoked_at is not None or found.expires_at <= now:
        raise TokenRefused(Msg("El token no es válido o ha vencido. Inicie sesión de nuevo."))
    user = found.user if request.method in SAFE_METHODS else db.session.merge(found.user, load=False)
    if not user.active:
        raise TokenRefused(Msg("La cuenta está desactivada."))
    request.environ["baliza.token_id"] = found.id
    if found.kind == "device" and (found.last_used_at is None or now - found.last_used_at >= TOUCH_EVERY):
        # at most once a minute, like a page session's touch; when it was last used decides no access
        db.session.execute(update(ApiToken).where(ApiToken.id == found.id).values(last_used_at=now)
                           .execution_options(unstamped=True))
        found.last_used_at = now
        _commit_touch()
    return user


def request_token_id() -> int | None:
    """The id of the bearer token this request came with (None for a page session or anonymous)."""
    api_user()
    return request.environ.get("baliza.token_id")


def api_user() -> User | None:
    """The caller of an API request: a bearer token, or, for reads only, the page session.

    Pages show thumbnails, QR images and PDFs from the API with their session cookie; every API
    write needs a bearer token, so no form on another site can write with a user's cookie.
    """
    cache = request.environ  # per request; `g` lives as long as the app context
    if "baliza.user" not in cache:
        user = _bearer_user()
        if user is None and request.method in SAFE_METHODS and current_user.is_authenticated:
            user = current_user._get_current_object()
        cache["baliza.user"] = user
    return cache["baliza.user"]


BEARER = [{"bearerAuth": []}]  # the OpenAPI security requirements; the schemes are declared in api/__init__.py
PAGE_SESSION = [{"pageSession": []}]


@dataclass(frozen=True)
class Access:
    """Who may call a view: `roles` (any signed-in role when empty), on the API or on a page.

    `session`: an API view that authenticates with the page session (its cookie and, for a write,
    the page's CSRF token in the X-CSRFToken header) instead of a bearer token.
    """

    roles: tuple[str, ...]
    page: bool
    session: bool = False


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


def require_session(*roles: str):
    """Mark an API view as needing the page session and its CSRF token (X-CSRFToken), never a bearer token.

    It is how a signed-in page hands a bearer token to its own scripts: a form or script on another
    site sends the cookie but cannot read the page's CSRF token.
    """

    def decorate(view):
        refusals = {"400": "BAD_REQUEST", "401": "UNAUTHORIZED", **({"403": "FORBIDDEN"} if roles else {})}
        view = Blueprint.doc(security=PAGE_SESSION, responses=refusals)(view)
        view.access = Access(roles, page=False, session=True)
        return view

    return decorate


def _check_csrf_header() -> None:
    """The page's CSRF token must come in X-CSRFToken (pages check it in the form; the API is exempt there)."""
    if not current_app.config.get("WTF_CSRF_ENABLED", True):
        return
    try:
        validate_csrf(request.headers.get("X-CSRFToken"))
    except ValidationError:
        raise CsrfRefused(Msg("Falta el token CSRF de la página o no es válido: recargue la página e inténtelo de nuevo.")) from None


def require_page(*roles: str):
    """Mark a page as needing a session with one of `roles`: login when anonymous, 403 when the role is wrong."""

    def decorate(view):
        view.access = Access(roles, page=True)
        return view

    return decorate


# --- page sessions: the cookie names a `user_sessions` row; each request checks it ----------------

def sign_in(user: User, now: datetime) -> None:
    """Start a server-side page session for `user` in this browser (the caller commits).

    The signed cookie carries only the session's random id, where Flask-Login would keep the user
    id: the loader below looks it up, so revoking the row ends the session on every app server.
    """
    sign_out(now)  # a previous session in this browser does not linger behind the new one
    raw = start_session(user, now, request.user_agent.string)
    login_user(user)  # never remember=True: a remember cookie would be a second, longer-lived session
    session["_user_id"] = raw


def sign_out(now: datetime) -> None:
    """End this browser's page session server-side, so a copy of its cookie stops working (the caller commits)."""
    raw = session.get("_user_id")
    if raw:
        revoke_session(raw, now)
    logout_user()
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
    elif access.session:
        if not current_user.is_authenticated:
            raise Unauthorized(Msg("Inicie sesión en la página para vincular este dispositivo."))
        user = current_user
    else:
        user = api_user()
        if user is None:
            raise Unauthorized()
    refuse_unseen_records(user, request.view_args or {})
    if access.roles and user.role not in access.roles:
        raise Forbidden()
    if access.session and request.method not in SAFE_METHODS:
        _check_csrf_header()
    return None


@login_manager.user_loader
def _load_user(session_id: str) -> User | None:
    """The user of a standing session, for requests that brought a cookie (none do a query otherwise)."""
    config, now = current_app.config, office_now()
    record = standing_session(session_id, now, idle=timedelta(minutes=config["SESSION_IDLE_MINUTES"]),
                              lifetime=timedelta(hours=config["SESSION_LIFETIME_HOURS"]))
    if record is None:
        return None
    user = record.user
    if touch_session(record, now):
        _commit_touch()
    return user


def _commit_touch() -> None:
    """Commit last_seen_at now: reads never commit, and the user is loaded before a view does any work.

    On SQLite a read transaction cannot always become a writer (another connection committed in
    between); the touch is then skipped, costing at most a minute of idle time, never the request.
    """
    try:
        db.session.commit()
    except OperationalError:
        db.session.rollback()
