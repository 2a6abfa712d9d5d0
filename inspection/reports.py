"""The read model of one inspection: what the API returns and the pages arrange, from one place."""
from .extensions import db
from .inspections import current_answers, evidence_of, photos_of
from .models import Answer, AuditEvent, Deficiency, Inspection
from .photos import PhotoLimits
from .schemas import AnswerSchema, DeficiencySchema, InspectionSchema, PhotoSchema
from .vessel_checklists import localized_item


def inspection_detail(inspection: Inspection, lang: str, limits: PhotoLimits) -> dict:
    """Everything about one inspection (items, answers, photos, deficiencies, evidence, audit), for the API and the pages."""
    answers = current_answers(inspection)
    history = db.session.scalars(db.select(Answer).filter_by(inspection_id=inspection.id)
                                 .order_by(Answer.recorded_at, Answer.id)).all()
    items = presented_items(inspection.items or [], answers, lang)
    audit = db.session.scalars(db.select(AuditEvent).filter_by(inspection_id=inspection.id)
                               .order_by(AuditEvent.at, AuditEvent.id)).all()
    deficiencies = db.session.scalars(db.select(Deficiency).filter_by(inspection_id=inspection.id)
                                      .order_by(Deficiency.id)).all()
    return {**InspectionSchema().dump(inspection), "particulars": inspection.particulars, "items": items,
            "answers": AnswerSchema(many=True).dump(history), "photos": PhotoSchema(many=True).dump(photos_of(inspection)),
            "deficiencies": DeficiencySchema(many=True).dump(deficiencies),
            "evidence": evidence_of(inspection) if inspection.items else None,
            "audit": [_audit(e) for e in audit], "photo_limits": limits.as_dict()}


def presented_items(items: list[dict], answers: dict[str, Answer], lang: str) -> list[dict]:
    """Pinned items as the API shows them: in `lang`, each with its current answer or None."""
    return [{**localized_item(item, lang), "answer": AnswerSchema().dump(answers[item["id"]]) if item["id"] in answers else None}
            for item in items]


def _audit(event: AuditEvent) -> dict:
    return {"at": event.at.isoformat(), "username": event.user.username if event.user else None,
            "action": event.action, "entity": event.entity, "entity_id": event.entity_id,
            "client_id": event.client_id, "details": event.details}
