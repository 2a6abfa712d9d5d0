"""Duties that bind every vessel reach every vessel: without machinery (navegabilidad) and small craft (menores)."""
import pytest

from checklists import build_checklist, load_catalog

BASE = dict(flag="national", service="cargo", hull_material="wood", length_m=20.0, beam_m=5.0, girth_m=8.0,
            max_passengers=0, cabins=0, fire_hydrants=0, holds=0, boilers=0, steam_launch=False, boats=0,
            cooking="none", hot_climate=False, flammable_cargo_kg=0)
VESSELS = {
    "sail": {**BASE, "propulsion": "sail", "gross_tonnage": 50.0, "crew": 6, "cabins": 3, "holds": 2,
             "fire_hydrants": 2, "cooking": "galley"},
    "barge": {**BASE, "propulsion": "towed", "hull_material": "steel", "gross_tonnage": 300.0, "crew": 2,
              "cabins": 1, "holds": 3},
    "rowing": {**BASE, "propulsion": "rowing", "service": "work", "gross_tonnage": 1.0, "crew": 2},
    "sail_3t": {**BASE, "propulsion": "sail", "service": "work", "gross_tonnage": 3.0, "crew": 3, "cabins": 1,
                "cooking": "brazier"},
    "sail_8t": {**BASE, "propulsion": "sail", "service": "work", "gross_tonnage": 8.0, "crew": 3, "cabins": 1,
                "holds": 1, "cooking": "brazier"},
    "sail_passenger": {**BASE, "propulsion": "sail", "service": "passenger", "gross_tonnage": 50.0, "crew": 6,
                       "max_passengers": 12, "cabins": 3},
    "motor": {**BASE, "propulsion": "motor", "hull_material": "iron", "gross_tonnage": 150.0, "crew": 8,
              "cabins": 4, "holds": 1, "fire_hydrants": 2, "cooking": "galley"},
}
PRESENT = "present"  # applies, with no quantity


def items(kind: str, vessel: str, settings=None) -> dict:
    """Applicable item id -> required quantity, for one of the vessels above."""
    result = build_checklist(load_catalog().get(kind), VESSELS[vessel], settings)
    return {item["id"]: item["required"] for item in result["items"]}


def check(kind, vessel, item_id, expected, settings=None):
    got = items(kind, vessel, settings)
    if expected is None:
        assert item_id not in got, f"{vessel}: {item_id} should not apply"
    else:
        assert item_id in got, f"{vessel}: {item_id} missing"
        assert got[item_id] == (None if expected == PRESENT else expected)


@pytest.mark.parametrize("vessel, nav, seg, men", [
    ("sail", False, True, True),
    ("barge", False, True, True),
    ("rowing", True, True, False),   # art. 210: rowing boats and canoes
    ("sail_3t", True, True, False),  # art. 210: sailing vessels under five tons
    ("sail_8t", False, True, True),
    ("motor", False, False, True),
])
def test_which_checklists_each_vessel_gets(vessel, nav, seg, men):
    catalog = load_catalog()
    built = {kind: build_checklist(catalog.get(kind), VESSELS[vessel]) for kind in ("navegabilidad", "seguridad", "menores")}
    assert [built[k]["exempt"] for k in ("navegabilidad", "seguridad", "menores")] == [nav, seg, men]
    if men:
        assert built["menores"]["exemption"]["article"] == "210" and built["menores"]["items"] == []


# Finding 1: cabin lifebuoys (art. 143), no smoking (art. 154), no heaters (art. 164) and the fire bell
# (art. 167) bind every vessel; without machinery the hull inspection checks them, same quantities.
@pytest.mark.parametrize("vessel, kind, item_id, expected", [
    ("sail", "navegabilidad", "nav.lifebuoys.cabins", 3),
    ("barge", "navegabilidad", "nav.lifebuoys.cabins", 1),
    ("sail_8t", "navegabilidad", "nav.lifebuoys.cabins", 1),
    ("motor", "navegabilidad", "nav.lifebuoys.cabins", None),
    ("motor", "seguridad", "seg.lifebuoys.cabins", 4),
    ("sail", "navegabilidad", "nav.fire.no_smoking", PRESENT),
    ("barge", "navegabilidad", "nav.fire.no_smoking", PRESENT),
    ("sail_8t", "navegabilidad", "nav.fire.no_smoking", PRESENT),
    ("motor", "navegabilidad", "nav.fire.no_smoking", None),
    ("motor", "seguridad", "seg.fire.no_smoking", PRESENT),
    ("sail", "navegabilidad", "nav.fire.no_heaters", PRESENT),
    ("barge", "navegabilidad", "nav.fire.no_heaters", PRESENT),
    ("motor", "navegabilidad", "nav.fire.no_heaters", None),
    ("motor", "seguridad", "seg.fire.no_heaters", PRESENT),
    ("sail", "navegabilidad", "nav.fire.alarm_bell", PRESENT),
    ("barge", "navegabilidad", "nav.fire.alarm_bell", PRESENT),
    ("motor", "navegabilidad", "nav.fire.alarm_bell", None),
    ("motor", "seguridad", "seg.fire.alarm_bell", PRESENT),
    ("sail", "navegabilidad", "nav.buckets.total", 6),
    ("barge", "navegabilidad", "nav.buckets.total", 2),
    ("sail", "navegabilidad", "nav.hoses.total", 1),
])
def test_every_vessel_duties_without_machinery(vessel, kind, item_id, expected):
    check(kind, vessel, item_id, expected)


@pytest.mark.parametrize("vessel, settings, item_id, expected", [
    ("sail", {"opt_art143_passenger_vessels_only": True}, "nav.lifebuoys.cabins", None),  # a cargo sailer
    ("sail_passenger", {"opt_art143_passenger_vessels_only": True}, "nav.lifebuoys.cabins", 3),
    ("sail", {"opt_unpowered_fire_gear_in_navegabilidad": False}, "nav.lifebuoys.cabins", None),
    ("sail", {"opt_unpowered_fire_gear_in_navegabilidad": False}, "nav.fire.no_smoking", None),
    ("barge", {"opt_unpowered_fire_gear_in_navegabilidad": False}, "nav.fire.no_heaters", None),
    ("barge", {"opt_unpowered_fire_gear_in_navegabilidad": False}, "nav.fire.alarm_bell", None),
])
def test_the_settings_still_decide(vessel, settings, item_id, expected):
    check("navegabilidad", vessel, item_id, expected, settings)


# Finding 2: small craft (art. 210) get the short menores check of the duties that bind every vessel.
@pytest.mark.parametrize("vessel, item_id, expected", [
    ("rowing", "men.hull.condition", PRESENT),
    ("rowing", "men.ground_tackle.outfit", PRESENT),
    ("rowing", "men.gear.working_order", PRESENT),
    ("rowing", "men.lifebuoys.working_order", PRESENT),
    ("rowing", "men.lights.navigation", PRESENT),
    ("rowing", "men.buckets.total", 2),
    ("rowing", "men.rigging.condition", None),     # no rigging on a rowing boat
    ("rowing", "men.lifebuoys.cabins", None),      # no cabins
    ("rowing", "men.fire.no_smoking", None),
    ("rowing", "men.galley.brazier_box", None),    # no cooking aboard
    ("rowing", "men.hoses.total", None),
    ("sail_3t", "men.buckets.total", 3),
    ("sail_3t", "men.rigging.condition", PRESENT),
    ("sail_3t", "men.lifebuoys.cabins", 1),
    ("sail_3t", "men.fire.no_smoking", PRESENT),
    ("sail_3t", "men.fire.no_heaters", PRESENT),
    ("sail_3t", "men.galley.brazier_box", PRESENT),
    ("sail_3t", "men.galley.stove_iron", None),
    ("sail_8t", "men.buckets.total", None),        # over five tons: the hull inspection instead
    ("motor", "men.buckets.total", None),
    ("barge", "men.hull.condition", None),
])
def test_small_craft_check(vessel, item_id, expected):
    check("menores", vessel, item_id, expected)


@pytest.mark.parametrize("vessel", ["rowing", "sail_3t"])
def test_small_craft_are_not_asked_art_141_lifebuoys(vessel):
    """Art. 141 binds "todos los vapores"; small craft are rowing or sail."""
    result = build_checklist(load_catalog().get("menores"), VESSELS[vessel])
    assert result["items"] and all(item["article"] != "141" for item in result["items"])
    assert all(item["certificate"] == "none" for item in result["items"])


def test_small_craft_check_with_the_passenger_only_reading():
    check("menores", "sail_3t", "men.lifebuoys.cabins", None, {"opt_art143_passenger_vessels_only": True})


def test_versions():
    catalog = load_catalog()
    assert catalog.get("navegabilidad").version == "2026.5"
    assert catalog.get("menores").version == "2026.1"
    assert catalog.get("menores").title_es == "Control de embarcaciones menores (Ley 928 art. 210)"


# --- the exemption alone (the fleet's and the dashboard's needs), against the built checklist ---------

EXEMPTION_CASES = [
    {"propulsion": "rowing", "boilers": 0, "gross_tonnage": 1.0},
    {"propulsion": "sail", "boilers": 0, "gross_tonnage": 4.99},   # art. 210: under five tons
    {"propulsion": "sail", "boilers": 0, "gross_tonnage": 5.0},
    {"propulsion": "towed", "boilers": 1, "gross_tonnage": 80.0},  # art. 211: boilers are machinery
    {"propulsion": "towed", "boilers": 0, "gross_tonnage": 80.0},
    {"propulsion": "motor", "boilers": 0, "gross_tonnage": 2.0},
    {"propulsion": "steam", "boilers": 2, "gross_tonnage": 346.0},
]


@pytest.mark.parametrize("kind, names", [("navegabilidad", {"propulsion", "gross_tonnage"}),
                                         ("seguridad", {"propulsion", "boilers"})])
def test_the_exemptions_read_only_these_particulars(kind, names):
    from checklists import exemption_particulars
    assert exemption_particulars(load_catalog().get(kind)) == names


@pytest.mark.parametrize("kind", ["navegabilidad", "seguridad"])
@pytest.mark.parametrize("case", EXEMPTION_CASES)
def test_the_exemption_test_agrees_with_the_built_checklist(kind, case):
    from checklists import exemption_test
    checklist = load_catalog().get(kind)
    particulars = {**BASE, "crew": 4, **case}  # the rest of the particulars cannot change the exemption
    assert exemption_test(checklist)(case) is build_checklist(checklist, particulars)["exempt"]
