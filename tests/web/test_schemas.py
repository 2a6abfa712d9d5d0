"""The hand-written fast dumps stay identical to their marshmallow schemas."""
import pytest

from inspection.registry.schemas import VesselSchema, vessel_json


@pytest.mark.parametrize("overrides", [
    {},
    {"flag": "foreign", "cabotage_permit": "CAB-9", "propulsion": "steam", "boilers": 2, "steam_launch": True},
    {"length_m": "12.35", "beam_m": "3.1", "girth_m": "4.75", "hull_material": "wood", "itinerary_category": "D"},
])
def test_vessel_json_equals_the_schema(make_vessel, overrides):
    from decimal import Decimal
    overrides = {k: Decimal(v) if k.endswith("_m") else v for k, v in overrides.items()}
    vessel = make_vessel(**overrides)
    assert vessel_json(vessel) == VesselSchema().dump(vessel)


@pytest.mark.parametrize("length", ["10", "10.00", "10.000000"])
def test_exact_tonnage_keeps_the_digits_of_each_spelling_of_a_length(length):
    """10 and 10.00 are equal Decimals with one hash; the remembered quotient is keyed by text, so each gets its own."""
    from decimal import Decimal
    from types import SimpleNamespace

    from inspection.law.tonnage import gross_tonnage
    from inspection.registry.schemas import exact_tonnage
    vessel = SimpleNamespace(length_m=Decimal(length), beam_m=Decimal("4.5"), girth_m=Decimal("7"), hull_material="iron")
    for _ in range(2):  # computed, then remembered
        assert exact_tonnage(vessel) == str(gross_tonnage(Decimal(length), Decimal("4.5"), Decimal("7"), "iron"))
