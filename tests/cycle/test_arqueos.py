"""The arqueo as an act (arts. 194-198): its fee (art. 199), its fine (art. 200), and why a vessel is not measured."""
from decimal import Decimal

import pytest

from inspection.core.models import Arqueo, AuditEvent, Vessel
from inspection.law.tonnage import gross_tonnage, shown_tonnage
from tests.fixtures.inspections import answer_all, cid, schedule, submit

MEASURED = {"hull_material": "iron", "length_m": 30, "beam_m": 7, "girth_m": 12}  # 30 × ((7 + 12) / 2)² × 0.18 / 2.83


def arqueo(client, crew, vessel_id=None, headers=None, **measured):
    body = {**MEASURED, **measured}
    return client.post(f"/api/v1/vessels/{vessel_id or crew['vessel'].id}/arqueos", json=body,
                       headers=headers or crew["ih"])


def test_an_arqueo_charges_art_199_by_the_tonnage_it_measures_and_becomes_the_vessels(client, crew, db):
    response = arqueo(client, crew)
    assert response.status_code == 201, response.json
    tons = shown_tonnage(gross_tonnage("30", "7", "12", "iron"))
    assert tons == Decimal("172.21")
    body = response.json
    assert (body["gross_tonnage"], body["length_m"], body["girth_m"]) == (172.21, 30.0, 12.0)
    assert [(line["source"], line["article"], line["description"], Decimal(line["amount"]))
            for line in body["charges"]["lines"]] == [
        ("Ley 928/1927", "199", "De 101 a 200 toneladas $ 300.- c/l. 1000", Decimal("1000"))]
    assert (body["charges"]["fines"], Decimal(body["charges"]["owed"])) == ([], Decimal("1000"))
    vessel = db.session.get(Vessel, crew["vessel"].id)
    assert (vessel.girth_m, shown_tonnage(vessel.gross_tonnage)) == (Decimal("12"), tons)  # the vessel's now
    recorded = db.session.scalars(db.select(Arqueo).filter_by(vessel_id=vessel.id)).one()
    assert recorded.measured_by_id == crew["inspector"].id
    assert db.session.scalar(db.select(AuditEvent).filter_by(action="arqueo.recorded")).details["gross_tonnage"]
    listed = client.get(f"/api/v1/vessels/{vessel.id}/arqueos", headers=crew["oh"]).json
    assert ([item["id"] for item in listed["items"]], listed["exemption"]) == ([recorded.id], None)


def test_a_vessel_an_inspection_found_unmeasured_pays_twice_the_fee_as_art_200s_fine(client, crew):
    inspection_id = schedule(client, crew, "navegabilidad")
    assert client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"]).status_code == 200
    items = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json["items"]
    answer_all(client, crew, inspection_id, items, fail=("nav.tonnage.measured",))  # art. 194: never measured
    assert submit(client, crew, inspection_id).status_code == 200
    response = arqueo(client, crew)
    assert response.status_code == 201, response.json
    charges = response.json["charges"]
    assert [(f["source"], f["article"], f["code"], f["amount"]) for f in charges["fines"]] == [
        ("Ley 928/1927", "200", "unmeasured", "2000.00")]  # "el doble de lo que correspondería pagar"
    assert f"La inspección n.º {inspection_id} halló el buque sin arquear (art. 194)" in charges["fines"][0]["reason"]
    assert [Decimal(charges[key]) for key in ("total", "fines_total", "owed")] == [1000, 2000, 3000]


@pytest.mark.parametrize("vessel, measured, article, words", [
    ({"propulsion": "towed", "service": "raft", "crew": 0, "holds": 0, "boats": 0, "cooking": "none",
      "fire_hydrants": 0}, {"hull_material": "wood", "length_m": 100, "beam_m": 20, "girth_m": 20},
     "234", "Las balsas no se arquean"),
    ({"flag": "foreign", "cabotage_permit": "CAB-1"}, {}, "194", "que se incorporasen a la Matrícula Nacional"),
    ({"propulsion": "sail", "crew": 2, "fire_hydrants": 0, "cooking": "none"},
     {"hull_material": "wood", "length_m": 6, "beam_m": 2, "girth_m": 3}, "210", "exceptuados"),  # measured: 2,25 t
])
def test_a_vessel_the_law_does_not_measure_is_refused_and_told_why(client, crew, make_vessel, db, vessel, measured,
                                                                      article, words):
    boat = make_vessel(owner_id=crew["owner"].owner_id, **vessel)
    response = arqueo(client, crew, boat.id, **measured)
    assert response.status_code == 422
    assert f"art. {article}): " in response.json["detail"] and words in response.json["detail"]
    assert db.session.scalar(db.select(Arqueo).filter_by(vessel_id=boat.id)) is None
    listed = client.get(f"/api/v1/vessels/{boat.id}/arqueos", headers=crew["oh"]).json
    assert listed["items"] == [] and listed["exemption"]["article"] == article and words in listed["exemption"]["reason"]


def test_only_the_prefectura_measures_and_owners_see_only_their_own(client, crew, as_role):
    assert arqueo(client, crew, headers=crew["oh"]).status_code == 403
    assert arqueo(client, crew, headers=crew["admin"]).status_code == 201
    _, stranger = as_role("owner")
    assert client.get(f"/api/v1/vessels/{crew['vessel'].id}/arqueos", headers=stranger).status_code == 404


def test_an_arqueo_retried_with_its_client_id_is_recorded_and_charged_once(client, crew, db):
    client_id = cid()
    first, again = (arqueo(client, crew, client_id=client_id) for _ in range(2))
    assert (first.status_code, again.status_code, again.json["id"]) == (201, 201, first.json["id"])
    assert db.session.scalar(db.select(db.func.count()).select_from(Arqueo)) == 1
