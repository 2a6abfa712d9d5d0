"""The notices' and calendar's acts from the pages: each says what it did, once, in the reader's language;
renewing the calendar address asks first (the old address stops working)."""
from datetime import date, datetime, timezone

from flask import current_app

from inspection.accounts.feeds import feed_url
from inspection.core.extensions import db
from inspection.core.models import Notice
from inspection.notices.notices import Draft, record_notices
from tests.fixtures.pages import asked, reported

TODAY = date(2027, 3, 31)
NOW = datetime(2027, 3, 31, 12, 0, tzinfo=timezone.utc)


def _notices(user, vessel, n):
    drafts = [Draft(user.id, "assignment", 2000 + i, TODAY, vessel.id, {
        "vessel": vessel.name, "registration": vessel.registration, "kind": "seguridad",
        "scheduled_on": "2027-04-05", "port": f"Puerto {i}"}) for i in range(n)]
    record_notices(drafts, {}, TODAY, NOW)
    db.session.commit()
    return db.session.scalars(db.select(Notice.id).filter_by(user_id=user.id).order_by(Notice.id)).all()


def test_marking_read_says_so_once_in_the_readers_language(make_user, make_vessel, login_as):
    user = make_user("inspector")
    first, *_ = _notices(user, make_vessel(), 3)
    client = login_as(user)
    reported(client, client.post(f"/avisos/{first}/leido"), "Aviso marcado como leído.")
    reported(client, client.post("/avisos/leidos"), "Avisos marcados como leídos: 2.")
    client.get("/avisos?lang=en")
    reported(client, client.post(f"/avisos/{first}/leido"), "Notice marked as read.")
    reported(client, client.post("/avisos/leidos"), "Notices marked as read: 0.")


def test_renewing_the_calendar_address_asks_first_then_says_so(make_user, login_as):
    user = make_user("owner")
    client = login_as(user)
    config = current_app.config
    old = feed_url(user, config["SECRET_KEY"], config["PUBLIC_URL"])
    page = asked(client.post("/cuenta/calendario/renovar"), "¿Renovar la dirección de su calendario?")
    assert "dejará de funcionar" in page
    assert old in client.get("/cuenta").get_data(as_text=True)  # nothing changed until confirmed
    shown = reported(client, client.post("/cuenta/calendario/renovar", data={"confirmed": "1"}),
                     "Dirección renovada: la anterior ya no funciona. Suscríbase de nuevo con esta.")
    assert old not in shown
    client.get("/cuenta?lang=en")
    asked(client.post("/cuenta/calendario/renovar"), "Renew your calendar address?")
    reported(client, client.post("/cuenta/calendario/renovar", data={"confirmed": "1"}),
             "Address renewed: the previous one no longer works. Subscribe again with this one.")
