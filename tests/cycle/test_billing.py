"""An inspection's fee lines (arts. 209, 233): the pinned particulars decide, owners see only their own."""
from datetime import date, datetime, timezone
from decimal import Decimal

import pytest

from inspection.cycle.billing import fee_statement_of
from inspection.inspections.operations import schedule_inspection, start_inspection

DAY = date(2026, 11, 30)
NOW = datetime(2026, 11, 30, 14, 0, tzinfo=timezone.utc)


@pytest.fixture
def planned(db, make_user, make_vessel):
    """Build a scheduled inspection of a kind on a vessel with overrides: (inspection, owner user)."""

    def make(kind="navegabilidad", **vessel):
        admin, inspector, owner = make_user("admin"), make_user("inspector"), make_user("owner")
        boat = make_vessel(owner_id=owner.owner_id, **vessel)
        inspection = schedule_inspection(admin, boat, kind, inspector, DAY, "Asunción", DAY)
        db.session.commit()
        return inspection, owner, inspector

    return make


def test_hull_inspection_charges_art_209_by_certified_tonnage(planned):
    inspection, *_ = planned("navegabilidad", length_m=45, beam_m=8, girth_m=14, hull_material="iron")  # 346,33 t
    statement = fee_statement_of(inspection)
    assert [(line["article"], line["quantity"], line["amount"]) for line in statement["lines"]] == [
        ("209", 1, Decimal("1250")), ("209", 97, Decimal("97"))]  # 201-250 row, then 97 started tons above 250
    assert statement["lines"][0]["amount_first"] == Decimal("350")
    assert statement["total"] == Decimal("1347")


def test_machinery_inspection_charges_art_233_per_pinned_boiler(planned, db):
    inspection, _, inspector = planned("seguridad", propulsion="steam", boilers=2)
    start_inspection(inspector, inspection, NOW)
    inspection.vessel.boilers = 3  # changed after the start: the pinned particulars decide
    db.session.commit()
    statement = fee_statement_of(inspection)
    assert [(line["article"], line["quantity"], line["amount"]) for line in statement["lines"]] == [
        ("233", 2, Decimal("200"))]


def test_machinery_inspection_without_boilers_has_no_scale_fee_and_says_why(planned):
    inspection, *_ = planned("seguridad", boilers=0)
    assert fee_statement_of(inspection) == {"lines": [], "total": Decimal("0"), "charged": "amount_cl", "notes": [
        {"source": "Ley 928/1927", "article": "233",
         "reason": "El art. 233 cobra la inspección semestral «por cada caldera», y el buque no tiene calderas."}]}


RAFT = dict(propulsion="towed", service="raft", hull_material="wood", length_m=100, beam_m=20, girth_m=20, crew=0,
            holds=0, boats=0, fire_hydrants=0, cooking="none")


def test_a_rafts_hull_inspection_charges_nothing_from_an_invented_girth_and_says_why(client, planned, token_for):
    import pypdfium2

    inspection, owner, _ = planned("navegabilidad", **RAFT)
    assert inspection.vessel.gross_tonnage > 2000  # what art. 195 makes of the girth a raft does not have
    body = client.get(f"/api/v1/inspections/{inspection.id}/fees", headers=token_for(owner)).json
    assert (body["lines"], Decimal(body["total"]), Decimal(body["owed"])) == ([], 0, 0)
    assert [(note["article"], note["reason"][:25]) for note in body["notes"]] == [("234", "Las balsas no se arquean ")]
    pdf = client.get(f"/api/v1/inspections/{inspection.id}/fees.pdf", headers=token_for(owner)).data
    text = " ".join(pypdfium2.PdfDocument(pdf)[0].get_textpage().get_text_range().split())
    assert "Ley 928/1927, art. 234: Las balsas no se arquean" in text


def test_fees_endpoint_for_the_owner_and_404_for_another(client, planned, token_for, make_user):
    inspection, owner, _ = planned("navegabilidad")
    response = client.get(f"/api/v1/inspections/{inspection.id}/fees", headers=token_for(owner))
    assert response.status_code == 200
    assert response.json["lines"][0]["source"] == "Ley 928/1927" and response.json["total"] == str(
        fee_statement_of(inspection)["total"])
    stranger = make_user("owner")
    assert client.get(f"/api/v1/inspections/{inspection.id}/fees", headers=token_for(stranger)).status_code == 404
    assert client.get(f"/api/v1/inspections/{inspection.id}/fees").status_code == 401
