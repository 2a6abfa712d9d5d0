"""The reviewer's pages (art. 221): the queue of closed inspections waiting for the countersignature, and the two
acts on an inspection's report, countersign or return, each asked once and said on the next page."""
from flask import Blueprint, redirect, render_template, request, url_for
from flask_login import current_user
from sqlalchemy.orm import joinedload

from inspection.accounts.auth import require_page
from inspection.certificates.keys import signer
from inspection.core.clock import office_date, office_now, office_today, office_zone
from inspection.core.exceptions import DomainError
from inspection.core.extensions import db
from inspection.core.models import Certificate, Inspection, Photo
from inspection.core.office import current_office
from inspection.i18n.messages import Msg
from inspection.inspections.operations import get_inspection_for
from inspection.media.configured import media_storage
from inspection.review.operations import countersign_inspection, return_inspection, review_queue
from inspection.review.schemas import CountersignFormSchema, ReturnFormSchema
from inspection.web.acts import ask_confirmation, confirmed, report_done
from inspection.web.forms import load_form

bp = Blueprint("review", __name__)


@bp.route("/refrendos")
@require_page("reviewer", "admin")
def review_queue_page():
    """Closed inspections waiting for the countersignature, oldest first, with what the reviewer should look at."""
    waiting = db.session.scalars(review_queue().options(joinedload(Inspection.vessel),
                                                        joinedload(Inspection.inspector))).all()
    ids = [i.id for i in waiting]
    certificates = {c.inspection_id: c for c in db.session.scalars(  # by id: each one's newest wins (in force if any)
        db.select(Certificate).where(Certificate.inspection_id.in_(ids)).order_by(Certificate.id))} if ids else {}
    flagged: dict[int, int] = {}
    for inspection_id, flags in db.session.execute(
            db.select(Photo.inspection_id, Photo.flags).where(Photo.inspection_id.in_(ids))).all() if ids else ():
        flagged[inspection_id] = flagged.get(inspection_id, 0) + bool(flags)
    return render_template("review/queue.html", waiting=waiting, certificates=certificates, flagged=flagged,
                           today=office_today())


def _act(inspection_id: int, schema, ask: tuple, act):
    """Validate the form, ask once, run the act and commit; back to the report saying what happened (or why not)."""
    inspection = get_inspection_for(current_user, inspection_id)
    report = url_for("inspections.inspection_report", inspection_id=inspection.id, _anchor="refrendo")
    data, errors = load_form(request.form, schema())
    if errors:
        report_done(" ".join(text for texts in errors.values() for text in texts), "bad")
        return redirect(report)
    if not confirmed():
        question, consequence, button = ask
        return ask_confirmation(Msg(question.template, id=inspection.id), consequence, button, report)
    try:
        done = act(inspection, data)
        db.session.commit()
    except DomainError as error:
        db.session.rollback()
        report_done(error.detail or Msg("No se pudo completar."), "bad")
        return redirect(report)
    report_done(done)
    return redirect(url_for(".review_queue_page"))


@bp.route("/inspecciones/<int:inspection_id>/refrendar", methods=["POST"])
@require_page("reviewer")
def countersign_page(inspection_id):
    """Countersign from the report page: the drawn signature comes in the form."""

    def act(inspection, data):
        now = office_now()
        office = current_office()
        certificate = countersign_inspection(current_user, inspection, data["signature"], office, signer(office, now),
                                             office_date(now), now, office_zone(), media_storage())
        if certificate is None:
            return Msg("Inspección n.º {id} refrendada.", id=inspection.id)
        return Msg("Inspección n.º {id} refrendada: el certificado {number} lleva las dos firmas (art. 221).",
                   id=inspection.id, number=certificate.number)

    return _act(inspection_id, CountersignFormSchema, ASK["countersign"], act)


@bp.route("/inspecciones/<int:inspection_id>/devolver", methods=["POST"])
@require_page("reviewer")
def return_page(inspection_id):
    """Return to the inspector with the note of what to correct."""

    def act(inspection, data):
        revoked = return_inspection(current_user, inspection, data["note"], office_now())
        if revoked is not None:
            return Msg("Inspección n.º {id} devuelta a su inspector con la nota; su certificado {number} quedó "
                       "revocado y el nuevo cierre emitirá otro.", id=inspection.id, number=revoked.number)
        return Msg("Inspección n.º {id} devuelta a su inspector con la nota.", id=inspection.id)

    return _act(inspection_id, ReturnFormSchema, ASK["return"], act)


ASK = {
    "countersign": (Msg("¿Refrendar la inspección n.º {id}?"),
                    Msg("El refrendo no se deshace: su firma queda en el informe y en el certificado, y la policía "
                        "lo verá como refrendado."), Msg("Sí, refrendar")),
    "return": (Msg("¿Devolver la inspección n.º {id} a su inspector?"),
               Msg("La devolución no se deshace: la inspección vuelve a estar en curso, sus deficiencias y multas se "
                   "retiran (quedan en la auditoría), el certificado que haya emitido al cierre queda revocado, y el "
                   "inspector deberá cerrarla de nuevo (el nuevo cierre emite otro certificado)."),
               Msg("Sí, devolver")),
}
