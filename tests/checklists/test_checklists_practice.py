"""Foreign instruments: the Colombian decree's items are adopted practice (observations) unless declared binding."""

from datetime import date

import pytest

from checklists import ChecklistError, build_checklist, load_catalog
from inspection.inspections.outcomes import compute_outcome
from tests.fixtures.checklists import edit, vessel_particulars

COLOMBIAN = "Decreto colombiano de navegación fluvial"
BINDING = {"opt_binding_colombian_decree": True}
OFF = {"opt_apply_colombian_decree": False}
TODAY = date(2026, 12, 1)

HOT_STEAMER = vessel_particulars(propulsion="steam", service="passenger", crew=40, max_passengers=200, cabins=60,
                          fire_hydrants=7, holds=2, boilers=2, boats=4, hot_climate=True, flammable_cargo_kg=300)
HOT_MOTOR_CARGO = vessel_particulars(hot_climate=True, flammable_cargo_kg=5_000)
COOL_MOTOR_CARGO = vessel_particulars()
SAILING = vessel_particulars(propulsion="sail", crew=3, hot_climate=True)

HOT_STEAMER_ITEMS = {"nav.boats.canoe", "nav.boats.canoe_paddles", "nav.lights.sides", "nav.screens.insects",
                     "nav.health.medicine_chest", "nav.health.water_sterilizer", "seg.lifebuoys.hot_climate",
                     "seg.fire.engine",
                     "seg.fire.smoking_room", "seg.fire.flammables_hold", "seg.fire.flammables_marked",
                     "nav.rigging.compass"}  # compass: art. 18(3); packages marked: art. 36 (issue 20)
HOLD = "seg.fire.flammables_hold"  # art. 36: the only Colombian item the data marks detainable


def all_items(vessel, settings=None):
    """Every applicable item of the three checklists, by id (an exempt checklist adds none)."""
    catalog = load_catalog()
    return {item["id"]: item for kind in catalog.kinds
            for item in build_checklist(catalog.get(kind), vessel, settings)["items"]}


def foreign_items(vessel, settings=None):
    """(practice, detainable) of every item citing a foreign instrument."""
    return {i: (item["practice"], item["detainable"]) for i, item in all_items(vessel, settings).items()
            if item["foreign"]}


@pytest.mark.parametrize("vessel, settings, expected", [
    pytest.param(HOT_STEAMER, None, {i: (True, False) for i in HOT_STEAMER_ITEMS}, id="hot steamer, practice"),
    pytest.param(HOT_STEAMER, BINDING, {**{i: (False, False) for i in HOT_STEAMER_ITEMS}, HOLD: (False, True)},
                 id="hot steamer, declared binding"),
    pytest.param(HOT_STEAMER, OFF, {}, id="hot steamer, decree off"),
    pytest.param(HOT_STEAMER, {**OFF, **BINDING}, {}, id="decree off wins over binding"),
    pytest.param(HOT_MOTOR_CARGO, None,
                 {i: (True, False) for i in HOT_STEAMER_ITEMS - {"nav.health.water_sterilizer"}},
                 id="hot motor cargo with kerosene, practice"),
    pytest.param(HOT_MOTOR_CARGO, BINDING,  # a steamer's duty on a motor vessel: practice too (issue 20)
                 {**{i: (True, False) for i in HOT_STEAMER_ITEMS - {"nav.health.water_sterilizer"}},
                  "nav.lights.sides": (False, False), "nav.rigging.compass": (False, False),
                  # Colombian art. 45 binds "Todo buque", not through "vapor": binding with the decree
                  "nav.boats.canoe": (False, False), "nav.boats.canoe_paddles": (False, False)},
                 id="hot motor cargo with kerosene, the decree binding, the extension not"),
    pytest.param(HOT_MOTOR_CARGO, {**BINDING, "opt_binding_motor_extension": True},
                 {**{i: (False, False) for i in HOT_STEAMER_ITEMS - {"nav.health.water_sterilizer"}},
                  HOLD: (False, True)}, id="hot motor cargo with kerosene, both binding"),
    pytest.param(COOL_MOTOR_CARGO, None, {i: (True, False) for i in ("nav.boats.canoe", "nav.boats.canoe_paddles", "nav.lights.sides",
                                                                      "nav.lifebuoys.six_aboard", "nav.rigging.compass")},
                 id="cool motor cargo: arts. 18.3, 35 and 45 only"),
    pytest.param(SAILING, None, {i: (True, False) for i in ("nav.boats.canoe", "nav.boats.canoe_paddles",
                                                             "nav.lights.sides", "nav.lifebuoys.six_aboard",
                                                             "nav.rigging.compass")},
                 id="sailing vessel: arts. 18.3, 35 and 45 (every buque, issue 20)"),
])
def test_foreign_items_carry_their_standing(vessel, settings, expected):
    assert foreign_items(vessel, settings) == expected


@pytest.mark.parametrize("settings", [None, BINDING, OFF])
def test_paraguayan_items_are_never_practice_and_keep_their_data(settings):
    catalog = load_catalog()
    data = {i.id: i.detainable for kind in catalog.kinds for i in catalog.get(kind).items}
    for item_id, item in all_items(HOT_STEAMER, settings).items():
        if item["source"] != COLOMBIAN:
            assert (item["foreign"], item["practice"], item["detainable"]) == (False, False, data[item_id]), item_id


@pytest.mark.parametrize("settings, outcome, detainable, practice", [
    (None, "passed_with_observations", False, True),
    (BINDING, "failed", True, False),
])
def test_a_failed_hold_item_is_an_observation_unless_binding(settings, outcome, detainable, practice):
    items = list(all_items(HOT_STEAMER, settings).values())
    answers = {item["id"]: {"result": "fail" if item["id"] == HOLD else "pass"} for item in items}
    result = compute_outcome(items, answers, TODAY)
    assert result.outcome == outcome
    [finding] = result.findings
    assert (finding.item_id, finding.detainable, finding.practice) == (HOLD, detainable, practice)
    assert finding.action == ("before_departure" if detainable else "within_14_days")


def test_every_failed_practice_item_is_still_an_observation():
    items = list(all_items(HOT_STEAMER).values())
    answers = {item["id"]: {"result": "fail" if item["practice"] else "pass", "observed": 0} for item in items}
    result = compute_outcome(items, answers, TODAY)
    assert result.outcome == "passed_with_observations"
    assert {f.item_id for f in result.findings} == HOT_STEAMER_ITEMS and all(f.practice for f in result.findings)


def test_an_item_pinned_before_the_flag_keeps_what_applied():
    """A past inspection's pinned item has no `practice`: its pinned `detainable` still decides."""
    old = {"id": HOLD, "title": "Bodega", "source": COLOMBIAN, "article": "36", "detainable": True}
    result = compute_outcome([old], {HOLD: {"result": "fail"}}, TODAY)
    assert result.outcome == "failed" and not result.findings[0].practice


@pytest.mark.parametrize("source, old, new, message", [
    (COLOMBIAN, "foreign = true\n", "", "'foreign' must be true or false"),
    (COLOMBIAN, "foreign = true", 'foreign = "yes"', "'foreign' must be true or false"),
    (COLOMBIAN, 'binding_setting = "opt_binding_colombian_decree"\n', "",
     "a foreign instrument, and only a foreign one, names the 'binding_setting'"),
    (COLOMBIAN, '"opt_binding_colombian_decree"', '"opt_binding_decree"',
     "binding_setting 'opt_binding_decree' is not a boolean setting"),
    ("Ley 928/1927", "foreign = false", 'foreign = false\nbinding_setting = "opt_binding_colombian_decree"',
     "a foreign instrument, and only a foreign one"),
    ("Decreto 6383/1951", "foreign = false\n", "", "'foreign' must be true or false"),
])
def test_the_loader_refuses_a_wrong_standing(data_dir, source, old, new, message):
    text = (data_dir / "sources.toml").read_text(encoding="utf-8")
    start = text.index(f'["{source}"]')
    end = text.find("\n[", start + 1)
    end = len(text) if end == -1 else end
    block = text[start:end]
    assert old in block
    (data_dir / "sources.toml").write_text(text[:start] + block.replace(old, new, 1) + text[end:], encoding="utf-8")
    with pytest.raises(ChecklistError, match="sources.toml") as error:
        load_catalog(data_dir)
    assert message in str(error.value) and source in str(error.value)


def test_the_binding_setting_must_be_a_boolean(data_dir):
    edit(data_dir, "settings.toml", "[opt_binding_colombian_decree]\ndefault = false",
         "[opt_binding_colombian_decree]\ndefault = 0")
    with pytest.raises(ChecklistError, match="'opt_binding_colombian_decree' is not a boolean setting"):
        load_catalog(data_dir)
