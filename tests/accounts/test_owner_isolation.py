"""Owner isolation on every endpoint and page of issue 11 (the cycle), and of the blueprints it added routes to:
another owner, police and an anonymous caller each get the refusal for who they are, and no 200 body carries
another owner's registration, vessel name, armador name or certificate number.

The table is checked against app.url_map: a route added to one of these blueprints without an entry fails.
"""
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Callable

import pytest
from flask import url_for

from inspection.accounts.feeds import feed_secret
from inspection.accounts.users import create_user
from inspection.core.clock import office_zone
from inspection.core.extensions import db
from inspection.core.models import Deficiency, Notice
from inspection.notices.reminders import run_reminders
from tests.fleets import PASSWORD, seed_fleets

# Blueprints issue 11 created, and those it added routes to (all their routes are listed below).
BLUEPRINTS = {"api_applications", "api_calendar", "api_fees", "api_reports", "fleet", "planning", "notices",
              "dashboard", "certificates", "inspections", "api_patrol", "patrol"}
LOGIN = "login"  # a page asks an anonymous caller to sign in (302 to /login)
OK, FOUND, BAD = 200, 302, 400
CALLERS = ("owner", "police", "anonymous")


@dataclass(frozen=True)
class Route:
    """A request naming the other fleet's records (`o`), and the status each caller gets."""

    endpoint: str
    owner: int | str
    police: int | str
    anonymous: int | str
    args: Callable[[dict], dict] = lambda o: {}
    body: Callable[[dict], dict] | None = None
    note: str = field(default="", compare=False)


def application(o):
    return {"vessel_id": o["vessel_id"], "kind": "navegabilidad", "port": "Asunción", "preferred_on": "2099-01-02"}


def assignment(o):
    return {"inspector_id": o["inspector_id"], "scheduled_on": "2099-01-05", "port": "Asunción"}


WAIVER = {"reason": "Varado por bajante del río"}
API = {"police": 403, "anonymous": 401}
PAGE = {"police": 403, "anonymous": LOGIN}

ROUTES = [
    # --- the API of the cycle --------------------------------------------------------------------------
    Route("api_applications.get_fleet", OK, **API),
    Route("api_applications.get_fleet", 404, **API, args=lambda o: {"owner_id": o["owner_id"]}),
    Route("api_applications.list_applications", OK, **API),
    Route("api_applications.list_applications", OK, **API, args=lambda o: {"vessel_id": o["vessel_id"]}),
    Route("api_applications.post_application", 404, **API, body=lambda o: {**application(o), "client_id": o["uuid"]}),
    Route("api_applications.post_application_preview", 404, **API, body=application),
    Route("api_applications.post_assign", 404, **API, args=lambda o: {"application_id": o["application_id"]},
          body=assignment),
    Route("api_applications.post_waive", 404, **API, args=lambda o: {"fine_id": o["fine_id"]}, body=lambda o: WAIVER),
    Route("api_fees.get_fees", 404, **API, args=lambda o: {"inspection_id": o["submitted_id"]}),
    Route("api_reports.get_fee_statement_pdf", 404, **API, args=lambda o: {"inspection_id": o["submitted_id"]}),
    Route("api_reports.get_report_pdf", 404, **API, args=lambda o: {"inspection_id": o["submitted_id"]}),
    Route("api_calendar.get_calendar", OK, **API),
    # --- the owner's pages ------------------------------------------------------------------------------
    Route("fleet.fleet_page", OK, **PAGE),
    Route("fleet.fleet_page", 404, **PAGE, args=lambda o: {"owner_id": o["owner_id"]}),
    Route("fleet.application_list", OK, **PAGE),
    Route("fleet.application_form", OK, **PAGE),
    Route("fleet.application_form", 404, **PAGE, args=lambda o: {"vessel_id": o["vessel_id"], "kind": "seguridad"}),
    Route("fleet.application_preview", 404, **PAGE, body=application),
    Route("fleet.application_confirm", 404, **PAGE, body=lambda o: {**application(o), "client_id": o["uuid"]}),
    # --- staff's planning board and dashboard -------------------------------------------------------------
    Route("planning.board", 403, **PAGE),
    Route("planning.assign", 404, **PAGE, args=lambda o: {"application_id": o["application_id"]}, body=assignment),
    Route("planning.assign_unapplied", 404, **PAGE, args=lambda o: {"vessel_id": o["vessel_id"]},
          body=lambda o: {**assignment(o), "kind": "seguridad"}),
    Route("planning.waive", 404, **PAGE, args=lambda o: {"fine_id": o["fine_id"]}, body=lambda o: WAIVER),
    Route("dashboard.dashboard_page", 403, **PAGE),
    *[Route("dashboard.dashboard_csv", 403, **PAGE, args=lambda o, c=chart: {"chart": c})
      for chart in ("vigencia", "vencimientos", "articulos", "inspectores")],
    # --- notices and calendar feeds -------------------------------------------------------------------
    Route("notices.notice_list", OK, OK, LOGIN),
    Route("notices.notice_read", 404, 404, LOGIN, args=lambda o: {"notice_id": o["notice_id"]}, body=lambda o: {}),
    Route("notices.notice_read_all", FOUND, FOUND, LOGIN, body=lambda o: {}),
    Route("notices.calendar_feed", OK, OK, OK, args=lambda o: {"user_id": o["own_user_id"], "secret": o["own_secret"]},
          note="one's own feed: a secret URL, no session"),
    Route("notices.calendar_feed", 404, 404, 404, args=lambda o: {"user_id": o["user_id"], "secret": o["own_secret"]},
          note="another's feed with one's own secret"),
    Route("notices.calendar_renew", FOUND, **PAGE, body=lambda o: {"confirmed": "1"},
          note="after the feeds: it renews the secret (confirmed: it asks first)"),
    # --- certificates (issue 11 added the CSV) ----------------------------------------------------------
    Route("certificates.certificate_list", OK, **PAGE),
    Route("certificates.certificate_csv", OK, **PAGE),
    Route("certificates.certificate_page", 404, **PAGE, args=lambda o: {"number": o["number"]}),
    Route("certificates.certificate_decision", 404, **PAGE, args=lambda o: {"number": o["number"],
                                                                           "decision": "suspender"},
          body=lambda o: WAIVER),
    Route("certificates.verify_page", OK, OK, OK, args=lambda o: {"token": o["token"]},
          note="the public QR page shows the vessel to anyone holding the certificate (art. 66): not a leak"),
    # --- inspections (issue 11 added the CSV and the PDFs) ---------------------------------------------
    Route("inspections.inspection_list", OK, **PAGE),
    Route("inspections.inspection_csv", OK, **PAGE),
    Route("inspections.inspection_schedule", 403, **PAGE,
          body=lambda o: {"vessel_id": o["vessel_id"], "kind": "seguridad", "inspector_id": o["inspector_id"],
                          "scheduled_on": "2099-01-05", "port": "Asunción"}),
    Route("inspections.inspection_page", 404, **PAGE, args=lambda o: {"inspection_id": o["submitted_id"]}),
    Route("inspections.inspection_report", 404, **PAGE, args=lambda o: {"inspection_id": o["submitted_id"]}),
    Route("inspections.inspection_report_pdf", 404, **PAGE, args=lambda o: {"inspection_id": o["submitted_id"]}),
    Route("inspections.inspection_fees_pdf", 404, **PAGE, args=lambda o: {"inspection_id": o["submitted_id"]}),
    Route("inspections.inspection_interrupt", 404, **PAGE, args=lambda o: {"inspection_id": o["inspection_id"]},
          body=lambda o: {"reason": "Tormenta"}),
    Route("inspections.inspection_cancel", 404, **PAGE, args=lambda o: {"inspection_id": o["inspection_id"]},
          body=lambda o: {"reason": "Mal programada"}),
    Route("inspections.inspection_detain", 404, **PAGE, args=lambda o: {"inspection_id": o["inspection_id"]},
          body=lambda o: {"reason": "Casco averiado"}),
    Route("inspections.detention_lift", 404, **PAGE, args=lambda o: {"inspection_id": o["submitted_id"], "detention_id": 1},
          body=lambda o: {"reason": "Casco reparado"}),
    Route("inspections.deficiency_report_fixed", 404, **PAGE, args=lambda o: {"deficiency_id": o["deficiency_id"]},
          body=lambda o: {"reason": "Reparado"}),
    Route("inspections.deficiency_close", 404, **PAGE, args=lambda o: {"deficiency_id": o["deficiency_id"]},
          body=lambda o: {"reason": "Reparado"}),
    # --- deficiencies (issue 21 added the list and its CSV) ---------------------------------------------
    Route("inspections.deficiency_list_page", OK, **PAGE),
    Route("inspections.deficiency_list_page", 404, **PAGE, args=lambda o: {"vessel_id": o["vessel_id"]}),
    Route("inspections.deficiency_csv", OK, **PAGE),
    # --- patrol checks (issue 23): the other fleet's check is the police user's own ----------------------
    Route("api_patrol.list_checks", OK, OK, 401),
    Route("api_patrol.list_checks", OK, OK, 401, args=lambda o: {"vessel_id": o["vessel_id"]}),
    Route("api_patrol.get_check", 404, OK, 401, args=lambda o: {"check_id": o["check_id"]}),
    Route("api_patrol.post_check", 403, 201, 401,
          body=lambda o: {"client_id": o["uuid"], "vessel_id": o["vessel_id"], "checklist": "conducta",
                          "checked_at": datetime.now(timezone.utc).isoformat(), "place": "Km 1630"}),
    Route("api_patrol.put_answer", 404, 409, 401, args=lambda o: {"check_id": o["check_id"], "item_id": "con.lights.night"},
          body=lambda o: {"client_id": "00000000-0000-4000-8000-00000000000b", "result": "pass"},
          note="the police user's check is closed: 409"),
    Route("api_patrol.post_photo", 404, 422, 401, args=lambda o: {"check_id": o["check_id"]}),
    Route("api_patrol.post_upload", 404, 409, 401, args=lambda o: {"check_id": o["check_id"]},
          body=lambda o: {"client_id": "00000000-0000-4000-8000-00000000000d", "item_id": "con.lights.night",
                          "sha256": "0" * 64, "size": 10, "mime": "image/jpeg"},
          note="the police user's check is closed: 409"),
    Route("api_patrol.patch_upload", 404, 422, 401,
          args=lambda o: {"check_id": o["check_id"], "client_id": "00000000-0000-4000-8000-00000000000d"},
          note="the police user's own check: the request lacks its Upload-Offset header, 422"),
    Route("api_patrol.get_upload", 404, 404, 401,
          args=lambda o: {"check_id": o["check_id"], "client_id": "00000000-0000-4000-8000-00000000000d"}),
    Route("api_patrol.post_close", 404, 409, 401, args=lambda o: {"check_id": o["check_id"]},
          body=lambda o: {"client_id": "00000000-0000-4000-8000-00000000000c", "outcome": "sin_novedad"}),
    Route("patrol.check_list", OK, OK, LOGIN),
    Route("patrol.check_page", 404, OK, LOGIN, args=lambda o: {"check_id": o["check_id"]}),
    # the police phone: its shell, and what it asks with signal (police see every registered vessel)
    Route("patrol.phone", 403, OK, LOGIN),
    Route("patrol.vessel_matches", 403, OK, LOGIN, args=lambda o: {"q": o["registration"]}),
    Route("patrol.vessel_lists", 403, OK, LOGIN, args=lambda o: {"vessel_id": o["vessel_id"]}),
]
PUBLIC_BODIES = {"certificates.verify_page"}  # shows the certificate's own vessel by design
# the police's own checks, and every registered vessel's registration and name (what a patrol compares with the hull,
# art. 66): the phone's page carries them for use without signal, its search and lists answer with signal
POLICE_BODIES = {"api_patrol.list_checks", "api_patrol.get_check", "api_patrol.post_check", "patrol.check_list",
                 "patrol.check_page", "patrol.phone", "patrol.vessel_matches", "patrol.vessel_lists"}


@pytest.fixture
def world(app):
    """Two fleets (tests/fleets.py), a user for the stranger's armador, and notices for both owners' users."""
    seeded = seed_fleets()
    users, other = seeded["users"], seeded["fleets"]["other"]
    stranger = create_user("stranger", PASSWORD, "owner", owner_id=other["owner_id"])
    db.session.commit()
    due_on = db.session.scalar(db.select(Deficiency.due_on).filter_by(id=other["deficiency_id"]))
    day = due_on - timedelta(days=1)  # the deficiency reminder is due for both fleets (three days before)
    run_reminders(day, datetime(day.year, day.month, day.day, 15, tzinfo=timezone.utc), office_zone(), None,
                  "https://baliza.test")
    db.session.commit()
    notice_id = db.session.scalar(db.select(Notice.id).filter_by(user_id=stranger.id))
    assert notice_id is not None and db.session.scalar(db.select(Notice.id).filter_by(user_id=users["owner"].id))
    key = app.config["SECRET_KEY"]
    records = {**other, "uuid": "00000000-0000-4000-8000-00000000000a", "inspector_id": users["inspector"].id,
               "user_id": stranger.id, "notice_id": notice_id, "own_user_id": users["owner"].id,
               "own_secret": feed_secret(users["owner"], key)}
    return {"users": users, "other": records, "stranger": stranger}


def leaks(body: str, other: dict) -> list[str]:
    """The other fleet's identifying strings found in a body."""
    marks = (other["registration"], other["name"], other["owner_name"], other["number"])
    return [mark for mark in marks if mark in body]


def test_no_route_of_the_cycle_shows_another_owners_records(app, world):
    from inspection.core.models import Owner, Vessel

    other = world["other"]
    vessel = db.session.get(Vessel, other["vessel_id"])
    other |= {"registration": vessel.registration, "name": vessel.name,
              "owner_name": db.session.get(Owner, other["owner_id"]).name}
    browsers = {"anonymous": app.test_client()}
    for role in ("owner", "police"):
        browsers[role] = app.test_client()
        assert browsers[role].post("/login", data={"username": role, "password": PASSWORD}).status_code == 302
    tokens = {role: {"Authorization": f"Bearer {token_of(browsers[role], role)}"} for role in ("owner", "police")}
    methods = {rule.endpoint: sorted(rule.methods - {"HEAD", "OPTIONS"}) for rule in app.url_map.iter_rules()}
    wrong = []
    for route in ROUTES:
        [method] = methods[route.endpoint]
        with app.test_request_context():
            path = url_for(route.endpoint, **route.args(other))
        api = path.startswith("/api/")
        body = route.body(other) if route.body else None
        for caller in CALLERS:
            want = getattr(route, caller)
            headers = tokens.get(caller, {}) if api else {}
            client = app.test_client() if api else browsers[caller]  # the API by bearer token, pages by session
            kwargs = {"json": body} if api and body is not None else {"data": body} if body is not None else {}
            response = client.open(path, method=method, headers=headers, **kwargs)
            got = response.status_code
            if want == LOGIN:
                right = got == 302 and "/login" in response.headers.get("Location", "")
            else:
                right = got == want
            if right and got in (200, 201) and route.endpoint not in PUBLIC_BODIES and not (
                    caller == "police" and route.endpoint in POLICE_BODIES):
                found = leaks(response.get_data(as_text=True), other)
                if found:
                    right, got = False, f"200 showing {found}"
            if not right:
                wrong.append(f"{method} {path} as {caller}: {got}, expected {want}")
    assert not wrong, "\n".join(wrong)
    assert db.session.get(Notice, other["notice_id"]).read_at is None  # marking one's notices read left theirs
    staff = app.test_client()  # the marks are what the lists show: staff, who see every fleet, find them
    staff.post("/login", data={"username": "admin", "password": PASSWORD})
    for path, marks in (("/flota", 2), ("/certificados.csv", 3), ("/solicitudes", 1), ("/deficiencias", 2),
                        ("/deficiencias.csv", 2)):
        assert len(leaks(staff.get(path).get_data(as_text=True), other)) >= marks, path


def token_of(client, username: str) -> str:
    response = client.post("/api/v1/auth/token", json={"username": username, "password": PASSWORD})
    assert response.status_code == 201
    return response.json["token"]


def test_the_table_lists_every_route_of_the_cycles_blueprints(app):
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules() if rule.endpoint.split(".")[0] in BLUEPRINTS}
    assert endpoints == {route.endpoint for route in ROUTES}
