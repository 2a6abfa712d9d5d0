"""The read model of one inspection: what the API returns and the pages arrange, from one place."""
from inspection.certificates.operations import inspection_certificate
from inspection.core.clock import zone_city
from inspection.core.exceptions import Conflict
from inspection.core.extensions import db
from inspection.core.models import Answer, AuditEvent, Deficiency, Inspection
from inspection.cycle.billing import charges_of
from inspection.i18n.messages import Msg
from inspection.inspections.operations import current_answers, evidence_of, photos_of
from inspection.inspections.schemas import AnswerSchema, DeficiencySchema, InspectionSchema, PhotoSchema
from inspection.media.photos import PhotoLimits, print_copy
from inspection.media.places import port_position, stamp_lines
from inspection.registry.vessel_checklists import localized_item
from inspection.registry.vessels import particulars_of

# A printed photo is 84 mm wide: 800 px is 240 dpi there, and exactly half a 1600 px display copy's side, so
# libjpeg decodes it at 1/2 scale (photos.print_copy) instead of decoding it whole and resampling.
PRINT_PHOTO_PX = 800


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


# --- the printed report and fee statement (report_pdf.py draws them) --------------------------------

def report_header(inspection: Inspection, office_name: str, zone) -> dict:
    """What both printed documents say about the inspection: vessel, kind, dates, people, certificate."""
    certificate = inspection_certificate(inspection.id)
    inspector = inspection.inspector
    return {
        "id": inspection.id, "kind": inspection.kind, "status": inspection.status, "outcome": inspection.outcome,
        "port": inspection.port, "scheduled_on": inspection.scheduled_on, "started_at": inspection.started_at,
        "submitted_at": inspection.submitted_at, "office_name": office_name, "office_zone": zone,
        "inspector": (inspector.full_name or inspector.username) if inspector else "",
        "inspector_signature": inspection.inspector_signature or "", "master_name": inspection.master_name or "",
        "checklist_versions": inspection.checklist_versions or {},
        "vessel": {"registration": inspection.vessel.registration, "name": inspection.vessel.name,
                   **(inspection.particulars or particulars_of(inspection.vessel))},
        "certificate": ({"number": certificate.number, "valid_until": certificate.valid_until}
                        if certificate else None),
    }


def report_document(inspection: Inspection, lang: str, storage, office_name: str, zone,
                    photo_px: int = PRINT_PHOTO_PX) -> dict:
    """The printable report's data (report_pdf.render_report_pdf): pinned items with answers, deficiencies,
    photos, drawn signatures and charges. Photos are read one at a time as the PDF draws them, from their
    display copies scaled for print, never from the originals."""
    answers = current_answers(inspection)
    items = []
    for item in presented_items(inspection.items or [], answers, lang):
        answer = answers.get(item["id"])
        items.append({key: item.get(key) for key in (
            "id", "checklist", "topic_title", "title", "source", "article", "required", "maximum", "unit",
            "practice", "foreign", "standing", "restriction")} | {"answer": None if answer is None else {
                "result": answer.result, "observed": answer.observed, "note": answer.note or "",
                "action": answer.action}})
    titles = {item["id"]: item["title"] for item in items}
    deficiencies = db.session.scalars(db.select(Deficiency).filter_by(inspection_id=inspection.id)
                                      .order_by(Deficiency.id)).all()
    drawn = {role: getattr(inspection, f"{role}_signature_key") for role in ("inspector", "master", "reviewer")}
    reviewer = inspection.countersigned_by
    photos = photos_of(inspection)
    stamps = photo_stamps(inspection, photos, lang, zone)
    return {
        **report_header(inspection, office_name, zone),
        "items": items,
        "deficiencies": [{"title": titles.get(d.item_id, d.description), "description": d.description,
                          "source": d.source, "article": d.article, "action": d.action, "due_on": d.due_on,
                          "status": d.status, "detainable": d.detainable, "practice": d.practice,
                          "standing": d.standing, "restriction": d.restriction}
                         for d in deficiencies],
        "photos": [{"item": titles.get(photo.item_id, photo.item_id), "at": photo.taken_at or photo.received_at,
                    "stamp": stamps[photo.id], "image": _print_loader(storage, photo.display_key, photo_px),
                    "width": photo.width, "height": photo.height, "marks": photo.marks.layer if photo.marks else None}
                   for photo in photos],
        "signatures": {role: storage.get(key) for role, key in drawn.items() if key},
        # art. 221: who countersigned (name and title), or None; the review's state for a pending one
        "countersigned_by": {"name": reviewer.full_name or reviewer.username, "title": reviewer.title}
        if reviewer else None,
        "review_status": inspection.review_status,
        "charges": charges_of(inspection, lang),
    }


STAMPED = ("taken_at", "latitude", "longitude", "accuracy_m", "position_source", "flags")


def photo_stamps(inspection: Inspection, photos, lang: str, zone) -> dict[int, list[tuple[str, str]]]:
    """Each photo's stamp by id (vessel, office time, position, flags; media/places.stamp_lines), drawn beside
    the picture by the pages and the PDF while the stored original stays as it arrived."""
    port_known = port_position(inspection.port) is not None
    return {photo.id: stamp_lines({key: getattr(photo, key) for key in STAMPED}, inspection.vessel.registration,
                                  port_known, zone, zone_city(zone), lang)
            for photo in photos}


def _print_loader(storage, key: str, longest: int):
    """A call that reads one stored display copy and scales it for print (run when the PDF draws it)."""
    return lambda: print_copy(storage.get(key), longest)


def report_pdf(inspection: Inspection, lang: str, storage, office_name: str, zone) -> bytes:
    """The closed inspection's report as a PDF; an inspection still open has none yet (409)."""
    if inspection.status != "submitted":
        raise Conflict(Msg("La inspección aún no está cerrada: el informe se emite al cerrarla."))
    # fpdf loads with the first PDF a worker makes, not when the worker starts (0.2 s, ~30 MiB)
    from inspection.documents.report_pdf import render_report_pdf

    return render_report_pdf(report_document(inspection, lang, storage, office_name, zone), lang)


def fee_statement_pdf(inspection: Inspection, lang: str, office_name: str, zone) -> bytes:
    """The inspection's fee statement as a PDF (any status: the fees are known from the schedule)."""
    # fpdf loads with the first PDF a worker makes, not when the worker starts (0.2 s, ~30 MiB)
    from inspection.documents.report_pdf import render_fee_statement_pdf

    return render_fee_statement_pdf({**report_header(inspection, office_name, zone),
                                     "charges": charges_of(inspection, lang)}, lang)


def pdf_headers(inspection: Inspection, what: str) -> dict:
    """The headers of a printed document: shown inline as 'informe-PY-1234-12.pdf', never kept by a shared cache."""
    registration = "".join(c if c.isascii() and (c.isalnum() or c == "-") else "-" for c in inspection.vessel.registration)
    return {"Content-Disposition": f'inline; filename="{what}-{registration}-{inspection.id}.pdf"',
            "Cache-Control": "private, no-store"}
