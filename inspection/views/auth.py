"""Signing in and out of the pages."""
from urllib.parse import urlsplit

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from flask_login import current_user

from ..auth import authenticate, require_page, sign_in, sign_out
from ..calendars import FEED_ROLES, feed_url
from ..clock import office_now
from ..devices import list_devices, revoke_device
from ..exceptions import DomainError
from ..extensions import db
from ..i18n import gettext
from ..users import change_password
from .forms import domain_errors

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
