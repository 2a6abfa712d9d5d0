"""Passengers aboard: within the Prefectura's maximum (Ley 928 art. 184), or none without authorisation (art. 13)."""

import pytest

from checklists import build_checklist, load_catalog
from tests.fixtures.checklists import vessel_particulars

WITHIN = "nav.passengers.within_maximum"  # art. 184, navegabilidad
NOT_AUTHORISED = "doc.passengers.not_authorised"  # art. 13, documentacion (either inspection)
SMALL_CRAFT = "men.passengers.within_maximum"  # art. 184, the police or harbour check of small craft (art. 210)


def passenger_items(vessel):
    """The two passenger-count items that apply to `vessel`, each with its built item."""
    found = {}
    for kind in load_catalog().kinds:
        result = build_checklist(load_catalog().get(kind), vessel)
        found.update({item["id"]: item for item in result["items"]
                      if item["id"] in (WITHIN, NOT_AUTHORISED, SMALL_CRAFT)})
    return found


@pytest.mark.parametrize("label, vessel, maximum, not_authorised", [
    ("motor passenger vessel, maximum 40", vessel_particulars(service="passenger", max_passengers=40), 40, False),
    ("steam passenger vessel, maximum 200", vessel_particulars(propulsion="steam", service="passenger", boilers=2,
                                                        max_passengers=200, cabins=60), 200, False),
    ("mixed vessel, maximum 25", vessel_particulars(service="mixed", max_passengers=25), 25, False),
    # passenger or mixed service but no maximum set: not "habilitado" for passengers (art. 13)
    ("mixed vessel, maximum 0", vessel_particulars(service="mixed", max_passengers=0), None, True),
    ("passenger vessel, maximum 0", vessel_particulars(service="passenger", max_passengers=0), None, True),
    ("cargo vessel, maximum 0", vessel_particulars(service="cargo"), None, True),
    ("cargo vessel with a maximum of 12", vessel_particulars(service="cargo", max_passengers=12), 12, False),
    ("tug, maximum 0", vessel_particulars(service="tug"), None, True),
    ("towed passenger barge, maximum 60", vessel_particulars(propulsion="towed", service="passenger", crew=2,
                                                      cooking="none", max_passengers=60), 60, False),
    ("raft, maximum 0", vessel_particulars(propulsion="towed", service="raft", crew=3, cooking="none"), None, True),
    ("sailing vessel of 30 t, maximum 8", vessel_particulars(propulsion="sail", gross_tonnage=30.0, max_passengers=8),
     8, False),
    # art. 210: no hull inspection, so no navegabilidad item; art. 13 does not reach a vessel with a maximum
    # (the small-craft check compares them with the maximum: test_small_craft_passengers_within_the_maximum)
    ("sailing vessel under 5 t, maximum 6", vessel_particulars(propulsion="sail", gross_tonnage=3.0, max_passengers=6),
     None, False),
    ("rowing boat, maximum 0", vessel_particulars(propulsion="rowing", gross_tonnage=1.0, crew=1, cooking="none"),
     None, True),
])
def test_passengers_are_counted_against_the_maximum_or_the_authorisation(label, vessel, maximum, not_authorised):
    found = passenger_items(vessel)
    assert (NOT_AUTHORISED in found) is not_authorised, label
    if maximum is None:
        assert WITHIN not in found, label
        return
    item = found[WITHIN]
    assert item["maximum"] == maximum and item["required"] is None
    assert item["unit"] == "pasajeros" and item["detainable"] is True
    assert (item["source"], item["article"]) == ("Ley 928/1927", "184")


def test_the_maximum_item_speaks_english_too():
    english = build_checklist(load_catalog().get("navegabilidad"), vessel_particulars(service="passenger", max_passengers=40),
                              lang="en")
    [item] = [i for i in english["items"] if i["id"] == WITHIN]
    assert item["unit"] == "passengers" and item["maximum"] == 40
    assert item["title"] == "Passengers aboard within the maximum set by the Prefectura"


def test_navegabilidad_version_is_bumped():
    assert load_catalog().get("navegabilidad").version == "2026.5"
    assert load_catalog().get("documentacion").version == "2026.6"  # fines as data (arts. 14, 17, 19)


@pytest.mark.parametrize("label, vessel, maximum", [
    ("ferry canoe, maximum 6", vessel_particulars(propulsion="rowing", gross_tonnage=1.0, crew=1, cooking="none",
                                           service="passenger", max_passengers=6), 6),
    ("sailing vessel under 5 t, maximum 6", vessel_particulars(propulsion="sail", gross_tonnage=3.0, max_passengers=6), 6),
    ("rowing boat, maximum 0", vessel_particulars(propulsion="rowing", gross_tonnage=1.0, crew=1, cooking="none"), None),
    ("sailing vessel of 30 t, maximum 8: hull inspection instead",
     vessel_particulars(propulsion="sail", gross_tonnage=30.0, max_passengers=8), None),
])
def test_small_craft_passengers_within_the_maximum(label, vessel, maximum):
    """Art. 210 exempts small craft from the hull inspection, not from art. 184's maximum."""
    found = passenger_items(vessel)
    if maximum is None:
        assert SMALL_CRAFT not in found, label
        return
    assert WITHIN not in found, label
    item = found[SMALL_CRAFT]
    assert (item["maximum"], item["required"], item["article"]) == (maximum, None, "184")
