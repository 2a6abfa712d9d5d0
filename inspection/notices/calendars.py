"""Private iCalendar feeds (RFC 5545): an owner's due dates and inspections, an inspector's assignments.

A phone subscribes without cookies, so the feed's URL is its own key: /calendario/<user id>/<secret>.ics
where the secret is HMAC-SHA256(SECRET_KEY, user id and the user's nonce). The database keeps only the
nonce, so a copy of the users table opens no feed; the secret is compared in constant time; renewing
draws a new nonce and the old URL stops working at once (rotating SECRET_KEY renews every feed).

Calendars poll the feed: its ETag is a digest of every value the body is made of (feed_fingerprint), so
an unchanged feed answers 304 to a conditional GET and its serialized body is reused from the process's
cache (readcache) instead of being built again; any change to what it shows changes the digest.

Every event links back to the page where it is acted on (URL, and the link in the description for
calendars that hide URL), and rings: the day before and on the day, at ALARM_HOUR; an art. 222 date
also a week before, the time an owner needs to prepare an application.
"""
import hashlib
from datetime import date, datetime, timedelta
from urllib.parse import urlsplit

from icalendar import Alarm, Calendar, Event

from inspection.accounts.access import vessel_scope
from inspection.core.extensions import db
from inspection.core.models import OPEN_INSPECTIONS, Certificate, Deficiency, Inspection, User, Vessel
from inspection.i18n.messages import N_, translate
from inspection.law.cycle import add_months, apply_by
from inspection.notices.notices import ARTICLES, KIND_NAMES, capitalized

HORIZON_BACK_MONTHS, HORIZON_AHEAD_MONTHS = 12, 24  # the feed's window (not a legal term): see feed_horizon
APPLY_BY_SLACK_DAYS = 366  # certificates read past the window: their art. 222 day may still fall inside it
SUMMARIES = {
    "apply_by": N_("Solicitar inspección de {kind}: {vessel}"),
    "valid_until": N_("Vence el certificado de {kind}: {vessel}"),
    "deficiency": N_("Plazo de deficiencia (art. {article}): {vessel}"),
    "inspection": N_("Inspección de {kind}: {vessel} en {port}"),
}
# When an all-day event rings (before its day's midnight, local): the day before and the day at 09:00,
# and the art. 222 date a week before too. A reminder service, not a legal term.
ALARM_HOUR = 9
ALARMS = {"apply_by": (7, 1, 0)}
DEFAULT_ALARMS = (1, 0)  # days before
SEE_IN_APP = N_("Ver en Baliza: {url}")
DESCRIPTIONS = {
    "apply_by": N_("Último día para solicitar la inspección sin multa ({articles}). Certificado N.º {number}."),
    "valid_until": N_("Último día de validez del certificado N.º {number}."),
    "inspection": N_("Inspección programada en {port}."),
}










def _label(kind: str, lang: str) -> str:
    return translate(KIND_NAMES.get(kind, kind), lang).lower()


def feed_horizon(today: date) -> tuple[date, date]:
    """The days a feed covers: from a year back to two years ahead (older deadlines are on the pages, not phones)."""
    return add_months(today, -HORIZON_BACK_MONTHS), add_months(today, HORIZON_AHEAD_MONTHS)


def feed_rows(user: User, today: date) -> dict[str, list[tuple]]:
    """Every value the feed shows, as plain rows per source (three queries for an owner, one for an inspector).

    Certificates are read a little past the horizon (their art. 222 date falls before their expiry) and
    their events cut to it in feed_events.
    """
    since, until = feed_horizon(today)
    rows = {"certificates": [], "deficiencies": []}
    if user.role == "owner":
        fleet = vessel_scope(db.select(Vessel.id), user)
        rows["certificates"] = db.session.execute(
            db.select(Certificate.id, Certificate.kind, Certificate.valid_until, Certificate.number, Vessel.name,
                      Vessel.id)
            .join(Vessel, Vessel.id == Certificate.vessel_id)
            .where(Certificate.vessel_id.in_(fleet), Certificate.superseded_by_id.is_(None),
                   Certificate.revoked_at.is_(None), Certificate.valid_until >= since,
                   Certificate.valid_until <= until + timedelta(days=APPLY_BY_SLACK_DAYS))
            .order_by(Certificate.id)).all()
        rows["deficiencies"] = db.session.execute(
            db.select(Deficiency.id, Deficiency.due_on, Deficiency.article, Deficiency.description, Vessel.name,
                      Vessel.id)
            .join(Vessel, Vessel.id == Deficiency.vessel_id)
            .where(Deficiency.vessel_id.in_(fleet), Deficiency.status != "closed",
                   Deficiency.due_on.between(since, until))
            .order_by(Deficiency.id)).all()
        inspections = Inspection.vessel_id.in_(fleet)
    else:
        inspections = Inspection.inspector_id == user.id
    rows["inspections"] = db.session.execute(
        db.select(Inspection.id, Inspection.kind, Inspection.scheduled_on, Inspection.port, Vessel.name)
        .join(Vessel, Vessel.id == Inspection.vessel_id)
        .where(inspections, Inspection.status.in_(OPEN_INSPECTIONS), Inspection.scheduled_on.between(since, until))
        .order_by(Inspection.id)).all()
    return {source: [tuple(row) for row in found] for source, found in rows.items()}


def feed_fingerprint(user: User, rows: dict, lang: str, public_url: str, today: date) -> str:
    """A digest of everything the feed's body is made of: equal digests, equal events (the feed's ETag)."""
    parts = repr((sorted(rows.items()), lang, user.full_name, user.username, public_url, feed_horizon(today)))
    return hashlib.sha256(parts.encode()).hexdigest()[:32]


def feed_events(user: User, lang: str, today: date, rows: dict | None = None) -> list[dict]:
    """The feed's events as values: uid, day, what, its text and the app's page for it, within feed_horizon."""
    rows = feed_rows(user, today) if rows is None else rows
    since, until = feed_horizon(today)
    events = []
    for cid, kind, valid_until, number, vessel, vessel_id in rows["certificates"]:
        values = {"kind": _label(kind, lang), "vessel": vessel, "number": number,
                  "articles": translate(ARTICLES[kind], lang)}
        events.append(_event(f"certificate-{cid}-apply-by", apply_by(valid_until, kind), "apply_by", values, lang,
                             f"/solicitudes/nueva?vessel_id={vessel_id}&kind={kind}"))
        events.append(_event(f"certificate-{cid}-valid-until", valid_until, "valid_until", values, lang,
                             f"/certificados/{number}"))
    for did, due_on, article, description, vessel, vessel_id in rows["deficiencies"]:
        values = {"article": article, "vessel": vessel, "description": description}
        events.append(_event(f"deficiency-{did}-due", due_on, "deficiency", values, lang, f"/buques/{vessel_id}"))
    for iid, kind, scheduled_on, port, vessel in rows["inspections"]:
        values = {"kind": _label(kind, lang), "vessel": vessel, "port": port}
        events.append(_event(f"inspection-{iid}", scheduled_on, "inspection", values, lang, f"/inspecciones/{iid}"))
    return [event for event in events if since <= event["day"] <= until]


def _event(uid: str, day: date, what: str, values: dict, lang: str, path: str) -> dict:
    return {"uid": uid, "day": day, "what": what, "path": path,
            "summary": capitalized(translate(SUMMARIES[what], lang).format(**values)),
            "description": translate(DESCRIPTIONS[what], lang).format(**values) if what in DESCRIPTIONS
            else values["description"]}  # a deficiency's own words, as the inspector wrote them


def alarm_triggers(what: str) -> list[timedelta]:
    """When an all-day event of `what` rings, relative to its day's start: ALARM_HOUR on each day of ALARMS."""
    return [timedelta(days=-days, hours=ALARM_HOUR) for days in ALARMS.get(what, DEFAULT_ALARMS)]


def feed_ics(user: User, lang: str, public_url: str, now: datetime, today: date, rows: dict | None = None) -> bytes:
    """The user's feed as an RFC 5545 calendar: all-day events with stable UIDs and DTSTAMP `now`."""
    host = urlsplit(public_url).hostname or "baliza"
    calendar = Calendar()
    calendar.add("prodid", "-//Baliza//Prefectura//ES")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("x-wr-calname", f"Baliza · {user.full_name or user.username}")
    for item in feed_events(user, lang, today, rows):
        event = Event()
        event.add("uid", f"{item['uid']}@{host}")
        event.add("dtstamp", now)
        event.add("dtstart", item["day"])  # a date: an all-day event (VALUE=DATE)
        event.add("dtend", item["day"] + timedelta(days=1))
        event.add("summary", item["summary"])
        url = public_url + item["path"]
        event.add("description", f"{item['description']}\n\n{translate(SEE_IN_APP, lang).format(url=url)}")
        event.add("url", url)
        event.add("transp", "TRANSPARENT")  # a deadline does not make anyone busy
        for trigger in alarm_triggers(item["what"]):
            alarm = Alarm()
            alarm.add("action", "DISPLAY")
            alarm.add("trigger", trigger)  # relative to DTSTART: the day's start, local to the phone
            alarm.add("description", item["summary"])
            event.add_component(alarm)
        calendar.add_component(event)
    return calendar.to_ical()
