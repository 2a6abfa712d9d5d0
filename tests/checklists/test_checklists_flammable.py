"""Flammable cargo items (Ley 928 arts. 133, 135, 137, 138, 140; Colombian decree art. 36) from flammable_cargo_kg."""

import pytest

from checklists import build_checklist, load_catalog
from tests.fixtures.checklists import vessel_particulars

LADEN = {"nav.flammables.not_idle_at_quay", "nav.flammables.red_flag", "nav.flammables.no_fire"}  # arts. 133-137
TOWLINE = "nav.flammables.steel_towline"  # art. 140
LIMIT_360, LIMIT_400 = "nav.flammables.passenger_limit_360", "nav.flammables.passenger_limit_400"  # art. 138
PERMIT = "nav.flammables.passenger_permit"  # art. 138
HOLD = "seg.fire.flammables_hold"  # Colombian decree art. 36
ALL = LADEN | {TOWLINE, LIMIT_360, LIMIT_400, PERMIT, HOLD}


def passenger(kg, **overrides):
    """A motor passenger vessel declaring `kg` of flammables as cargo."""
    return vessel_particulars(service="passenger", max_passengers=40, crew=6, flammable_cargo_kg=kg, **overrides)


def flammable_items(vessel, settings=None):
    """The applicable flammables items across the three checklists, with their required quantity."""
    got = {}
    for kind in load_catalog().kinds:
        for item in build_checklist(load_catalog().get(kind), vessel, settings)["items"]:
            if item["id"] in ALL:
                got[item["id"]] = item["required"]
    return got


CASES = [
    ("motor tanker, 0 kg", vessel_particulars(service="tanker", flammable_cargo_kg=0), None, set()),
    ("motor tanker, 400 t of fuel oil", vessel_particulars(service="tanker", flammable_cargo_kg=400_000), None,
     LADEN | {HOLD}),
    ("towed cargo barge, 5,000 kg of kerosene", vessel_particulars(propulsion="towed", service="cargo", crew=0,
                                                            cooking="none", flammable_cargo_kg=5_000), None,
     LADEN | {TOWLINE}),
    ("towed cargo barge, 0 kg", vessel_particulars(propulsion="towed", service="cargo", crew=0, cooking="none"), None,
     set()),
    ("motor cargo vessel, 50 kg", vessel_particulars(flammable_cargo_kg=50), None, LADEN | {HOLD}),
    ("sailing cargo vessel, 2,000 kg", vessel_particulars(propulsion="sail", flammable_cargo_kg=2_000), None, LADEN),
    ("steam cargo, 1,000 kg, decree off", vessel_particulars(propulsion="steam", boilers=1, flammable_cargo_kg=1_000),
     {"opt_apply_colombian_decree": False}, LADEN),
    ("passenger vessel, 0 kg", passenger(0), None, {LIMIT_360}),
    ("passenger vessel, 300 kg", passenger(300), None, {LIMIT_360, PERMIT, HOLD}),
    ("passenger vessel, 360 kg", passenger(360), None, {LIMIT_360, PERMIT, HOLD}),
    ("passenger vessel, 380 kg", passenger(380), None, {LIMIT_360, PERMIT, HOLD} | LADEN),
    ("passenger vessel, 380 kg, 400 kg limit", passenger(380), {"opt_art138_limit_400": True},
     {LIMIT_400, PERMIT, HOLD}),
    ("passenger vessel, 500 kg", passenger(500), None, {LIMIT_360, PERMIT, HOLD} | LADEN),
    ("passenger vessel, 500 kg, 400 kg limit", passenger(500), {"opt_art138_limit_400": True},
     {LIMIT_400, PERMIT, HOLD} | LADEN),
    ("mixed vessel, 5,000 kg", vessel_particulars(service="mixed", max_passengers=30, flammable_cargo_kg=5_000), None,
     {LIMIT_360, PERMIT, HOLD} | LADEN),
    ("towed passenger barge, 200 kg", passenger(200, propulsion="towed", cooking="none"), None,
     {LIMIT_360, PERMIT}),
]


@pytest.mark.parametrize("name, vessel, settings, expected", CASES, ids=[c[0] for c in CASES])
def test_flammables_items_follow_the_declared_cargo(name, vessel, settings, expected):
    got = flammable_items(vessel, settings)
    assert set(got) == expected, f"{name}: {sorted(got)}"
    assert all(required is None for required in got.values())  # yes/no items: no minimum quantity


def test_the_tanker_service_alone_brings_no_flammables_item():
    assert flammable_items(vessel_particulars(service="tanker", propulsion="towed", crew=0, cooking="none")) == {}


def test_an_unset_particular_counts_as_no_flammable_cargo():
    vessel = vessel_particulars(service="tanker")
    vessel.pop("flammable_cargo_kg", None)
    assert flammable_items(vessel) == {}


def test_the_towed_barge_items_quote_their_articles():
    items = {}
    for kind in load_catalog().kinds:
        barge = vessel_particulars(propulsion="towed", crew=0, cooking="none", flammable_cargo_kg=5_000)
        items.update({i["id"]: i for i in build_checklist(load_catalog().get(kind), barge)["items"]})
    assert items[TOWLINE]["article"] == "140" and "cables de acero" in items[TOWLINE]["text"]
    assert items["nav.flammables.no_fire"]["article"] == "137" and items["nav.flammables.no_fire"]["detainable"]
    assert items["nav.flammables.not_idle_at_quay"]["article"] == "133"
