"""Pilots' cabins (Decreto 6383/1951 arts. 1, 4-6) by route and flag; issue 10's every-vessel readings."""

import pytest

from checklists import build_checklist, load_catalog
from tests.fixtures.checklists import vessel_particulars

ROUTE = "nav.pilots.route_recorded"  # art. 1
LOCATION, USE, HEAT = "nav.pilots.cabin_location", "nav.pilots.cabin_use", "nav.pilots.cabin_temperature"  # 4-6
PILOTS = {ROUTE, LOCATION, USE, HEAT}


def applicable(vessel, settings=None, ids=None):
    """Applicable items across every checklist kind, id -> required quantity (only `ids` if given)."""
    catalog, got = load_catalog(), {}
    for kind in catalog.kinds:
        checklist = build_checklist(catalog.get(kind), vessel, settings)
        got.update({item["id"]: item["required"] for item in checklist["items"] if ids is None or item["id"] in ids})
    return got


def cabins(n):
    """Cabin items for `n` pilots embarked on a vessel with cabins."""
    return {LOCATION: n, USE: n, HEAT: None}


CASES = [
    ("national motor cargo, accidental voyage beyond Angostura (art. 1 c: two pilots)",
     vessel_particulars(cabins=4, practicaje="beyond_angostura"), cabins(2)),
    ("national motor cargo, up to Angostura (art. 1 c: one pilot)",
     vessel_particulars(cabins=4, practicaje="to_angostura"), cabins(1)),
    ("national passenger steamer, fixed itinerary (art. 1 b: Capitán Práctico and pilots by month)",
     vessel_particulars(propulsion="steam", boilers=1, service="passenger", max_passengers=50, cabins=20,
                 practicaje="fixed_itinerary"), cabins(2)),
    ("foreign vessel with cabotage permit, one pilot (art. 1 d)",
     vessel_particulars(flag="foreign", cabins=3, practicaje="to_angostura"), cabins(1)),
    ("foreign vessel without cabotage beyond Angostura (art. 1 e)",
     vessel_particulars(flag="foreign", cabins=3, practicaje="beyond_angostura"), cabins(2)),
    ("sailing vessel beyond Angostura: art. 1 says todos los buques",
     vessel_particulars(propulsion="sail", gross_tonnage=40.0, cabins=2, cooking="brazier", practicaje="beyond_angostura"),
     cabins(2)),
    ("steam launch with a cabin, one pilot",
     vessel_particulars(propulsion="steam", steam_launch=True, boilers=1, cabins=1, gross_tonnage=8.0,
                 practicaje="to_angostura"), cabins(1)),
    ("no cabins: the pilot's work place is still measured (art. 6)",
     vessel_particulars(cabins=0, practicaje="beyond_angostura"), {HEAT: None}),
    ("towed barge beyond Angostura: the tug embarks the convoy's pilots (art. 17)",
     vessel_particulars(propulsion="towed", crew=0, cooking="none", cabins=2, practicaje="beyond_angostura"), {}),
    ("not on the route", vessel_particulars(cabins=6, practicaje="none"), {}),
    ("route never recorded: neither exempt nor burdened, the route is asked",
     vessel_particulars(cabins=6, practicaje="unset"), {ROUTE: None}),
    ("route never recorded (particular missing): the default is unset",
     {k: v for k, v in vessel_particulars(cabins=6).items() if k != "practicaje"}, {ROUTE: None}),
    ("towed barge, route never recorded: nothing to ask", vessel_particulars(propulsion="towed", crew=0, cooking="none",
                                                                     practicaje="unset"), {}),
]


@pytest.mark.parametrize("name, vessel, expected", CASES, ids=[c[0] for c in CASES])
def test_pilot_items_by_route_and_flag(name, vessel, expected):
    assert applicable(vessel, ids=PILOTS) == expected


NATIONAL, FOREIGN, MONTHLY = "nav.pilots.embarked_national", "nav.pilots.embarked_foreign", "nav.pilots.monthly"
EMBARKED = {NATIONAL, FOREIGN, MONTHLY, LOCATION}  # art. 1 a)-e), and the cabins of art. 4

# Issue 20: whether the pilots art. 1 requires are embarked, by clause; cabins are those the vessel has.
EMBARKED_CASES = [
    ("national, up to Angostura: one pilot (art. 1 c)", vessel_particulars(cabins=4, practicaje="to_angostura"),
     {NATIONAL: 1, LOCATION: 1}),
    ("national, beyond Angostura: two pilots (art. 1 c)", vessel_particulars(cabins=4, practicaje="beyond_angostura"),
     {NATIONAL: 2, LOCATION: 2}),
    ("national, fixed itinerary: Capitán Práctico and pilots by the month (art. 1 b)",
     vessel_particulars(cabins=4, practicaje="fixed_itinerary"), {MONTHLY: 2, LOCATION: 2}),
    ("foreign, port pilot or up to Angostura (art. 1 a, d, e)", vessel_particulars(flag="foreign", cabins=3,
                                                                                   practicaje="to_angostura"),
     {FOREIGN: 1, LOCATION: 1}),
    ("foreign beyond Angostura (art. 1 d, e)", vessel_particulars(flag="foreign", practicaje="beyond_angostura"),
     {FOREIGN: 2}),
    ("tug with one cabin and two pilots: one pilot's cabin, the one that exists (art. 4)",
     vessel_particulars(service="tug", cabins=1, holds=0, practicaje="beyond_angostura"), {NATIONAL: 2, LOCATION: 1}),
    ("no cabins: the pilots are still counted", vessel_particulars(cabins=0, practicaje="beyond_angostura"),
     {NATIONAL: 2}),
    ("towed barge: the tug embarks the convoy's pilots", vessel_particulars(propulsion="towed", crew=0, cooking="none",
                                                                            cabins=2, practicaje="beyond_angostura"),
     {}),
    ("not on the route", vessel_particulars(cabins=6, practicaje="none"), {}),
    ("route never recorded: only the route is asked", vessel_particulars(cabins=6, practicaje="unset"), {}),
]


@pytest.mark.parametrize("name, vessel, expected", EMBARKED_CASES, ids=[c[0] for c in EMBARKED_CASES])
def test_pilots_embarked_by_clause_and_cabins_that_exist(name, vessel, expected):
    assert applicable(vessel, ids=EMBARKED) == expected


def test_cabin_use_follows_the_cabins_assigned():
    tug = vessel_particulars(service="tug", cabins=1, holds=0, practicaje="beyond_angostura")
    assert applicable(tug, ids={USE, LOCATION}) == {USE: 1, LOCATION: 1}


COLOMBIAN_18 = {"nav.lifebuoys.six_aboard", "nav.rigging.compass", "nav.health.water_sterilizer_any",
                "nav.flammables.apart_compartment"}
ISSUE10 = COLOMBIAN_18 | {"nav.holds.fall_signs", "nav.animals.fierce_secured", "doc.crew.master_paraguayan",
                          "doc.crew.paraguayan_minimum", "seg.lifebuoys.hot_climate"}

READINGS = [
    ("national motor cargo, temperate", vessel_particulars(), None,
     {"nav.lifebuoys.six_aboard": 6, "nav.rigging.compass": None, "nav.holds.fall_signs": None,
      "nav.animals.fierce_secured": None, "doc.crew.master_paraguayan": None, "doc.crew.paraguayan_minimum": None}),
    ("hot-climate motor passenger vessel: art. 34's six lifebuoys and steriliser, not 18.3's twice",
     vessel_particulars(service="passenger", max_passengers=30, hot_climate=True, holds=0), None,
     {"seg.lifebuoys.hot_climate": 6, "nav.rigging.compass": None, "nav.animals.fierce_secured": None,
      "doc.crew.master_paraguayan": None, "doc.crew.paraguayan_minimum": None}),
    ("sailing passenger vessel: 18.3's steriliser and six lifebuoys",
     vessel_particulars(propulsion="sail", service="passenger", max_passengers=12, gross_tonnage=30.0, cooking="none"),
     None, {"nav.lifebuoys.six_aboard": 6, "nav.rigging.compass": None, "nav.health.water_sterilizer_any": None,
            "nav.holds.fall_signs": None, "nav.animals.fierce_secured": None,
            "doc.crew.master_paraguayan": None, "doc.crew.paraguayan_minimum": None}),
    ("towed barge with kerosene, unmanned: the compartment (18.3), no crew items",
     vessel_particulars(propulsion="towed", crew=0, cooking="none", flammable_cargo_kg=5_000), None,
     {"nav.flammables.apart_compartment": None, "nav.holds.fall_signs": None, "nav.animals.fierce_secured": None}),
    ("foreign vessel: no Paraguayan master or crew asked (Código art. 10 binds national vessels)",
     vessel_particulars(flag="foreign", holds=0), None,
     {"nav.lifebuoys.six_aboard": 6, "nav.rigging.compass": None, "nav.animals.fierce_secured": None}),
    ("Colombian decree switched off", vessel_particulars(), {"opt_apply_colombian_decree": False},
     {"nav.holds.fall_signs": None, "nav.animals.fierce_secured": None, "doc.crew.master_paraguayan": None,
      "doc.crew.paraguayan_minimum": None}),
]


@pytest.mark.parametrize("name, vessel, settings, expected", READINGS, ids=[r[0] for r in READINGS])
def test_issue10_every_vessel_readings(name, vessel, settings, expected):
    assert applicable(vessel, settings, ids=ISSUE10) == expected
