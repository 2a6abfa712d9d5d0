"""Private iCalendar feeds (RFC 5545): an owner's due dates and inspections, an inspector's assignments.

A phone subscribes without cookies, so the feed's URL is its own key: /calendario/<user id>/<secret>.ics
where the secret is HMAC-SHA256(SECRET_KEY, user id and the user's nonce). The database keeps only the
nonce, so a copy of the users table opens no feed; the secret is compared in constant time; renewing
draws a new nonce and the old URL stops working at once (rotating SECRET_KEY renews every feed).
"""
import base64
import hashlib
import hmac
import secrets
from datetime import date, datetime, timedelta
from urllib.parse import urlsplit

from icalendar import Calendar, Event

from .access import vessel_scope
from .audit import record_event
from .cycle import apply_by
from .extensions import db
from .messages import N_, translate
from .models import OPEN_INSPECTIONS, Certificate, Deficiency, Inspection, User, Vessel
from .notices import ARTICLES, KIND_NAMES, capitalized

FEED_ROLES = ("owner", "inspector")
SUMMARIES = {
    "apply_by": N_("Solicitar inspección de {kind}: {vessel}"),
    "valid_until": N_("Vence el certificado de {kind}: {vessel}"),
    "deficiency": N_("Plazo de deficiencia (art. {article}): {vessel}"),
    "inspection": N_("Inspección de {kind}: {vessel} en {port}"),
}
DESCRIPTIONS = {
    "apply_by": N_("Último día para solicitar la inspección sin multa ({articles}). Certificado N.º {number}."),
    "valid_until": N_("Último día de validez del certificado N.º {number}."),
    "inspection": N_("Inspección programada en {port}."),
}


def feed_secret(user: User, key: str) -> str:
    """The secret of the user's current feed URL (32 URL-safe characters, 192 bits)."""
    digest = hmac.new(key.encode(), f"baliza-calendar:{user.id}:{user.calendar_nonce or ''}".encode(),
                      hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()


def feed_url(user: User, key: str, public_url: str) -> str:
    """The private .ics URL a phone subscribes to."""
    return f"{public_url}/calendario/{user.id}/{feed_secret(user, key)}.ics"


def feed_user(user_id: int, secret: str, key: str) -> User | None:
    """The active owner or inspector whose feed this secret opens, else None (compared in constant time)."""
    user = db.session.get(User, user_id)
    if user is None or not user.active or user.role not in FEED_ROLES:
        return None
    return user if hmac.compare_digest(feed_secret(user, key).encode(), secret.encode()) else None


def renew_feed(user: User, now: datetime) -> User:
    """Draw a new nonce: the feed gets a new URL and the old one is refused from now on (audited)."""
    user.calendar_nonce, user.calendar_renewed_at = secrets.token_urlsafe(24), now
    record_event(user, "calendar.renewed", "user", user.id, at=now)
    return user


def _label(kind: str, lang: str) -> str:
    return translate(KIND_NAMES.get(kind, kind), lang).lower()


def feed_events(user: User, lang: str) -> list[dict]:
    """The feed's events as values: uid, day, what and its text (three queries for an owner, one for an inspector)."""
    events = []
    if user.role == "owner":
        fleet = vessel_scope(db.select(Vessel.id), user)
        for c, vessel in db.session.execute(
                db.select(Certificate, Vessel).join(Vessel, Vessel.id == Certificate.vessel_id)
                .where(Certificate.vessel_id.in_(fleet), Certificate.superseded_by_id.is_(None),
                       Certificate.revoked_at.is_(None)).order_by(Certificate.id)):
            values = {"kind": _label(c.kind, lang), "vessel": vessel.name, "number": c.number,
                      "articles": translate(ARTICLES[c.kind], lang)}
            events.append(_event(f"certificate-{c.id}-apply-by", apply_by(c.valid_until, c.kind), "apply_by", values, lang))
            events.append(_event(f"certificate-{c.id}-valid-until", c.valid_until, "valid_until", values, lang))
        for d, vessel in db.session.execute(
                db.select(Deficiency, Vessel).join(Vessel, Vessel.id == Deficiency.vessel_id)
                .where(Deficiency.vessel_id.in_(fleet), Deficiency.status != "closed", Deficiency.due_on.is_not(None))
                .order_by(Deficiency.id)):
            values = {"article": d.article, "vessel": vessel.name, "description": d.description}
            events.append(_event(f"deficiency-{d.id}-due", d.due_on, "deficiency", values, lang))
        inspections = db.select(Inspection, Vessel).where(Inspection.vessel_id.in_(fleet))
    else:
        inspections = db.select(Inspection, Vessel).where(Inspection.inspector_id == user.id)
    for inspection, vessel in db.session.execute(
            inspections.join(Vessel, Vessel.id == Inspection.vessel_id)
            .where(Inspection.status.in_(OPEN_INSPECTIONS)).order_by(Inspection.id)):
        values = {"kind": _label(inspection.kind, lang), "vessel": vessel.name, "port": inspection.port}
        events.append(_event(f"inspection-{inspection.id}", inspection.scheduled_on, "inspection", values, lang))
    return events


def _event(uid: str, day: date, what: str, values: dict, lang: str) -> dict:
    return {"uid": uid, "day": day, "what": what,
            "summary": capitalized(translate(SUMMARIES[what], lang).format(**values)),
            "description": translate(DESCRIPTIONS[what], lang).format(**values) if what in DESCRIPTIONS
            else values["description"]}  # a deficiency's own words, as the inspector wrote them


def feed_ics(user: User, lang: str, public_url: str, now: datetime) -> bytes:
    """The user's feed as an RFC 5545 calendar: all-day events with stable UIDs and DTSTAMP `now`."""
    host = urlsplit(public_url).hostname or "baliza"
    calendar = Calendar()
    calendar.add("prodid", "-//Baliza//Prefectura//ES")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("x-wr-calname", f"Baliza · {user.full_name or user.username}")
    for item in feed_events(user, lang):
        event = Event()
        event.add("uid", f"{item['uid']}@{host}")
        event.add("dtstamp", now)
        event.add("dtstart", item["day"])  # a date: an all-day event (VALUE=DATE)
        event.add("dtend", item["day"] + timedelta(days=1))
        event.add("summary", item["summary"])
        event.add("description", item["description"])
        event.add("transp", "TRANSPARENT")  # a deadline does not make anyone busy
        calendar.add_component(event)
    return calendar.to_ical()
