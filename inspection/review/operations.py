"""Reviewing a closed inspection (art. 221): who may, entering the queue, countersigning, returning. Operations flush;
the request commits."""
import hashlib
from datetime import date, datetime, tzinfo

from inspection.accounts.users import has_conflict
from inspection.certificates.countersign import PASSED, seal_countersignature
from inspection.certificates.operations import inspection_certificate, issue_certificate, record_revocation
from inspection.core.audit import record_event
from inspection.core.clock import local_date_at
from inspection.core.exceptions import Conflict, Forbidden, Invalid
from inspection.core.extensions import db
from inspection.core.models import AuditEvent, Certificate, Deficiency, FineAssessment, Inspection, User
from inspection.core.office import Office
from inspection.cycle.applications import complete_applications
from inspection.i18n.messages import Msg
from inspection.inspections.operations import lock_inspection
from inspection.law.legal_terms import countersignature
from inspection.media.signatures import SignatureRejected, normalize_signature
from inspection.media.storage import media_key

def require_reviewer(actor: User, inspection: Inspection) -> None:
    """Only a reviewer, never on a vessel whose owner he declared an interest in (art. 214), and only pending work."""
    if actor.role != "reviewer":
        raise Forbidden(Msg("Solo el Prefecto o un delegado suyo refrenda o devuelve inspecciones."))
    if has_conflict(actor, inspection.vessel_id):
        raise Forbidden(Msg("Tiene un conflicto de interés declarado con el armador de este buque (art. 214): "
                            "otro revisor debe hacerlo."))
    if inspection.review_status == "countersigned":
        raise Conflict(Msg("Esta inspección ya fue refrendada: no se refrenda ni se devuelve otra vez; si su "
                           "certificado no debe valer, la Prefectura lo revoca."))
    if inspection.review_status != "pending":
        raise Conflict(Msg("Esta inspección no espera refrendo."))


def _last_detail(inspection: Inspection, action: str, key: str):
    """`key` of the details of the inspection's last audit event of `action` (the review keeps its acts there), or None."""
    details = db.session.scalar(db.select(AuditEvent.details).filter_by(inspection_id=inspection.id, action=action)
                                .order_by(AuditEvent.id.desc()).limit(1))
    return (details or {}).get(key)


def revoked_by_return(inspection: Inspection, certificate: Certificate) -> bool:
    """Whether the reviewer's last return of the inspection revoked this certificate (its correction then needs a new
    one), not the Prefectura by a decision of its own (which a countersignature never undoes)."""
    return _last_detail(inspection, "inspection.returned", "revoked_certificate") == certificate.number


def countersignature_seal(inspection: Inspection) -> str | None:
    """The seal of the inspection's countersignature (the office's JWS over its facts), None while it has none."""
    if inspection.review_status != "countersigned":
        return None
    return _last_detail(inspection, "inspection.countersigned", "seal")


def returned_reason(note: str) -> str:
    """The revocation's reason when the reviewer returns a certified inspection (stored, like every reason, in
    Spanish): the certificate's record, its audit and the owner's notice of the revocation say it."""
    return f"Inspección devuelta al inspector para su corrección por el revisor (art. 221): {note.strip()}"


def countersign_inspection(actor: User, inspection: Inspection, signature: bytes, office: Office, signer,
                           today: date, now: datetime, zone: tzinfo, storage) -> Certificate | None:
    """Countersign (art. 221): keep the drawn signature and, for a passed inspection, issue its certificate (or
    confirm the one the closing issued); the audit keeps the act's facts sealed with the office's key (`signer()`).
    Returns the certificate, None for a failed inspection."""
    try:
        png = normalize_signature(signature)
    except SignatureRejected as refusal:
        raise Invalid(errors={"signature": [refusal.message]})
    lock_inspection(inspection)
    require_reviewer(actor, inspection)
    sha256 = hashlib.sha256(png).hexdigest()
    key = media_key("signatures", sha256, "image/png")
    storage.put(key, png)  # content-addressed and atomic: a rollback leaves an unrecorded file the sweep removes
    inspection.reviewer_signature_key, inspection.reviewer_signature_sha256 = key, sha256
    inspection.review_status, inspection.countersigned_at, inspection.countersigned_by_id = "countersigned", now, actor.id
    certificate = inspection_certificate(inspection.id)  # one the Prefectura revoked stays revoked, countersigned
    if certificate is not None and certificate.revoked_at is not None and revoked_by_return(inspection, certificate):
        certificate = None  # returned under the "closing" validity, closed again under "countersignature"
    if certificate is None and inspection.outcome in PASSED:
        inspected_on = local_date_at(inspection.submitted_at, zone)
        certificate = issue_certificate(actor, inspection, office, signer, today, now, inspected_on,
                                        inspection.chosen_valid_until)
        complete_applications(inspection)
    if certificate is not None:
        certificate.countersigned_on, certificate.countersign_due_on = today, None
    db.session.flush()
    facts = {"iss": office.code, "inspection": inspection.id, "vessel": inspection.vessel.registration,
             "certificate": certificate.number if certificate else None, "countersigned_on": today.isoformat(),
             "reviewer": actor.full_name or actor.username, "title": actor.title, "signature_sha256": sha256,
             "article": countersignature().article}
    kid, private = signer()
    record_event(actor, "inspection.countersigned", "inspection", inspection.id, inspection_id=inspection.id, at=now,
                 details={**facts, "seal": seal_countersignature(facts, kid, private)})
    return certificate


def return_inspection(actor: User, inspection: Inspection, note: str, now: datetime) -> Certificate | None:
    """Return the inspection to its inspector with a note: it is open again, as it was before the closing. Returns
    the certificate the return revoked, if any.

    What the closing produced is kept in the audit record (outcome, deficiencies, fines, the re-inspection it
    scheduled) and withdrawn; the answers keep every revision, so the earlier version stays whole. A certificate
    issued at the closing (the "closing" validity), not yet countersigned, is revoked in the same act with the note
    as its reason; the corrected closing issues a new one that names it (Certificate.replaces).
    """
    lock_inspection(inspection)
    require_reviewer(actor, inspection)
    certificate = inspection_certificate(inspection.id, in_force=True)  # one returned earlier stays revoked
    if certificate is not None:
        record_revocation(actor, certificate, returned_reason(note), now, inspection.id)
    deficiencies = db.session.scalars(db.select(Deficiency).filter_by(inspection_id=inspection.id)).all()
    fines = db.session.scalars(db.select(FineAssessment).filter_by(inspection_id=inspection.id)).all()
    follow_ups = db.session.scalars(db.select(Inspection).filter_by(reinspection_of_id=inspection.id,
                                                                    status="scheduled")).all()
    record_event(actor, "inspection.returned", "inspection", inspection.id, inspection_id=inspection.id, at=now,
                 details={"note": note, "outcome": inspection.outcome,
                          "revoked_certificate": certificate.number if certificate else None,
                          "submitted_at": inspection.submitted_at.isoformat() if inspection.submitted_at else None,
                          "deficiencies": [{"item_id": d.item_id, "article": d.article, "action": d.action,
                                            "description": d.description} for d in deficiencies],
                          "fines": [{"code": f.code, "article": f.article, "amount": str(f.amount)} for f in fines],
                          "cancelled_reinspections": [f.id for f in follow_ups]})
    for follow_up in follow_ups:  # the re-inspection of repairs the closing scheduled (art. 206) goes with it
        follow_up.status, follow_up.cancelled_at = "cancelled", now
        follow_up.cancellation_reason = "Inspección devuelta para corrección (art. 221)."
    for record in (*deficiencies, *fines):
        db.session.delete(record)
    db.session.flush()  # the follow-up leaves the open slot before this inspection takes it again
    inspection.status, inspection.outcome, inspection.submitted_at = "in_progress", None, None
    inspection.review_status, inspection.review_note = "returned", note
    db.session.flush()
    return certificate


def review_queue():
    """The query of inspections waiting for the countersignature, oldest closing first."""
    return (db.select(Inspection).where(Inspection.review_status == "pending")
            .order_by(Inspection.submitted_at, Inspection.id))
