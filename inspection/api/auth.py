"""Bearer tokens for the JSON API."""
from flask import request
from flask_smorest import Blueprint

from ..auth import api_user, authenticate, issue_token, require, revoke_token
from ..clock import office_now
from ..exceptions import Unauthorized
from ..extensions import db
from ..messages import Msg
from ..schemas import MeSchema, TokenRequest, TokenResponse

blp = Blueprint("api_auth", __name__, description="Autenticación")


@blp.route("/auth/token", methods=["POST"])
@blp.arguments(TokenRequest)
@blp.response(201, TokenResponse)
def create_token(credentials):
    """Exchange a username and password for an expiring bearer token."""
    user = authenticate(credentials["username"], credentials["password"], office_now())
    if user is None:
        db.session.commit()  # keep the failure: it counts toward the lockout
        raise Unauthorized(Msg("Usuario o contraseña incorrectos."))
    raw, record = issue_token(user, office_now())
    db.session.commit()
    return {"token": raw, "role": user.role, "user_id": user.id, "expires_at": record.expires_at}


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
