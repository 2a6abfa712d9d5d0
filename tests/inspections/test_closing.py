"""Closing an inspection charges what the law sets there: art. 233's services, art. 232's fine; a hull closing refuses
machinery services."""
from decimal import Decimal

import pytest

from inspection.core.models import FineAssessment, Inspection
from inspection.registry.vessels import update_vessel
from tests.fixtures.inspections import answer_all, schedule, submit

BOILER = "Por inspección de caldera semestralmente, por cada caldera $ 350.- c/l. 100"
REPORT = "Por informes, peritajes de averías, etc. $ 500.- c/l 200"
RESEAL = "Por sellar de nuevo válvulas, cuyo corte ha sido autorizado $ 150.- c/l. 350"


@pytest.mark.parametrize("boilers, fail, services, lines, fines", [
    # Art. 233: the reports and the valves sealed again that the inspector records, per unit, beside the boilers.
    (0, (), {"reports": 1, "valve_reseals": 2}, [(REPORT, 1, "200"), (RESEAL, 2, "700")], []),
    (1, (), {"valve_reseals": 1}, [(BOILER, 1, "100"), (RESEAL, 1, "350")], []),
    (1, (), {}, [(BOILER, 1, "100")], []),
    # Art. 232: the plans' provisions (arts. 227-231) found unmet, once per inspection whatever the items.
    (0, ("seg.machinery.plans",), {}, [], [("232", "plans", "500.00", "art. 227")]),
    (1, ("seg.machinery.plans", "seg.boilers.foreign_built"), {}, [(BOILER, 1, "100")],
     [("232", "plans", "500.00", "art. 227, art. 230")]),
])
def test_a_seguridad_closing_charges_art_233_services_and_art_232s_fine(client, crew, db, boilers, fail, services,
                                                                        lines, fines):
    update_vessel(crew["vessel"], {"boilers": boilers})  # a motor vessel's auxiliary boiler (art. 226)
    db.session.commit()
    inspection_id = schedule(client, crew, "seguridad")
    assert client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"]).status_code == 200
    items = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json["items"]
    answer_all(client, crew, inspection_id, items, fail=fail)
    assert submit(client, crew, inspection_id, **services).status_code == 200
    charges = client.get(f"/api/v1/inspections/{inspection_id}/fees", headers=crew["oh"]).json
    assert [(line["description"], line["quantity"], Decimal(line["amount"])) for line in charges["lines"]] == [
        (text, quantity, Decimal(amount)) for text, quantity, amount in lines]
    assert [(f["article"], f["code"], f["amount"]) for f in charges["fines"]] == [f[:3] for f in fines]
    for *_, articles in fines:
        assert f"({articles}), hallado en la inspección (art. 232)" in charges["fines"][0]["reason"]
    expected = sum((Decimal(amount) for *_, amount in lines), Decimal(0)) + sum(
        (Decimal(f[2]) for f in fines), Decimal(0))
    assert Decimal(charges["owed"]) == expected
    assert db.session.scalar(db.select(db.func.count()).select_from(FineAssessment)
                             .filter_by(inspection_id=inspection_id)) == len(fines)


def test_a_hull_closing_refuses_machinery_services(client, crew, db):
    inspection_id = schedule(client, crew, "navegabilidad")
    assert client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"]).status_code == 200
    items = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json["items"]
    answer_all(client, crew, inspection_id, items)
    response = submit(client, crew, inspection_id, reports=1)
    assert response.status_code == 422
    assert response.json["errors"]["reports"] == [
        "Los informes y el resellado de válvulas son servicios de la Inspección de Máquinas (art. 233): se registran "
        "en la inspección de seguridad."]
    assert db.session.get(Inspection, inspection_id).status == "in_progress"  # nothing written
