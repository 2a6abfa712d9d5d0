"""Issue 11's acceptance: the whole semestral cycle with fixed dates, through the real operations, the HTTP API where
the endpoint is what is tested, the daily command and a real SMTP server (aiosmtpd) on loopback.

The calendar: seguridad and navegabilidad certificates issued on 30 Nov 2026; the seguridad one runs to 30 May
2027 (art. 211) and is applied for by 30 Apr 2027 (art. 222); reminders on 31 Mar (30 days) and 23 Apr (7 days);
the owner applies on 10 May (late: art. 225's $1,000); inspected on 20 May; the new certificate runs to 20 Nov 2027.
"""
import uuid
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from inspection.accounts.users import declare_conflict
from inspection.core.extensions import db
from inspection.core.models import Application, AuditEvent, Certificate, Inspection
from inspection.cycle.applications import apply_for_inspection
from inspection.planning.board import assign_application
from tests.conftest import pass_and_close

STEAMER = {"propulsion": "steam", "boilers": 2}  # art. 233: two boilers, $ 350.- c/l. 100 each
HULL_346 = {"length_m": Decimal("45"), "beam_m": Decimal("8"), "girth_m": Decimal("14")}  # 346,33 t (art. 195)
APPLY_BY, VALID_UNTIL = date(2027, 4, 30), date(2027, 5, 30)
LATE_ON, INSPECTED_ON = date(2027, 5, 10), date(2027, 5, 20)
REMINDER_30, REMINDER_7 = "quedan 30 días para solicitar la inspección de seguridad", \
    "quedan 7 días para solicitar la inspección de seguridad"


def noon(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 15, 0, tzinfo=timezone.utc)  # 12:00 in Asunción


def days(first: date, last: date):
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


@pytest.fixture
def cycle(app, make_owner, make_user, make_vessel, certify, staff, smtp, runner, set_clock, token_for, monkeypatch):
    """A certified steamer of an owner with a user and a mail address, staff, the SMTP server wired to the app and
    `send(day)`: the daily command for that day with the office clock at its noon."""
    settings, inbox = smtp
    for name, value in {"SMTP_HOST": settings.host, "SMTP_PORT": settings.port, "MAIL_FROM": settings.sender}.items():
        monkeypatch.setitem(app.config, name, value)
    owner = make_owner(email="flota@armador.test")
    owner_user = make_user("owner", owner_id=owner.id)
    vessel = make_vessel(owner_id=owner.id, **STEAMER)
    certify(vessel, "navegabilidad")
    certificate = certify(vessel)

    def send(day: date) -> str:
        set_clock(noon(day))
        result = runner.invoke(args=["reminders", "send", "--today", day.isoformat()])
        assert result.exit_code == 0, result.output
        return result.output

    def at(day: date, role_user):
        set_clock(noon(day))
        return token_for(role_user)

    return {"owner": owner, "owner_user": owner_user, "vessel": vessel, "certificate": certificate, "inbox": inbox,
            "send": send, "at": at, **staff}


def subjects(inbox, to: str) -> list[str]:
    return [message["Subject"] for rcpt, message in inbox.messages if rcpt == [to]]


def test_the_semestral_cycle_from_certificate_to_certificate(cycle, client, make_user, set_clock):
    vessel, inbox, send, at = cycle["vessel"], cycle["inbox"], cycle["send"], cycle["at"]
    owner_mail = "flota@armador.test"

    # 1. The certificate puts the next inspection on the calendar: ok the day before apply_by, due_soon on it.
    for day, state in ((date(2027, 4, 29), "ok"), (APPLY_BY, "due_soon")):
        [entry] = client.get("/api/v1/fleet", headers=at(day, cycle["owner_user"])).json["items"]
        assert entry["vessel_id"] == vessel.id and entry["state"] == state
        assert entry["certificates"]["seguridad"] == {
            "number": cycle["certificate"].number, "status": "valid", "valid_until": VALID_UNTIL.isoformat(),
            "apply_by": APPLY_BY.isoformat(), "days_left": (VALID_UNTIL - day).days}
        assert {k: entry["next_inspection"][k] for k in ("kind", "apply_by", "due_on")} == {
            "kind": "seguridad", "apply_by": APPLY_BY.isoformat(), "due_on": VALID_UNTIL.isoformat()}  # the window
        assert entry["earliest_due_on"] == APPLY_BY.isoformat()

    # 2. The daily command, every day from 30 Mar to 30 Apr and twice on the reminders' days: each reminder once.
    arrived = {}  # the day each mail arrived on
    for day in days(date(2027, 3, 30), APPLY_BY):
        send(day)
        if day in (date(2027, 3, 31), date(2027, 4, 23)):
            assert "0 avisos nuevos; 0 correos enviados" in send(day)  # the same day again: nothing new
        for _, message in inbox.messages[len(arrived):]:
            arrived[message["Subject"].removeprefix(f"{vessel.name}: ")] = day
    assert arrived == {REMINDER_30: APPLY_BY - timedelta(days=30), REMINDER_7: APPLY_BY - timedelta(days=7)}
    assert [to for to, _ in inbox.messages] == [[owner_mail]] * 2

    # 3. The owner applies on 10 May, after apply_by: the preview and the answer carry art. 225's fine.
    headers = at(LATE_ON, cycle["owner_user"])
    body = {"vessel_id": vessel.id, "kind": "seguridad", "port": "Asunción", "preferred_on": INSPECTED_ON.isoformat()}
    preview = client.post("/api/v1/applications/preview", json=body, headers=headers)
    filed = client.post("/api/v1/applications", json={**body, "client_id": str(uuid.uuid4())}, headers=headers)
    assert preview.status_code == 200 and filed.status_code == 201, filed.json
    fine = {"source": "Ley 928/1927", "article": "225", "amount": "1000.00"}
    for answer in (preview.json, filed.json):
        assert (answer["applied_on"], answer["apply_by"], answer["late"]) == (LATE_ON.isoformat(),
                                                                              APPLY_BY.isoformat(), True)
        assert [{k: f[k] for k in fine} for f in answer["fines"]] == [fine]
    application_id, fine_id = filed.json["id"], filed.json["fines"][0]["id"]
    assert preview.json["id"] is None and fine_id is not None

    # 4. Staff assign it: an inspector with a conflict of interest (art. 214) is refused, another one is scheduled.
    conflicted = make_user("inspector", full_name="Insp. Vinculado")
    declare_conflict(cycle["admin"], conflicted, cycle["owner"].id, "Primo del armador", noon(LATE_ON))
    inspector = make_user("inspector", full_name="Insp. Ramírez", email="ramirez@prefectura.test")
    db.session.commit()
    admin_headers = at(LATE_ON, cycle["admin"])
    assignment = {"scheduled_on": INSPECTED_ON.isoformat(), "port": "Asunción"}
    refused = client.post(f"/api/v1/applications/{application_id}/assign",
                          json={**assignment, "inspector_id": conflicted.id}, headers=admin_headers)
    assert refused.status_code == 403 and "art. 214" in refused.json["detail"]
    assert db.session.get(Application, application_id).status == "pending"
    assigned = client.post(f"/api/v1/applications/{application_id}/assign",
                           json={**assignment, "inspector_id": inspector.id}, headers=admin_headers)
    assert assigned.status_code == 200, assigned.json
    assert assigned.json["status"] == "scheduled"
    inspection = db.session.get(Inspection, assigned.json["inspection_id"])
    assert (inspection.inspector_id, inspection.scheduled_on, inspection.kind) == (inspector.id, INSPECTED_ON,
                                                                                  "seguridad")

    # 5. The inspector is emailed the assignment once and sees it on the agenda.
    send(LATE_ON)
    send(LATE_ON + timedelta(days=1))
    assert subjects(inbox, "ramirez@prefectura.test") == [
        f"Nueva inspección asignada: {vessel.name}, 20 de mayo de 2027"]
    agenda = client.get("/api/v1/agenda?days=14", headers=at(LATE_ON, inspector)).json
    assert [(row["id"], row["bucket"]) for row in agenda["items"]] == [(inspection.id, "week")]

    # 6. Performed and closed on 20 May: a new certificate; the application is done; the fleet is ok again.
    set_clock(noon(INSPECTED_ON))
    renewed = pass_and_close(inspection, inspector, noon(INSPECTED_ON), INSPECTED_ON)["certificate"]
    assert (renewed.kind, renewed.valid_until) == ("seguridad", date(2027, 11, 20))  # six months (art. 211)
    assert db.session.get(Certificate, cycle["certificate"].id).superseded_by_id == renewed.id
    application = db.session.get(Application, application_id)
    assert (application.status, application.inspection_id) == ("done", inspection.id)
    [entry] = client.get("/api/v1/fleet", headers=at(INSPECTED_ON, cycle["owner_user"])).json["items"]
    assert entry["state"] == "ok"
    assert (entry["certificates"]["seguridad"]["number"], entry["certificates"]["seguridad"]["apply_by"]) == (
        renewed.number, "2027-10-20")

    # 7. The fine stays owed, not waived, on the new inspection's fee statement, beside art. 233's two boilers.
    fees = client.get(f"/api/v1/inspections/{inspection.id}/fees", headers=at(INSPECTED_ON, cycle["owner_user"])).json
    assert [(line["article"], line["quantity"], Decimal(line["amount"])) for line in fees["lines"]] == [
        ("233", 2, Decimal(200))]
    [owed] = fees["fines"]
    assert (owed["id"], owed["article"], Decimal(owed["amount"]), owed["waived_at"]) == (fine_id, "225",
                                                                                         Decimal(1000), None)
    assert Decimal(fees["owed"]) == Decimal(200) + Decimal(1000)

    # 8. Expiry passes with the application answered: no second art. 225 fine, no expiry notice to the owner.
    assert "0 multas aplicadas" in send(date(2027, 5, 31))
    assert len(subjects(inbox, owner_mail)) == 2


def test_a_late_hull_application_pays_the_fee_twice_and_the_configured_fine_until_waived(
        app, client, certify, make_user, make_vessel, staff, token_for, set_clock, monkeypatch):
    """Art. 204: the navegabilidad certificate of 30 Nov 2026 expired on 30 Nov 2027; applied for on 10 Jan 2028."""
    monkeypatch.setitem(app.config, "HULL_LATE_FINE", 750)  # BALIZA_HULL_LATE_FINE: art. 204 names no amount
    owner = make_user("owner")
    vessel = make_vessel(owner_id=owner.owner_id, **HULL_346)
    certify(vessel, "navegabilidad")
    late_on = date(2028, 1, 10)
    set_clock(noon(late_on))
    body = {"vessel_id": vessel.id, "kind": "navegabilidad", "port": "Asunción", "preferred_on": "2028-01-20",
            "client_id": str(uuid.uuid4())}
    answer = client.post("/api/v1/applications", json=body, headers=token_for(owner))
    assert answer.status_code == 201, answer.json
    assert answer.json["late"] is True and answer.json["apply_by"] == "2027-10-30"
    fee = Decimal(1347)  # art. 209: 201-250 t c/l. 1250, plus 97 t over 250 at $ 1 (347 started tons)
    fines = {f["code"]: (f["source"], f["article"], Decimal(f["amount"])) for f in answer.json["fines"]}
    assert fines == {"double_fee": ("Ley 928/1927", "204", fee), "late_hull": ("Ley 928/1927", "204", Decimal(750))}

    application = db.session.get(Application, answer.json["id"])
    inspection = assign_application(staff["admin"], application, staff["inspector"], date(2028, 1, 20), "Asunción",
                                    late_on)
    db.session.commit()
    statement = client.get(f"/api/v1/inspections/{inspection.id}/fees", headers=token_for(owner)).json
    assert [(line["article"], Decimal(line["amount"])) for line in statement["lines"]] == [("209", 1250), ("209", 97)]
    assert Decimal(statement["total"]) == fee
    assert {f["code"]: (f["source"], f["article"], Decimal(f["amount"])) for f in statement["fines"]} == fines
    assert Decimal(statement["owed"]) == fee + fee + 750

    # The Prefectura waives the configured fine with its reason: no longer owed, the double fee still is; audited.
    late_hull = next(f for f in answer.json["fines"] if f["code"] == "late_hull")
    reason = {"reason": "Varado por bajante del río; no podía navegar."}
    assert client.post(f"/api/v1/fines/{late_hull['id']}/waive", json=reason,
                       headers=token_for(make_user("inspector"))).status_code == 403
    waived = client.post(f"/api/v1/fines/{late_hull['id']}/waive", json=reason, headers=token_for(staff["admin"]))
    assert waived.status_code == 200 and waived.json["waived_reason"] == reason["reason"]
    statement = client.get(f"/api/v1/inspections/{inspection.id}/fees", headers=token_for(owner)).json
    assert Decimal(statement["owed"]) == fee + fee
    assert {f["code"]: f["waived_at"] is not None for f in statement["fines"]} == {"double_fee": False,
                                                                                   "late_hull": True}
    event = db.session.scalar(db.select(AuditEvent).filter_by(action="fine.waived"))
    assert (event.user_id, event.entity_id, event.details["reason"]) == (staff["admin"].id, str(late_hull["id"]),
                                                                          reason["reason"])


def test_never_applied_before_expiry_the_swept_fine_is_owed_on_the_renewing_inspection(cycle, client, set_clock):
    """Art. 225 "no presente a su debido tiempo la solicitud": the daily run fines the expired certificate once; the
    application filed after it adds no second fine, and the inspection that renews the certificate bills it."""
    vessel, send, at = cycle["vessel"], cycle["send"], cycle["at"]
    expired_on = VALID_UNTIL + timedelta(days=1)
    assert "1 multas aplicadas" in send(expired_on)
    assert "0 multas aplicadas" in send(expired_on)  # "por cada vencimiento": once
    subjects_sent = subjects(cycle["inbox"], "flota@armador.test")
    assert sorted(s.removeprefix(f"{vessel.name}: ") for s in subjects_sent) == sorted([
        "venció el certificado de seguridad", "multa por no solicitar a tiempo la inspección de seguridad"])
    [entry] = client.get("/api/v1/fleet", headers=at(expired_on, cycle["owner_user"])).json["items"]
    assert entry["state"] == "overdue"
    [swept] = entry["fines"]
    assert (swept["article"], swept["amount"]) == ("225", "1000.00")

    applied_on = date(2027, 6, 3)
    application = apply_for_inspection(cycle["owner_user"], vessel, "seguridad", "Asunción", applied_on, applied_on)
    assert (application.late, application.fines) == (True, [])  # already fined for this expiry
    inspection = assign_application(cycle["admin"], application, cycle["inspector"], applied_on, "Asunción",
                                    applied_on)
    db.session.commit()
    set_clock(noon(applied_on))
    renewed = pass_and_close(inspection, cycle["inspector"], noon(applied_on), applied_on)["certificate"]
    assert renewed.valid_until == date(2027, 12, 3)
    fees = client.get(f"/api/v1/inspections/{inspection.id}/fees", headers=at(applied_on, cycle["owner_user"])).json
    assert [(f["id"], f["article"], f["waived_at"]) for f in fees["fines"]] == [(swept["id"], "225", None)]
    assert Decimal(fees["owed"]) == Decimal(200) + Decimal(1000)
