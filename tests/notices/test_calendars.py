"""Private iCalendar feeds (RFC 5545), parsed back with the icalendar library: what each user sees, renewal."""
from datetime import date, timedelta

import pytest
from icalendar import Calendar

from inspection.accounts.feeds import feed_secret, feed_url, renew_feed
from inspection.core.extensions import db
from inspection.core.models import Certificate, Deficiency, User
from inspection.inspections.operations import schedule_inspection
from inspection.registry.vessels import create_vessel
from tests.fleets import NOW, PARTICULARS, PASSWORD, TODAY

SECRET = "test-secret"  # conftest's SECRET_KEY


def another_vessel(seeded):
    """A second vessel of the owner user's fleet: the first already has an open inspection of each kind."""
    return create_vessel({**PARTICULARS, "registration": "PY-9100", "name": "Buque own II",
                          "owner_id": seeded["fleets"]["own"]["owner_id"]})


def fetch(client, url: str):
    return client.get(url.removeprefix("https://baliza.test"))


def events_of(response) -> dict:
    assert response.status_code == 200 and response.mimetype == "text/calendar"
    calendar = Calendar.from_ical(response.data)
    assert (str(calendar["version"]), str(calendar["prodid"])) == ("2.0", "-//Baliza//Prefectura//ES")
    return {str(event["uid"]): event for event in calendar.walk("VEVENT")}


def test_an_owner_sees_the_due_dates_and_inspections_of_their_own_fleet_only(client, seeded):
    owner, own, other = seeded["users"]["owner"], seeded["fleets"]["own"], seeded["fleets"]["other"]
    events = events_of(fetch(client, feed_url(owner, SECRET, "https://baliza.test")))
    certificate = db.session.scalar(db.select(Certificate).filter_by(number=own["number"]))
    deficiency = db.session.get(Deficiency, own["deficiency_id"])
    expected = {f"certificate-{certificate.id}-apply-by@baliza.test", f"certificate-{certificate.id}-valid-until@baliza.test",
                f"deficiency-{deficiency.id}-due@baliza.test", f"inspection-{own['scheduled_id']}@baliza.test",
                f"inspection-{own['inspection_id']}@baliza.test"}
    assert set(events) == expected  # nothing of the other fleet
    until = events[f"certificate-{certificate.id}-valid-until@baliza.test"]
    assert until.decoded("dtstart") == certificate.valid_until and until.decoded("dtend") == certificate.valid_until + timedelta(1)
    assert type(until.decoded("dtstart")) is date  # all-day: VALUE=DATE
    assert until.decoded("dtstamp").tzinfo is not None
    assert str(until["summary"]) == "Vence el certificado de seguridad: Buque own"
    apply_by = events[f"certificate-{certificate.id}-apply-by@baliza.test"]
    assert str(apply_by["summary"]) == "Solicitar inspección de seguridad: Buque own"
    assert "Ley 928, arts. 222 y 225" in str(apply_by["description"])
    assert events[f"deficiency-{deficiency.id}-due@baliza.test"].decoded("dtstart") == deficiency.due_on
    assert str(events[f"inspection-{own['scheduled_id']}@baliza.test"]["summary"]) == \
        "Inspección de seguridad: Buque own en Asunción"
    assert not {f"deficiency-{other['deficiency_id']}-due@baliza.test",
                f"inspection-{other['scheduled_id']}@baliza.test"} & set(events)
    again = events_of(fetch(client, feed_url(owner, SECRET, "https://baliza.test")))
    assert set(again) == set(events)  # stable UIDs: a phone updates events, never duplicates them


def test_an_inspector_sees_their_own_inspections_in_their_language(client, seeded, make_user):
    inspector, own = seeded["users"]["inspector"], seeded["fleets"]["own"]
    other_inspector = make_user("inspector", language="en")
    mine = schedule_inspection(seeded["users"]["admin"], another_vessel(seeded), "navegabilidad",
                               other_inspector, TODAY + timedelta(days=5), "Pilar", TODAY)
    db.session.commit()
    events = events_of(fetch(client, feed_url(other_inspector, SECRET, "https://baliza.test")))
    assert list(events) == [f"inspection-{mine.id}@baliza.test"]
    assert str(events[f"inspection-{mine.id}@baliza.test"]["summary"]) == \
        "Navigability inspection: Buque own II in Pilar"
    theirs = events_of(fetch(client, feed_url(inspector, SECRET, "https://baliza.test")))
    assert f"inspection-{mine.id}@baliza.test" not in theirs
    assert f"inspection-{own['scheduled_id']}@baliza.test" in theirs


def test_renewing_the_url_refuses_the_old_one_at_once(client, seeded):
    owner = seeded["users"]["owner"]
    old = feed_url(owner, SECRET, "https://baliza.test")
    assert fetch(client, old).status_code == 200
    renew_feed(owner, NOW)
    db.session.commit()
    new = feed_url(owner, SECRET, "https://baliza.test")
    assert new != old
    assert fetch(client, old).status_code == 404
    assert fetch(client, new).status_code == 200


@pytest.mark.parametrize("change", ["wrong secret", "another user's id", "disabled", "police"])
def test_a_feed_url_opens_only_its_own_active_users_calendar(client, seeded, change):
    owner, police = seeded["users"]["owner"], seeded["users"]["police"]
    url = f"/calendario/{owner.id}/{feed_secret(owner, SECRET)}.ics"
    if change == "wrong secret":
        url = url.replace(".ics", "x.ics")
    elif change == "another user's id":
        url = url.replace(f"/{owner.id}/", f"/{seeded['users']['inspector'].id}/")
    elif change == "disabled":
        owner.active = False
        db.session.commit()
    else:
        url = f"/calendario/{police.id}/{feed_secret(police, SECRET)}.ics"
    assert client.get(url).status_code == 404


def test_the_api_gives_the_callers_url_and_the_account_page_renews_it(client, seeded, token_for):
    owner = seeded["users"]["owner"]
    response = client.get("/api/v1/calendar", headers=token_for(owner))
    assert response.status_code == 200
    assert response.json == {"url": feed_url(owner, SECRET, "https://baliza.test")}
    assert client.post("/login", data={"username": owner.username, "password": PASSWORD}).status_code == 302
    page = client.get("/cuenta")
    assert response.json["url"] in page.get_data(as_text=True)
    renewed = client.post("/cuenta/calendario/renovar", data={"confirmed": "1"})  # asked first: tests/notices/test_views.py
    assert renewed.status_code == 302 and renewed.headers["Location"].endswith("/cuenta#calendario")
    new = client.get("/api/v1/calendar", headers=token_for(owner)).json["url"]
    assert new != response.json["url"] and new in client.get("/cuenta").get_data(as_text=True)
    assert fetch(client, response.json["url"]).status_code == 404
    assert db.session.get(User, owner.id).calendar_renewed_at is not None


@pytest.mark.parametrize("role, status", [("admin", 403), ("police", 403), ("inspector", 200), ("owner", 200)])
def test_the_calendar_api_is_for_owners_and_inspectors(client, seeded, token_for, role, status):
    assert client.get("/api/v1/calendar", headers=token_for(seeded["users"][role])).status_code == status


def _rename(seeded):
    from inspection.core.models import Vessel
    from inspection.registry.vessels import update_vessel
    update_vessel(db.session.get(Vessel, seeded["fleets"]["own"]["vessel_id"]), {"name": "Buque renombrado"})


def _close_deficiency(seeded):
    db.session.get(Deficiency, seeded["fleets"]["own"]["deficiency_id"]).status = "closed"


def _schedule(seeded):
    schedule_inspection(seeded["users"]["admin"], another_vessel(seeded), "navegabilidad", seeded["users"]["inspector"],
                        TODAY + timedelta(days=9), "Pilar", TODAY)


def _english(seeded):
    seeded["users"]["owner"].language = "en"


def _revoke(seeded):
    from inspection.certificates.operations import revoke_certificate
    certificate = db.session.scalar(db.select(Certificate).filter_by(number=seeded["fleets"]["own"]["number"]))
    revoke_certificate(seeded["users"]["admin"], certificate, "Error", NOW)


@pytest.mark.parametrize("change", [_rename, _close_deficiency, _schedule, _english, _revoke])
def test_an_unchanged_feed_answers_304_and_a_change_moves_its_body_and_etag(client, seeded, set_clock,
                                                                            count_queries, change):
    set_clock(NOW)
    url = feed_url(seeded["users"]["owner"], SECRET, "https://baliza.test")
    first = fetch(client, url)
    etag = first.headers["ETag"]
    assert etag.startswith('W/"')
    assert fetch(client, url).data == first.data  # the same body, from the cache (same DTSTAMP)
    queries = count_queries(lambda: fetch(client, url))
    unchanged = client.get(url.removeprefix("https://baliza.test"), headers={"If-None-Match": etag})
    assert unchanged.status_code == 304 and unchanged.data == b"" and unchanged.headers["ETag"] == etag
    assert count_queries(lambda: client.get(url.removeprefix("https://baliza.test"),
                                            headers={"If-None-Match": etag})) == queries
    change(seeded)
    db.session.commit()
    changed = client.get(url.removeprefix("https://baliza.test"), headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    before, after = events_of(first), events_of(changed)
    assert {(uid, str(e["summary"]), e.decoded("dtstart")) for uid, e in after.items()} != \
        {(uid, str(e["summary"]), e.decoded("dtstart")) for uid, e in before.items()}


@pytest.mark.parametrize("days, kept", [(0, True), (300, True), (600, False), (-300, True), (-600, False)])
def test_the_feed_covers_a_year_back_to_two_years_ahead(client, seeded, set_clock, days, kept):
    """The certificate's expiry (30 May 2027) is in the feed from two years before it to a year after."""
    set_clock(NOW + timedelta(days=days))
    owner, own = seeded["users"]["owner"], seeded["fleets"]["own"]
    certificate = db.session.scalar(db.select(Certificate).filter_by(number=own["number"]))
    events = events_of(fetch(client, feed_url(owner, SECRET, "https://baliza.test")))
    assert (f"certificate-{certificate.id}-valid-until@baliza.test" in events) is kept


def test_every_event_rings_before_its_day_and_links_back_to_its_page(client, seeded, make_user):
    """Issue 21: the feed had no alarms and no link back to the app."""
    owner, own = seeded["users"]["owner"], seeded["fleets"]["own"]
    events = events_of(fetch(client, feed_url(owner, SECRET, "https://baliza.test")))
    certificate = db.session.scalar(db.select(Certificate).filter_by(number=own["number"]))
    deficiency = db.session.get(Deficiency, own["deficiency_id"])
    apply_by = events[f"certificate-{certificate.id}-apply-by@baliza.test"]
    link = f"https://baliza.test/solicitudes/nueva?vessel_id={certificate.vessel_id}&kind=seguridad"
    assert str(apply_by["url"]) == link and str(apply_by["description"]).endswith(f"Ver en Baliza: {link}")
    triggers = [alarm.decoded("trigger") for alarm in apply_by.walk("VALARM")]
    assert triggers == [timedelta(days=-7, hours=9), timedelta(days=-1, hours=9), timedelta(hours=9)]
    assert {str(alarm["action"]) for alarm in apply_by.walk("VALARM")} == {"DISPLAY"}
    pages = {str(events[uid]["url"]) for uid in (f"certificate-{certificate.id}-valid-until@baliza.test",
                                                   f"deficiency-{deficiency.id}-due@baliza.test",
                                                   f"inspection-{own['scheduled_id']}@baliza.test")}
    assert pages == {f"https://baliza.test/certificados/{certificate.number}",
                     f"https://baliza.test/buques/{deficiency.vessel_id}",
                     f"https://baliza.test/inspecciones/{own['scheduled_id']}"}
    for uid, event in events.items():
        assert [a.decoded("trigger") for a in event.walk("VALARM")][-2:] == [timedelta(days=-1, hours=9),
                                                                             timedelta(hours=9)], uid
    client.post("/login", data={"username": owner.username, "password": PASSWORD})
    for url in pages | {link}:  # each link opens its page for the feed's owner
        assert client.get(url.removeprefix("https://baliza.test")).status_code == 200, url
