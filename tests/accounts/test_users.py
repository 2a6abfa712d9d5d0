"""Accounts' operations: an inspector's conflicts of interest (art. 214), asked once a transaction."""
import pytest

from inspection.accounts.users import declare_conflict, has_conflict
from inspection.core.clock import office_now
from tests.conftest import new_owner, new_user, new_vessel

pytestmark = pytest.mark.db


def test_one_transaction_asks_once_a_pair_and_sees_its_own_declaration_at_once(db, count_queries):
    """Asked by the vessel, whose owner is found in the same statement (a photo's request has not loaded the vessel;
    the vessels here are expired by the commit, and are not read)."""
    admin, inspector = new_user("admin"), new_user("inspector")
    owner, other = new_owner(), new_owner()
    boat, other_boat, sister = new_vessel(owner_id=owner.id), new_vessel(owner_id=other.id), new_vessel(owner_id=owner.id)
    db.session.commit()
    inspector_id, owner_id, boat_id, other_id, sister_id = inspector.id, owner.id, boat.id, other_boat.id, sister.id

    assert count_queries(lambda: [has_conflict(inspector, boat_id) for _ in range(50)]) == 1  # a sync batch's answers
    assert count_queries(lambda: has_conflict(inspector, other_id)) == 1  # another pair is asked for
    assert has_conflict(inspector, boat_id) is False

    declare_conflict(admin, inspector, owner_id, "Socio de la naviera", office_now())
    assert has_conflict(inspector, boat_id) is True  # declared in this transaction: not the "no" it held
    assert has_conflict(inspector, sister_id) is True  # every vessel of that owner
    db.session.commit()
    assert inspector.id == inspector_id
    assert count_queries(lambda: has_conflict(inspector, boat_id)) == 1  # the next transaction asks afresh
    assert has_conflict(inspector, other_id) is False
