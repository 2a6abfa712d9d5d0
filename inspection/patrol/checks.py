"""Patrol checks as operations: start one (its list pinned), answer its items, file photos, close it.

Values in, values out where it can be: the outcome's rules (`infringements`, `check_outcome`) are pure; the
operations only flush, and the request boundary commits. A phone's retry never makes a second record: the
check is unique per officer and client_id, and an answer per check and item.
"""
from datetime import date, datetime, timedelta

from checklists import load_catalog
from inspection.accounts.access import get_patrol_check_for
from inspection.core.audit import record_event
from inspection.core.client_requests import REUSED_CLIENT_ID
from inspection.core.exceptions import Conflict, Forbidden, Invalid, NotFound
from inspection.core.extensions import db
from inspection.core.models import Certificate, Notice, PatrolAnswer, PatrolCheck, Photo, User, Vessel
from inspection.core.unique import add_unique
from inspection.i18n.messages import Msg
from inspection.inspections.operations import START_AHEAD, check_answer, store_photo
from inspection.media.places import PlaceRules
from inspection.registry.vessel_checklists import bilingual_items, patrol_checklist_for
from inspection.registry.vessels import particulars_of

# A phone's clock may run START_AHEAD ahead of the server's (as the tablet's), and a check may reach the server
# as late as a device session lasts offline (DEVICE_TOKEN_DAYS).
CHECKED_BEHIND = timedelta(days=30)


def craft_particulars(craft: dict) -> dict:
    """The particulars the checklists read for an unregistered craft: the officer's description, and the rest as
    checklists/craft.toml takes such a craft to be (art. 210: under five tons)."""
    return load_catalog().craft.particulars_of(craft["type"], craft["length_m"])


def check_time(checked_at: datetime, now: datetime) -> None:
    """The phone's time of a check, bounded as the tablet's: not ahead of the server, not older than a session."""
    if checked_at > now + START_AHEAD:
        raise Invalid(errors={"checked_at": [Msg("La hora del control es posterior a la hora actual; revise el "
                                                 "reloj del teléfono.")]})
    if checked_at < now - CHECKED_BEHIND:
        raise Invalid(errors={"checked_at": [Msg("La hora del control es de hace más de {days} días; revise el "
                                                 "reloj del teléfono.", days=CHECKED_BEHIND.days)]})


def pin_patrol_items(particulars: dict, kind: str) -> tuple[str, list[dict]]:
    """The list's version and its patrol items for these particulars, in both languages; an exempt list (a
    motor vessel is no small craft, art. 210) cannot be applied."""
    spanish = patrol_checklist_for(particulars, kind, "es")
    if spanish["exempt"]:
        exemption = spanish["exemption"]
        raise Invalid(errors={"checklist": [Msg("Esta lista no se aplica a esta embarcación ({source}, art. "
                                                "{article}): {reason}", source=exemption["source"],
                                                article=exemption["article"], reason=exemption["reason"])]})
    return spanish["version"], bilingual_items(spanish, patrol_checklist_for(particulars, kind, "en"), kind)


def start_check(officer: User, vessel: Vessel | None, data: dict, now: datetime) -> tuple[PatrolCheck, bool]:
    """Record a patrol check (pinned list, place, verdict of a scanned QR); (check, created).

    The same client_id again is the same check (a retry): returned unchanged when the request says the same,
    a 409 when it says something else. Two copies at once race on the unique (officer, client_id).
    """
    if officer.role != "police":
        raise Forbidden(Msg("Solo la policía registra controles de patrulla."))
    client_id = str(data["client_id"])
    craft = data.get("craft")
    particulars = particulars_of(vessel) if vessel is not None else craft_particulars(craft)
    found = _check_by_client_id(officer, client_id)
    if found is not None:
        return _same_check(found, vessel, data), False
    check_time(data["checked_at"], now)
    version, items = pin_patrol_items(particulars, data["checklist"])
    verification = data.get("verification")
    check = PatrolCheck(
        client_id=client_id, officer_id=officer.id, unit=officer.unit, checked_at=data["checked_at"],
        latitude=data.get("latitude"), longitude=data.get("longitude"), place=data.get("place"),
        vessel_id=vessel.id if vessel else None, craft_marks=craft.get("marks") if craft else None,
        craft_type=craft["type"] if craft else None, craft_length_m=craft["length_m"] if craft else None,
        checklist=data["checklist"], checklist_version=version, items=items,
        particulars={"registration": vessel.registration, "name": vessel.name, **particulars} if vessel else particulars,
        verification_token=verification["token"] if verification else None,
        verification_verdict=verification.get("verdict") if verification else None,
        list_age_s=verification.get("list_age_s") if verification else None, created_at=now)
    try:
        add_unique(check, lambda: _Replayed())
    except _Replayed:
        return _same_check(_check_by_client_id(officer, client_id), vessel, data), False
    record_event(officer, "patrol.started", "patrol_check", check.id, client_id=client_id, at=now,
                 details={"checklist": check.checklist, "version": version, "vessel_id": check.vessel_id})
    return check, True


class _Replayed(Exception):
    """A concurrent copy of the same creation committed first."""


def _check_by_client_id(officer: User, client_id: str) -> PatrolCheck | None:
    return db.session.scalar(db.select(PatrolCheck).filter_by(officer_id=officer.id, client_id=client_id))


def _same_check(check: PatrolCheck, vessel: Vessel | None, data: dict) -> PatrolCheck:
    """The stored check if the retry names the same craft, list and time; otherwise the client_id is reused: 409."""
    craft = data.get("craft") or {}
    same = (check.vessel_id == (vessel.id if vessel else None) and check.checklist == data["checklist"]
            and check.checked_at == data["checked_at"] and check.craft_type == craft.get("type")
            and check.craft_marks == craft.get("marks"))
    if not same:
        raise Conflict(REUSED_CLIENT_ID, extra={"client_id": check.client_id, "id": check.id})
    return check


def get_check_for(user: User, check_id: int) -> PatrolCheck:
    """A patrol check the user may see, else 404 (access.patrol_scope says who sees what)."""
    return get_patrol_check_for(user, check_id)


def require_open_own(officer: User, check: PatrolCheck) -> None:
    """Only the officer who started a check writes to it, and only while it is open."""
    if check.officer_id != officer.id:
        raise Forbidden(Msg("Solo el agente que inició el control puede modificarlo."))
    if check.closed_at is not None:
        raise Conflict(Msg("El control ya está cerrado."))


def check_item(check: PatrolCheck, item_id: str) -> dict:
    """One item of the check's pinned list, or 404."""
    for item in check.items:
        if item["id"] == item_id:
            return item
    raise NotFound(Msg("El ítem {item_id} no está en la lista de este control.", item_id=item_id))


def record_patrol_answer(officer: User, check: PatrolCheck, item_id: str, data: dict, now: datetime) -> PatrolAnswer:
    """Store one answer; the newest by the phone's clock stands (an older one arriving late changes nothing)."""
    require_open_own(officer, check)
    item = check_item(check, item_id)
    check_answer(item, data)
    recorded_at = data.get("recorded_at") or now
    answer = db.session.scalar(db.select(PatrolAnswer).filter_by(check_id=check.id, item_id=item_id))
    values = {"client_id": str(data["client_id"]), "result": data["result"], "observed": data.get("observed"),
              "note": (data.get("note") or "").strip(), "recorded_at": recorded_at, "received_at": now}
    if answer is None:
        answer = add_unique(PatrolAnswer(check_id=check.id, item_id=item_id, **values),
                            lambda: Conflict(Msg("Otra respuesta a este ítem llegó a la vez; reintente.")))
    elif answer.recorded_at <= recorded_at:
        for name, value in values.items():
            setattr(answer, name, value)
        db.session.flush()
    return answer


def add_patrol_photo(officer: User, check: PatrolCheck, item_id: str, client_id: str, processed, storage,
                     taken_at, latitude, longitude, now: datetime, accuracy_m=None, rules=PlaceRules(),
                     position_source=None):
    """The officer's photo of an item of an open check, through the inspections' one photo pipeline."""
    check_patrol_photo(officer, check, item_id)
    return store_photo(officer, check, item_id, client_id, processed, storage, taken_at, latitude, longitude, now,
                       accuracy_m, rules, position_source)


def check_patrol_photo(officer: User, check: PatrolCheck, item_id: str) -> None:
    """Refuse a photo add_patrol_photo would refuse, before its bytes travel (a resumable upload asks first)."""
    require_open_own(officer, check)
    check_item(check, item_id)


# --- closing ---------------------------------------------------------------------------------------

def infringements(items: list[dict], answers: dict[str, dict]) -> list[dict]:
    """Each failed item's citation and the fine its law sets (None where it sets none), in the list's order."""
    return [{"item_id": item["id"], "title": item["title"], "title_en": item.get("title_en"),
             "source": item["source"], "article": item["article"], "fine": item.get("fine"),
             "detainable": item["detainable"]}
            for item in items if answers.get(item["id"], {}).get("result") == "fail"]


def check_outcome(outcome: str, found: list[dict], note: str) -> None:
    """Whether the outcome fits the answers: no failure for "sin novedad"; a failure (or a note) for
    "observaciones"; a failed item for "infracción"; a failed item whose law allows detaining for "retención"."""
    if outcome == "sin_novedad" and found:
        raise Invalid(errors={"outcome": [Msg("Hay ítems que fallan: el control no puede cerrarse sin novedad.")]})
    if outcome == "observaciones" and not (found or note):
        raise Invalid(errors={"note": [Msg("Anote la observación, o marque el ítem que falla.")]})
    if outcome == "infraccion" and not found:
        raise Invalid(errors={"outcome": [Msg("Una infracción necesita al menos un ítem que falla, con su artículo.")]})
    if outcome == "retencion" and not any(f["detainable"] for f in found):
        raise Invalid(errors={"outcome": [Msg("La ley permite la retención solo si falla un ítem que la autoriza.")]})


def close_check(officer: User, check: PatrolCheck, outcome: str, note: str, now: datetime, today: date,
                staff: list[User]) -> PatrolCheck:
    """Close the check with its outcome; an infraction keeps each failed item's article and fine; a retention
    tells every member of `staff` at once (a notice, emailed where they have an address)."""
    require_open_own(officer, check)
    answers = {a.item_id: {"result": a.result} for a in check.answers}
    found = infringements(check.items, answers)
    check_outcome(outcome, found, note.strip())
    check.outcome, check.note, check.closed_at = outcome, note.strip(), now
    check.infringements = found if outcome in ("infraccion", "retencion") else []
    db.session.flush()
    if outcome == "retencion":
        _tell_staff(check, staff, now, today)
    record_event(officer, "patrol.closed", "patrol_check", check.id, at=now,
                 details={"outcome": outcome, "articles": [f["article"] for f in check.infringements]})
    return check


def _tell_staff(check: PatrolCheck, staff: list[User], now: datetime, today: date) -> None:
    """One notice per staff member of a retention, dated the office's day of closing (the notice key keeps it once)."""
    craft = check.particulars.get("registration") or check.craft_marks or "—"
    params = {"craft": craft, "name": check.particulars.get("name") or "", "place": check.place or "—",
              "cited": ", ".join(f"{f['source']} art. {f['article']}" for f in check.infringements if f["detainable"]),
              "officer": check.officer.full_name or check.officer.username}
    for user in staff:
        db.session.add(Notice(user_id=user.id, kind="patrol_retention", subject_id=check.id, due_on=today,
                              vessel_id=check.vessel_id, params=params, created_on=today, created_at=now,
                              email_to=user.email))
    db.session.flush()


def staff_to_tell() -> list[User]:
    """The active admins: the Prefectura's staff who hear of a retention."""
    return list(db.session.scalars(db.select(User).where(User.role == "admin", User.active.is_(True))))


# --- reading ---------------------------------------------------------------------------------------

def vessel_of_token(token: str) -> int | None:
    """The registered vessel a scanned certificate token names (a genuine token of ours on record), else None."""
    from inspection.certificates.keys import verify_cached
    from inspection.certificates.signing import MalformedToken

    try:
        result = verify_cached(token)
    except MalformedToken:
        result = None
    if result is None or result.outcome == "malformed" or not result.signed:
        return None
    return db.session.scalar(db.select(Certificate.vessel_id).where(Certificate.number == result.claims.number))


def filter_checks(query, args: dict):
    """PatrolCheckQuery's filters: a vessel, an outcome, registered or not."""
    if args.get("vessel_id") is not None:
        query = query.where(PatrolCheck.vessel_id == args["vessel_id"])
    if args.get("outcome") is not None:
        query = query.where(PatrolCheck.outcome == args["outcome"])
    if args.get("unregistered") is not None:
        query = query.where(PatrolCheck.vessel_id.is_(None) if args["unregistered"] else PatrolCheck.vessel_id.is_not(None))
    return query


def photos_of(check_ids: list[int]) -> dict[int, list[Photo]]:
    """Each check's photos, in one query."""
    found: dict[int, list[Photo]] = {check_id: [] for check_id in check_ids}
    if check_ids:
        for photo in db.session.scalars(db.select(Photo).where(Photo.patrol_check_id.in_(check_ids)).order_by(Photo.id)):
            found[photo.patrol_check_id].append(photo)
    return found


def localized_infringements(found: list[dict], lang: str) -> list[dict]:
    """A closed check's infringements with the items' titles in `lang` (both languages were pinned)."""
    return [{**f, "title": f.get("title_en") or f["title"]} if lang == "en" else f for f in found]


def check_view(check: PatrolCheck, photos: list[Photo], lang: str = "es") -> dict:
    """A check as PatrolCheckSchema serves it, its items and infringements in `lang`."""
    english = lang == "en"
    items = [{**item, "title": item.get("title_en") or item["title"], "unit": item.get("unit_en"),
              "topic_title": item.get("topic_title_en") or item["topic_title"]} if english else item
             for item in check.items]
    found = localized_infringements(check.infringements or [], lang)
    craft = None if check.craft_type is None else {
        "marks": check.craft_marks, "type": check.craft_type, "length_m": float(check.craft_length_m)}
    verification = None if check.verification_token is None else {
        "token": check.verification_token, "verdict": check.verification_verdict, "list_age_s": check.list_age_s}
    return {"id": check.id, "client_id": check.client_id, "officer_id": check.officer_id, "unit": check.unit,
            "checked_at": check.checked_at, "latitude": check.latitude, "longitude": check.longitude,
            "place": check.place, "vessel_id": check.vessel_id, "registration": check.particulars.get("registration"),
            "craft": craft, "checklist": check.checklist, "checklist_version": check.checklist_version,
            "verification": verification, "items": items, "answers": check.answers, "photos": photos,
            "outcome": check.outcome, "infringements": found, "note": check.note, "closed_at": check.closed_at}
