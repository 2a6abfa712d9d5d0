"""Signing in and out of the pages."""
from urllib.parse import urlsplit

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from flask_login import current_user

from inspection.accounts.auth import authenticate, require_page, sign_in, sign_out
from inspection.accounts.devices import device_counts, list_devices, revoke_device, revoke_devices
from inspection.accounts.feeds import FEED_ROLES, feed_url
from inspection.accounts.schemas import ConflictSchema, UserSchema
from inspection.accounts.users import change_password, create_user, declare_conflict, get_user, set_active
from inspection.core.clock import office_now
from inspection.core.exceptions import DomainError
from inspection.core.extensions import db
from inspection.core.models import ROLES, ConflictOfInterest, Owner, User
from inspection.i18n.language import gettext
from inspection.web.forms import domain_errors, load_form

bp = Blueprint("pages", __name__)


def _landing() -> str:
    """Where a signed-in user starts: police at the verifier, inspectors at their agenda, owners at their fleet
    at a glance, the office at the registry."""
    if current_user.role == "police":
        return url_for("pwa.verificar")
    if current_user.role == "inspector":
        return url_for("tablet.agenda")
    if current_user.role == "owner":
        return url_for("fleet.fleet_page")
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
    """Change one's own password; see and sign out one's devices; one's calendar feed URL."""
    errors, done, status = {}, False, 200
    if request.method == "POST":
        try:
            now, user = office_now(), current_user._get_current_object()
            change_password(user, request.form.get("current", ""), request.form.get("new", ""), now)
            sign_in(user, now)  # every session ended with the old password; this browser gets a new one
            db.session.commit()
            done = True
        except DomainError as error:
            db.session.rollback()
            errors, status = domain_errors(error), error.status
    devices = list_devices(current_user, office_now())
    config = current_app.config
    calendar = (feed_url(current_user, config["SECRET_KEY"], config["PUBLIC_URL"])
                if current_user.role in FEED_ROLES else None)
    return render_template("auth/account.html", errors=errors, done=done, devices=devices, calendar_url=calendar,
                           renewed=request.args.get("renovado") == "1"), status


@bp.route("/cuenta/dispositivos/<int:device_id>/revocar", methods=["POST"])
@require_page()
def account_device_revoke(device_id):
    """Sign one of one's own devices out; another user's is not found."""
    revoke_device(current_user, device_id, office_now())
    db.session.commit()
    return redirect(url_for("pages.account") + "#dispositivos")


# Admin pages for accounts and inspectors' declared conflicts of interest (art. 214).
users_bp = Blueprint("users", __name__)


def _page(form_errors=None, values=None, conflict_errors=None, status=200):
    users = db.session.scalars(db.select(User).order_by(User.role, User.username)).all()
    owners = db.session.scalars(db.select(Owner).order_by(Owner.name)).all()
    conflicts = db.session.scalars(db.select(ConflictOfInterest)).all()
    by_user = {}
    for conflict in conflicts:
        by_user.setdefault(conflict.user_id, []).append(conflict)
    return render_template("users/list.html", users=users, owners=owners, roles=ROLES, conflicts=by_user,
                           owner_names={o.id: o.name for o in owners}, devices=device_counts(office_now()),
                           errors=form_errors or {},
                           values=values or {}, conflict_errors=conflict_errors or {}), status


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
            create_user(**data)
            db.session.commit()
            return redirect(url_for("users.user_list"))
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
            return redirect(url_for("users.user_list") + f"#user-{user.id}")
        except DomainError as error:
            db.session.rollback()
            errors = domain_errors(error)
    return _page(conflict_errors={user.id: errors}, status=422)


@users_bp.route("/usuarios/<int:user_id>/activo", methods=["POST"])
@require_page("admin")
def user_active(user_id):
    """Disable an account (its sessions and tokens end at once) or enable it again."""
    user = get_user(user_id)
    try:
        set_active(current_user, user, request.form.get("active") == "1", office_now())
        db.session.commit()
    except DomainError as error:
        db.session.rollback()
        return _page(conflict_errors={user.id: domain_errors(error)}, status=error.status)
    return redirect(url_for("users.user_list") + f"#user-{user.id}")


@users_bp.route("/usuarios/<int:user_id>/dispositivos/revocar", methods=["POST"])
@require_page("admin")
def user_devices_revoke(user_id):
    """Sign every tablet of a user out (a lost or handed-over device); audited."""
    user = get_user(user_id)
    revoke_devices(current_user, user, office_now())
    db.session.commit()
    return redirect(url_for("users.user_list") + f"#user-{user.id}")
