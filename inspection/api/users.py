"""User accounts, managed by the authority's staff only."""
from flask_smorest import Blueprint

from ..auth import require
from ..extensions import db
from ..models import User
from ..schemas import PageArgs, UserSchema, page_schema
from ..users import create_user
from .common import BEARER, paginate

blp = Blueprint("api_users", __name__, description="Usuarios")


@blp.route("/users")
@blp.arguments(PageArgs, location="query")
@blp.response(200, page_schema(UserSchema, "UserPage"))
@blp.doc(security=BEARER)
@require("admin")
def list_users(args):
    """All accounts, by username."""
    return paginate(db.select(User).order_by(User.username), args)


@blp.route("/users", methods=["POST"])
@blp.arguments(UserSchema)
@blp.response(201, UserSchema)
@blp.doc(security=BEARER)
@require("admin")
def post_user(values):
    """Create an account; inspectors, owners and police cannot."""
    user = create_user(**values)
    db.session.commit()
    return user
