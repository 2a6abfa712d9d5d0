"""Bearer tokens for the JSON API, and the device tokens a tablet keeps for a trip."""
from flask import request
from flask_login import current_user

from inspection.accounts.auth import (
    api_user,
    authenticate,
    issue_token,
    request_token_id,
    require,
    require_session,
    revoke_token,
)
from inspection.accounts.devices import device_name_for, list_devices, revoke_device
from inspection.accounts.schemas import (
    ConflictSchema,
    DeviceRequest,
    DeviceSchema,
    MeSchema,
    TokenRequest,
    TokenResponse,
    UserSchema,
)
from inspection.accounts.users import create_user, declare_conflict, get_user
from inspection.core.clock import office_now
from inspection.core.exceptions import Unauthorized
from inspection.core.extensions import db
from inspection.core.models import ConflictOfInterest, User
from inspection.i18n.messages import Msg
from inspection.web.api_common import Blueprint, paginate
from inspection.web.schemas import PageArgs, page_schema

blp = Blueprint("api_auth", __name__, description="Autenticación")


def _token_json(user, raw: str, record) -> dict:
    """The token response; a device token also says its id (to list or revoke it)."""
    body = {"token": raw, "role": user.role, "user_id": user.id, "expires_at": record.expires_at}
    if record.kind == "device":
        body["device_id"] = record.id
    return body


@blp.route("/auth/token", methods=["POST"])
@blp.arguments(TokenRequest)
@blp.response(201, TokenResponse)
def create_token(credentials):
    """Exchange a username and password for an expiring bearer token (a device token when `device` names the tablet)."""
    now = office_now()
    user = authenticate(credentials["username"], credentials["password"], now)
    if user is None:
        db.session.commit()  # keep the failure: it counts toward the lockout
        raise Unauthorized(Msg("Usuario o contraseña incorrectos."))
    device = credentials.get("device")
    raw, record = issue_token(user, now, device_name_for(device, "") if device is not None else None)
    db.session.commit()
    return _token_json(user, raw, record)


@blp.route("/auth/device", methods=["POST"])
@blp.arguments(DeviceRequest, required=False)
@blp.response(201, TokenResponse)
@require_session()
def create_device_token(data):
    """Exchange this page's session (cookie plus X-CSRFToken) for a device token that lasts a trip offline."""
    user = current_user._get_current_object()
    name = device_name_for((data or {}).get("name"), request.user_agent.string)
    raw, record = issue_token(user, office_now(), name)
    db.session.commit()
    return _token_json(user, raw, record)


@blp.route("/auth/devices")
@blp.response(200, DeviceSchema(many=True))
@require()
def get_devices():
    """The caller's signed-in devices; `current` marks the one this request came from."""
    return list_devices(api_user(), office_now(), request_token_id())


@blp.route("/auth/devices/<int:device_id>", methods=["DELETE"])
@blp.response(204)
@require()
def delete_device(device_id):
    """Sign one of one's own devices out (a lost tablet); another user's device is not found."""
    revoke_device(api_user(), device_id, office_now())
    db.session.commit()
    return None


@blp.route("/auth/token", methods=["DELETE"])
@blp.response(204)
@require()
def delete_token():
    """Revoke the bearer token sent with this request (logout of a tablet)."""
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        revoke_token(header[7:].strip(), office_now())
        db.session.commit()
    return None


@blp.route("/auth/me")
@blp.response(200, MeSchema)
@require()
def me():
    """Who the token belongs to."""
    user = api_user()
    return {"role": user.role, "user_id": user.id, "username": user.username}


# User accounts, managed by the authority's staff only.
users_blp = Blueprint("api_users", __name__, description="Usuarios")


@users_blp.route("/users")
@users_blp.arguments(PageArgs, location="query")
@users_blp.response(200, page_schema(UserSchema, "UserPage"))
@require("admin")
def list_users(args):
    """All accounts, by username."""
    return paginate(db.select(User).order_by(User.username), args)


@users_blp.route("/users", methods=["POST"])
@users_blp.arguments(UserSchema)
@users_blp.response(201, UserSchema)
@require("admin")
def post_user(values):
    """Create an account; inspectors, owners and police cannot."""
    user = create_user(**values)
    db.session.commit()
    return user


@users_blp.route("/users/<int:user_id>/conflicts")
@users_blp.response(200, ConflictSchema(many=True))
@require("admin")
def list_conflicts(user_id):
    """An inspector's declared links to owners (art. 214)."""
    return db.session.scalars(db.select(ConflictOfInterest).filter_by(user_id=get_user(user_id).id)).all()


@users_blp.route("/users/<int:user_id>/conflicts", methods=["POST"])
@users_blp.arguments(ConflictSchema)
@users_blp.response(201, ConflictSchema)
@require("admin")
def post_conflict(data, user_id):
    """Declare that an inspector is linked to an owner: they may not inspect its vessels (art. 214)."""
    conflict = declare_conflict(api_user(), get_user(user_id), data["owner_id"], data["reason"], office_now())
    db.session.commit()
    return conflict
