"""Arqueo: the Prefectura's measurement of a vessel's tonnage (arts. 194-198), its fee (art. 199) and fine (art. 200).

An arqueo is an act the Prefectura records (POST /api/v1/vessels/{id}/arqueos): the dimensions measured become
the vessel's (art. 195 gives the tonnage), and the act keeps them with the day and who measured, as the register
of art. 197 does. The law measures a national vessel built or rebuilt in the Republic or a foreign one joining
the national register (art. 194), and measures again a vessel whose tonnage was altered (art. 198). It does not
measure the craft art. 210 exempts "de la inspección de cascos y arqueo", rafts (art. 234, a reading) or a vessel
that keeps a foreign flag: no act is recorded for those, and the vessel's arqueo statement says why.
Operations flush; the request commits.
"""
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy.orm import selectinload

from inspection.core.audit import record_event
from inspection.core.exceptions import Forbidden, Invalid
from inspection.core.extensions import db
from inspection.core.models import Arqueo, Deficiency, FineAssessment, User, Vessel
from inspection.cycle.billing import breached, fine_json
from inspection.i18n.messages import Msg
from inspection.law.cycle import SOURCE
from inspection.law.fees import arqueo_fee, fee_for, fee_statement, not_charged, note_json
from inspection.law.legal_terms import fine_term
from inspection.law.tonnage import shown_tonnage
from inspection.registry.vessel_checklists import checklist_for
from inspection.registry.vessels import particulars_of, update_vessel

MEASURERS = ("admin", "inspector")  # the Prefectura measures; owners read their vessels' arqueos
MEASUREMENT = ("hull_material", "length_m", "beam_m", "girth_m")  # what an arqueo takes (art. 195)


def arqueo_exemption(particulars: dict, lang: str) -> dict | None:
    """Why the law does not measure a vessel with these particulars ({source, article, reason}), or None if it does.

    The hull checklist's exemption is art. 210's, which exempts "de la inspección de cascos y arqueo" alike;
    the arqueo scale's own entries say the rest (a raft, a foreign flag: fee_scales.toml).
    """
    exemption = checklist_for(particulars, "navegabilidad", lang)["exemption"]
    if exemption is not None:
        return {"source": exemption["source"], "article": exemption["article"], "reason": exemption["reason"]}
    entries = not_charged("arqueo", particulars)
    return note_json(entries[0], lang) if entries else None


def record_arqueo(actor: User, vessel: Vessel, data: dict, today: date, now: datetime) -> Arqueo:
    """Record an arqueo measured on `today` (the office's date): the dimensions become the vessel's and the act keeps
    them with the tonnage; a vessel an inspection found unmeasured (an open deficiency on art. 194) is fined twice
    the fee (art. 200). Refused for a vessel the law does not measure, after the measurement (a sailing craft
    measured under 5 t is exempt, art. 210)."""
    if actor.role not in MEASURERS:
        raise Forbidden(Msg("Solo la Prefectura registra un arqueo."))
    update_vessel(vessel, {field: data[field] for field in MEASUREMENT})
    particulars = particulars_of(vessel)
    exemption = arqueo_exemption(particulars, "es")
    if exemption is not None:
        raise Invalid(Msg("La ley no arquea este buque ({source}, art. {article}): {reason}", **exemption))
    arqueo = Arqueo(vessel=vessel, measured_on=today, measured_by_id=actor.id, created_at=now,
                    **{field: getattr(vessel, field) for field in (*MEASUREMENT, "gross_tonnage")})
    db.session.add(arqueo)
    db.session.flush()
    fines = _assess_unmeasured(arqueo, arqueo_fee(particulars).charged_amount, today)
    record_event(actor, "arqueo.recorded", "arqueo", arqueo.id, at=now, details={
        "vessel_id": vessel.id, "measured_on": today.isoformat(), "gross_tonnage": str(arqueo.gross_tonnage),
        "fines": [{"article": f.article, "code": f.code, "amount": str(f.amount)} for f in fines]})
    return arqueo


def _assess_unmeasured(arqueo: Arqueo, fee: Decimal, today: date) -> list[FineAssessment]:
    """Art. 200's fine, "el doble de lo que correspondería pagar por cada operación de arqueo", on the arqueo of a
    vessel an inspection found unmeasured (art. 194): its deficiencies not yet closed."""
    term = fine_term("arqueo")
    found = breached(db.session.scalars(db.select(Deficiency).filter_by(vessel_id=arqueo.vessel_id)
                                        .where(Deficiency.status != "closed")), term.provisions)
    if not found:
        return []
    reason = Msg("La inspección n.º {inspection} halló el buque sin arquear (art. 194): multa del doble del arancel "
                 "del arqueo (art. 200).", inspection=found[0].inspection_id)
    fine = FineAssessment(vessel_id=arqueo.vessel_id, arqueo_id=arqueo.id, code="unmeasured", source=SOURCE,
                          article=term.article, amount=fee * term.fee_multiplier, reason_es=reason.in_language("es"),
                          reason_en=reason.in_language("en"), assessed_on=today)
    arqueo.fines.append(fine)
    return [fine]


def arqueo_json(arqueo: Arqueo, lang: str) -> dict:
    """An arqueo with what it charges: art. 199's row for the tonnage measured, its fines (art. 200), what is owed."""
    statement = fee_statement((fee_for("arqueo", shown_tonnage(arqueo.gross_tonnage)),), (), lang)
    fines = [fine_json(fine, lang) for fine in arqueo.fines]
    fines_total = sum((fine["amount"] for fine in fines if fine["waived_at"] is None), Decimal(0))
    return {"id": arqueo.id, "vessel_id": arqueo.vessel_id, "measured_on": arqueo.measured_on,
            "measured_by_id": arqueo.measured_by_id, "hull_material": arqueo.hull_material,
            "length_m": arqueo.length_m, "beam_m": arqueo.beam_m, "girth_m": arqueo.girth_m,
            "gross_tonnage": shown_tonnage(arqueo.gross_tonnage),
            "charges": {**statement, "fines": fines, "fines_total": fines_total,
                        "owed": statement["total"] + fines_total}}


def arqueos_of(vessel: Vessel, lang: str) -> dict:
    """The vessel's arqueos, newest first, each with its charges; and why the law does not measure it, if it does not."""
    arqueos = db.session.scalars(db.select(Arqueo).filter_by(vessel_id=vessel.id).options(selectinload(Arqueo.fines))
                                 .order_by(Arqueo.measured_on.desc(), Arqueo.id.desc())).all()
    return {"items": [arqueo_json(arqueo, lang) for arqueo in arqueos],
            "exemption": arqueo_exemption(particulars_of(vessel), lang)}
