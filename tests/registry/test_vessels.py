"""Pure rules of the registry: registration keys and impossible particulars."""
from decimal import Decimal

import pytest

from inspection.registry.vessels import clean_registration, particular_errors, registration_key

BASE = {"propulsion": "motor", "service": "cargo", "flag": "national", "crew": 3, "boilers": 0,
        "max_passengers": 0, "cabins": 0, "steam_launch": False, "length_m": Decimal(20), "beam_m": Decimal(5)}


@pytest.mark.parametrize("raw, key, shown", [
    ("py 1234", "PY1234", "PY 1234"),
    ("  PY-1234 ", "PY-1234", "PY-1234"),
    ("p y\t12", "PY12", "P Y 12"),
])
def test_registration_normalisation(raw, key, shown):
    assert registration_key(raw) == key
    assert clean_registration(raw) == shown


@pytest.mark.parametrize("changes, fields", [
    ({}, set()),
    ({"propulsion": "rowing", "boilers": 1}, {"boilers"}),
    ({"propulsion": "steam", "boilers": 0}, {"boilers"}),
    ({"propulsion": "steam", "boilers": 1, "steam_launch": True}, set()),
    ({"steam_launch": True}, {"steam_launch", "boilers"}),
    ({"service": "passenger"}, {"max_passengers"}),
    ({"service": "mixed", "max_passengers": 0, "cabins": 4}, {"max_passengers", "cabins"}),
    ({"crew": 0}, {"crew"}),
    ({"propulsion": "towed", "crew": 0}, set()),
    ({"flag": "foreign"}, {"cabotage_permit"}),
    ({"flag": "foreign", "cabotage_permit": "CAB-1"}, set()),
    ({"cabotage_permit": "CAB-1"}, {"cabotage_permit"}),
    ({"practicaje": "fixed_itinerary"}, set()),  # Decreto 6383 art. 1 b: national vessels only
    ({"flag": "foreign", "cabotage_permit": "CAB-1", "practicaje": "fixed_itinerary"}, {"practicaje"}),
    ({"flag": "foreign", "cabotage_permit": "CAB-1", "practicaje": "beyond_angostura"}, set()),
    ({"beam_m": Decimal(21)}, {"beam_m"}),
])
def test_particular_errors(changes, fields):
    assert set(particular_errors({**BASE, **changes})) == fields
