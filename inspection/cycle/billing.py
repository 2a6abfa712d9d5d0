"""What an inspection costs its owner, from the particulars it was (or will be) inspected with."""
from decimal import Decimal

from sqlalchemy import and_, or_

from inspection.core.extensions import db
from inspection.core.models import Application, FineAssessment, Inspection
from inspection.law.fees import fee_statement, inspection_fees
from inspection.registry.vessels import particulars_of

CENTS = Decimal("0.01")


def fee_statement_of(inspection: Inspection) -> dict:
    """The fee lines (arts. 209, 233) of an inspection: its pinned particulars once started, else the vessel's."""
    particulars = inspection.particulars or particulars_of(inspection.vessel)
    return fee_statement(inspection_fees(inspection.kind, particulars))


def fine_json(fine, lang: str) -> dict:
    """A fine as the API shows it, its reason in `lang` (a FineAssessment or a pure Fine)."""
    recorded = isinstance(fine, FineAssessment)
    return {
        "id": fine.id if recorded else None, "code": fine.code, "source": fine.source, "article": fine.article,
        "amount": Decimal(fine.amount).quantize(CENTS), "reason": fine.reason_en if lang == "en" else fine.reason_es,
        "waived_at": fine.waived_at if recorded else None, "waived_by_id": fine.waived_by_id if recorded else None,
        "waived_reason": fine.waived_reason if recorded else None,
    }


def fines_of(inspection: Inspection) -> list[FineAssessment]:
    """The fines this inspection bills, oldest first: those assessed on the applications it answered (arts. 204,
    225), and art. 225's fine that the daily run assessed on the expired certificate those applications renew
    (an owner who "no presente a su debido tiempo la solicitud" may never file one: no application carries it)."""
    answered = db.select(Application.id).where(Application.inspection_id == inspection.id)
    renewed = db.select(Application.certificate_id).where(Application.inspection_id == inspection.id)
    return db.session.scalars(db.select(FineAssessment).where(or_(
        FineAssessment.application_id.in_(answered),
        and_(FineAssessment.application_id.is_(None), FineAssessment.certificate_id.in_(renewed))))
        .order_by(FineAssessment.id)).all()


def charges_of(inspection: Inspection, lang: str) -> dict:
    """The fee statement plus the fines of the linked application and what is owed (waived fines owe nothing).

    The double fee of a late hull application (art. 204) is recorded as the application's `double_fee`
    fine (applications.apply_for_inspection), so it shows among the fines, beside the single fee.
    """
    statement = fee_statement_of(inspection)
    fines = [fine_json(fine, lang) for fine in fines_of(inspection)]
    fines_total = sum((fine["amount"] for fine in fines if fine["waived_at"] is None), Decimal(0))
    return {**statement, "fines": fines, "fines_total": fines_total, "owed": statement["total"] + fines_total}
