"""Flammable cargo items (Ley 928 arts. 133, 135, 137, 138, 140; Colombian decree art. 36) from flammable_cargo_kg."""

from datetime import date

import pytest

from checklists import build_checklist, load_catalog
from inspection.core.exceptions import Invalid
from inspection.inspections.operations import check_answer
from inspection.inspections.outcomes import compute_outcome
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
    ("passenger vessel, 380 kg", passenger(380), None, {LIMIT_360, PERMIT, HOLD}),  # art. 138's matter only
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


# Finding 5 (issue 20): exceeding a passenger vessel's parcel limit is an art. 138 matter; being laden under
# arts. 133-137 is another reading, the same under both figures art. 138 prints.
LIMIT_400_ON = {"opt_art138_limit_400": True}
ART_138 = [
    # kg aboard, settings, laden (arts. 133-137), the art. 138 item, its maximum, passes it
    (380, None, False, LIMIT_360, 360, False),
    (380, LIMIT_400_ON, False, LIMIT_400, 400, True),
    (360, None, False, LIMIT_360, 360, True),
    (400, LIMIT_400_ON, False, LIMIT_400, 400, True),
    (400, None, False, LIMIT_360, 360, False),
    (401, None, True, LIMIT_360, 360, False),
    (401, LIMIT_400_ON, True, LIMIT_400, 400, False),
    (0, None, False, LIMIT_360, 360, True),
]


@pytest.mark.parametrize("kg, settings, laden, limit_item, maximum, passes", ART_138,
                         ids=[f"{row[0]} kg, {'400' if row[1] else '360'} kg limit" for row in ART_138])
def test_art_138_limit_and_being_laden_are_separate_readings(kg, settings, laden, limit_item, maximum, passes):
    items = {item["id"]: item for item in build_checklist(load_catalog().get("navegabilidad"), passenger(kg),
                                                          settings)["items"]}
    assert (LADEN <= set(items)) is laden and (not LADEN & set(items)) is (not laden)
    limit = items[limit_item]
    assert (limit["article"], limit["maximum"], limit["unit"], limit["detainable"]) == (
        "138", maximum, "kg de inflamables", True)
    if passes:
        check_answer(limit, {"result": "pass", "observed": kg})
    else:
        with pytest.raises(Invalid):  # the kilos aboard above the limit: the item cannot pass
            check_answer(limit, {"result": "pass", "observed": kg})
        outcome = compute_outcome([limit], {limit_item: {"result": "fail", "observed": kg}}, date(2026, 12, 1))
        assert outcome.outcome == "failed" and outcome.findings[0].article == "138"


def test_the_380_kg_passenger_vessel_keeps_its_fires():
    """Art. 137's ban binds laden vessels; 380 kg on a passenger vessel is art. 138's parcel under either figure."""
    for settings in (None, LIMIT_400_ON):
        assert "nav.flammables.no_fire" not in flammable_items(passenger(380), settings)
    assert "nav.flammables.no_fire" in flammable_items(passenger(500))
