"""User accounts: created by admins or the CLI, never by inspectors."""
from datetime import datetime

from sqlalchemy import update
from werkzeug.security import check_password_hash

from inspection.accounts.auth import hash_password
from inspection.accounts.sessions import revoke_user_sessions
from inspection.core.exceptions import Conflict, Invalid, NotFound
from inspection.core.extensions import db
from inspection.core.models import ROLES, ApiToken, ConflictOfInterest, Owner, User, Vessel
from inspection.core.readcache import forget_memo, transaction_memo
from inspection.i18n.messages import LANGUAGES, Msg


def create_user(username: str, password: str, role: str, owner_id: int | None = None,
                full_name: str = "", language: str = "es", email: str | None = None, unit: str | None = None,
                title: str | None = None) -> User:
    """Add a user with a slow-hashed password; owners must be linked to their armador; a police officer may
    name his unit (who sees his patrol checks); a reviewer his capacity (printed under his countersignature)."""
    username = username.strip().lower()
    if role not in ROLES:
        raise Invalid(errors={"role": [Msg("Rol desconocido: {role}.", role=role)]})
    if len(password) < 10:
        raise Invalid(errors={"password": [Msg("La contraseña debe tener al menos 10 caracteres.")]})
    if role == "owner" and (owner_id is None or db.session.get(Owner, owner_id) is None):
        raise Invalid(errors={"owner_id": [Msg("Un usuario armador debe estar vinculado a un armador existente.")]})
    if db.session.scalar(db.select(User.id).filter_by(username=username)) is not None:
        raise Conflict(Msg("Ya existe el usuario {username}.", username=username))
    user = User(username=username, password_hash=hash_password(password), role=role,
                owner_id=owner_id if role == "owner" else None, full_name=full_name, language=language,
                email=(email or "").strip() or None)
    if role == "police":
        user.unit = (unit or "").strip() or None
    if role == "reviewer":
        user.title = (title or "").strip() or None
    db.session.add(user)
    db.session.flush()
    return user


_CONFLICTS = "conflicts"  # has_conflict's memo of (inspector, vessel) pairs


def has_conflict(inspector: User, vessel_id: int) -> bool:
    """True when the inspector is linked to the vessel's owner (art. 214: never inspect your own company); asked of
    the database once a transaction for each pair (a sync batch asks it for every answer), in one statement, so a
    request that has not loaded the vessel (a photo's) does not read it for this."""
    known = transaction_memo(_CONFLICTS)
    if (inspector.id, vessel_id) not in known:
        known[inspector.id, vessel_id] = db.session.scalar(
            db.select(ConflictOfInterest.id).join(Vessel, Vessel.owner_id == ConflictOfInterest.owner_id)
            .where(ConflictOfInterest.user_id == inspector.id, Vessel.id == vessel_id).limit(1)) is not None
    return known[inspector.id, vessel_id]


def declare_conflict(actor: User, user: User, owner_id: int, reason: str, now) -> ConflictOfInterest:
    """Record an inspector's link to an owner or company (art. 214); declaring it twice is one record."""
    from inspection.core.audit import record_event

    if db.session.get(Owner, owner_id) is None:
        raise Invalid(errors={"owner_id": [Msg("No existe un armador con ese número.")]})
    existing = db.session.scalar(db.select(ConflictOfInterest).filter_by(user_id=user.id, owner_id=owner_id))
    if existing is not None:
        return existing
    conflict = ConflictOfInterest(user_id=user.id, owner_id=owner_id, reason=reason, declared_at=now)
    db.session.add(conflict)
    db.session.flush()
    forget_memo(_CONFLICTS)  # this transaction's has_conflict() may have said "no" a moment ago
    record_event(actor, "conflict.declared", "user", user.id, details={"owner_id": owner_id, "reason": reason}, at=now)
    return conflict


def change_password(user: User, current: str, new: str, now: datetime) -> User:
    """Replace a user's password after checking the current one; their API tokens and page sessions end."""
    if not check_password_hash(user.password_hash, current):
        raise Invalid(errors={"current": [Msg("La contraseña actual no es correcta.")]})
    if len(new) < 10:
        raise Invalid(errors={"new": [Msg("La contraseña debe tener al menos 10 caracteres.")]})
    if new == current:
        raise Invalid(errors={"new": [Msg("La contraseña nueva debe ser distinta de la actual.")]})
    user.password_hash = hash_password(new)
    _end_access(user, now)  # a stolen tablet token or copied cookie dies with the old password
    return user


def set_language(user: User, language: str) -> User:
    """The language of a user's pages, notices and calendar (one of LANGUAGES)."""
    if language not in LANGUAGES:
        raise Invalid(errors={"language": [Msg("Idioma desconocido: {language}.", language=language)]})
    user.language = language
    return user


def set_active(actor: User, user: User, active: bool, now: datetime) -> User:
    """Disable or re-enable an account (admins); disabling ends its sessions and tokens at once."""
    from inspection.core.audit import record_event

    if user.id == actor.id and not active:
        raise Conflict(Msg("No puede desactivar su propia cuenta."))
    if user.active != active:
        user.active = active
        if not active:
            _end_access(user, now)
        record_event(actor, "user.enabled" if active else "user.disabled", "user", user.id, at=now)
    return user


def _end_access(user: User, now: datetime) -> None:
    """Revoke every bearer token and page session of a user, on every app server at once."""
    db.session.execute(update(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))
                       .values(revoked_at=now))
    revoke_user_sessions(user, now)


def get_user(user_id: int) -> User:
    """The account a staff form or endpoint names, or NotFound (only staff reach these, so none is hidden)."""
    user = db.session.get(User, user_id)
    if user is None:
        raise NotFound()
    return user
