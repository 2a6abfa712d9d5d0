"""Notices in the app: each user's own list (/avisos), the unread count in the header, marking read."""
from datetime import date, datetime, timezone

import pytest

from inspection.core.extensions import db
from inspection.core.models import Notice
from inspection.notices.notices import Draft, record_notices, render, unread_count
from tests.conftest import PASSWORD

TODAY = date(2027, 3, 31)
NOW = datetime(2027, 3, 31, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def noticed(make_user, make_vessel):
    """notice(user, n): record n in-app notices (assignments) for the user."""

    def notice(user, n=1, vessel=None):
        vessel = vessel or make_vessel()
        drafts = [Draft(user.id, "assignment", 1000 + i, TODAY, vessel.id, {
            "vessel": vessel.name, "registration": vessel.registration, "kind": "seguridad",
            "scheduled_on": "2027-04-05", "port": f"Puerto {i}"}) for i in range(n)]
        record_notices(drafts, {}, TODAY, NOW)
        db.session.commit()
        return vessel

    return notice


def sign_in(client, user):
    assert client.post("/login", data={"username": user.username, "password": PASSWORD}).status_code == 302


@pytest.mark.parametrize("kind, params, lang, subject", [
    ("apply_by_7", {"vessel": "Río Apa", "kind": "seguridad", "days": 7}, "es",
     "Río Apa: quedan 7 días para solicitar la inspección de seguridad"),
    ("apply_by_30", {"vessel": "Río Apa", "kind": "navegabilidad", "days": 30}, "en",
     "Río Apa: 30 days left to apply for the navigability inspection"),
    ("apply_by_7", {"vessel": "Río Apa", "kind": "seguridad", "days": 1}, "es",
     "Río Apa: queda 1 día para solicitar la inspección de seguridad"),
    ("apply_by_7", {"vessel": "Río Apa", "kind": "seguridad", "days": 1}, "en",
     "Río Apa: 1 day left to apply for the safety inspection"),
    ("apply_by_7", {"vessel": "Río Apa", "kind": "seguridad", "days": 0}, "es",
     "Río Apa: hoy es el último día para solicitar la inspección de seguridad"),
    ("apply_by_7", {"vessel": "Río Apa", "kind": "seguridad", "days": 0}, "en",
     "Río Apa: today is the last day to apply for the safety inspection"),
    ("deficiency_due", {"vessel": "Río Apa", "due_on": "2027-01-10"}, "es", "Río Apa: una deficiencia vence el "
                                                                           "10 de enero de 2027"),
    ("fine", {"vessel": "Río Apa", "kind": "seguridad"}, "en",
     "Río Apa: fine for not applying in time for the safety inspection"),
])
def test_a_notice_reads_in_its_readers_language(kind, params, lang, subject):
    assert render(kind, {**params, "registration": "PY-1", "number": "S-1", "valid_until_on": "2027-05-30",
                         "apply_by_on": "2027-04-30", "articles": "seguridad", "description": "x", "source": "Ley",
                         "article": "225", "amount": "1000", "reason": "x"}, lang)[0] == subject


@pytest.mark.parametrize(("lang", "amount"), [("es", "una multa de $\xa01.000,00 (Ley 928"),
                                             ("en", "fined $1,000.00 (Ley 928")])
def test_a_fine_reads_as_the_locale_writes_money(lang, amount):
    body = render("fine", {"vessel": "Río Apa", "registration": "PY-1", "kind": "seguridad", "amount": "1000",
                           "source": "Ley 928", "article": "225", "reason": "Sin solicitud."}, lang)[1]
    assert amount in body


def test_each_user_sees_only_their_own_notices_and_the_unread_count(client, make_user, noticed):
    mine, theirs = make_user("inspector"), make_user("inspector")
    noticed(mine, 2)
    other_vessel = noticed(theirs, 1)
    sign_in(client, mine)
    page = client.get("/avisos").get_data(as_text=True)
    assert page.count("Nueva inspección asignada") == 2 and other_vessel.name not in page
    assert 'aria-label="2 sin leer">2</span>' in page  # the header's count, on every page
    assert 'aria-label="2 sin leer">2</span>' in client.get("/cuenta").get_data(as_text=True)

    first, second = db.session.scalars(db.select(Notice.id).filter_by(user_id=mine.id).order_by(Notice.id)).all()
    assert client.post(f"/avisos/{first}/leido").status_code == 302
    assert unread_count(mine) == 1
    assert client.post(f"/avisos/{first}/leido").status_code == 302  # already read: fine
    stranger = db.session.scalar(db.select(Notice.id).filter_by(user_id=theirs.id))
    assert client.post(f"/avisos/{stranger}/leido").status_code == 404
    assert unread_count(theirs) == 1
    assert client.post("/avisos/leidos").status_code == 302
    assert unread_count(mine) == 0
    assert "sin leer" not in client.get("/avisos").get_data(as_text=True)


def test_the_page_reads_english_for_an_english_user(client, make_user, noticed):
    user = make_user("inspector", language="en")
    vessel = noticed(user)
    sign_in(client, user)
    page = client.get("/avisos?lang=en").get_data(as_text=True)
    assert f"New inspection assigned: {vessel.name}, April 5, 2027" in page


def test_the_notices_page_takes_the_same_queries_for_2_and_20_notices(client, make_user, noticed, count_queries):
    counts = {}
    for n in (2, 20):
        user = make_user("inspector")
        noticed(user, n)
        sign_in(client, user)
        client.get("/avisos")  # warm: the session's first touch
        counts[n] = count_queries(lambda: client.get("/avisos"))
    assert counts[2] == counts[20]
