"""Two staff assigning the same application at once, on PostgreSQL: parallel requests released by a barrier."""
import uuid
from datetime import date, datetime, timezone

import pytest

from inspection.core.models import Application, Inspection
from inspection.cycle.applications import apply_for_inspection
from tests.conftest import TEST_DATABASE_URL
from tests.fixtures.inspections import in_parallel

pytestmark = pytest.mark.skipif(
    not (TEST_DATABASE_URL or "").startswith("postgresql"),
    reason="needs PostgreSQL (BALIZA_TEST_DATABASE_URL): SQLite serializes writers, so two assignments cannot race")

NOON = datetime(2027, 4, 15, 15, 0, tzinfo=timezone.utc)


def test_simultaneous_assignments_of_one_application_schedule_it_once(app, db, make_vessel, make_user, token_for,
                                                                     set_clock):
    set_clock(NOON)
    admins = [token_for(make_user("admin")) for _ in range(4)]
    inspectors = [make_user("inspector") for _ in range(4)]
    application = apply_for_inspection(make_user("admin"), make_vessel(), "navegabilidad", "Pilar",
                                       date(2027, 4, 20), date(2027, 4, 15))
    db.session.commit()
    application_id, inspector_ids = application.id, [i.id for i in inspectors]
    url = f"/api/v1/applications/{application_id}/assign"
    calls = [lambda c, h=headers, i=inspector_id: c.post(url, headers=h, json={
        "inspector_id": i, "scheduled_on": "2027-04-22", "port": "Pilar", "client_id": str(uuid.uuid4())})
        for headers, inspector_id in zip(admins, inspector_ids)]
    results = in_parallel(app, db, calls)
    assert sorted(status for status, _ in results) == [200, 409, 409, 409], results
    [winner] = [body for status, body in results if status == 200]
    assert all(body["inspection_id"] == winner["inspection_id"] for status, body in results if status == 409)
    assert db.session.scalar(db.select(db.func.count(Inspection.id))) == 1
    assert db.session.get(Application, application_id).inspection_id == winner["inspection_id"]


def test_one_assignment_retried_at_once_is_one_inspection(app, db, make_vessel, make_user, token_for, set_clock):
    set_clock(NOON)
    headers, inspector = token_for(make_user("admin")), make_user("inspector")
    application = apply_for_inspection(make_user("admin"), make_vessel(), "navegabilidad", "Pilar",
                                       date(2027, 4, 20), date(2027, 4, 15))
    db.session.commit()
    url = f"/api/v1/applications/{application.id}/assign"
    body = {"inspector_id": inspector.id, "scheduled_on": "2027-04-22", "port": "Pilar", "client_id": str(uuid.uuid4())}
    results = in_parallel(app, db, [lambda c: c.post(url, headers=headers, json=body)] * 5)
    assert [status for status, _ in results] == [200] * 5, results
    assert len({body["inspection_id"] for _, body in results}) == 1
    assert db.session.scalar(db.select(db.func.count(Inspection.id))) == 1
