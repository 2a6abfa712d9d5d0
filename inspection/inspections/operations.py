"""Inspection operations: schedule, start, answer, attach photos, submit, interrupt or cancel; deficiencies, detentions.

Every operation takes the acting user and the time (`now`, `today`) as values, flushes and never commits:
the request boundary commits once, so an action and its audit event land together or not at all.
"""
import hashlib
from datetime import date, datetime, timedelta

from sqlalchemy import and_, case, literal, or_
from sqlalchemy.orm.attributes import set_committed_value

from inspection.accounts.access import get_patrol_check_for, vessel_scope
from inspection.accounts.users import has_conflict
from inspection.core.audit import record_event
from inspection.core.client_requests import REUSED_CLIENT_ID
from inspection.core.exceptions import Conflict, Forbidden, Invalid, NotFound
from inspection.core.extensions import db
from inspection.core.models import (
    DEFICIENCY_STATUSES,
    OPEN_INSPECTIONS,
    Answer,
    Deficiency,
    Detention,
    Inspection,
    PatrolCheck,
    Photo,
    User,
    Vessel,
)
from inspection.core.unique import add_unique
from inspection.cycle.applications import reopen_applications
from inspection.i18n.messages import Localized, Msg
from inspection.inspections.evidence import evidence_status
from inspection.inspections.outcomes import WHOLE, compute_outcome, item_bound, unanswered_items
from inspection.inspections.pins import checklist_pin
from inspection.law.legal_terms import reinspection_days
from inspection.media.places import PlaceRules, photo_flags, photo_position, port_position
from inspection.media.signatures import ROLES, SignatureRejected, normalize_signature
from inspection.media.storage import KeyConflict, media_key
from inspection.registry.vessel_checklists import items_titled, pinned_items
from inspection.registry.vessels import particulars_of, vessel_matches
from inspection.web.forms import sorted_by

# --- who may act ---------------------------------------------------------------------------------

def _refuse_conflict(inspector: User, vessel_id: int) -> None:
    if has_conflict(inspector, vessel_id):
        raise Forbidden(Msg("Conflicto de intereses (art. 214): el inspector está vinculado al armador de este buque."))


def require_inspector(actor: User, inspection: Inspection) -> None:
    """Only the assigned inspector acts on an inspection, and never against art. 214."""
    if actor.id != inspection.inspector_id:
        raise Forbidden(Msg("Solo el inspector asignado puede actuar en esta inspección."))
    _refuse_conflict(actor, inspection.vessel_id)


def require_status(inspection: Inspection, *statuses: str) -> None:
    """409 unless the inspection is in one of `statuses`."""
    if inspection.status not in statuses:
        raise Conflict(Msg("La inspección está en estado «{status}»; esta acción no corresponde.",
                           status=inspection.status))


def inspection_scope(query, user: User):
    """Inspections a user may see: staff all, owners their vessels', police none."""
    if user.role == "owner":
        return query.join(Vessel, Vessel.id == Inspection.vessel_id).where(Vessel.owner_id == (user.owner_id or -1))
    if user.role == "police":
        return query.where(False)
    return query


def filter_inspections(query, args: dict):
    """InspectionQuery filters and the list order (newest date first) (API and pages)."""
    for field in ("vessel_id", "inspector_id", "status", "kind"):
        if args.get(field) is not None:
            query = query.where(getattr(Inspection, field) == args[field])
    if args.get("date_from"):
        query = query.where(Inspection.scheduled_on >= args["date_from"])
    if args.get("date_to"):
        query = query.where(Inspection.scheduled_on <= args["date_to"])
    return query.order_by(Inspection.scheduled_on.desc(), Inspection.id.desc())


DEFICIENCY_DUES = ("overdue", "in_time")
DEFICIENCY_SORTS = ("due_on", "vessel", "description", "action", "status")
UNDATED = date(9999, 12, 31)  # sorts a deficiency without a due date after every dated one, on every database


def deficiency_list(user: User, args: dict, today: date, *columns):
    """The deficiencies of GET /api/v1/deficiencies and of /deficiencias: the user's (owners: their fleet's),
    searched by vessel or item title, filtered by vessel, status and due date on `today`, in the order `sort`
    names (a query of Deficiency joined to Vessel; with `columns`, of those columns instead)."""
    query = vessel_scope((db.select(*columns) if columns else db.select(Deficiency))
                         .select_from(Deficiency).join(Vessel, Vessel.id == Deficiency.vessel_id), user)
    if args.get("q") and args["q"].strip():
        text = args["q"].strip()
        query = query.where(or_(vessel_matches(text, Deficiency.description),
                                Deficiency.item_id.in_(items_titled(text))))
    for field in ("vessel_id", "status"):
        if args.get(field) is not None:
            query = query.where(getattr(Deficiency, field) == args[field])
    if args.get("due"):
        query = query.where(Deficiency.overdue_on(today) if args["due"] == "overdue"
                            else and_(Deficiency.status != "closed", Deficiency.due_on >= today))
    order = {"due_on": db.func.coalesce(Deficiency.due_on, UNDATED), "vessel": Vessel.registration_key,
             "description": Deficiency.description, "action": Deficiency.action,
             "status": case(*((Deficiency.status == name, literal(n)) for n, name in enumerate(DEFICIENCY_STATUSES)))}
    return sorted_by(query, args.get("sort", "due_on"), order, Deficiency.id)


def lock_inspection(inspection: Inspection) -> Inspection:
    """Re-read the inspection and hold its row until the request commits (SELECT ... FOR UPDATE).

    Answers, closing and interruption of one inspection are then decided one at a time, each seeing
    what the one before it committed. SQLite has no row locks: a writing request already holds the
    whole database (BEGIN IMMEDIATE, extensions.py).
    """
    db.session.flush()  # a refresh drops the changes this transaction has not yet written
    db.session.refresh(inspection, with_for_update=True)
    return inspection


def get_inspection_for(user: User, inspection_id: int) -> Inspection:
    """The inspection if `user` may see it, else 404."""
    found = db.session.scalar(inspection_scope(db.select(Inspection).where(Inspection.id == inspection_id), user))
    if found is None:
        raise NotFound()
    return found


# --- schedule and start ----------------------------------------------------------------------------

def schedule_inspection(actor: User, vessel: Vessel, kind: str, inspector: User, scheduled_on: date, port: str,
                        today: date, reinspection_of: Inspection | None = None) -> Inspection:
    """Plan an inspection; the owner sees it beforehand (art. 213)."""
    if actor.role == "inspector" and actor.id != inspector.id:
        raise Forbidden(Msg("Un inspector solo puede programar inspecciones para sí mismo."))
    if inspector.role != "inspector" or not inspector.active:
        raise Invalid(errors={"inspector_id": [Msg("El usuario asignado no es un inspector activo.")]})
    if scheduled_on < today and reinspection_of is None:
        raise Invalid(errors={"scheduled_on": [Msg("La fecha no puede ser anterior a hoy.")]})
    _refuse_conflict(inspector, vessel.id)
    pinned_items(particulars_of(vessel), kind)  # refuses an exempt vessel now, not on board
    inspection = add_open_inspection(Inspection(
        vessel=vessel, kind=kind, inspector_id=inspector.id, scheduled_on=scheduled_on, port=port,
        created_by_id=actor.id, reinspection_of_id=reinspection_of.id if reinspection_of else None))
    record_event(actor, "inspection.scheduled", "inspection", inspection.id, inspection_id=inspection.id,
                 details={"vessel_id": vessel.id, "kind": kind, "inspector_id": inspector.id,
                          "scheduled_on": scheduled_on.isoformat(), "port": port})
    return inspection


def open_inspection_of(vessel_id: int, kind: str) -> Inspection | None:
    """The vessel's inspection of this kind that is scheduled or in progress, if any (at most one: uq_inspections_open)."""
    return db.session.scalar(db.select(Inspection).where(Inspection.vessel_id == vessel_id, Inspection.kind == kind,
                                                         Inspection.status.in_(OPEN_INSPECTIONS)))


def add_open_inspection(inspection: Inspection) -> Inspection:
    """Add a new scheduled inspection unless its vessel already has an open one of its kind: then 409 naming it.

    The check answers the common case; the partial unique index settles two requests that pass it at once
    (the loser's insert fails, and by then the winner has committed, so the loser names it too).
    """
    vessel_id = inspection.vessel_id or inspection.vessel.id  # the id is set at the flush when given as `vessel`
    existing = open_inspection_of(vessel_id, inspection.kind)
    if existing is not None:
        raise _already_open(existing)
    return add_unique(inspection, lambda: _already_open(open_inspection_of(vessel_id, inspection.kind)))


def _already_open(existing: Inspection | None) -> Conflict:
    if existing is None:  # the winner was closed again before we looked: still one open at a time
        return Conflict(Msg("El buque ya tiene una inspección de este tipo sin cerrar."))
    return Conflict(Msg("El buque ya tiene la inspección n.º {inspection_id} de este tipo sin cerrar (programada para "
                        "el {scheduled_on}): realícela en lugar de programar otra.",
                        inspection_id=existing.id, scheduled_on=existing.scheduled_on),
                    extra={"inspection_id": existing.id})


class ChecklistChanged(Conflict):
    """The tablet downloaded an inspection whose checklist or vessel has changed since."""

    code = "checklist-changed"


START_AHEAD = timedelta(minutes=5)  # a tablet's clock may run this far ahead of the server's
START_BEFORE_CREATED = timedelta(days=1)  # and this far behind the inspection's creation


def pinning_of(inspection: Inspection) -> tuple[dict, list[dict], dict]:
    """What the inspection pins (versions, items, particulars in their stored form): the pinned ones once
    started, else what a start would pin now from the vessel as it stands."""
    if inspection.items is not None:
        return inspection.checklist_versions, inspection.items, inspection.particulars
    particulars = particulars_of(inspection.vessel)
    versions, items = pinned_items(particulars, inspection.kind)
    return versions, items, {"registration": inspection.vessel.registration, "name": inspection.vessel.name,
                             **particulars}


def start_inspection(actor: User, inspection: Inspection, now: datetime, started_at: datetime | None = None,
                     pin: str | None = None, client_id: str | None = None) -> Inspection:
    """Pin the checklist versions, the computed items and the particulars; a repeat start changes nothing.

    A tablet that started offline sends its clock's `started_at` and the `pin` of what it downloaded:
    a pin that is not what the server pins (the checklist or the vessel changed meanwhile) is refused,
    since its answers would be to other items.
    """
    require_inspector(actor, inspection)
    lock_inspection(inspection)  # a tablet's retry racing its first try: one pins, the other finds it started
    if inspection.status == "in_progress":
        if pin is not None and pin != checklist_pin(*pinning_of(inspection)):
            raise _changed()
        return inspection
    require_status(inspection, "scheduled")
    if started_at is not None and started_at > now + START_AHEAD:
        raise Invalid(errors={"started_at": [Msg("La hora de comienzo es posterior a la hora actual; revise el reloj de la tableta.")]})
    if started_at is not None and started_at < inspection.created_at - START_BEFORE_CREATED:
        raise Invalid(errors={"started_at": [Msg("La hora de comienzo es anterior a la creación de la inspección; revise el reloj de la tableta.")]})
    versions, items, particulars = pinning_of(inspection)
    if pin is not None and pin != checklist_pin(versions, items, particulars):
        raise _changed()
    inspection.checklist_versions, inspection.items, inspection.particulars = versions, items, particulars
    inspection.status, inspection.started_at = "in_progress", started_at or now
    record_event(actor, "inspection.started", "inspection", inspection.id, inspection_id=inspection.id,
                 client_id=client_id, at=now,
                 details={"checklist_versions": versions, "items": len(items),
                          "started_at": inspection.started_at.isoformat(), "tablet_clock": started_at is not None})
    return inspection


def _changed() -> ChecklistChanged:
    return ChecklistChanged(Msg("La lista de verificación o las características del buque cambiaron desde que se "
                                "descargó la inspección: descárguela de nuevo antes de comenzar."))


# --- answers ---------------------------------------------------------------------------------------

def pinned_item(inspection: Inspection, item_id: str) -> dict:
    """One item of the pinned checklist, or 404."""
    for item in inspection.items or []:
        if item["id"] == item_id:
            return item
    raise NotFound(Msg("El ítem {item_id} no está en la lista de esta inspección.", item_id=item_id))


def check_answer(item: dict, data: dict) -> None:
    """The law's constraints on one answer (a count within the item's bound, notes)."""
    result, observed, note = data["result"], data.get("observed"), (data.get("note") or "").strip()
    if result == "not_applicable" and not note:
        raise Invalid(errors={"note": [Msg("Explique por qué el ítem no corresponde.")]})
    found = item_bound(item)
    if found and result == "pass":
        bound, value = found
        if observed is None:
            raise Invalid(errors={"observed": [Msg(bound.missing, **{bound.name: value})]})
        if not bound.within(observed, value):
            raise Invalid(errors={"observed": [Msg(bound.outside, observed=f"{observed:g}", **{bound.name: value})]})
    if found and observed is not None and item.get("whole") and observed != int(observed):
        raise Invalid(errors={"observed": [Msg(WHOLE)]})
    if data.get("action") and result != "fail":
        raise Invalid(errors={"action": [Msg("Solo un ítem que falla lleva una acción.")]})


def current_answer(inspection_id: int, item_id: str) -> Answer | None:
    """The answer that counts now for an item."""
    return db.session.scalar(db.select(Answer).filter_by(inspection_id=inspection_id, item_id=item_id, current=True))


class AnswerBook:
    """One locked inspection's answers as a batch of writes (a sync) needs them, read in one statement: those
    stored under the batch's client_ids (here or anywhere) and each item's current one; the batch notes what it
    writes. Reading it takes the inspection's row, so no other writer changes them until the batch commits."""

    def __init__(self, inspection: Inspection, client_ids: list[str]) -> None:
        lock_inspection(inspection)
        rows = db.session.scalars(db.select(Answer).where(or_(
            Answer.client_id.in_(client_ids), and_(Answer.inspection_id == inspection.id, Answer.current)))).all()
        self.by_client_id: dict[str, Answer | None] = dict.fromkeys(client_ids)
        self.by_client_id.update({a.client_id: a for a in rows if a.client_id in self.by_client_id})
        self.current = {a.item_id: a for a in rows if a.inspection_id == inspection.id and a.current}

    def note(self, answer: Answer) -> None:
        """An answer the batch has built: the entries after it see it."""
        self.by_client_id[answer.client_id] = answer
        if answer.current:
            self.current[answer.item_id] = answer


def recorded_answer(actor: User, inspection: Inspection, item_id: str, data: dict,
                    book: AnswerBook | None = None) -> Answer | None:
    """The answer already stored under this write's client_id (a resent form, a retry), or None.

    Page forms and the demo store answers without an idempotency record, so the answer itself is the
    record. The same client_id for another inspection, item, user or content is a different write: 409.
    """
    client_id = str(data["client_id"])
    if book is not None and client_id in book.by_client_id:
        found = book.by_client_id[client_id]
    else:
        found = db.session.scalar(db.select(Answer).filter_by(client_id=client_id))
    if found is None:
        return None
    same = ((found.inspection_id, found.item_id, found.answered_by_id, found.result, found.note, found.action,
             found.photo_hashes) ==
            (inspection.id, item_id, actor.id, data["result"], (data.get("note") or "").strip(), data.get("action"),
             list(dict.fromkeys(data.get("photos") or [])))
            and found.observed == data.get("observed")
            and data.get("recorded_at") in (None, found.recorded_at))
    if not same:
        raise Conflict(REUSED_CLIENT_ID,
                       extra={"client_id": found.client_id})
    return found


def record_answer(actor: User, inspection: Inspection, item_id: str, data: dict, now: datetime) -> Answer:
    """Store one answer; the newest by the tablet's clock becomes current, older ones stay as history.

    The same write again (its client_id already stored) returns the stored answer and changes nothing. A sync
    batch builds its answers with new_answer and writes them together (sync.py).
    """
    require_inspector(actor, inspection)
    lock_inspection(inspection)  # one writer at a time decides which answer is current
    existing = recorded_answer(actor, inspection, item_id, data)
    if existing is not None:
        return existing
    answer = new_answer(actor, inspection, item_id, data, now)
    db.session.add(answer)
    db.session.flush()  # within a table the ORM writes its UPDATEs first: the replaced answer, then this one
    answer_recorded(actor, answer, answer.current)
    return answer


def new_answer(actor: User, inspection: Inspection, item_id: str, data: dict, now: datetime,
               book: AnswerBook | None = None) -> Answer:
    """A new answer checked against the law and built, not yet added; the item's current answer stops being current
    unless it is newer by the tablet's clock (then this one arrives as history). Refusals come before any change."""
    require_status(inspection, "in_progress")
    item = pinned_item(inspection, item_id)
    check_answer(item, data)
    recorded_at = data.get("recorded_at") or now
    answer = Answer(inspection_id=inspection.id, item_id=item_id, client_id=str(data["client_id"]),
                    result=data["result"], observed=data.get("observed"), note=(data.get("note") or "").strip(),
                    recorded_at=recorded_at, received_at=now, answered_by_id=actor.id, current=True,
                    photo_hashes=list(dict.fromkeys(data.get("photos") or [])), action=data.get("action"))
    previous = book.current.get(item_id) if book is not None else current_answer(inspection.id, item_id)
    if previous is not None:
        if previous.recorded_at > recorded_at:
            answer.current = False  # an older answer arriving late never overwrites a newer one
        else:
            previous.current = False
    return answer


def answer_recorded(actor: User, answer: Answer, current: bool) -> None:
    """The audit event of a stored answer, `current` as it was written (it names the answer's id: after its flush)."""
    record_event(actor, "answer.recorded", "answer", answer.id, inspection_id=answer.inspection_id,
                 client_id=answer.client_id, details={"item_id": answer.item_id, "result": answer.result,
                                                      "current": current})


def current_answers(inspection: Inspection) -> dict[str, Answer]:
    """Item id -> the answer that counts."""
    rows = db.session.scalars(db.select(Answer).filter_by(inspection_id=inspection.id, current=True))
    return {a.item_id: a for a in rows}


def answer_values(answer: Answer) -> dict:
    """An answer as the plain dict the pure rules read."""
    return {"result": answer.result, "observed": float(answer.observed) if answer.observed is not None else None,
            "note": answer.note, "photos": answer.photo_hashes or [], "action": answer.action}


def photos_of(inspection: Inspection) -> list[Photo]:
    """The inspection's photos, oldest first."""
    return db.session.scalars(db.select(Photo).filter_by(inspection_id=inspection.id).order_by(Photo.id)).all()


def evidence_of(inspection: Inspection) -> dict:
    """Expected, arrived and missing photos of an inspection."""
    answers = {k: answer_values(v) for k, v in current_answers(inspection).items()}
    photos = [{"sha256": p.sha256, "item_id": p.item_id} for p in photos_of(inspection)]
    return evidence_status(inspection.items or [], answers, photos)


# --- submit ----------------------------------------------------------------------------------------

CLOCK_TOLERANCE = timedelta(minutes=5)  # how far ahead of the server a tablet's clock may run


def normalized_signatures(images: dict) -> dict[str, bytes]:
    """Both drawn signatures as clean PNGs; 422 with the refusal under `signatures.<role>`."""
    normalized, errors = {}, {}
    for role in ROLES:
        try:
            normalized[role] = normalize_signature(images[role])
        except SignatureRejected as refusal:
            errors[role] = [refusal.message]
    if errors:
        raise Invalid(errors={"signatures": errors})
    return normalized


def tablet_submitted_at(inspection: Inspection, submitted_at: datetime | None, now: datetime) -> datetime:
    """When the inspection was closed on the tablet (synced later), or now; never ahead of now or before the start."""
    if submitted_at is None:
        return now
    if submitted_at > now + CLOCK_TOLERANCE:
        raise Invalid(errors={"submitted_at": [Msg(
            "La hora de cierre está más de {minutes} minutos adelantada a la del servidor; corrija el reloj de la tableta.",
            minutes=int(CLOCK_TOLERANCE.total_seconds() // 60))]})
    if inspection.started_at is not None and submitted_at < inspection.started_at:
        raise Invalid(errors={"submitted_at": [Msg("La hora de cierre es anterior al comienzo de la inspección.")]})
    return submitted_at


def store_signatures(inspection: Inspection, signatures: dict[str, bytes], storage) -> None:
    """Write the signature files (content-addressed, atomic) and point the inspection at them; the row comes after.

    A crash or a rollback before the commit leaves only unrecorded files, which `flask media sweep` removes.
    """
    for role, png in signatures.items():
        sha256 = hashlib.sha256(png).hexdigest()
        key = media_key("signatures", sha256, "image/png")
        storage.put(key, png)
        setattr(inspection, f"{role}_signature_key", key)
        setattr(inspection, f"{role}_signature_sha256", sha256)


def submit_inspection(actor: User, inspection: Inspection, data: dict, today: date, now: datetime, storage) -> dict:
    """Close the inspection: refuse while items are unanswered or evidence is missing (409 with the list),
    compute the outcome, open deficiencies, keep the drawn signatures. An inspection that cannot be finished
    is interrupted instead."""
    require_inspector(actor, inspection)
    signatures = normalized_signatures(data["signatures"])  # decoded before the row is held
    lock_inspection(inspection)  # no answer lands while the outcome is computed; a second submit waits, then 409
    require_status(inspection, "in_progress")
    submitted_at = tablet_submitted_at(inspection, data.get("submitted_at"), now)
    answers = {k: answer_values(v) for k, v in current_answers(inspection).items()}
    unanswered = unanswered_items(inspection.items, answers)
    if unanswered:
        raise Conflict(Msg("Faltan {count} ítems por responder; respóndalos o interrumpa la inspección.",
                           count=len(unanswered)),
                       extra={"unanswered": [{"item_id": item["id"],
                                              "title": Localized({"es": item["title"], "en": item["title_en"]})}
                                             for item in unanswered]})
    evidence = evidence_of(inspection)
    if not evidence["complete"]:
        raise Conflict(Msg("Faltan {count} fotos de evidencia; envíelas antes de cerrar la inspección.",
                           count=len(evidence["missing"])), extra={"missing": evidence["missing"]})
    result = compute_outcome(inspection.items, answers, today)
    deficiencies = []
    for finding in result.findings:
        rectified = finding.action == "rectified"
        deficiency = Deficiency(
            inspection_id=inspection.id, vessel_id=inspection.vessel_id, item_id=finding.item_id,
            source=finding.source, article=finding.article, description=finding.description,
            action=finding.action, detainable=finding.detainable, practice=finding.practice,
            standing=finding.standing, restriction=finding.restriction, due_on=finding.due_on,
            status="closed" if rectified else "open", closed_at=now if rectified else None,
            closed_by_id=actor.id if rectified else None,
            closing_note="Subsanada a bordo durante la inspección." if rectified else None)
        db.session.add(deficiency)
        deficiencies.append(deficiency)
    store_signatures(inspection, signatures, storage)  # every refusal is behind us: no file for a 409
    inspection.status, inspection.outcome, inspection.submitted_at = "submitted", result.outcome, submitted_at
    inspection.inspector_signature = data["signature"]
    inspection.master_name = data["master_name"]
    db.session.flush()
    record_event(actor, "inspection.submitted", "inspection", inspection.id, inspection_id=inspection.id,
                 client_id=str(data["client_id"]), at=now,
                 details={"outcome": result.outcome, "deficiencies": len(deficiencies),
                          "missing_answers": result.missing_answers,
                          "submitted_at": submitted_at.isoformat(), "received_at": now.isoformat(),
                          "signatures": {role: getattr(inspection, f"{role}_signature_sha256") for role in ROLES}})
    reinspection = None
    if result.outcome == "failed":
        reinspection = _schedule_reinspection(actor, inspection, deficiencies, today)
    return {"outcome": result.outcome, "deficiencies": deficiencies, "missing_answers": result.missing_answers,
            "reinspection": reinspection}


def interrupt_inspection(actor: User, inspection: Inspection, reason: str, now: datetime) -> Inspection:
    """Stop an inspection that cannot be finished (weather, the vessel sailed), with the reason.

    It has no outcome: no certificate, no deficiencies and no re-inspection come of it; the answers so
    far stay as a record, and an application assigned to it is pending again for planning (reopen_applications),
    since the owner's vessel still needs its inspection. The assigned inspector, or an admin, decides; the same
    request again changes nothing.
    """
    if actor.role != "admin":
        require_inspector(actor, inspection)
    lock_inspection(inspection)
    if inspection.status == "interrupted" and inspection.interruption_reason == reason:
        return inspection
    require_status(inspection, "in_progress")
    inspection.status, inspection.interrupted_at, inspection.interruption_reason = "interrupted", now, reason
    applications = reopen_applications(inspection)
    record_event(actor, "inspection.interrupted", "inspection", inspection.id, inspection_id=inspection.id,
                 details={"reason": reason, "answered": len(current_answers(inspection)),
                          "items": len(inspection.items or []),
                          "applications": [{"id": a.id, "status": a.status} for a in applications]})
    return inspection


def cancel_inspection(actor: User, inspection: Inspection, reason: str, now: datetime) -> Inspection:
    """Call off a scheduled inspection (booked with the wrong inspector or date), with the reason.

    Nobody has been aboard, so nothing is lost: the vessel's kind is free to schedule again, and an
    application assigned to it is pending again for planning (reopen_applications). Once started it is
    interrupted instead. The assigned inspector, or an admin, decides; the same request again changes nothing.
    """
    if actor.role != "admin":
        require_inspector(actor, inspection)
    lock_inspection(inspection)
    if inspection.status == "cancelled" and inspection.cancellation_reason == reason:
        return inspection
    if inspection.status == "in_progress":
        raise Conflict(Msg("La inspección ya comenzó: no se cancela, se interrumpe con el motivo."))
    require_status(inspection, "scheduled")
    inspection.status, inspection.cancelled_at, inspection.cancellation_reason = "cancelled", now, reason
    applications = reopen_applications(inspection)
    record_event(actor, "inspection.cancelled", "inspection", inspection.id, inspection_id=inspection.id,
                 details={"reason": reason, "applications": [{"id": a.id, "status": a.status} for a in applications]})
    return inspection


def _schedule_reinspection(actor: User, inspection: Inspection, deficiencies, today: date) -> Inspection:
    """Art. 206: repairs found necessary get an inspection of the work done."""
    due = [d.due_on for d in deficiencies if d.status == "open" and d.due_on and d.due_on >= today]
    when = min(due) if due else today + timedelta(days=reinspection_days())
    follow_up = add_open_inspection(Inspection(
        vessel_id=inspection.vessel_id, kind=inspection.kind, inspector_id=inspection.inspector_id, scheduled_on=when,
        port=inspection.port, created_by_id=actor.id, reinspection_of_id=inspection.id))
    record_event(actor, "inspection.reinspection_scheduled", "inspection", follow_up.id, inspection_id=inspection.id,
                 details={"reinspection_id": follow_up.id, "scheduled_on": when.isoformat(), "article": "206"})
    return follow_up


# --- deficiencies and detentions -------------------------------------------------------------------

def report_fixed(actor: User, deficiency: Deficiency, note: str, now: datetime, photo: Photo | None = None) -> Deficiency:
    """The owner reports a deficiency put right, with evidence; only an inspector may close it."""
    if deficiency.status != "open":
        raise Conflict(Msg("La deficiencia no está abierta."))
    if photo is not None and (photo.inspection_id, photo.item_id) != (deficiency.inspection_id, deficiency.item_id):
        raise Invalid(errors={"photo_id": [Msg("La foto no corresponde a esta deficiencia.")]})
    deficiency.status, deficiency.reported_at, deficiency.reported_note = "reported_fixed", now, note
    deficiency.reported_photo_id = photo.id if photo else None
    record_event(actor, "deficiency.reported_fixed", "deficiency", deficiency.id,
                 inspection_id=deficiency.inspection_id,
                 details={"note": note, "photo_sha256": photo.sha256 if photo else None})
    return deficiency


def close_deficiency(actor: User, deficiency: Deficiency, note: str, now: datetime) -> Deficiency:
    """An inspector closes a deficiency after verifying it (follow-up inspection)."""
    if actor.role != "inspector":
        raise Forbidden(Msg("Solo un inspector cierra una deficiencia."))
    vessel = db.session.get(Vessel, deficiency.vessel_id)
    _refuse_conflict(actor, vessel.id)
    if deficiency.status == "closed":
        raise Conflict(Msg("La deficiencia ya está cerrada."))
    deficiency.status, deficiency.closed_at, deficiency.closed_by_id = "closed", now, actor.id
    deficiency.closing_note = note
    record_event(actor, "deficiency.closed", "deficiency", deficiency.id, inspection_id=deficiency.inspection_id,
                 details={"note": note})
    return deficiency


def _require_detention_authority(actor: User, vessel: Vessel) -> None:
    """Detaining and lifting are one decision (art. 208): staff only, never an inspector linked to the owner (art. 214)."""
    if actor.role not in ("inspector", "admin"):
        raise Forbidden()
    if actor.role == "inspector":
        _refuse_conflict(actor, vessel.id)


def detain_vessel(actor: User, vessel: Vessel, reason: str, now: datetime,
                  inspection: Inspection | None = None) -> Detention:
    """Record a detention decision with its reason (art. 208), apart from any deficiency's action."""
    _require_detention_authority(actor, vessel)
    existing = open_detention_of(vessel.id)
    if existing is not None:
        raise _already_detained(existing)
    detention = Detention(vessel_id=vessel.id, inspection_id=inspection.id if inspection else None, reason=reason,
                          decided_by_id=actor.id, decided_at=now)
    add_unique(detention, lambda: _already_detained(open_detention_of(vessel.id)))  # two decisions at once
    record_event(actor, "vessel.detained", "detention", detention.id,
                 inspection_id=inspection.id if inspection else None, details={"vessel_id": vessel.id, "reason": reason})
    return detention


def open_detention_of(vessel_id: int) -> Detention | None:
    """The vessel's detention not yet lifted, if any (at most one: uq_detentions_open)."""
    return db.session.scalar(db.select(Detention).where(Detention.vessel_id == vessel_id, Detention.lifted_at.is_(None)))


def _already_detained(existing: Detention | None) -> Conflict:
    if existing is None:  # lifted again before we looked
        return Conflict(Msg("El buque ya tiene una detención sin levantar."))
    return Conflict(Msg("El buque ya está detenido (detención n.º {detention_id}); levántela antes de decidir otra.",
                        detention_id=existing.id), extra={"detention_id": existing.id})


def lift_detention(actor: User, detention: Detention, reason: str, now: datetime) -> Detention:
    """Lift a detention, with the reason; whoever may not detain the vessel may not free it either."""
    _require_detention_authority(actor, db.session.get(Vessel, detention.vessel_id))
    if detention.lifted_at is not None:
        raise Conflict(Msg("La detención ya fue levantada."))
    detention.lifted_at, detention.lifted_by_id, detention.lift_reason = now, actor.id, reason
    record_event(actor, "vessel.detention_lifted", "detention", detention.id, inspection_id=detention.inspection_id,
                 details={"vessel_id": detention.vessel_id, "reason": reason})
    return detention



# --- photos ----------------------------------------------------------------------------------------

def add_photo(actor: User, inspection: Inspection, item_id: str, client_id: str, processed, storage,
              taken_at: datetime | None, latitude: float | None, longitude: float | None, now: datetime,
              accuracy_m: float | None = None, rules: PlaceRules = PlaceRules(),
              position_source: str | None = None) -> Photo:
    """The assigned inspector's photo of an item of an inspection in progress."""
    check_photo(actor, inspection, item_id)
    return store_photo(actor, inspection, item_id, client_id, processed, storage, taken_at, latitude, longitude, now,
                       accuracy_m, rules, position_source)


def check_photo(actor: User, inspection: Inspection, item_id: str) -> None:
    """Refuse an item photo add_photo would refuse, before its bytes travel (a resumable upload asks first)."""
    require_inspector(actor, inspection)
    require_status(inspection, "in_progress")
    pinned_item(inspection, item_id)


def add_repair_evidence(actor: User, deficiency: Deficiency, client_id: str, processed, storage,
                        now: datetime) -> Photo:
    """The owner's photo of a repair, filed under the deficiency's inspection and item."""
    if actor.role != "owner":
        raise Forbidden(Msg("Solo el armador aporta la evidencia de una reparación."))
    if deficiency.status != "open":
        raise Conflict(Msg("La deficiencia no está abierta."))
    inspection = db.session.get(Inspection, deficiency.inspection_id)
    return store_photo(actor, inspection, deficiency.item_id, client_id, processed, storage, None, None, None, now,
                       rules=None)  # a repair is photographed after the inspection, wherever the yard is


def photo_column(record) -> str:
    """The Photo column that files a photo under `record`: an inspection's, or a patrol check's (issue 23)."""
    return "patrol_check_id" if isinstance(record, PatrolCheck) else "inspection_id"


def store_photo(actor: User, inspection: Inspection | PatrolCheck, item_id: str, client_id: str, processed, storage,
                taken_at: datetime | None, latitude: float | None, longitude: float | None, now: datetime,
                accuracy_m: float | None = None, rules: PlaceRules | None = PlaceRules(),
                position_source: str | None = None) -> Photo:
    """Keep a processed photo of an inspection's or a patrol check's item: files first (atomic, durable,
    content-addressed), then the row, with its place and flags (`rules` None: no flags); `position_source` says
    where the sent position came from ("device" unless "exif").

    A crash between the two leaves only unrecorded files (swept later); a recorded photo always has
    its files. The same bytes twice for one item are one photo; the same bytes for another item are
    that item's photo too, sharing the files. A client_id already stored returns its photo (a resent
    form), or is a 409 when it named other bytes or another item.
    """
    column = photo_column(inspection)
    owner = {column: inspection.id}
    same_bytes = and_(getattr(Photo, column) == inspection.id, Photo.item_id == item_id,
                      Photo.sha256 == processed.sha256)
    found = db.session.scalars(db.select(Photo).where(or_(Photo.client_id == client_id, same_bytes))).all()
    sent_before = next((photo for photo in found if photo.client_id == client_id), None)
    if sent_before is not None:
        if (getattr(sent_before, column), sent_before.item_id, sent_before.sha256) != \
                (inspection.id, item_id, processed.sha256):
            raise Conflict(REUSED_CLIENT_ID,
                           extra={"client_id": client_id})
        return sent_before
    if found:  # these bytes, for this item, under another client_id
        return found[0]
    original = media_key("originals", processed.sha256, processed.mime)
    keys = {
        "original": original,
        "display": original if processed.kept_as_display else media_key("display", processed.sha256),
        "thumb": media_key("thumbs", processed.sha256),
    }
    storage.put(original, processed.original, processed.sha256)
    for variant in ("display", "thumb"):  # derived copies depend on Pillow and limits: the first made is kept
        if keys[variant] != original:
            try:
                storage.put(keys[variant], getattr(processed, variant))  # one round trip when new, no look first
            except KeyConflict:
                pass  # made earlier from these bytes by another Pillow or other limits: that copy stays
    photo = Photo(**owner, item_id=item_id, client_id=client_id, sha256=processed.sha256,
                  mime=processed.mime, size_bytes=len(processed.original), width=processed.width,
                  height=processed.height, original_key=keys["original"], display_key=keys["display"],
                  thumb_key=keys["thumb"], taken_at=processed.taken_at or taken_at,
                  **photo_place(inspection, processed, (latitude, longitude, accuracy_m, position_source),
                                processed.taken_at or taken_at,
                                now, rules),
                  uploaded_by_id=actor.id, received_at=now)
    db.session.add(photo)
    db.session.flush()
    set_committed_value(photo, "marks", None)  # a new photo has no marks yet: its answer needs no read of them
    record_event(actor, "photo.added", "photo", photo.id, inspection_id=photo.inspection_id, client_id=client_id,
                 details={"item_id": item_id, "sha256": processed.sha256, "bytes": len(processed.original),
                          **({"patrol_check_id": photo.patrol_check_id} if photo.patrol_check_id else {})})
    return photo


def photo_place(record: Inspection | PatrolCheck, processed, sent: tuple, taken_at: datetime | None, now: datetime,
                rules: PlaceRules | None) -> dict:
    """A new photo's position (the one sent, else its file's EXIF's) and flags against its record: an inspection's port
    and span, or a patrol check's span (a patrol has no port)."""
    position = photo_position(sent, (processed.latitude, processed.longitude))
    flags = []
    if rules is not None:
        if isinstance(record, PatrolCheck):
            port, span = None, (record.checked_at, record.closed_at or now)
        else:
            port, span = port_position(record.port), (record.started_at, record.submitted_at or now)
        flags = photo_flags(position, port, taken_at, span, rules)
    return {"latitude": position.latitude, "longitude": position.longitude, "accuracy_m": position.accuracy_m,
            "position_source": position.source, "flags": flags}


def get_photo_for(user, photo_id: int) -> Photo:
    """A photo the user may see (through its inspection's or patrol check's scope), or NotFound: a stranger's is
    simply not found."""
    photo = db.session.get(Photo, photo_id)
    if photo is None:
        raise NotFound()
    if photo.patrol_check_id is not None:
        get_patrol_check_for(user, photo.patrol_check_id)
    else:
        get_inspection_for(user, photo.inspection_id)
    return photo


def get_detention(detention_id: int) -> Detention:
    """A detention staff name by id, or NotFound."""
    detention = db.session.get(Detention, detention_id)
    if detention is None:
        raise NotFound()
    return detention
