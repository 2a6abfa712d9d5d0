"""Admin pages for accounts and inspectors' declared conflicts of interest (art. 214)."""
from flask import Blueprint, redirect, render_template, request, url_for
from flask_login import current_user

from ..auth import require_page
from ..clock import office_now
from ..devices import device_counts, revoke_devices
from ..exceptions import DomainError, NotFound
from ..extensions import db
from ..models import ROLES, ConflictOfInterest, Owner, User
from ..schemas import ConflictSchema, UserSchema
from ..users import create_user, declare_conflict, set_active
from .forms import domain_errors, load_form

bp = Blueprint("users", __name__)


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


@bp.route("/usuarios")
@require_page("admin")
def user_list():
    """Every account with its role, and the form to add one."""
    return _page()


@bp.route("/usuarios", methods=["POST"])
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


def _user_or_404(user_id: int) -> User:
    """The user an admin form names, or 404."""
    user = db.session.get(User, user_id)
    if user is None:
        raise NotFound()
    return user


@bp.route("/usuarios/<int:user_id>/conflictos", methods=["POST"])
@require_page("admin")
def conflict_create(user_id):
    """Declare an inspector's link to an owner (art. 214)."""
    user = _user_or_404(user_id)
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


@bp.route("/usuarios/<int:user_id>/activo", methods=["POST"])
@require_page("admin")
def user_active(user_id):
    """Disable an account (its sessions and tokens end at once) or enable it again."""
    user = _user_or_404(user_id)
    try:
        set_active(current_user, user, request.form.get("active") == "1", office_now())
        db.session.commit()
    except DomainError as error:
        db.session.rollback()
        return _page(conflict_errors={user.id: domain_errors(error)}, status=error.status)
    return redirect(url_for("users.user_list") + f"#user-{user.id}")


@bp.route("/usuarios/<int:user_id>/dispositivos/revocar", methods=["POST"])
@require_page("admin")
def user_devices_revoke(user_id):
    """Sign every tablet of a user out (a lost or handed-over device); audited."""
    user = _user_or_404(user_id)
    revoke_devices(current_user, user, office_now())
    db.session.commit()
    return redirect(url_for("users.user_list") + f"#user-{user.id}")
