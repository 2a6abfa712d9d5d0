"""The tablet's read models: the inspector's agenda, and the package an inspection is taken aboard with."""
from datetime import date, timedelta

from sqlalchemy.orm import joinedload

from inspection.core.extensions import db
from inspection.core.models import OPEN_INSPECTIONS, Deficiency, Inspection, User, Vessel
from inspection.inspections.operations import (
    current_answers,
    evidence_of,
    photos_of,
    pinning_of,
    require_inspector,
    require_status,
)
from inspection.inspections.pins import checklist_pin
from inspection.inspections.reports import presented_items
from inspection.inspections.schemas import AnswerSchema, DeficiencySchema, InspectionSchema, PhotoSchema
from inspection.media.photos import PhotoLimits
from inspection.registry.vessels import particulars_of


def agenda_bucket(scheduled_on: date, today: date) -> str:
    """Where an inspection sits on the agenda: late, due today, or coming (the office's date)."""
    if scheduled_on < today:
        return "overdue"
    return "today" if scheduled_on == today else "week"


def agenda(inspector: User, today: date, days: int) -> dict:
    """The inspector's scheduled and in-progress inspections up to `days` after `today`, overdue ones
    included, by date, JSON-ready; vessel and inspector come in the same query (no query per row)."""
    rows = db.session.scalars(
        db.select(Inspection).options(joinedload(Inspection.vessel), joinedload(Inspection.inspector),
                 joinedload(Inspection.countersigned_by))
        .where(Inspection.inspector_id == inspector.id, Inspection.status.in_(OPEN_INSPECTIONS),
               Inspection.scheduled_on <= today + timedelta(days=days))
        .order_by(Inspection.scheduled_on, Inspection.id)
    ).all()
    schema = InspectionSchema()
    return {"today": today.isoformat(),
            "items": [{**schema.dump(row), "bucket": agenda_bucket(row.scheduled_on, today)} for row in rows]}


def package(actor: User, inspection: Inspection, lang: str, limits: PhotoLimits) -> dict:
    """Everything the assigned inspector's tablet needs to carry out `inspection` with no signal.

    A scheduled inspection carries what starting it would pin now; `pin` fingerprints that, and the
    tablet sends it back when it starts offline, so a checklist or vessel changed meanwhile is caught.
    """
    require_inspector(actor, inspection)
    require_status(inspection, *OPEN_INSPECTIONS)
    versions, items, particulars = pinning_of(inspection)
    started = inspection.status == "in_progress"
    answers = current_answers(inspection) if started else {}
    vessel = db.session.scalar(db.select(Vessel).options(joinedload(Vessel.owner))
                               .where(Vessel.id == inspection.vessel_id))
    deficiencies = db.session.scalars(
        db.select(Deficiency).where(Deficiency.vessel_id == vessel.id,
                                    Deficiency.status.in_(("open", "reported_fixed")))
        .order_by(Deficiency.due_on.asc().nulls_last(), Deficiency.id)).all()
    return {
        "inspection": InspectionSchema().dump(inspection),
        "vessel": {"id": vessel.id, "registration": vessel.registration, "name": vessel.name,
                   "owner": vessel.owner.name, "home_port": vessel.home_port, "particulars": particulars_of(vessel)},
        "checklist_versions": versions,
        "items": presented_items(items, answers, lang),
        "pin": checklist_pin(versions, items, particulars),
        "open_deficiencies": DeficiencySchema(many=True).dump(deficiencies),
        "photo_limits": limits.as_dict(),
        "answers": AnswerSchema(many=True).dump(answers.values()),
        "photos": PhotoSchema(many=True).dump(photos_of(inspection)),
        "evidence": evidence_of(inspection) if started else None,
    }
