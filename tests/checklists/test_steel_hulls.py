"""Steel hulls: accepted wherever a hull material is, and measured and inspected as iron (Ley 928 art. 195)."""
from decimal import Decimal

import pytest

from checklists import build_checklist, load_catalog
from inspection.core.models import Vessel
from inspection.i18n.labels import label
from inspection.law.tonnage import gross_tonnage, tonnage_formula
from tests.fixtures.checklists import VESSEL
from tests.web.test_pages import login

PROPULSIONS = ("steam", "motor", "sail", "rowing", "towed")
SERVICES = ("passenger", "cargo", "mixed", "tug", "livestock", "tanker", "raft", "work")


@pytest.mark.parametrize("length, beam, girth", [("45", "8", "14"), ("12.35", "3.1", "4.75"), ("5", "1.2", "2")])
def test_steel_tonnage_is_the_iron_tonnage(length, beam, girth):
    """Art. 195's 0.18 for "caso de hierro" (so printed: iron hulls) is steel's factor too."""
    assert gross_tonnage(length, beam, girth, "steel") == gross_tonnage(length, beam, girth, "iron")
    assert gross_tonnage(length, beam, girth, "steel") != gross_tonnage(length, beam, girth, "wood")


@pytest.mark.parametrize("lang, words", [("es", "casco de acero, factor del hierro"), ("en", "steel hull, iron's factor")])
def test_the_formula_says_steel_takes_the_iron_factor(lang, words):
    formula = tonnage_formula("45", "8", "14", "steel", lang)
    assert words in formula and "0.18" in formula.replace(",", ".")


def _vessel(**overrides):
    vessel = dict(flag="national", propulsion="motor", service="cargo", hull_material="iron",
                  length_m=30.0, beam_m=7.0, girth_m=12.0, gross_tonnage=150.0, crew=8,
                  max_passengers=10, cabins=2, fire_hydrants=2, holds=1, boilers=1, steam_launch=False,
                  boats=1, cooking="galley", hot_climate=False)
    return {**vessel, **overrides}


@pytest.mark.parametrize("propulsion", PROPULSIONS)
@pytest.mark.parametrize("service", SERVICES)
def test_a_steel_vessel_gets_the_iron_vessels_items(propulsion, service):
    """Every checklist, every kind of vessel: the same items and quantities for steel as for iron."""
    catalog = load_catalog()
    for kind in catalog.kinds:
        iron = build_checklist(catalog.get(kind), _vessel(propulsion=propulsion, service=service), None, "es")
        steel = build_checklist(catalog.get(kind), _vessel(propulsion=propulsion, service=service,
                                                           hull_material="steel"), None, "es")
        assert steel == iron


@pytest.mark.parametrize("lang, text", [("es", "Acero"), ("en", "Steel")])
def test_steel_label_in_both_languages(lang, text):
    assert label("hull_material", "steel", lang) == text


@pytest.fixture
def admin(as_role):
    return as_role("admin")[1]


def test_api_accepts_a_steel_vessel_with_the_iron_tonnage(client, admin, make_owner, db):
    owner = make_owner()
    response = client.post("/api/v1/vessels", json={**VESSEL, "owner_id": owner.id, "hull_material": "steel"},
                           headers=admin)
    assert response.status_code == 201, response.json
    assert response.json["hull_material"] == "steel"
    assert response.json["gross_tonnage"] == 346.33  # the 45 x 8 m, 14 m girth iron hull's art. 195 figure
    assert db.session.get(Vessel, response.json["id"]).hull_material == "steel"


def test_api_refuses_an_unknown_material(client, admin, make_owner):
    response = client.post("/api/v1/vessels", json={**VESSEL, "owner_id": make_owner().id, "hull_material": "acero"},
                           headers=admin)
    assert response.status_code == 422 and "hull_material" in response.json["errors"]


def test_page_form_offers_and_accepts_steel(client, make_user, make_owner, db):
    user, owner = make_user("admin"), make_owner()
    login(client, user)
    assert '<option value="steel"' in client.get("/buques/nuevo").get_data(as_text=True)
    form = {"registration": "py 8081", "name": "Acero", "owner_id": owner.id, "flag": "national",
            "home_port": "Asunción", "propulsion": "motor", "service": "cargo", "hull_material": "steel",
            "length_m": "45", "beam_m": "8", "girth_m": "14", "crew": "10", "max_passengers": "0",
            "boilers": "0", "cooking": "galley"}
    response = client.post("/buques/nuevo", data=form)
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    vessel = db.session.scalar(db.select(Vessel).filter_by(registration="PY 8081"))
    assert vessel.hull_material == "steel" and round(Decimal(str(vessel.gross_tonnage)), 2) == Decimal("346.33")
    page = client.get(f"/buques/{vessel.id}").get_data(as_text=True)
    assert "Acero" in page
