"""The planning board's acts from the page: an assignment says whom and when, a waiver asks first (it cannot be
undone) and says so; a row offers only what its record's state allows; a refusal keeps what was typed."""
from datetime import date, datetime, timezone

import pytest

from inspection.core.extensions import db
from inspection.core.models import Application, FineAssessment
from inspection.cycle.applications import apply_for_inspection
from inspection.planning.board import assign_application
from tests.fixtures.inspections import owner_user  # noqa: F401
from tests.fixtures.pages import asked, reported, text

TODAY = date(2027, 5, 10)  # after the art. 222 date of a seguridad certificate of 30 Nov 2026 (30 Apr 2027)
NOON = datetime(2027, 5, 10, 15, 0, tzinfo=timezone.utc)  # 12:00 in Asunción


@pytest.fixture
def late(make_vessel, owner_user, certify, set_clock):  # noqa: F811
    """A pending seguridad application filed late, with its art. 225 fine."""
    set_clock(NOON)
    vessel = make_vessel(owner_id=owner_user.owner_id, registration="PY-1234")
    certify(vessel)
    application = apply_for_inspection(owner_user, vessel, "seguridad", "Asunción", TODAY, TODAY)
    db.session.commit()
    return application


def _assign(client, application, staff, **form):
    return client.post(f"/planificacion/solicitudes/{application.id}/asignar",
                       data={"inspector_id": staff["inspector"].id, "scheduled_on": "2027-05-20", "port": "Pilar",
                             **form})


def test_assigning_says_to_whom_and_when_and_the_row_no_longer_offers_it(late, staff, login_as):
    admin = login_as(staff["admin"])
    assert f"/planificacion/solicitudes/{late.id}/asignar" in admin.get("/planificacion").get_data(as_text=True)
    shown = reported(admin, _assign(admin, late, staff),
                     "Inspección de seguridad de PY-1234 asignada a Insp. Benítez para el 20 de mayo de 2027 en Pilar.")
    assert f"/planificacion/solicitudes/{late.id}/asignar" not in shown
    assert db.session.get(Application, late.id).status == "scheduled"


def test_assigning_in_english_and_an_assignment_made_meanwhile_is_said_atop_the_board(late, staff, login_as,
                                                                                    make_vessel, owner_user):  # noqa: F811
    admin = login_as(staff["admin"])
    admin.get("/planificacion?lang=en")
    other = apply_for_inspection(owner_user, make_vessel(registration="PY-5678", owner_id=owner_user.owner_id),
                                 "navegabilidad", "Pilar", TODAY, TODAY)
    db.session.commit()
    reported(admin, _assign(admin, other, staff),
             "Assigned the navigability inspection of PY-5678 to Insp. Benítez for May 20, 2027 at Pilar.")
    assign_application(staff["admin"], late, staff["inspector"], date(2027, 5, 21), "Asunción", TODAY)  # another admin
    db.session.commit()
    reported(admin, _assign(admin, late, staff), "The application of PY-1234 is no longer pending: nothing changed.")


def test_a_refused_assignment_keeps_what_was_typed_at_its_row(late, staff, login_as):
    admin = login_as(staff["admin"])
    refused = _assign(admin, late, staff, scheduled_on="2027-05-01", port="Puerto Casado")
    assert refused.status_code == 422
    markup = refused.get_data(as_text=True)
    row = markup[markup.index(f'id="application-{late.id}"'):]
    assert row.startswith(f'id="application-{late.id}" open') and 'value="Puerto Casado"' in row
    assert 'value="2027-05-01"' in row and 'aria-invalid="true"' in row


def test_waiving_asks_first_then_says_so_and_a_waived_fine_offers_no_waiver(late, staff, login_as):
    admin = login_as(staff["admin"])
    [fine] = late.fines
    url = f"/multas/{fine.id}/condonar"
    refused = admin.post(url, data={"reason": "no"})
    assert refused.status_code == 422
    row = refused.get_data(as_text=True)[refused.get_data(as_text=True).index(f'id="fine-{fine.id}"'):]
    assert row.startswith(f'id="fine-{fine.id}" open') and 'value="no"' in row and 'aria-invalid="true"' in row
    page = asked(admin.post(url, data={"reason": "Presentó nota a tiempo"}), "¿Condonar la multa del art. 225 de PY-1234?")
    assert "no se puede deshacer" in page and "Motivo Presentó nota a tiempo" in page
    assert db.session.get(FineAssessment, fine.id).waived_at is None  # nothing changed until confirmed
    shown = reported(admin, admin.post(url, data={"reason": "Presentó nota a tiempo", "confirmed": "1"}),
                     "Multa del art. 225 de PY-1234 condonada.")
    assert url not in admin.get("/planificacion").get_data(as_text=True) and "Condonada por" in shown
    db.session.expire_all()
    assert db.session.get(FineAssessment, fine.id).waived_reason == "Presentó nota a tiempo"
    again = admin.post(url, data={"reason": "Otra vez"})  # a stale page: no question, nothing changes
    reported(admin, again, "La multa del art. 225 de PY-1234 ya estaba condonada: nada cambió.")


def test_waiving_in_english(late, staff, login_as):
    admin = login_as(staff["admin"])
    admin.get("/planificacion?lang=en")
    [fine] = late.fines
    asked(admin.post(f"/multas/{fine.id}/condonar", data={"reason": "Filed on time by letter"}),
          "Waive the art. 225 fine of PY-1234?")
    reported(admin, admin.post(f"/multas/{fine.id}/condonar", data={"reason": "Filed on time by letter",
                                                                    "confirmed": "1"}),
             "Art. 225 fine of PY-1234 waived.")
    assert "Filed on time by letter" in text(admin.get("/planificacion"))
