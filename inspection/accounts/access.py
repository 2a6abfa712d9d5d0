"""What each role may see: owners only their own fleet; a stranger's record is simply not found."""
from inspection.core.exceptions import NotFound
from inspection.core.extensions import db
from inspection.core.models import (
    Application,
    Certificate,
    Deficiency,
    Detention,
    FineAssessment,
    Inspection,
    Owner,
    PatrolCheck,
    User,
    Vessel,
)


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


def found_or_404(query):
    """The one record a scoped query finds, else 404 so existence does not leak."""
    record = db.session.scalar(query)
    if record is None:
        raise NotFound()
    return record


def get_vessel_for(user: User, vessel_id: int) -> Vessel:
    """The vessel if `user` may see it, else 404 so existence does not leak."""
    return found_or_404(vessel_scope(db.select(Vessel).where(Vessel.id == vessel_id), user))


def get_owner_for(user: User, owner_id: int) -> Owner:
    """The owner if `user` may see it, else 404."""
    return found_or_404(owner_scope(db.select(Owner).where(Owner.id == owner_id), user))


def _fleet_owner(model, key=None):
    """A query for the owner (armador) of the vessel that a `model` record, found by `key`, belongs to."""
    key = key if key is not None else model.id
    return lambda value: db.select(Vessel.owner_id).join(model, model.vessel_id == Vessel.id).where(key == value)


# Path arguments that name a record of some fleet, and how to find whose fleet it is.
_FLEET_RECORDS = {
    "owner_id": lambda value: db.select(Owner.id).where(Owner.id == value),
    "vessel_id": lambda value: db.select(Vessel.owner_id).where(Vessel.id == value),
    "inspection_id": _fleet_owner(Inspection),
    "deficiency_id": _fleet_owner(Deficiency),
    "detention_id": _fleet_owner(Detention),
    "application_id": _fleet_owner(Application),
    "fine_id": _fleet_owner(FineAssessment),
    "check_id": _fleet_owner(PatrolCheck),  # a patrol check of an unregistered craft has no owner: 404
    "number": lambda value: _fleet_owner(Certificate, Certificate.number)(value.strip().upper()),
}


def refuse_unseen_records(user: User, path_args: dict) -> None:
    """404 when an owner's request path names a record outside its fleet, before the request is read."""
    if user.role != "owner":
        return
    for name, value in path_args.items():
        query = _FLEET_RECORDS.get(name)
        if query is not None:
            found = db.session.scalar(query(value))
            if found is None or found != user.owner_id:
                raise NotFound()


def _fleet_scope(query, user: User, vessel_id_column):
    """Restrict a query of some vessel's records to the owner's fleet; staff see all."""
    if user.role == "owner":
        return query.join(Vessel, Vessel.id == vessel_id_column).where(Vessel.owner_id == (user.owner_id or -1))
    return query


def certificates_scope(query, user: User):
    """Certificates a user may list: staff all, owners their fleet's."""
    return _fleet_scope(query, user, Certificate.vessel_id)


def get_certificate_for(user, number: str) -> Certificate:
    """The certificate if `user` may see it, else 404."""
    found = db.session.scalar(certificates_scope(db.select(Certificate), user)
                              .where(Certificate.number == number.strip().upper()))
    if found is None:
        raise NotFound()
    return found


def get_deficiency_for(user: User, deficiency_id: int) -> Deficiency:
    """The deficiency if `user` may see its vessel, else 404 (an owner's for another fleet included)."""
    deficiency = db.session.get(Deficiency, deficiency_id)
    if deficiency is None:
        raise NotFound()
    get_vessel_for(user, deficiency.vessel_id)
    return deficiency


def patrol_scope(query, user: User):
    """Patrol checks a user may see (issue 23): staff all; police their own and their unit's; owners the closed
    checks of their vessels (an unregistered craft's check is staff's and police's only)."""
    if user.role == "police":
        mine = PatrolCheck.officer_id == user.id
        return query.where(db.or_(mine, PatrolCheck.unit == user.unit) if user.unit else mine)
    if user.role == "owner":
        return (query.join(Vessel, Vessel.id == PatrolCheck.vessel_id)
                .where(Vessel.owner_id == (user.owner_id or -1), PatrolCheck.closed_at.is_not(None)))
    return query


def get_patrol_check_for(user: User, check_id: int) -> PatrolCheck:
    """The patrol check if `user` may see it, else 404 so existence does not leak."""
    return found_or_404(patrol_scope(db.select(PatrolCheck).where(PatrolCheck.id == check_id), user))
