"""What each role may see: owners only their own fleet; a stranger's record is simply not found."""
from .errors import NotFound
from .extensions import db
from .models import Owner, User, Vessel


def vessel_scope(query, user: User):
    """Restrict a vessel query to what `user` may see."""
    if user.role == "owner":
        return query.where(Vessel.owner_id == (user.owner_id or -1))
    return query


def owner_scope(query, user: User):
    """Restrict an owner query to what `user` may see."""
    if user.role == "owner":
        return query.where(Owner.id == (user.owner_id or -1))
    return query


def get_vessel_for(user: User, vessel_id: int) -> Vessel:
    """The vessel if `user` may see it, else 404 so existence does not leak."""
    vessel = db.session.scalar(vessel_scope(db.select(Vessel).where(Vessel.id == vessel_id), user))
    if vessel is None:
        raise NotFound()
    return vessel


def get_owner_for(user: User, owner_id: int) -> Owner:
    """The owner if `user` may see it, else 404."""
    owner = db.session.scalar(owner_scope(db.select(Owner).where(Owner.id == owner_id), user))
    if owner is None:
        raise NotFound()
    return owner
