"""Applications for inspection (art. 222), their fines (arts. 204, 225), waivers and the fleet at a glance,
built with the operations; HTTP only where the endpoint is what is tested."""
import uuid
from datetime import date, datetime, timezone
from decimal import Decimal

import pytest

from inspection.core.exceptions import Conflict, Forbidden, Invalid, NotFound
from inspection.core.extensions import db
from inspection.core.models import Application, AuditEvent, FineAssessment
from inspection.cycle.applications import apply_for_inspection, preview_application, waive_fine
from inspection.fleet.overview import fleet_of
from inspection.inspections.operations import schedule_inspection

ISSUED_ON = date(2026, 11, 30)
# A seguridad certificate inspected on 30 Nov 2026 runs to 30 May 2027 (art. 211): apply by 30 Apr (art. 222).
SEG_UNTIL, SEG_APPLY_BY = date(2027, 5, 30), date(2027, 4, 30)
NAV_UNTIL = date(2027, 11, 30)  # the navegabilidad year of practice (arts. 201, 203)
STEAMER = {"propulsion": "steam", "boilers": 2}




@pytest.fixture
def steamer(make_vessel, owner_user):
    return make_vessel(owner_id=owner_user.owner_id, **STEAMER)


# --- applying --------------------------------------------------------------------------------------

@pytest.mark.parametrize("applied_on, late, fines", [
    (SEG_APPLY_BY, False, []),                         # apply_by itself is in time
    (date(2027, 5, 1), True, [("225", Decimal(1000))]),  # the day after: art. 225
    (SEG_UNTIL, True, [("225", Decimal(1000))]),
    (date(2027, 6, 2), True, [("225", Decimal(1000))]),  # never applied before expiry
])
def test_a_seguridad_application_records_its_lateness_and_fine(certify, steamer, owner_user, applied_on, late, fines):
    certificate = certify(steamer)
    application = apply_for_inspection(owner_user, steamer, "seguridad", "Asunción", applied_on, applied_on)
    db.session.commit()
    assert (application.applied_on, application.apply_by, application.late) == (applied_on, SEG_APPLY_BY, late)
    assert application.certificate_id == certificate.id and application.applied_by_id == owner_user.id
    assert [(f.article, f.amount) for f in application.fines] == fines
    recorded = db.session.scalars(db.select(FineAssessment)).all()
    assert [(f.article, f.amount, f.vessel_id) for f in recorded] == [(a, m, steamer.id) for a, m in fines]


def test_a_late_hull_application_doubles_the_fee_and_adds_the_configured_fine(app, certify, make_vessel, owner_user):
    vessel = make_vessel(owner_id=owner_user.owner_id, length_m=Decimal("40"), beam_m=Decimal("8"),
                         girth_m=Decimal("12"))
    certify(vessel, "navegabilidad")
    in_time = preview_application(owner_user, vessel, "navegabilidad", "Asunción", NAV_UNTIL, NAV_UNTIL)
    assert (in_time.late, in_time.fines) == (False, [])  # expiry day: still "a su debido tiempo" (art. 204)
    late_day = date(2027, 12, 1)
    from inspection.cycle.billing import fee_statement
    from inspection.law.fees import inspection_fees
    from inspection.registry.vessels import particulars_of
    fee = fee_statement(inspection_fees("navegabilidad", particulars_of(vessel)))["total"]
    app.config["HULL_LATE_FINE"] = 250
    try:
        application = apply_for_inspection(owner_user, vessel, "navegabilidad", "Asunción", late_day, late_day)
    finally:
        app.config["HULL_LATE_FINE"] = None
    assert application.late
    assert [(f.code, f.article, f.amount) for f in application.fines] == [
        ("double_fee", "204", fee), ("late_hull", "204", Decimal(250))]


def test_a_late_hull_application_is_not_fined_by_default(certify, make_vessel, owner_user):
    """Art. 204 names no amount: unless the installation sets one, the late hull pays only the double fee."""
    vessel = make_vessel(owner_id=owner_user.owner_id)
    certify(vessel, "navegabilidad")
    late_day = date(2027, 12, 1)
    application = apply_for_inspection(owner_user, vessel, "navegabilidad", "Asunción", late_day, late_day)
    assert application.late and [(f.code, f.article) for f in application.fines] == [("double_fee", "204")]


def test_the_preview_writes_nothing_and_matches_what_is_recorded(certify, steamer, owner_user, count_queries):
    certify(steamer)
    day = date(2027, 5, 10)
    before = db.session.scalar(db.select(db.func.count()).select_from(FineAssessment))
    preview = preview_application(owner_user, steamer, "seguridad", "Asunción", day, day)
    db.session.commit()
    assert db.session.scalar(db.select(db.func.count()).select_from(Application)) == 0
    assert db.session.scalar(db.select(db.func.count()).select_from(FineAssessment)) == before
    application = apply_for_inspection(owner_user, steamer, "seguridad", "Asunción", day, day)
    assert [(f.article, f.amount, f.reason_es) for f in preview.fines] == \
        [(f.article, f.amount, f.reason_es) for f in application.fines]


def test_refusals(certify, steamer, owner_user, make_user, make_vessel, staff):
    certify(steamer)
    day = date(2027, 4, 1)
    apply_for_inspection(owner_user, steamer, "seguridad", "Asunción", day, day)
    with pytest.raises(Conflict):  # a second pending application of the same kind
        apply_for_inspection(staff["admin"], steamer, "seguridad", "Asunción", day, day)
    with pytest.raises(NotFound):  # another owner's vessel does not exist for this owner
        apply_for_inspection(make_user("owner"), steamer, "navegabilidad", "Asunción", day, day)
    with pytest.raises(Forbidden):
        apply_for_inspection(make_user("police"), steamer, "navegabilidad", "Asunción", day, day)
    with pytest.raises(Invalid):  # a preferred date in the past
        apply_for_inspection(owner_user, steamer, "navegabilidad", "Asunción", date(2027, 3, 1), day)
    rowing = make_vessel(owner_id=owner_user.owner_id, propulsion="rowing", boilers=0, fire_hydrants=0)
    with pytest.raises(Invalid):  # exempt from hull inspection (art. 210)
        apply_for_inspection(owner_user, rowing, "navegabilidad", "Asunción", day, day)


def test_staff_apply_on_behalf_and_a_vencimiento_is_fined_once(certify, steamer, staff):
    certify(steamer)
    day = date(2027, 5, 5)
    first = apply_for_inspection(staff["inspector"], steamer, "seguridad", "Asunción", day, day)
    first.status = "cancelled"
    db.session.flush()
    again = apply_for_inspection(staff["admin"], steamer, "seguridad", "Asunción", day, day)
    # art. 204's "por cada vencimiento", read for art. 225
    assert (len(first.fines), again.late, again.fines) == (1, True, [])


def test_waiving_a_fine_is_the_prefecturas_with_a_reason_and_audited(certify, steamer, owner_user, staff):
    certify(steamer)
    day = date(2027, 5, 5)
    [fine] = apply_for_inspection(owner_user, steamer, "seguridad", "Asunción", day, day).fines
    db.session.flush()
    now = datetime(2027, 5, 6, 12, tzinfo=timezone.utc)
    for actor in (owner_user, staff["inspector"]):
        with pytest.raises(Forbidden):
            waive_fine(actor, fine, "pedido", now)
    with pytest.raises(Invalid):
        waive_fine(staff["admin"], fine, "  ", now)
    waive_fine(staff["admin"], fine, "Buque en varadero por avería", now)
    db.session.commit()
    assert (fine.waived_at, fine.waived_by_id, fine.waived_reason) == (now, staff["admin"].id, "Buque en varadero por avería")
    event = db.session.scalar(db.select(AuditEvent).filter_by(action="fine.waived"))
    assert event.entity_id == str(fine.id) and event.details["reason"] == "Buque en varadero por avería"
    with pytest.raises(Conflict):
        waive_fine(staff["admin"], fine, "otra vez", now)


def test_a_new_certificate_completes_the_application_and_moves_the_next_inspection(certify, steamer, owner_user):
    certify(steamer)
    application = apply_for_inspection(owner_user, steamer, "seguridad", "Asunción", ISSUED_ON, ISSUED_ON)
    db.session.commit()
    renewed = certify(steamer)
    assert (application.status, application.inspection_id) == ("done", renewed.inspection_id)
    [entry] = fleet_of(owner_user, ISSUED_ON)
    assert entry["certificates"]["seguridad"]["number"] == renewed.number
    assert entry["next_inspection"]["kind"] == "navegabilidad" or entry["next_inspection"]["due_on"] == SEG_UNTIL


# --- the fleet ------------------------------------------------------------------------------------

@pytest.mark.parametrize("today, state", [
    (date(2027, 4, 29), "ok"),
    (SEG_APPLY_BY, "due_soon"),
    (SEG_UNTIL, "due_soon"),
    (date(2027, 5, 31), "overdue"),
])
def test_the_fleet_state_follows_the_calendar(certify, make_vessel, owner_user, today, state):
    sailing = make_vessel(owner_id=owner_user.owner_id, propulsion="sail", boilers=1,
                          length_m=Decimal("4"), beam_m=Decimal("1.5"), girth_m=Decimal("2"))  # under 5 t: art. 210
    certificate = certify(sailing)
    [entry] = fleet_of(owner_user, today)
    assert entry["needs"] == ["seguridad"] and entry["certificates"]["navegabilidad"] is None
    assert entry["state"] == state
    assert entry["certificates"]["seguridad"] == {"number": certificate.number,
                                                  "status": "expired" if state == "overdue" else "valid",
                                                  "valid_until": SEG_UNTIL, "apply_by": SEG_APPLY_BY,
                                                  "days_left": (SEG_UNTIL - today).days}
    assert entry["next_inspection"] == {"kind": "seguridad", "apply_by": SEG_APPLY_BY, "due_on": SEG_UNTIL,
                                        "inspection_id": None, "scheduled_on": None, "port": None, "status": None}
    assert entry["earliest_due_on"] == SEG_APPLY_BY


def test_a_vessel_without_its_certificates_is_missing_and_shows_what_is_scheduled(make_vessel, owner_user, staff):
    vessel = make_vessel(owner_id=owner_user.owner_id)
    inspection = schedule_inspection(staff["admin"], vessel, "seguridad", staff["inspector"], date(2027, 1, 10),
                                     "Pilar", ISSUED_ON)
    apply_for_inspection(owner_user, vessel, "navegabilidad", "Asunción", ISSUED_ON, ISSUED_ON)
    db.session.commit()
    [entry] = fleet_of(owner_user, ISSUED_ON)
    assert entry["state"] == "missing"
    assert entry["next_inspection"]["inspection_id"] == inspection.id
    assert entry["pending_applications"] == [{"id": db.session.scalar(db.select(Application.id)), "kind": "navegabilidad"}]


def test_owners_see_their_own_fleet_and_staff_filter_by_owner(make_vessel, make_user, owner_user, staff):
    mine = make_vessel(owner_id=owner_user.owner_id)
    theirs = make_vessel()
    assert [e["vessel_id"] for e in fleet_of(owner_user, ISSUED_ON)] == [mine.id]
    assert {e["vessel_id"] for e in fleet_of(staff["admin"], ISSUED_ON)} == {mine.id, theirs.id}
    assert [e["vessel_id"] for e in fleet_of(staff["admin"], ISSUED_ON, theirs.owner_id)] == [theirs.id]


@pytest.fixture
def fleet_of_size(make_owner, staff, certify):
    """fleet_of_size(n): an owner with n vessels, each with a scheduled inspection and a pending application,
    the first two certified (one with an open deficiency)."""
    from inspection.registry.vessels import create_vessel
    from tests.conftest import VESSEL_DEFAULTS

    def build(n):
        owner = make_owner()
        vessels = [create_vessel({**VESSEL_DEFAULTS, "registration": f"FL-{owner.id}-{i}", "name": f"B{i}",
                                  "owner_id": owner.id}) for i in range(n)]
        for vessel in vessels[:2]:
            certify(vessel)
        for vessel in vessels:
            schedule_inspection(staff["admin"], vessel, "navegabilidad", staff["inspector"], date(2027, 1, 5),
                                "Asunción", ISSUED_ON)
            apply_for_inspection(staff["admin"], vessel, "seguridad", "Asunción", ISSUED_ON, ISSUED_ON)
        db.session.commit()
        return owner

    return build


def test_the_fleet_takes_the_same_number_of_queries_for_3_and_30_vessels(fleet_of_size, staff, count_queries):
    small, large = fleet_of_size(3), fleet_of_size(30)
    queries = {}
    for owner, n in ((small, 3), (large, 30)):
        db.session.expire_all()
        owner_id, _ = owner.id, staff["admin"].role  # the caller, loaded as the request loads it
        result = []
        queries[n] = count_queries(lambda: result.extend(fleet_of(staff["admin"], ISSUED_ON, owner_id)))
        assert len(result) == n and all(e["pending_applications"] for e in result)
        assert all({f["kind"] for f in e["fees"]} == {"navegabilidad", "seguridad"} for e in result)
        assert [bool(e["reports"]) for e in result] == [True, True] + [False] * (n - 2)
    assert queries[3] == queries[30] == 8  # the eighth: what patrols found (issue 23)


# --- the API --------------------------------------------------------------------------------------

def test_post_application_returns_the_fixed_fields_and_replays_by_client_id(client, certify, steamer, owner_user,
                                                                           token_for, set_clock):
    certify(steamer)
    set_clock(datetime(2027, 5, 10, 15, tzinfo=timezone.utc))
    headers = token_for(owner_user)
    body = {"vessel_id": steamer.id, "kind": "seguridad", "port": "Asunción", "preferred_on": "2027-05-20"}
    preview = client.post("/api/v1/applications/preview", json=body, headers=headers)
    assert preview.status_code == 200 and preview.json["id"] is None and preview.json["late"] is True
    assert db.session.scalar(db.select(db.func.count()).select_from(Application)) == 0
    key = {"client_id": str(uuid.uuid4())}
    first = client.post("/api/v1/applications", json={**body, **key}, headers={**headers, "Accept-Language": "en"})
    assert first.status_code == 201, first.json
    assert {k: first.json[k] for k in ("applied_on", "apply_by", "late")} == {
        "applied_on": "2027-05-10", "apply_by": "2027-04-30", "late": True}
    [fine] = first.json["fines"]
    assert (fine["source"], fine["article"], fine["amount"]) == ("Ley 928/1927", "225", "1000.00")
    assert fine["reason"].startswith("Application filed after")
    assert [{k: f[k] for k in ("source", "article", "amount")} for f in preview.json["fines"]] == \
        [{"source": "Ley 928/1927", "article": "225", "amount": "1000.00"}]
    again = client.post("/api/v1/applications", json={**body, **key}, headers=headers)
    assert again.status_code == 201 and again.json == first.json and again.headers["Idempotent-Replayed"] == "true"
    twice = client.post("/api/v1/applications", json=body, headers=headers)
    assert twice.status_code == 409 and twice.mimetype == "application/problem+json"
    assert "pendiente" in twice.json["detail"]
    listed = client.get("/api/v1/applications", headers=headers).json
    assert listed["total"] == 1 and listed["items"][0]["id"] == first.json["id"]


@pytest.mark.parametrize("method, path", [
    ("get", "/api/v1/fleet?owner_id={owner_id}"),
    ("post", "/api/v1/applications"),
    ("post", "/api/v1/applications/preview"),
])
def test_another_owners_records_are_not_found(client, make_vessel, make_user, token_for, method, path):
    stranger = make_vessel()
    owner = make_user("owner")
    body = {"vessel_id": stranger.id, "kind": "navegabilidad", "port": "Asunción", "preferred_on": "2099-01-01"}
    response = getattr(client, method)(path.format(owner_id=stranger.owner_id), headers=token_for(owner),
                                       **({"json": body} if method == "post" else {}))
    assert response.status_code == 404 and response.mimetype == "application/problem+json"


def test_owners_list_only_their_fleet(client, make_vessel, make_user, token_for, staff):
    owner = make_user("owner")
    mine, theirs = make_vessel(owner_id=owner.owner_id), make_vessel()
    for vessel in (mine, theirs):
        apply_for_inspection(staff["admin"], vessel, "navegabilidad", "Asunción", date(2099, 1, 1), ISSUED_ON)
    db.session.commit()
    headers = token_for(owner)
    assert [a["vessel_id"] for a in client.get("/api/v1/applications", headers=headers).json["items"]] == [mine.id]
    fleet = client.get("/api/v1/fleet", headers=headers).json
    assert [v["vessel_id"] for v in fleet["items"]] == [mine.id] and fleet["total"] == 1
    assert set(fleet["items"][0]) >= {"vessel_id", "registration", "name", "state", "certificates",
                                      "next_inspection", "open_deficiencies", "earliest_due_on"}
    everyone = client.get("/api/v1/fleet", headers=token_for(staff["admin"])).json
    assert {v["vessel_id"] for v in everyone["items"]} == {mine.id, theirs.id}
    assert client.get("/api/v1/fleet", headers=token_for(make_user("police"))).status_code == 403
