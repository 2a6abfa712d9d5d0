"""The hand-written fast dumps stay identical to their marshmallow schemas."""
import pytest

from inspection.schemas import VesselSchema, vessel_json


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
