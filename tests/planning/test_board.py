"""The planning board (/planificacion), assigning an application in one step, and waiving a fine; state built
with the operations, HTTP only where the page or endpoint is what is tested."""
import html
import re
import uuid
from datetime import date, datetime, timezone

import pytest

from inspection.accounts.users import declare_conflict
from inspection.core.exceptions import Conflict, Forbidden, Invalid
from inspection.core.extensions import db
from inspection.core.models import Application, AuditEvent, ConflictOfInterest, FineAssessment, Inspection
from inspection.cycle.applications import apply_for_inspection
from inspection.inspections.operations import schedule_inspection
from inspection.planning.board import assign_application, assign_vessel, planning_board, week_starts
from tests.conftest import (
    PASSWORD,
    certify_for,
    new_owner,
    new_staff,
    new_vessel,
    replace_rows,
    restore_rows,
    saved_rows,
    shared_state,
)

TODAY = date(2027, 4, 15)  # 45 days before the seguridad certificates of 30 Nov 2026 expire (30 May 2027)
NOON = datetime(2027, 4, 15, 15, 0, tzinfo=timezone.utc)  # 12:00 in Asunción
LATE = date(2027, 5, 10)  # after the art. 222 date (30 Apr 2027)


def signed_in(app, user):
    client = app.test_client()
    assert client.post("/login", data={"username": user.username, "password": PASSWORD}).status_code == 302
    return client


def text(response) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))))


@pytest.fixture(scope="module")
def boards_built(_app):
    """Boards of 3, 6 and 9 rows, built once (each certifying inspection is a whole one): {n: rows}. Each of the n
    vessels has a seguridad certificate expiring 30 May 2027 (an expiry nobody applied for), no navegabilidad
    certificate (overdue: missing) and a pending navegabilidad application; the tests only read the board."""
    def build():
        staff, rows = new_staff(), {}
        certify = certify_for(staff)
        for n in range(1, 10):
            if n % 3 == 1:
                owner = new_owner()  # an owner per three rows, as the rows of a real board
            vessel = new_vessel(registration=f"PL-{n}", name=f"B{n}", owner_id=owner.id)
            certify(vessel)
            apply_for_inspection(staff["admin"], vessel, "navegabilidad", "Concepción", date(2027, 5, 3), TODAY)
            if n % 3 == 0:
                db.session.commit()
                rows[n] = saved_rows()
        return rows

    return shared_state(_app, build)[0]


def test_the_board_takes_the_same_number_of_queries_for_3_and_9_rows(app, boards_built, count_queries):
    queries, boards = {}, {}
    for n in (3, 9):
        replace_rows(app, boards_built[n])
        queries[n] = count_queries(lambda: boards.setdefault(n, planning_board(TODAY, {}, per_page=50)))
        board = boards[n]
        assert board["pending"].total == len(board["expiries"]) == board["overdue"].total == n
    assert queries[3] == queries[9], queries
    board = boards[9]
    assert board["expiries"][0]["apply_by"] == date(2027, 4, 30) and board["expiries"][0]["days_left"] == 45
    assert {k["state"] for o in board["overdue"].items for k in o["kinds"]} == {"missing"}
    assert all(k["application_id"] for o in board["overdue"].items for k in o["kinds"])  # already applied for
    assert sum(row["total"] for row in board["load"]["rows"]) == 0  # the certifying inspections are closed


@pytest.mark.parametrize("page, sizes", [(1, (4, 4, 4)), (2, (2, 2, 2))])
def test_each_list_pages_on_its_own(app, boards_built, page, sizes):
    restore_rows(boards_built[6])
    board = planning_board(TODAY, {"pending": page, "expiring": page, "overdue": page}, per_page=4)
    assert (len(board["pending"].items), len(board["expiries"]), len(board["overdue"].items)) == sizes


def test_an_applied_or_planned_expiry_leaves_the_list_and_a_superseded_certificate_never_shows(
        make_vessel, staff, certify):  # noqa: F811
    applied, planned, quiet = (make_vessel() for _ in range(3))
    for vessel in (applied, planned, quiet):
        certify(vessel)
    apply_for_inspection(staff["admin"], applied, "seguridad", "Asunción", TODAY, TODAY)
    schedule_inspection(staff["admin"], planned, "seguridad", staff["inspector"], TODAY, "Asunción", TODAY)
    db.session.commit()
    assert [e["vessel"].id for e in planning_board(TODAY, {})["expiries"]] == [quiet.id]
    assert planning_board(date(2027, 6, 1), {})["expiries"] == []  # expired: now overdue, not expiring
    overdue = planning_board(date(2027, 6, 1), {})["overdue"].items
    assert {(o["vessel"].id, k["kind"], k["state"]) for o in overdue for k in o["kinds"] if k["kind"] == "seguridad"} \
        == {(v.id, "seguridad", "overdue") for v in (applied, planned, quiet)}


def test_an_exempt_kind_is_not_overdue(make_vessel):
    """A vessel without machinery needs no seguridad certificate (art. 211): missing only its hull one."""
    sailing = make_vessel(propulsion="sail")
    [entry] = [o for o in planning_board(TODAY, {})["overdue"].items if o["vessel"].id == sailing.id]
    assert [k["kind"] for k in entry["kinds"]] == ["navegabilidad"]


def test_each_inspectors_load_per_iso_week(make_vessel, make_user, staff):  # noqa: F811
    other = make_user("inspector", full_name="Insp. Zárate")
    for inspector, day in [(staff["inspector"], date(2027, 4, 15)), (staff["inspector"], date(2027, 4, 16)),
                           (staff["inspector"], date(2027, 4, 19)), (other, date(2027, 6, 1)),
                           (other, date(2027, 6, 7))]:  # 7 Jun opens the ninth week: off the table
        schedule_inspection(staff["admin"], make_vessel(), "seguridad", inspector, day, "Asunción", TODAY)
    db.session.commit()
    load = planning_board(TODAY, {})["load"]
    assert [w["label"] for w in load["weeks"]][:2] == ["2027-W15", "2027-W16"] and len(load["weeks"]) == 8
    assert week_starts(TODAY)[0] == date(2027, 4, 12)
    rows = {row["inspector"].id: row["counts"] for row in load["rows"]}
    assert rows[staff["inspector"].id] == [2, 1, 0, 0, 0, 0, 0, 0]
    assert rows[other.id] == [0, 0, 0, 0, 0, 0, 0, 1]


# --- assigning -------------------------------------------------------------------------------------

@pytest.fixture
def pending(make_vessel, owner_user, staff):  # noqa: F811
    vessel = make_vessel(owner_id=owner_user.owner_id)
    application = apply_for_inspection(owner_user, vessel, "navegabilidad", "Pilar", date(2027, 4, 20), TODAY)
    db.session.commit()
    return application


def test_assigning_schedules_links_and_audits(pending, staff):  # noqa: F811
    inspection = assign_application(staff["admin"], pending, staff["inspector"], date(2027, 4, 22), "Pilar", TODAY)
    db.session.commit()
    assert (pending.status, pending.inspection_id) == ("scheduled", inspection.id)
    assert (inspection.vessel_id, inspection.kind, inspection.inspector_id, inspection.scheduled_on, inspection.port) \
        == (pending.vessel_id, "navegabilidad", staff["inspector"].id, date(2027, 4, 22), "Pilar")
    event = db.session.scalar(db.select(AuditEvent).filter_by(action="application.assigned"))
    assert event.entity_id == str(pending.id) and event.inspection_id == inspection.id
    assert planning_board(TODAY, {})["pending"].total == 0


def test_assigning_refuses(pending, staff, make_user, owner_user):  # noqa: F811
    admin, inspector = staff["admin"], staff["inspector"]
    declare_conflict(admin, inspector, owner_user.owner_id, "Socio del armador", NOON)
    with pytest.raises(Forbidden) as refused:
        assign_application(admin, pending, inspector, date(2027, 4, 22), "Pilar", TODAY)
    assert "Conflicto de intereses (art. 214)" in str(refused.value)
    db.session.rollback()
    clean = make_user("inspector")
    with pytest.raises(Invalid) as past:
        assign_application(admin, pending, clean, date(2027, 4, 14), "Pilar", TODAY)
    assert "scheduled_on" in past.value.errors
    with pytest.raises(Forbidden):
        assign_application(clean, pending, clean, date(2027, 4, 22), "Pilar", TODAY)  # inspectors read the board
    with pytest.raises(Invalid):
        assign_application(admin, pending, admin, date(2027, 4, 22), "Pilar", TODAY)  # not an inspector
    db.session.rollback()
    assign_application(admin, pending, clean, date(2027, 4, 22), "Pilar", TODAY)
    db.session.commit()
    with pytest.raises(Conflict) as twice:
        assign_application(admin, pending, clean, date(2027, 4, 23), "Pilar", TODAY)
    assert "ya fue asignada" in str(twice.value) and twice.value.extra == {"inspection_id": pending.inspection_id}
    db.session.rollback()
    assert db.session.scalar(db.select(db.func.count(Inspection.id))) == 1


def test_assigning_a_vessel_already_scheduled_for_the_kind_names_that_inspection(client, pending, staff, token_for,
                                                                               set_clock):  # noqa: F811
    """The application stays pending: the work it asks for is already on someone's agenda."""
    set_clock(NOON)
    open_one = schedule_inspection(staff["admin"], pending.vessel, "navegabilidad", staff["inspector"],
                                   date(2027, 4, 20), "Asunción", TODAY)
    db.session.commit()
    response = client.post(f"/api/v1/applications/{pending.id}/assign", headers=token_for(staff["admin"]),
                           json={"inspector_id": staff["inspector"].id, "scheduled_on": "2027-04-22", "port": "Pilar"})
    assert response.status_code == 409 and response.json["inspection_id"] == open_one.id
    assert f"n.º {open_one.id}" in response.json["detail"] and "20 de abril de 2027" in response.json["detail"]
    assert db.session.get(Application, pending.id).status == "pending"
    assert db.session.scalar(db.select(db.func.count(Inspection.id))) == 1


def test_assigning_an_unapplied_vessel_files_the_late_application_for_the_owner(make_vessel, staff, certify):  # noqa: F811
    vessel = make_vessel()
    certify(vessel)
    inspection = assign_vessel(staff["admin"], vessel, "seguridad", staff["inspector"], date(2027, 5, 12), "Asunción",
                               LATE)
    db.session.commit()
    application = db.session.scalar(db.select(Application).filter_by(vessel_id=vessel.id))
    assert (application.status, application.inspection_id, application.applied_on) == ("scheduled", inspection.id, LATE)
    assert application.late and [f.article for f in application.fines] == ["225"]


# --- the API and the agenda -------------------------------------------------------------------------

def test_post_assign_replays_by_client_id_refuses_a_second_and_reaches_the_agenda(client, pending, staff, token_for,
                                                                                 set_clock):  # noqa: F811
    set_clock(NOON)
    admin = token_for(staff["admin"])
    body = {"inspector_id": staff["inspector"].id, "scheduled_on": "2027-04-22", "port": "Pilar",
            "client_id": str(uuid.uuid4())}
    first = client.post(f"/api/v1/applications/{pending.id}/assign", json=body, headers=admin)
    assert first.status_code == 200, first.json
    assert first.json["status"] == "scheduled" and first.json["inspection_id"]
    again = client.post(f"/api/v1/applications/{pending.id}/assign", json=body, headers=admin)
    assert again.json == first.json and again.headers["Idempotent-Replayed"] == "true"
    other = client.post(f"/api/v1/applications/{pending.id}/assign", json={**body, "client_id": str(uuid.uuid4())},
                        headers=admin)
    assert other.status_code == 409 and other.json["inspection_id"] == first.json["inspection_id"]
    agenda = client.get("/api/v1/agenda?days=7", headers=token_for(staff["inspector"])).json
    assert [(i["id"], i["port"], i["scheduled_on"]) for i in agenda["items"]] == \
        [(first.json["inspection_id"], "Pilar", "2027-04-22")]


def test_post_assign_with_a_conflict_of_interest_says_so(client, pending, staff, owner_user, token_for, set_clock):  # noqa: F811
    set_clock(NOON)
    declare_conflict(staff["admin"], staff["inspector"], owner_user.owner_id, "Pariente", NOON)
    db.session.commit()
    response = client.post(f"/api/v1/applications/{pending.id}/assign", headers={
        **token_for(staff["admin"]), "Accept-Language": "en"},
        json={"inspector_id": staff["inspector"].id, "scheduled_on": "2027-04-22", "port": "Pilar"})
    assert response.status_code == 403 and "art. 214" in response.json["detail"]
    assert db.session.get(Application, pending.id).status == "pending"


@pytest.fixture
def late_fine(make_vessel, owner_user, certify):  # noqa: F811
    vessel = make_vessel(owner_id=owner_user.owner_id)
    certify(vessel)
    application = apply_for_inspection(owner_user, vessel, "seguridad", "Asunción", LATE, LATE)
    db.session.commit()
    return application.fines[0]


def test_post_waive_is_the_admins_shows_who_when_why_and_is_audited(client, late_fine, staff, owner_user, token_for,
                                                                   set_clock):  # noqa: F811
    set_clock(NOON)
    url = f"/api/v1/fines/{late_fine.id}/waive"
    for user in (staff["inspector"], owner_user):
        assert client.post(url, json={"reason": "Nota"}, headers=token_for(user)).status_code == 403
    response = client.post(url, json={"reason": "Solicitud enviada por correo a tiempo"},
                           headers=token_for(staff["admin"]))
    assert response.status_code == 200, response.json
    assert (response.json["waived_by_id"], response.json["waived_reason"]) == (
        staff["admin"].id, "Solicitud enviada por correo a tiempo")
    assert response.json["waived_at"].startswith("2027-04-15")
    assert client.post(url, json={"reason": "Otra vez"}, headers=token_for(staff["admin"])).status_code == 409
    assert db.session.scalar(db.select(AuditEvent).filter_by(action="fine.waived")).entity_id == str(late_fine.id)


@pytest.mark.parametrize("path", ["/api/v1/fines/{fine}/waive", "/api/v1/applications/{application}/assign"])
def test_another_owners_fine_or_application_is_not_found(client, late_fine, make_user, token_for, path):
    response = client.post(path.format(fine=late_fine.id, application=late_fine.application_id), json={},
                           headers=token_for(make_user("owner")))
    assert response.status_code == 404


# --- the page ---------------------------------------------------------------------------------------

def test_the_board_in_both_languages_for_staff_and_never_for_owners(app, pending, late_fine, staff, owner_user,
                                                                   make_user, set_clock):  # noqa: F811
    set_clock(NOON)
    admin = signed_in(app, staff["admin"])
    spanish = text(admin.get("/planificacion"))
    assert "Solicitudes pendientes" in spanish and "Fuera de plazo" in spanish and "Asignar y programar" in spanish
    assert "Carga de cada inspector por semana" in spanish
    # issue 21: the weeks read as their days ("2027-W15" before), in each language
    assert "12 – 18 de abr." in spanish and "26 de abr. – 2 de may." in spanish and "2027-W15" not in spanish
    english = text(admin.get("/planificacion?lang=en"))
    assert "Pending applications" in english and "Late" in english and "Waive" in english
    assert "Apr 12 – 18" in english and "Apr 26 – May 2" in english
    reader = text(signed_in(app, staff["inspector"]).get("/planificacion"))
    assert "Solicitudes pendientes" in reader and "Asignar y programar" not in reader and "Condonar" not in reader
    for role in ("owner", "police"):
        assert signed_in(app, make_user(role)).get("/planificacion").status_code == 403
    assert signed_in(app, owner_user).get("/planificacion").status_code == 403
    assert app.test_client().get("/planificacion").status_code == 302


def test_assigning_and_waiving_from_the_page(app, pending, late_fine, staff, owner_user, set_clock):  # noqa: F811
    set_clock(NOON)
    admin = signed_in(app, staff["admin"])
    declare_conflict(staff["admin"], staff["inspector"], owner_user.owner_id, "Socio", NOON)
    db.session.commit()
    form = {"inspector_id": staff["inspector"].id, "scheduled_on": "2027-04-22", "port": "Pilar"}
    refused = admin.post(f"/planificacion/solicitudes/{pending.id}/asignar", data=form)
    assert refused.status_code == 403 and "Conflicto de intereses (art. 214)" in text(refused)
    past = admin.post(f"/planificacion/solicitudes/{pending.id}/asignar", data={**form, "scheduled_on": "2027-04-01"})
    assert past.status_code == 422
    db.session.execute(db.delete(ConflictOfInterest))
    db.session.commit()
    done = admin.post(f"/planificacion/solicitudes/{pending.id}/asignar", data=form)
    assert done.status_code == 302
    assert db.session.get(Application, pending.id).status == "scheduled"
    assert admin.post(f"/multas/{late_fine.id}/condonar", data={"reason": ""}).status_code == 422
    assert admin.post(f"/multas/{late_fine.id}/condonar", data={"reason": "Presentó a tiempo por nota",
                                                               "confirmed": "1"}).status_code == 302
    page = text(admin.get("/planificacion"))
    name = staff["admin"].full_name or staff["admin"].username
    assert f"Condonada por {name}" in page and "Presentó a tiempo por nota" in page
    assert db.session.get(FineAssessment, late_fine.id).waived_by_id == staff["admin"].id


def test_assigning_an_expiring_vessel_from_the_page(app, make_vessel, staff, certify, set_clock):  # noqa: F811
    set_clock(NOON)
    vessel = make_vessel()
    certify(vessel)
    admin = signed_in(app, staff["admin"])
    assert f"/planificacion/buques/{vessel.id}/asignar" in admin.get("/planificacion").get_data(as_text=True)
    response = admin.post(f"/planificacion/buques/{vessel.id}/asignar", data={
        "kind": "seguridad", "inspector_id": staff["inspector"].id, "scheduled_on": "2027-05-02", "port": "Asunción"})
    assert response.status_code == 302
    application = db.session.scalar(db.select(Application).filter_by(vessel_id=vessel.id))
    assert application.status == "scheduled" and not application.late  # 15 Apr is before the art. 222 date
    assert admin.post(f"/planificacion/buques/{vessel.id}/asignar", data={"kind": "otro"}).status_code == 422


def _overdue_rows(listing) -> list[tuple]:
    return [(o["vessel"].registration, k["kind"], k["state"], k["valid_until"], k["days_late"], k["application_id"])
            for o in listing.items for k in o["kinds"]]


@pytest.fixture(scope="module")
def overdue_built(_app):
    """Five vessels for the overdue list, built once (the cases only read it): OV-1 and OV-2 certified (seguridad to
    30 May 2027), OV-3 with no certificate but a navegabilidad application, OV-4 sail and OV-5 rowing; its rows."""
    def build():
        staff = new_staff()
        certify = certify_for(staff)
        expired, fine, missing = (new_vessel(registration=f"OV-{n}") for n in (1, 2, 3))
        new_vessel(registration="OV-4", propulsion="sail")
        new_vessel(registration="OV-5", propulsion="rowing", fire_hydrants=0, boats=0, cooking="none")
        for vessel in (expired, fine):
            certify(vessel)  # seguridad to 30 May 2027
        apply_for_inspection(staff["admin"], missing, "navegabilidad", "Concepción", date(2027, 6, 10), date(2027, 6, 1))

    return shared_state(_app, build)[1]


@pytest.mark.parametrize("page, per_page", [(1, 2), (2, 2), (3, 2), (1, 50)])
def test_the_overdue_list_paged_in_sql_matches_deciding_every_vessel(app, overdue_built, page, per_page):
    """Stored needs filter and page in SQL; the list equals the one decided in Python from the particulars."""
    from inspection.planning.board import overdue_deciding, overdue_vessels

    restore_rows(overdue_built)
    day = date(2027, 6, 1)  # every seguridad certificate above has expired
    sql, python = overdue_vessels(day, page, per_page), overdue_deciding(day, page, per_page)
    assert _overdue_rows(sql) == _overdue_rows(python) and sql.total == python.total
    everything = _overdue_rows(overdue_vessels(day, 1, 50))
    assert ("OV-4", "seguridad", "missing", None, None, None) not in everything  # sail: no machinery (art. 211)
    assert not [row for row in everything if row[0] == "OV-5"]  # rowing: needs neither (arts. 210, 211)
    assert ("OV-1", "seguridad", "overdue", date(2027, 5, 30), 2, None) in everything


def test_a_stale_stored_need_is_decided_again_not_trusted(make_vessel):
    """Under other exemption rules the stored columns are not read: the vessel is decided from its particulars."""
    from inspection.planning.board import overdue_vessels

    sailing = make_vessel(registration="OV-9", propulsion="sail")
    sailing.needs_seguridad, sailing.needs_basis = True, "older-rules"  # as stored under other rules
    db.session.commit()
    [entry] = [o for o in overdue_vessels(TODAY, 1, 50).items if o["vessel"].id == sailing.id]
    assert [k["kind"] for k in entry["kinds"]] == ["navegabilidad"]



def test_a_revoked_or_suspended_certificate_puts_its_vessel_among_the_overdue(app, make_vessel, certify, staff):  # noqa: F811
    """Issue 21: a vessel with a revoked navegabilidad and a suspended seguridad was left out of "Buques en falta"."""
    from inspection.certificates.operations import revoke_certificate, suspend_certificate
    from inspection.core.models import Certificate
    from inspection.planning.board import overdue_deciding, overdue_vessels

    stopped, holding = make_vessel(registration="RV-1"), make_vessel(registration="RV-2")
    for vessel in (stopped, holding):
        certify(vessel, "navegabilidad")
        certify(vessel, "seguridad")
    certificates = {c.kind: c for c in db.session.scalars(db.select(Certificate).filter_by(vessel_id=stopped.id))}
    revoke_certificate(staff["admin"], certificates["navegabilidad"], "Casco no apto.", NOON)
    suspend_certificate(staff["admin"], certificates["seguridad"], "Extintores vacíos.", NOON)
    db.session.commit()
    rows = _overdue_rows(overdue_vessels(TODAY, 1, 50))
    assert rows == _overdue_rows(overdue_deciding(TODAY, 1, 50))
    assert [row[:3] for row in rows] == [("RV-1", "navegabilidad", "revoked"), ("RV-1", "seguridad", "suspended")]
    page = text(signed_in(app, staff["admin"]).get("/planificacion"))
    assert "RV-1 · " in page and "Certificado revocado" in page and "Certificado suspendido" in page
