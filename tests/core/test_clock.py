"""The law's "today" is Asunción's: dates taken from the office's clock, times shown on its wall clock.

From 21:00 in Asunción (UTC−3) the UTC date is already tomorrow; these tests stand at such moments by
setting the app's one clock (`set_clock`), whatever zone the machine running them is in.
"""
from datetime import date, datetime, timedelta, timezone

import pytest

from app import create_app
from inspection.core.clock import UnknownZone, local_date_at, zone_city, zone_named
from inspection.core.extensions import db
from inspection.core.models import Certificate, Deficiency, Inspection
from inspection.i18n.formats import format_moment
from tests.conftest import PASSWORD
from tests.fixtures.inspections import answer_all, submit

ASUNCION = zone_named("America/Asuncion")
LATE_ON_30_NOV = datetime(2026, 11, 30, 22, 30, tzinfo=ASUNCION)  # 2026-12-01 01:30 UTC


@pytest.fixture
def stand_at(set_clock, crew, db):
    """stand_at(moment): the app's clock reads `moment`, and the crew's bearer tokens are made then (they live 12 h)."""
    from inspection.accounts.auth import issue_token

    def stand(moment: datetime) -> None:
        set_clock(moment)
        for key, user in (("admin", crew["admin_user"]), ("ih", crew["inspector"]), ("oh", crew["owner"])):
            raw, _ = issue_token(user, moment.astimezone(timezone.utc))
            crew[key] = {"Authorization": f"Bearer {raw}"}
        db.session.commit()

    return stand


def at(day: date, hour: int, minute: int = 0) -> datetime:
    """A wall-clock moment in Asunción."""
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=ASUNCION)


# --- the zone and its rules ------------------------------------------------------------------------

def test_asuncion_keeps_utc_minus_3_all_year():
    # Paraguay dropped the winter hour in October 2024; older zone data says UTC−4 in July.
    for month in (1, 7):
        assert datetime(2026, month, 15, 12, tzinfo=ASUNCION).utcoffset() == timedelta(hours=-3)


@pytest.mark.parametrize("moment, expected", [
    (datetime(2026, 12, 1, 1, 30, tzinfo=timezone.utc), date(2026, 11, 30)),   # 22:30 the day before
    (datetime(2026, 12, 1, 2, 59, tzinfo=timezone.utc), date(2026, 11, 30)),
    (datetime(2026, 12, 1, 3, 0, tzinfo=timezone.utc), date(2026, 12, 1)),     # local midnight
    (datetime(2027, 1, 1, 2, 0, tzinfo=timezone.utc), date(2026, 12, 31)),     # still last year
])
def test_the_office_date_of_a_moment(moment, expected):
    assert local_date_at(moment, ASUNCION) == expected


def test_times_for_people_are_on_the_office_wall_clock():
    late = datetime(2026, 12, 1, 1, 30, tzinfo=timezone.utc)
    assert format_moment(late, ASUNCION, "es") == "30 nov. 2026, 22:30"
    assert format_moment(late, ASUNCION, "en") == "Nov 30, 2026, 22:30"
    assert zone_city(ASUNCION) == "Asunción"
    assert zone_city(zone_named("America/Argentina/Buenos_Aires")) == "Buenos Aires"


@pytest.mark.parametrize("name", ["America/Atlantis", "UTC-3", "../../etc/passwd", ""])
def test_an_unknown_office_zone_stops_the_app_at_creation(tmp_path, name):
    with pytest.raises(UnknownZone, match="BALIZA_OFFICE_TZ"):
        create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/z.sqlite", "SECRET_KEY": "x", "OFFICE_TZ": name})


def test_the_office_zone_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("BALIZA_DATABASE_URL", f"sqlite:///{tmp_path}/x.sqlite")
    monkeypatch.setenv("BALIZA_SECRET_KEY", "from-env")
    monkeypatch.setenv("BALIZA_OFFICE_TZ", "America/Argentina/Buenos_Aires")
    assert create_app().config["OFFICE_TZ"] == "America/Argentina/Buenos_Aires"
    monkeypatch.delenv("BALIZA_OFFICE_TZ")
    assert create_app().config["OFFICE_TZ"] == "America/Asuncion"


# --- dates with legal meaning, late in the evening --------------------------------------------------

@pytest.fixture
def signed_in(app):
    """A browser signed in as `user`."""

    def login(user):
        browser = app.test_client()
        assert browser.post("/login", data={"username": user.username, "password": PASSWORD}).status_code == 302
        return browser

    return login


def schedule_on(client, crew, day: date):
    body = {"vessel_id": crew["vessel"].id, "kind": "seguridad", "inspector_id": crew["inspector"].id,
            "scheduled_on": day.isoformat(), "port": "Asunción"}
    return client.post("/api/v1/inspections", json=body, headers=crew["admin"])


def test_inspection_for_asuncions_today_is_accepted_at_2230(client, crew, stand_at):
    stand_at(LATE_ON_30_NOV)
    assert schedule_on(client, crew, date(2026, 11, 30)).status_code == 201
    refused = schedule_on(client, crew, date(2026, 11, 29))
    assert refused.status_code == 422 and "scheduled_on" in refused.json["errors"]


def test_certificate_issued_at_2230_carries_asuncions_date(client, crew, stand_at, db):
    stand_at(LATE_ON_30_NOV)
    inspection_id = schedule_on(client, crew, date(2026, 11, 30)).json["id"]
    assert client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"]).status_code == 200
    items = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json["items"]
    minor = next(i for i in items if not i["detainable"])
    answer_all(client, crew, inspection_id, items, fail={minor["id"]})
    body = submit(client, crew, inspection_id).json
    certificate = body["certificate"]
    assert certificate["issued_on"] == "2026-11-30"
    assert certificate["valid_until"] == "2027-05-30"          # six months from the issue date (art. 211)
    assert certificate["apply_by"] == "2027-04-30"             # a month before expiry (art. 222)
    assert certificate["number"].startswith("SEG-2026-")
    assert body["deficiencies"][0]["due_on"] == "2026-12-14"   # fourteen days from the inspection day
    claims = client.get(f"/api/v1/verify/{certificate['token']}").json["certificate"]
    assert claims["issued_on"] == "2026-11-30"                # the signed token says the same
    pdf = client.get(certificate["pdf_url"], headers=crew["oh"]).data
    assert b"/CreationDate (D:20261130000000-03'00')" in pdf


def test_the_last_evening_of_the_year_numbers_that_year(client, crew, stand_at):
    stand_at(at(date(2026, 12, 31), 22, 30))
    inspection_id = schedule_on(client, crew, date(2026, 12, 31)).json["id"]
    client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"])
    answer_all(client, crew, inspection_id, client.get(f"/api/v1/inspections/{inspection_id}",
                                                       headers=crew["ih"]).json["items"])
    certificate = submit(client, crew, inspection_id).json["certificate"]
    assert certificate["number"].startswith("SEG-2026-") and certificate["issued_on"] == "2026-12-31"


def test_reinspection_is_dated_from_asuncions_day(client, crew, stand_at, db):
    stand_at(LATE_ON_30_NOV)
    inspection_id = schedule_on(client, crew, date(2026, 11, 30)).json["id"]
    client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"])
    items = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json["items"]
    major = next(i for i in items if i["detainable"])
    answer_all(client, crew, inspection_id, items, fail={major["id"]})
    body = submit(client, crew, inspection_id).json
    [deficiency] = db.session.scalars(db.select(Deficiency).filter_by(inspection_id=inspection_id)).all()
    assert deficiency.action == "before_departure" and deficiency.due_on == date(2026, 11, 30)
    follow_up = db.session.get(Inspection, body["reinspection_id"])
    assert follow_up.scheduled_on == date(2026, 11, 30)      # the earliest repair deadline (art. 206)


@pytest.fixture
def issued_on_30_nov(client, crew, stand_at):
    """A seguridad certificate issued on 30 November 2026 in Asunción (valid until 30 May 2027)."""
    stand_at(at(date(2026, 11, 30), 10))
    inspection_id = schedule_on(client, crew, date(2026, 11, 30)).json["id"]
    client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"])
    answer_all(client, crew, inspection_id, client.get(f"/api/v1/inspections/{inspection_id}",
                                                       headers=crew["ih"]).json["items"])
    certificate = submit(client, crew, inspection_id).json["certificate"]
    assert certificate["valid_until"] == "2027-05-30"
    return certificate


@pytest.mark.parametrize("hour, minute", [(22, 30), (23, 59)])
def test_certificate_is_valid_to_the_end_of_its_last_day_in_asuncion(client, crew, stand_at, issued_on_30_nov,
                                                                      signed_in, hour, minute):
    stand_at(at(date(2027, 5, 30), hour, minute))  # already 31 May in UTC
    token, number = issued_on_30_nov["token"], issued_on_30_nov["number"]
    answer = client.get(f"/api/v1/verify/{token}").json
    assert answer["verdict"] == "valid" and answer["certificate"]["days_left"] == 0
    assert "VÁLIDO" in client.get(f"/v/{token}").get_data(as_text=True)
    assert client.get(f"/api/v1/certificates/{number}", headers=crew["oh"]).json["status"] == "valid"
    assert client.get("/api/v1/certificates", headers=crew["oh"]).json["items"][0]["status"] == "valid"
    owner = signed_in(crew["owner"])
    for page in ("/certificados", f"/certificados/{number}"):
        assert 'class="badge ok">Válido<' in owner.get(page).get_data(as_text=True)


def test_certificate_expires_at_asuncions_midnight(client, crew, stand_at, issued_on_30_nov):
    stand_at(at(date(2027, 5, 31), 0, 1))
    token = issued_on_30_nov["token"]
    assert client.get(f"/api/v1/verify/{token}").json["verdict"] == "expired"
    assert "VENCIDO" in client.get(f"/v/{token}").get_data(as_text=True)


# --- pages and commands ------------------------------------------------------------------------------

def test_the_schedule_form_offers_asuncions_today_at_2230(crew, signed_in, stand_at):
    stand_at(LATE_ON_30_NOV)
    browser = signed_in(crew["inspector"])
    assert 'value="2026-11-30"' in browser.get("/inspecciones").get_data(as_text=True)
    form = {"vessel_id": crew["vessel"].id, "kind": "seguridad", "inspector_id": crew["inspector"].id,
            "scheduled_on": "2026-11-30", "port": "Asunción"}
    assert browser.post("/inspecciones", data=form).status_code == 302


def test_the_report_shows_times_on_asuncions_clock(client, crew, started, stand_at, signed_in):
    stand_at(LATE_ON_30_NOV)
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    assert submit(client, crew, inspection_id).status_code == 200
    browser = signed_in(crew["owner"])
    page = browser.get(f"/inspecciones/{inspection_id}/informe").get_data(as_text=True)
    assert "Cerrada el 30 nov. 2026, 22:30 (hora de Asunción)" in page
    assert "UTC" not in page
    english = browser.get(f"/inspecciones/{inspection_id}/informe?lang=en").get_data(as_text=True)
    assert "Nov 30, 2026, 22:30 (Asunción time)" in english


def test_the_demo_command_dates_its_records_in_asuncion(tmp_path, set_clock):
    set_clock(LATE_ON_30_NOV)
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/d.sqlite", "SECRET_KEY": "x",
                      "PASSWORD_METHOD": "pbkdf2:sha256:1000", "KEYS_DIR": str(tmp_path / "keys"),
                      "MEDIA_DIR": str(tmp_path / "media")})
    with app.app_context():
        db.create_all()
        assert app.test_cli_runner().invoke(args=["demo"]).exit_code == 0
        issued = {c.issued_on for c in db.session.scalars(db.select(Certificate))}
        # today's inspections, and those of 60 to 340 days before, all counted from Asunción's 30 November
        assert issued == {date(2026, 11, 30) - timedelta(days=d) for d in (0, 60, 100, 170, 200, 340)}
        agenda = db.session.scalars(db.select(Inspection).filter_by(status="scheduled")).all()
        assert sorted(i.scheduled_on for i in agenda) == [date(2026, 11, 30), date(2026, 12, 5)]
        db.session.remove()
        db.engine.dispose()


# --- the term runs from the inspection, not the issue (art. 207) -----------------------------------

def close_offline(client, crew, stand_at, kind, **fields):
    """An inspection of `kind` performed on 30 November, closed on the tablet at 23:50 and synced on 1 December."""
    stand_at(at(date(2026, 11, 30), 14))
    body = {"vessel_id": crew["vessel"].id, "kind": kind, "inspector_id": crew["inspector"].id,
            "scheduled_on": "2026-11-30", "port": "Asunción"}
    inspection_id = client.post("/api/v1/inspections", json=body, headers=crew["admin"]).json["id"]
    assert client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"]).status_code == 200
    answer_all(client, crew, inspection_id, client.get(f"/api/v1/inspections/{inspection_id}",
                                                       headers=crew["ih"]).json["items"])
    closed = at(date(2026, 11, 30), 23, 50)
    stand_at(at(date(2026, 12, 1), 8))
    return submit(client, crew, inspection_id, submitted_at=closed.isoformat(), **fields)


@pytest.mark.parametrize("kind, valid_until", [
    ("navegabilidad", "2027-11-30"),   # the Prefectura's year from the inspection, not to 1 December
    ("seguridad", "2027-05-30"),       # six months from the inspection (arts. 207, 211)
])
def test_a_certificate_synced_the_next_day_runs_from_the_inspection(client, crew, stand_at, kind, valid_until):
    response = close_offline(client, crew, stand_at, kind)
    assert response.status_code == 200, response.json
    certificate = response.json["certificate"]
    assert certificate["issued_on"] == "2026-12-01"            # the office issues it when it arrives
    assert certificate["inspected_on"] == "2026-11-30"         # the tablet's 23:50 in Asunción
    assert certificate["valid_until"] == valid_until
    claims = client.get(f"/api/v1/verify/{certificate['token']}").json["certificate"]
    assert claims["valid_until"] == valid_until                 # the signed token says the same


@pytest.mark.parametrize("kind, valid_until, apply_by", [
    ("navegabilidad", "2027-03-01", "2027-02-01"),  # repairs due before the year, art. 203
    ("seguridad", "2027-03-01", "2027-02-01"),      # "o antes, si a juicio fuere necesario", art. 211
])
def test_an_inspector_may_fix_an_earlier_date(client, crew, stand_at, kind, valid_until, apply_by):
    certificate = close_offline(client, crew, stand_at, kind, valid_until=valid_until).json["certificate"]
    assert (certificate["valid_until"], certificate["apply_by"]) == (valid_until, apply_by)  # art. 222's month


@pytest.mark.parametrize("kind, valid_until, message", [
    ("navegabilidad", "2027-12-01", "El término no puede pasar del 2027-11-30, 12 meses desde la inspección: "
                                    "el inspector puede fijar una fecha anterior, no posterior (art. 203)."),
    ("seguridad", "2027-05-31", "El término no puede pasar del 2027-05-30, 6 meses desde la inspección: "
                                "el inspector puede fijar una fecha anterior, no posterior (art. 211)."),
    ("seguridad", "2026-12-20", "Con vencimiento el 2026-12-20, la solicitud de la próxima inspección vencería el "
                                "2026-11-20, antes de la expedición del 2026-12-01 (art. 222: un mes antes del "
                                "vencimiento); elija una fecha posterior."),
])
def test_a_date_past_the_term_is_refused_in_spanish(client, crew, stand_at, kind, valid_until, message):
    response = close_offline(client, crew, stand_at, kind, valid_until=valid_until)
    assert response.status_code == 422
    assert response.json["errors"]["valid_until"] == [message]


def test_the_certificate_says_the_year_is_practice_not_law(client, crew, stand_at, signed_in):
    import pypdfium2

    certificate = close_offline(client, crew, stand_at, "navegabilidad").json["certificate"]
    browser = signed_in(crew["owner"])
    page = browser.get(f"/certificados/{certificate['number']}").get_data(as_text=True)
    assert "El término ordinario de 12 meses es práctica de la Prefectura, no un plazo de la ley" in page
    assert "30 de noviembre de 2026" in page and "(art. 207)" in page
    english = browser.get(f"/certificados/{certificate['number']}?lang=en").get_data(as_text=True)
    assert "practice, not a term set by law (arts. 201 and 203)" in english
    pdf = pypdfium2.PdfDocument(client.get(certificate["pdf_url"], headers=crew["oh"]).data)
    text = " ".join(pdf[0].get_textpage().get_text_range().split())
    assert "El término ordinario de un año es práctica de la Prefectura General de Puertos, no un plazo de la ley" in text
    assert "corre desde la inspección del 30 de noviembre de 2026 (art. 207)" in text
