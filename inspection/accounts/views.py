"""Signing in and out of the pages."""
from urllib.parse import urlsplit

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for
from flask_login import current_user

from inspection.accounts.auth import authenticate, require_page, sign_in, sign_out
from inspection.accounts.devices import device_counts, get_device, list_devices, revoke_device, revoke_devices
from inspection.accounts.feeds import FEED_ROLES, feed_url
from inspection.accounts.schemas import ConflictSchema, UserSchema
from inspection.accounts.users import (
    change_password,
    create_user,
    declare_conflict,
    get_user,
    set_active,
    set_language,
)
from inspection.core.clock import office_now
from inspection.core.exceptions import DomainError
from inspection.core.extensions import db
from inspection.core.models import ROLES, ConflictOfInterest, Owner, User
from inspection.i18n.labels import label as label_in
from inspection.i18n.language import current_language, gettext
from inspection.i18n.messages import Msg
from inspection.web.acts import ask_confirmation, confirmed, report_done
from inspection.web.forms import domain_errors, load_form

bp = Blueprint("pages", __name__)


def _landing() -> str:
    """Where a signed-in user starts: police at the verifier, inspectors at their agenda, owners at their fleet
    at a glance, reviewers at the countersignatures waiting (art. 221), the office at the registry."""
    if current_user.role == "police":
        return url_for("pwa.verificar")
    if current_user.role == "inspector":
        return url_for("tablet.agenda")
    if current_user.role == "owner":
        return url_for("fleet.fleet_page")
    if current_user.role == "reviewer":
        return url_for("review.review_queue_page")
    return url_for("registry.vessel_list")


def _safe_next(target: str | None) -> str:
    """Only local redirects after login, never to another site."""
    if target and not urlsplit(target).netloc and target.startswith("/") and not target.startswith("//"):
        return target
    return _landing()


@bp.route("/")
def home():
    """The start page: where the signed-in user starts (see _landing), the login otherwise."""
    if current_user.is_authenticated:
        return redirect(_landing())
    return redirect(url_for("pages.login"))


@bp.route("/login", methods=["GET", "POST"])
def login():
    """The login form (CSRF-protected)."""
    error = None
    if request.method == "POST":
        now = office_now()
        user = authenticate(request.form.get("username", ""), request.form.get("password", ""), now)
        if user is not None:
            sign_in(user, now)
        db.session.commit()  # a failure counts toward the lockout; a success clears them and opens the session
        if user is not None:
            return redirect(_safe_next(request.args.get("next")))
        error = gettext("Usuario o contraseña incorrectos.")
    status = 401 if error else 200
    return render_template("auth/login.html", error=error), status


@bp.route("/logout", methods=["POST"])
def logout():
    """Sign out (POST, so a link cannot sign anyone out); the session ends server-side too."""
    sign_out(office_now())
    db.session.commit()
    return redirect(url_for("pages.login"))


@bp.route("/cuenta", methods=["GET", "POST"])
@require_page()
def account():
    """Change one's own password; one's language; see and sign out one's devices; one's calendar feed URL."""
    errors, status = {}, 200
    if request.method == "POST":
        try:
            now, user = office_now(), current_user._get_current_object()
            change_password(user, request.form.get("current", ""), request.form.get("new", ""), now)
            sign_in(user, now)  # every session ended with the old password; this browser gets a new one
            db.session.commit()
            report_done(Msg("Contraseña cambiada. Las sesiones de la API abiertas con la anterior quedaron cerradas."))
            return redirect(url_for("pages.account"))
        except DomainError as error:
            db.session.rollback()
            errors, status = domain_errors(error), error.status
    return _account_page(errors, status)


def _account_page(errors: dict, status: int):
    """The account page, with a refused form's errors at its fields."""
    devices = list_devices(current_user, office_now())
    config = current_app.config
    calendar = (feed_url(current_user, config["SECRET_KEY"], config["PUBLIC_URL"])
                if current_user.role in FEED_ROLES else None)
    return render_template("auth/account.html", errors=errors, devices=devices, calendar_url=calendar,
                           languages=LANGUAGE_NAMES), status


LANGUAGE_NAMES = {"es": "Español", "en": "English"}  # each in its own language, as the menu's switch


@bp.route("/cuenta/idioma", methods=["POST"])
@require_page()
def account_language():
    """One's language: the pages' from now on, and the notices' e-mails and calendar's."""
    language = request.form.get("language", "")
    try:
        set_language(current_user._get_current_object(), language)
    except DomainError as error:
        db.session.rollback()
        return _account_page(domain_errors(error), error.status)
    db.session.commit()
    session["lang"] = language  # the session's choice wins over the account's (i18n/language.py)
    report_done(Msg("Idioma de la cuenta: {language}. Los avisos y el calendario también llegan en este idioma.",
                    language=LANGUAGE_NAMES[language]).in_language(language))
    return redirect(url_for("pages.account", _anchor="idioma"))


@bp.route("/cuenta/dispositivos/<int:device_id>/revocar", methods=["POST"])
@require_page()
def account_device_revoke(device_id):
    """Sign one of one's own devices out, after asking (it cannot be undone); another user's is not found."""
    device = get_device(current_user, device_id)
    if not confirmed():
        return ask_confirmation(
            Msg("¿Cerrar la sesión del dispositivo «{name}»?", name=device.device_name),
            Msg("No se puede deshacer: para volver a usarlo habrá que iniciar sesión en él de nuevo."),
            Msg("Sí, cerrar la sesión"), url_for("pages.account", _anchor="dispositivos"))
    revoke_device(current_user, device_id, office_now())
    db.session.commit()
    report_done(Msg("Sesión cerrada en el dispositivo «{name}».", name=device.device_name))
    return redirect(url_for("pages.account", _anchor="dispositivos"))


# Admin pages for accounts and inspectors' declared conflicts of interest (art. 214).
users_bp = Blueprint("users", __name__)


def _page(form_errors=None, values=None, conflict_errors=None, conflict_values=None, status=200):
    """The user list; a refused form's errors (and what was typed) beside it: the new-user form's, or the row's."""
    users = db.session.scalars(db.select(User).order_by(User.role, User.username)).all()
    owners = db.session.scalars(db.select(Owner).order_by(Owner.name)).all()
    conflicts = db.session.scalars(db.select(ConflictOfInterest)).all()
    by_user = {}
    for conflict in conflicts:
        by_user.setdefault(conflict.user_id, []).append(conflict)
    return render_template("users/list.html", users=users, owners=owners, roles=ROLES, conflicts=by_user,
                           owner_names={o.id: o.name for o in owners}, devices=device_counts(office_now()),
                           errors=form_errors or {},
                           values=values or {}, conflict_errors=conflict_errors or {},
                           conflict_values=conflict_values or {}), status


@users_bp.route("/usuarios")
@require_page("admin")
def user_list():
    """Every account with its role, and the form to add one."""
    return _page()


@users_bp.route("/usuarios", methods=["POST"])
@require_page("admin")
def user_create():
    """Create an account (the password is typed by the admin and changed by its owner)."""
    data, errors = load_form(request.form, UserSchema())
    if not errors:
        try:
            user = create_user(**data)
            db.session.commit()
            report_done(Msg("Usuario {username} creado ({role}).", username=user.username, role=label_in("role", user.role, current_language())))
            return redirect(url_for("users.user_list", _anchor=f"user-{user.id}"))
        except DomainError as error:
            db.session.rollback()
            errors = domain_errors(error)
    values = {k: v for k, v in request.form.items() if k != "password"}
    return _page(errors, values, status=422)


@users_bp.route("/usuarios/<int:user_id>/conflictos", methods=["POST"])
@require_page("admin")
def conflict_create(user_id):
    """Declare an inspector's link to an owner (art. 214)."""
    user = get_user(user_id)
    data, errors = load_form(request.form, ConflictSchema())
    if not errors:
        try:
            declare_conflict(current_user, user, data["owner_id"], data["reason"], office_now())
            db.session.commit()
            report_done(Msg("Vínculo de {user} con {owner} declarado.", user=user.full_name or user.username,
                            owner=db.session.get(Owner, data["owner_id"]).name))
            return redirect(url_for("users.user_list", _anchor=f"user-{user.id}"))
        except DomainError as error:
            db.session.rollback()
            errors = domain_errors(error)
    return _page(conflict_errors={user.id: errors}, conflict_values={user.id: request.form.to_dict()}, status=422)


@users_bp.route("/usuarios/<int:user_id>/activo", methods=["POST"])
@require_page("admin")
def user_active(user_id):
    """Disable an account (its sessions and tokens end at once) or enable it again."""
    user, active = get_user(user_id), request.form.get("active") == "1"
    try:
        set_active(current_user, user, active, office_now())
        db.session.commit()
    except DomainError as error:
        db.session.rollback()
        return _page(conflict_errors={user.id: domain_errors(error)}, status=error.status)
    report_done(Msg("Cuenta {username} reactivada.", username=user.username) if active else
                Msg("Cuenta {username} desactivada: sus sesiones y dispositivos quedaron cerrados.", username=user.username))
    return redirect(url_for("users.user_list", _anchor=f"user-{user.id}"))


@users_bp.route("/usuarios/<int:user_id>/dispositivos/revocar", methods=["POST"])
@require_page("admin")
def user_devices_revoke(user_id):
    """Sign every tablet of a user out (a lost or handed-over device), after asking (it cannot be undone); audited."""
    user = get_user(user_id)
    if not confirmed():
        return ask_confirmation(
            Msg("¿Cerrar las sesiones de todos los dispositivos de {username}?", username=user.username),
            Msg("No se puede deshacer: cada dispositivo tendrá que iniciar sesión de nuevo para volver a usarse."),
            Msg("Sí, cerrar las sesiones"), url_for("users.user_list", _anchor=f"user-{user.id}"))
    ended = revoke_devices(current_user, user, office_now())
    db.session.commit()
    report_done(Msg("Sesiones cerradas en los dispositivos de {username}: {count}.", username=user.username, count=ended))
    return redirect(url_for("users.user_list", _anchor=f"user-{user.id}"))
