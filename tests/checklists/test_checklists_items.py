"""Checklist items for real vessels: applicability, quantities, exemptions, settings, citations."""

import itertools
from decimal import Decimal
from pathlib import Path

import pytest

from checklists import ChecklistError, build_checklist, coverage_report, format_coverage, load_catalog
from checklists.loader import DATA_DIR
from tests.fixtures.checklists import vessel_particulars

PROPULSIONS = ("steam", "motor", "sail", "rowing", "towed")
SERVICES = ("passenger", "cargo", "mixed", "tug", "livestock", "tanker", "raft", "work")
ITEM_KEYS = {"id", "title", "topic", "topic_title", "source", "article", "clauses", "text", "required", "maximum",
             "unit", "whole", "evidence_required", "detainable", "certificate", "foreign", "practice", "standing", "consequence",
             "restriction", "restriction_label", "fine"}




def build(kind, vessel, settings=None, lang="es"):
    return build_checklist(load_catalog().get(kind), vessel, settings, lang)


def quantities(vessel, settings=None):
    """Every applicable item id across the three checklists, mapped to its required quantity."""
    result = {}
    for kind in load_catalog().kinds:
        for item in build(kind, vessel, settings)["items"]:
            result[item["id"]] = item["required"]
    return result


PASSENGER_STEAMER = vessel_particulars(propulsion="steam", service="passenger", gross_tonnage=900.0, crew=40,
                                max_passengers=200, cabins=60, fire_hydrants=7, holds=2, boilers=2,
                                boats=4, hot_climate=True, practicaje="beyond_angostura")


def test_acceptance_passenger_steamer():
    got = quantities(PASSENGER_STEAMER)
    assert got["seg.lifebuoys.total"] == 240
    assert got["seg.lifebuoys.cabins"] == 60
    assert got["seg.lifebuoys.hot_climate"] == 6
    assert got["seg.buckets.total"] == 40
    assert got["seg.hoses.total"] == 4
    assert got["seg.hydrants.steam_fire_cocks"] == 2
    assert got["seg.boilers.safety_valves"] == 4
    assert got["seg.boilers.manometers"] == 4
    assert got["seg.boilers.level_glasses"] == 4
    assert "nav.screens.insects" in got and got["nav.screens.insects"] is None
    for item_id in ("seg.hoses.fittings", "seg.hoses.cabinets", "seg.hoses.weekly", "seg.hydrants.clear",
                    "seg.hydrants.numbered", "seg.boilers.spring_valves", "seg.boilers.valves_sealed",
                    "nav.galley.stove_iron", "nav.galley.floor", "nav.gangways.handrails"):
        assert got[item_id] is None, item_id
    assert "seg.fire.no_brazier_motor" not in got
    assert "nav.buckets.total" not in got  # buckets of a powered vessel belong to seguridad


def test_acceptance_motor_cargo_launch():
    launch = vessel_particulars(propulsion="motor", service="cargo", gross_tonnage=12.0, crew=3, boats=0)
    got = quantities(launch)
    assert not [i for i in got if i.startswith("seg.boilers.")]
    assert "seg.fire.no_brazier_motor" in got
    assert "seg.hydrants.steam_fire_cocks" not in got
    assert got["seg.buckets.total"] == 3


def test_acceptance_sailing_cargo_vessel_needs_a_second_pump():
    sailer = vessel_particulars(propulsion="sail", service="cargo", gross_tonnage=120.0, crew=6)
    got = quantities(sailer)
    assert got["nav.pumps.sail_cargo"] == 2
    assert got["nav.buckets.total"] == 6
    assert build("seguridad", sailer)["exempt"] is True
    assert "nav.pumps.sail_cargo" not in quantities({**sailer, "gross_tonnage": 99.9})
    assert "nav.pumps.sail_cargo" not in quantities({**sailer, "service": "passenger", "max_passengers": 10})


def test_acceptance_rowing_boat_is_exempt():
    boat = vessel_particulars(propulsion="rowing", service="work", gross_tonnage=1.0, crew=2, cooking="none")
    nav = build("navegabilidad", boat)
    assert nav["exempt"] is True and nav["items"] == []
    assert nav["exemption"]["source"] == "Ley 928/1927"
    assert nav["exemption"]["article"] == "210"
    assert nav["exemption"]["text"].startswith("Exceptuánse de la inspección de cascos y arqueo")
    assert "remo" in nav["exemption"]["reason"]
    seg = build("seguridad", boat, lang="en")
    assert seg["exempt"] is True and seg["items"] == []
    assert seg["exemption"]["article"] == "211"
    assert "machinery" in seg["exemption"]["reason"]


# One row per vessel: every propulsion and every service appears at least once.
VESSELS = [
    ("passenger steamer", PASSENGER_STEAMER,
     {"nav.boats.lifeboats": 1, "nav.boats.canoe": 1, "nav.boats.canoe_paddles": 3, "nav.signals.code_flags": 1,
      "nav.hull.slipway": None, "nav.pilots.cabin_location": 2, "doc.passengers.complaint_book": None,
      "seg.boilers.pressure_test": 2, "seg.fire.engine": 1, "nav.cargo.no_deck_cargo": None},
     {"nav.signals.foghorn", "nav.galley.brazier_box", "nav.rafts.solid", "doc.passengers.not_authorised"}),
    ("motor cargo launch", vessel_particulars(gross_tonnage=12.0, crew=3, boats=0),
     {"seg.fire.no_brazier_motor": None, "seg.buckets.total": 3, "seg.lifebuoys.total": 3,
      "nav.signals.whistle": None, "nav.markings.name": None, "doc.passengers.not_authorised": None},
     {"seg.boilers.safety_valves", "seg.boilers.manometers", "seg.boilers.level_glasses",
      "seg.boilers.pressure_test", "seg.hydrants.steam_fire_cocks", "nav.boats.oars",
      "nav.screens.insects", "seg.lifebuoys.cabins", "nav.gangways.handrails"}),
    ("sailing cargo 120 t", vessel_particulars(propulsion="sail", gross_tonnage=120.0, crew=6, cooking="brazier"),
     {"nav.pumps.sail_cargo": 2, "nav.buckets.total": 6, "nav.signals.foghorn": None,
      "nav.signals.bell": None, "nav.galley.brazier_box": None, "nav.rigging.steering": None},
     {"nav.signals.whistle", "nav.boats.lifeboats", "nav.hull.slipway", "seg.buckets.total",
      "doc.certificates.seguridad", "doc.books.engine_log", "nav.galley.stove_iron"}),
    ("rowing work boat", vessel_particulars(propulsion="rowing", service="work", gross_tonnage=1.0, crew=2,
                                     cooking="none", holds=0),
     {"doc.roll.aboard": None},
     {"nav.hull.condition", "seg.buckets.total", "doc.certificates.navegabilidad",
      "doc.certificates.arqueo", "doc.certificates.seguridad"}),
    ("towed tanker barge", vessel_particulars(propulsion="towed", service="tanker", gross_tonnage=400.0,
                                       crew=2, fire_hydrants=3, cooking="none",
                                       flammable_cargo_kg=300_000),
     {"nav.flammables.steel_towline": None, "nav.flammables.red_flag": None, "nav.flammables.no_fire": None,
      "nav.buckets.total": 2, "nav.hoses.total": 2, "nav.hoses.cabinets": None, "nav.hydrants.numbered": None,
      "doc.certificates.navegabilidad": None, "nav.boats.afloat": 1},
     {"seg.hoses.total", "doc.certificates.seguridad", "nav.signals.bell", "nav.refuse.ashes",
      "nav.pumps.sail_cargo", "seg.fire.flammables_hold"}),
    ("motor mixed, hot climate", vessel_particulars(service="mixed", crew=10, max_passengers=60, cabins=12,
                                             fire_hydrants=4, hot_climate=True, boats=2,
                                             practicaje="to_angostura"),
     {"nav.screens.insects": None, "seg.lifebuoys.total": 70, "seg.lifebuoys.cabins": 12,
      "seg.lifebuoys.hot_climate": 6, "seg.hoses.total": 2, "nav.health.water_sterilizer": None,
      "nav.boats.oars": None, "nav.pilots.cabin_temperature": None, "seg.fire.no_heaters": None},
     {"seg.hydrants.steam_fire_cocks", "seg.boilers.safety_valves", "doc.passengers.not_authorised"}),
    ("steam tug", vessel_particulars(propulsion="steam", service="tug", crew=6, boilers=1, holds=0, cooking="none"),
     {"seg.boilers.safety_valves": 2, "seg.boilers.manometers": 2, "seg.boilers.level_glasses": 2,
      "seg.pumps.bilge_fire": None, "nav.refuse.ashes": None, "nav.boats.canoe": 1, "nav.rafts.tug_ball_signal": None},
     {"nav.signals.code_flags", "doc.books.commerce_code", "seg.hydrants.steam_fire_cocks",
      "seg.fire.no_brazier_motor", "nav.galley.stove_iron"}),
    ("steam launch", vessel_particulars(propulsion="steam", service="work", steam_launch=True, boilers=1, crew=2,
                                 cabins=1, gross_tonnage=8.0, holds=0),
     {"seg.boilers.safety_valves": 1, "seg.boilers.manometers": 1, "seg.boilers.level_glasses": 1,
      "seg.boilers.valves_sealed": None, "seg.lifebuoys.total": 2, "nav.boats.canoe": 1,
      "nav.boats.canoe_paddles": 3},  # Colombian art. 45: "Todo buque", launches too (issue 20)
     {"nav.pilots.cabin_location", "nav.rafts.tug_ball_signal"}),
    ("motor livestock carrier", vessel_particulars(service="livestock", crew=5),
     {"nav.hygiene.livestock": None, "nav.signals.code_flags": 1, "doc.books.commerce_code": None},
     {"nav.hygiene.passenger", "nav.flammables.red_flag"}),
    ("log raft", vessel_particulars(propulsion="towed", service="raft", crew=4, holds=0, cooking="brazier"),
     {"nav.rafts.solid": None, "nav.rafts.towed": None, "nav.rafts.dimensions": None,
      "nav.rafts.draught": None, "nav.rafts.ball_signal": None, "nav.galley.brazier_box": None,
      "nav.lights.navigation": None, "nav.buckets.total": 4},
     {"nav.hull.condition", "nav.tonnage.measured", "nav.markings.name", "nav.ground_tackle.outfit",
      "nav.boats.afloat", "seg.buckets.total", "nav.boats.canoe", "nav.rafts.tug_ball_signal"}),
    ("motor tanker, hot climate", vessel_particulars(service="tanker", hot_climate=True, crew=7,
                                              flammable_cargo_kg=400_000),
     {"seg.fire.flammables_hold": None, "nav.flammables.red_flag": None, "nav.flammables.no_fire": None},
     {"nav.flammables.steel_towline", "nav.flammables.passenger_limit_360", "nav.health.water_sterilizer"}),
    ("sail work vessel with a donkey boiler", vessel_particulars(propulsion="sail", service="work", boilers=1,
                                                          gross_tonnage=60.0, crew=4),
     {"seg.boilers.safety_valves": 1, "seg.boilers.pressure_test": 1, "seg.buckets.total": 4,
      "doc.certificates.seguridad": None},
     {"nav.buckets.total", "seg.machinery.running", "nav.pumps.sail_cargo"}),
    ("foreign motor passenger vessel", vessel_particulars(flag="foreign", service="passenger", crew=6,
                                                   max_passengers=40),
     {"seg.lifebuoys.total": 46, "nav.gangways.handrails": None, "nav.flammables.passenger_limit_360": None,
      "doc.passengers.list": None},
     {"nav.markings.name", "nav.markings.registration", "nav.tonnage.measured", "seg.lifebuoys.cabins"}),
]


@pytest.mark.parametrize("name, vessel, present, absent", VESSELS, ids=[v[0] for v in VESSELS])
def test_vessel_table(name, vessel, present, absent):
    got = quantities(vessel)
    for item_id, required in present.items():
        assert item_id in got, f"{name}: {item_id} missing"
        assert got[item_id] == required, f"{name}: {item_id} = {got[item_id]}, expected {required}"
    assert not absent & set(got), f"{name}: unexpected {sorted(absent & set(got))}"


def test_vessel_table_covers_every_propulsion_and_service():
    assert {v[1]["propulsion"] for v in VESSELS} == set(PROPULSIONS)
    assert {v[1]["service"] for v in VESSELS} == set(SERVICES)


@pytest.mark.parametrize("propulsion, service", list(itertools.product(PROPULSIONS, SERVICES)))
def test_every_propulsion_and_service_builds(propulsion, service):
    vessel = vessel_particulars(propulsion=propulsion, service=service, gross_tonnage=50.0, max_passengers=20,
                         cabins=4, fire_hydrants=2, holds=1)
    nav, seg, doc, men, con = (build(kind, vessel) for kind in load_catalog().kinds)
    assert nav["exempt"] is (propulsion == "rowing")
    assert seg["exempt"] is (propulsion not in ("steam", "motor"))
    assert doc["exempt"] is False and doc["items"]
    assert men["exempt"] is not nav["exempt"]  # the small-craft check is for exactly the art. 210 craft
    assert con["exempt"] is False and con["items"]  # conduct under way: every vessel
    for result in (nav, seg, doc, men, con):
        ids = [i["id"] for i in result["items"]]
        assert len(ids) == len(set(ids))
        assert bool(result["items"]) is not result["exempt"]
        for item in result["items"]:
            assert set(item) == ITEM_KEYS
            assert item["required"] is None or (type(item["required"]) is int and item["required"] >= 1)
            assert item["maximum"] is None or (type(item["maximum"]) is int and item["maximum"] >= 1)
            assert item["required"] is None or item["maximum"] is None  # one bound per item
            assert (item["unit"] is None) is (item["required"] is None and item["maximum"] is None)
            assert (item["whole"] is None) is (item["unit"] is None)  # a count says whether it is of whole units
            assert item["whole"] is not False or item["unit"].startswith("kg")  # only a weight takes decimals


@pytest.mark.parametrize("tonnage, exempt", [(4.9, True), (4.998, True), (5.0, False), (120.0, False)])
def test_sailing_vessels_under_five_tons_are_exempt(tonnage, exempt):
    sailer = vessel_particulars(propulsion="sail", gross_tonnage=tonnage)
    assert build("navegabilidad", sailer)["exempt"] is exempt


# Colombian art. 45 (issue 20): "Todo buque", where arts. 34 and 36 say "Todo buque de vapor": the canoe and its
# three paddles on every vessel but rafts, whatever the propulsion, launches included; the vapor setting is not read.
NO_MOTOR = {"opt_vapores_includes_motor": False}
COLOMBIAN_45 = [
    ("steam launch", vessel_particulars(propulsion="steam", service="work", steam_launch=True, boilers=1, crew=2,
                                        gross_tonnage=8.0, boats=0), None, True),
    ("motor launch", vessel_particulars(service="work", gross_tonnage=8.0, crew=2, boats=0), None, True),
    ("motor launch, vapores read literally", vessel_particulars(service="work", gross_tonnage=8.0, crew=2, boats=0),
     NO_MOTOR, True),
    ("sailing cargo vessel", vessel_particulars(propulsion="sail", gross_tonnage=60.0, crew=4), None, True),
    ("towed barge", vessel_particulars(propulsion="towed", crew=0, cooking="none"), None, True),
    ("passenger steamer", PASSENGER_STEAMER, None, True),
    ("log raft", vessel_particulars(propulsion="towed", service="raft", crew=4, holds=0), None, False),
    ("motor launch, decree off", vessel_particulars(service="work", gross_tonnage=8.0, crew=2),
     {"opt_apply_colombian_decree": False}, False),
]


@pytest.mark.parametrize("name, vessel, settings, asked", COLOMBIAN_45, ids=[c[0] for c in COLOMBIAN_45])
def test_colombian_art_45_by_its_own_subject(name, vessel, settings, asked):
    got = quantities(vessel, settings)
    if asked:
        assert (got.get("nav.boats.canoe"), got.get("nav.boats.canoe_paddles")) == (1, 3), name
    else:
        assert not {"nav.boats.canoe", "nav.boats.canoe_paddles"} & set(got), name


# Art. 238 (issue 20): "la misma señal y en la misma altura usará el vapor mientras remolque la balsa".
RAFT_TOWING = [
    ("steam tug", vessel_particulars(propulsion="steam", service="tug", boilers=1, holds=0), None,
     {"nav.rafts.tug_ball_signal"}),
    ("motor tug", vessel_particulars(service="tug", holds=0), None, {"nav.rafts.tug_ball_signal"}),
    ("motor tug, vapores read literally", vessel_particulars(service="tug", holds=0), NO_MOTOR, set()),
    ("log raft", vessel_particulars(propulsion="towed", service="raft", crew=4, holds=0), None,
     {"nav.rafts.ball_signal"}),
    ("motor cargo vessel", vessel_particulars(), None, set()),
]


@pytest.mark.parametrize("name, vessel, settings, expected", RAFT_TOWING, ids=[c[0] for c in RAFT_TOWING])
def test_art_238_black_ball_on_the_raft_and_on_the_towing_steamer(name, vessel, settings, expected):
    got = {i: item for i, item in ((item["id"], item) for item in build("navegabilidad", vessel, settings)["items"])
           if i in ("nav.rafts.ball_signal", "nav.rafts.tug_ball_signal")}
    assert set(got) == expected, name
    for item in got.values():
        assert item["article"] == "238" and not item["detainable"] and "balsa" in item["text"]


def test_checklist_shape_and_languages():
    es = build("seguridad", PASSENGER_STEAMER)
    en = build("seguridad", PASSENGER_STEAMER, lang="en")
    assert set(es) == {"kind", "version", "title_es", "title_en", "exempt", "exemption", "items"}
    assert es["kind"] == "seguridad" and es["version"] == "2026.5" and es["exemption"] is None
    by_id = {i["id"]: i for i in en["items"]}
    lifebuoys = by_id["seg.lifebuoys.total"]
    assert lifebuoys["unit"] == "lifebuoys" and lifebuoys["topic_title"] == "Lifebuoys"
    assert lifebuoys["source"] == "Ley 928/1927" and lifebuoys["article"] == "141"
    assert lifebuoys["certificate"] == "seguridad" and lifebuoys["detainable"] is True
    assert {i["id"]: i["unit"] for i in es["items"]}["seg.lifebuoys.total"] == "salvavidas"
    assert [i["id"] for i in es["items"]] == [i["id"] for i in en["items"]]
    with pytest.raises(ChecklistError, match="unknown language"):
        build("seguridad", PASSENGER_STEAMER, lang="gn")


@pytest.mark.parametrize("settings, vessel, gone, appeared", [
    ({"opt_vapores_includes_motor": False}, vessel_particulars(service="passenger", max_passengers=30),
     {"seg.lifebuoys.total", "nav.boats.lifeboats", "nav.signals.whistle", "seg.pumps.bilge_fire"}, set()),
    ({"opt_art143_passenger_vessels_only": True}, vessel_particulars(propulsion="steam", cabins=4, boilers=1),
     {"seg.lifebuoys.cabins"}, set()),
    ({"opt_art138_limit_400": True}, vessel_particulars(service="passenger", max_passengers=30),
     {"nav.flammables.passenger_limit_360"}, {"nav.flammables.passenger_limit_400"}),
    ({"opt_apply_colombian_decree": False}, PASSENGER_STEAMER,
     {"nav.screens.insects", "seg.lifebuoys.hot_climate", "nav.boats.canoe", "nav.boats.canoe_paddles",
      "nav.lights.sides", "seg.fire.engine"}, set()),
    ({"opt_unpowered_fire_gear_in_navegabilidad": False}, vessel_particulars(propulsion="towed", fire_hydrants=2),
     {"nav.buckets.total", "nav.hoses.total", "nav.hydrants.clear"}, set()),
])
def test_settings_flip_an_interpretation(settings, vessel, gone, appeared):
    before, after = set(quantities(vessel)), set(quantities(vessel, settings))
    assert gone <= before and not gone & after
    assert appeared <= after and not appeared & before


def test_cabin_lifebuoys_still_required_on_passenger_vessels_when_restricted():
    steamer = {**PASSENGER_STEAMER}
    assert quantities(steamer, {"opt_art143_passenger_vessels_only": True})["seg.lifebuoys.cabins"] == 60


@pytest.mark.parametrize("settings, message", [
    ({"opt_unknown": True}, "unknown setting 'opt_unknown'"),
    ({"opt_vapores_includes_motor": 1}, "must be like its default"),
])
def test_bad_settings_are_rejected(settings, message):
    with pytest.raises(ChecklistError, match=message):
        build("seguridad", PASSENGER_STEAMER, settings)


@pytest.mark.parametrize("overrides, message", [
    ({"propulsion": "diesel"}, "'propulsion' must be one of"),
    ({"crew": -1}, "'crew' must be a finite number >= 0"),
    ({"crew": 2.5}, "'crew' must be a whole number"),
    ({"hot_climate": "yes"}, "'hot_climate' must be true or false"),
    ({"crew": None}, "no value for 'crew'"),
])
def test_bad_particulars_are_rejected(overrides, message):
    with pytest.raises(ChecklistError, match=message):
        build("seguridad", {**PASSENGER_STEAMER, **overrides})


def test_missing_particular_names_the_item():
    with pytest.raises(ChecklistError) as caught:
        build("seguridad", {k: v for k, v in PASSENGER_STEAMER.items() if k != "crew"})
    assert caught.value.item_id and "crew" in str(caught.value)


def test_database_values_are_accepted():
    vessel = {**PASSENGER_STEAMER, "gross_tonnage": Decimal("900.50"), "crew": 40.0, "registration": "P-1"}
    assert quantities(vessel)["seg.lifebuoys.total"] == 240


def test_counts_default_to_zero_when_unset():
    vessel = {k: v for k, v in vessel_particulars().items() if k not in ("boilers", "cabins", "fire_hydrants")}
    got = quantities(vessel)
    assert "seg.boilers.safety_valves" not in got and "seg.hoses.total" not in got


# ------------------------------------------------------------------- the data against the law
def _all_items():
    catalog = load_catalog()
    return [(kind, item) for kind in catalog.kinds for item in catalog.get(kind).items]


def _normalized_source(name):
    files = load_catalog().context.sources[name].files
    return " ".join(" ".join((DATA_DIR / "sources" / f).read_text(encoding="utf-8") for f in files).split())


@pytest.mark.parametrize("kind, item", _all_items(), ids=[i.id for _, i in _all_items()])
def test_every_item_quotes_its_source(kind, item):
    assert item.source in {"Ley 928/1927", "Decreto 6383/1951", "Código de Navegación Fluvial y Marítima",
                           "Decreto colombiano de navegación fluvial"}
    assert item.article.isdigit()
    assert " ".join(item.text.split()) in _normalized_source(item.source)
    assert item.title_es and item.title_en and item.topic in load_catalog().context.topics


def test_every_covered_article_has_an_item():
    for kind in load_catalog().kinds:
        checklist = load_catalog().get(kind)
        cited = {(i.source, i.article) for i in checklist.items}
        for source, articles in checklist.covers.items():
            for article in articles:
                assert (source, article) in cited, f"{kind}: {source} art. {article}"


def test_sources_are_verbatim_copies_of_the_shared_texts():
    shared = Path(__file__).resolve().parents[3] / "shared" / "legal"  # the authority's texts, beside a checkout
    if not shared.is_dir():
        pytest.skip("shared legal texts not present on this machine")
    for path in shared.glob("*.txt"):
        assert (DATA_DIR / "sources" / path.name).read_bytes() == path.read_bytes()


def test_coverage_report_rows():
    rows = coverage_report(load_catalog())
    kinds = {row["kind"] for row in rows}
    assert kinds == {"navegabilidad", "seguridad", "documentacion", "menores", "conducta"}
    seg_ley = next(r for r in rows if r["kind"] == "seguridad" and r["source"] == "Ley 928/1927")
    assert {"141", "143", "144", "151", "217", "218"} <= set(seg_ley["articles"])
    assert seg_ley["exemptions"] == ["Ley 928/1927 art. 211"]
    assert "seguridad 2026.5" in format_coverage(rows)
