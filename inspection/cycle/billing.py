"""What an inspection costs its owner, from the particulars it was (or will be) inspected with, and the fines
an inspection itself finds (art. 232)."""
from datetime import date
from decimal import Decimal

from sqlalchemy import and_, or_

from inspection.core.exceptions import Invalid
from inspection.core.extensions import db
from inspection.core.models import Application, Deficiency, FineAssessment, Inspection
from inspection.i18n.messages import Msg
from inspection.law.cycle import SOURCE
from inspection.law.fees import fee_statement, inspection_fees, not_charged
from inspection.law.legal_terms import fine_term
from inspection.registry.vessels import particulars_of

CENTS = Decimal("0.01")


def services_of(inspection: Inspection) -> dict[str, int]:
    """The art. 233 services the inspector recorded at closing: reports or damage surveys, valves sealed again."""
    return {"reports": inspection.reports or 0, "valve_reseals": inspection.valve_reseals or 0}


def closing_services(inspection: Inspection, data: dict) -> dict[str, int]:
    """The art. 233 services a closing records, refused on a hull inspection: art. 233 is the tariff of "los
    servicios de la Inspección de Máquinas y Calderas"."""
    services = {key: data.get(key) or 0 for key in ("reports", "valve_reseals")}
    if inspection.kind != "seguridad" and any(services.values()):
        raise Invalid(errors={key: [Msg("Los informes y el resellado de válvulas son servicios de la Inspección de "
                                        "Máquinas (art. 233): se registran en la inspección de seguridad.")]
                              for key, count in services.items() if count})
    return services


def fee_statement_of(inspection: Inspection, lang: str = "es") -> dict:
    """The fee lines (arts. 209, 233) of an inspection: its pinned particulars once started, else the vessel's;
    with the notes that say what it is not charged and why (a raft's hull, a vessel without boilers)."""
    particulars = inspection.particulars or particulars_of(inspection.vessel)
    return fee_statement(inspection_fees(inspection.kind, particulars, services_of(inspection)),
                         not_charged(inspection.kind, particulars), lang)


def breached(deficiencies, provisions: tuple[str, ...]) -> list:
    """The deficiencies on items that cite one of `provisions` of Ley 928 (a fine's articles, legal_terms.toml)."""
    return [d for d in deficiencies if d.source == SOURCE and d.article in provisions]


def assess_inspection_fines(inspection: Inspection, deficiencies: list[Deficiency], today: date) -> list[FineAssessment]:
    """Art. 232's fine on an inspection that found the plans' provisions (arts. 227-231) unmet: one per inspection,
    whatever the number of items ("la falta de cumplimiento de estas disposiciones"). Flushes nothing."""
    term = fine_term("plans")
    found = breached(deficiencies, term.provisions)
    if not found:
        return []
    articles = ", ".join(f"art. {article}" for article in sorted({d.article for d in found}, key=int))
    reason = Msg("Incumplimiento de las disposiciones sobre planos y construcción de máquinas y calderas "
                 "({articles}), hallado en la inspección (art. 232).", articles=articles)
    fine = FineAssessment(vessel_id=inspection.vessel_id, inspection_id=inspection.id, code="plans", source=SOURCE,
                          article=term.article, amount=term.amount, reason_es=reason.in_language("es"),
                          reason_en=reason.in_language("en"), assessed_on=today)
    db.session.add(fine)
    return [fine]


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
    """The fines this inspection bills, oldest first: its own (art. 232), those assessed on the applications it
    answered (arts. 204, 225), and art. 225's fine that the daily run assessed on the expired certificate those
    applications renew (an owner who "no presente a su debido tiempo la solicitud" may never file one: no
    application carries it)."""
    answered = db.select(Application.id).where(Application.inspection_id == inspection.id)
    renewed = db.select(Application.certificate_id).where(Application.inspection_id == inspection.id)
    return db.session.scalars(db.select(FineAssessment).where(or_(
        FineAssessment.inspection_id == inspection.id,
        FineAssessment.application_id.in_(answered),
        and_(FineAssessment.application_id.is_(None), FineAssessment.certificate_id.in_(renewed))))
        .order_by(FineAssessment.id)).all()


def charges_of(inspection: Inspection, lang: str) -> dict:
    """The fee statement plus the fines of the linked application and what is owed (waived fines owe nothing).

    The double fee of a late hull application (art. 204) is recorded as the application's `double_fee`
    fine (applications.apply_for_inspection), so it shows among the fines, beside the single fee.
    """
    statement = fee_statement_of(inspection, lang)
    fines = [fine_json(fine, lang) for fine in fines_of(inspection)]
    fines_total = sum((fine["amount"] for fine in fines if fine["waived_at"] is None), Decimal(0))
    return {**statement, "fines": fines, "fines_total": fines_total, "owed": statement["total"] + fines_total}
