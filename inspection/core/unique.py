"""Rows held one at a time by a unique index: the operation checks first, the index settles a race."""
from collections.abc import Callable

from sqlalchemy.exc import IntegrityError

from inspection.core.extensions import db


def add_unique(row, refusal: Callable[[], Exception]):
    """Add and flush `row` in a savepoint; when a unique index refuses it (a concurrent request won), raise refusal().

    The savepoint keeps the rest of the request's work; `refusal` runs after the failed insert, so by then
    the winner has committed and the refusal can name it.
    """
    try:
        with db.session.begin_nested():
            db.session.add(row)
            db.session.flush()
    except IntegrityError:
        raise refusal() from None
    return row
