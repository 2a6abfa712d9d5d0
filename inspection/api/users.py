"""User accounts, managed by the authority's staff only."""
from flask_smorest import Blueprint

from ..auth import api_user, require
from ..clock import office_now
from ..exceptions import NotFound
from ..extensions import db
from ..models import ConflictOfInterest, User
from ..schemas import ConflictSchema, PageArgs, UserSchema, page_schema
from ..users import create_user, declare_conflict
from .common import paginate

blp = Blueprint("api_users", __name__, description="Usuarios")


@blp.route("/users")
@blp.arguments(PageArgs, location="query")
@blp.response(200, page_schema(UserSchema, "UserPage"))
@require("admin")
def list_users(args):
    """All accounts, by username."""
    return paginate(db.select(User).order_by(User.username), args)


@blp.route("/users", methods=["POST"])
@blp.arguments(UserSchema)
@blp.response(201, UserSchema)
@require("admin")
def post_user(values):
    """Create an account; inspectors, owners and police cannot."""
    user = create_user(**values)
    db.session.commit()
    return user


@blp.route("/users/<int:user_id>/conflicts")
@blp.response(200, ConflictSchema(many=True))
@require("admin")
def list_conflicts(user_id):
    """An inspector's declared links to owners (art. 214)."""
    return db.session.scalars(db.select(ConflictOfInterest).filter_by(user_id=_user(user_id).id)).all()


@blp.route("/users/<int:user_id>/conflicts", methods=["POST"])
@blp.arguments(ConflictSchema)
@blp.response(201, ConflictSchema)
@require("admin")
def post_conflict(data, user_id):
    """Declare that an inspector is linked to an owner: they may not inspect its vessels (art. 214)."""
    conflict = declare_conflict(api_user(), _user(user_id), data["owner_id"], data["reason"], office_now())
    db.session.commit()
    return conflict


def _user(user_id: int) -> User:
    user = db.session.get(User, user_id)
    if user is None:
        raise NotFound()
    return user
