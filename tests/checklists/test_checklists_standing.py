"""Each item's standing (issue 20, findings 1 and 2): a steamer's duty on a motor vessel is the authority's practice,
an observation unless declared binding; art. 73 restricts instead of detaining; art. 202 leaves other vessels'
slipway to the inspector."""

from datetime import date

import pytest

from checklists import build_checklist, load_catalog
from checklists.legal import normalize
from inspection.inspections.outcomes import compute_outcome
from tests.fixtures.checklists import vessel_particulars

TODAY = date(2026, 12, 1)
BINDING = {"opt_binding_motor_extension": True}
LITERAL = {"opt_vapores_includes_motor": False}

# A 3 t motor launch carrying ten passengers, and the same hull driven by steam.
LAUNCH = vessel_particulars(propulsion="motor", service="passenger", gross_tonnage=3.0, length_m=8.0, beam_m=2.2,
                            girth_m=3.5, crew=2, max_passengers=10, holds=0, boats=0)
STEAMER = {**LAUNCH, "propulsion": "steam"}

# The duties the law lays on steamers (arts. 67, 71, 73, 81, 141, 156, 202), and the detainable ones among them.
STEAMERS_DUTIES = {"nav.hull.slipway", "nav.rigging.steering", "nav.boats.lifeboats", "nav.signals.whistle",
                   "nav.signals.bell", "nav.signals.code_flags", "nav.cargo.no_deck_cargo", "seg.machinery.running",
                   "seg.lifebuoys.total", "seg.pumps.bilge_fire", "doc.books.commerce_code", "con.cargo.no_deck_cargo"}
DETAINING = {"nav.hull.slipway", "nav.boats.lifeboats", "nav.cargo.no_deck_cargo", "seg.lifebuoys.total",
             "seg.pumps.bilge_fire", "con.cargo.no_deck_cargo"}
RESTRICTING = {"nav.rigging.steering", "seg.machinery.running"}  # art. 73: daylight only


def items_of(vessel, settings=None):
    """Every applicable item of the three checklists, by id."""
    catalog = load_catalog()
    return {item["id"]: item for kind in catalog.kinds
            for item in build_checklist(catalog.get(kind), vessel, settings)["items"]}


def law_consequence(item_id):
    return "detention" if item_id in DETAINING else "restriction" if item_id in RESTRICTING else "observation"


@pytest.mark.parametrize("vessel, settings, expected", [
    pytest.param(LAUNCH, None, {i: ("extension", True, False, "observation") for i in STEAMERS_DUTIES},
                 id="3 t motor launch: practice, observations"),
    pytest.param(STEAMER, None, {i: ("law", False, i in DETAINING, law_consequence(i)) for i in STEAMERS_DUTIES},
                 id="steamer: the law, as the data says"),
    pytest.param(LAUNCH, BINDING, {i: ("extension", False, i in DETAINING, law_consequence(i)) for i in STEAMERS_DUTIES},
                 id="motor launch, the extension declared binding"),
    pytest.param(LAUNCH, LITERAL, {}, id="motor launch, steamers only: none of them"),
])
def test_a_steamers_duty_on_a_motor_vessel_is_practice(vessel, settings, expected):
    items = items_of(vessel, settings)
    found = {i: (items[i]["standing"], items[i]["practice"], items[i]["detainable"], items[i]["consequence"])
             for i in STEAMERS_DUTIES if i in items}
    assert found == expected


@pytest.mark.parametrize("vessel, settings", [(LAUNCH, None), (LAUNCH, BINDING), (STEAMER, None)])
def test_every_other_paraguayan_item_keeps_the_laws_standing(vessel, settings):
    for item_id, item in items_of(vessel, settings).items():
        if item_id not in STEAMERS_DUTIES and not item["foreign"]:
            assert (item["standing"], item["practice"]) == ("law", False), item_id


def test_the_quotes_name_the_steamer_the_law_binds():
    """Shown to the inspector, each quote starts where its sentence names the subject (arts. 141, 156 used to cut it)."""
    items = items_of(LAUNCH)
    starts = {"seg.lifebuoys.total": "Todos los vapores que hacen la navegación",
              "nav.boats.lifeboats": "Todos los vapores que hacen la navegación",
              "seg.pumps.bilge_fire": "En los buques a vapor, el personal de máquina",
              "nav.hull.slipway": "Las inspecciones de buques a vapor",
              "nav.cargo.no_deck_cargo": "Los vapores, paquetes de cabotajes",
              "nav.rigging.steering": "Todo vapor o buque de vela", "seg.machinery.running": "Todo vapor o buque de vela"}
    for item_id, start in starts.items():
        assert items[item_id]["text"].startswith(start), item_id
    hot = items_of({**LAUNCH, "hot_climate": True, "flammable_cargo_kg": 50, "holds": 1})
    for item_id in ("nav.health.medicine_chest", "nav.health.water_sterilizer", "seg.lifebuoys.hot_climate",
                    "seg.fire.engine", "seg.fire.smoking_room", "seg.fire.flammables_marked"):  # Colombian arts. 34, 36
        assert hot[item_id]["text"].startswith("Todo buque de vapor"), item_id
    for item in (*items.values(), *hot.values()):  # wherever the article names the steamer, the quote does
        article = load_catalog().context.sources[item["source"]].parts[item["article"]].text.lower()
        if item["standing"] == "extension" and "vapor" in article:
            assert "vapor" in normalize(item["text"]).lower(), item["id"]


@pytest.mark.parametrize("vessel, settings, outcome, detainable, restricting", [
    pytest.param(LAUNCH, None, "passed_with_observations", set(), set(), id="motor launch: every failure an observation"),
    pytest.param(STEAMER, None, "failed", DETAINING, RESTRICTING, id="steamer: the law detains and restricts"),
    pytest.param(LAUNCH, BINDING, "failed", DETAINING, RESTRICTING, id="motor launch, binding"),
])
def test_failing_every_steamers_duty(vessel, settings, outcome, detainable, restricting):
    items = list(items_of(vessel, settings).values())
    answers = {i["id"]: {"result": "fail" if i["id"] in STEAMERS_DUTIES else "pass", "observed": 0} for i in items}
    result = compute_outcome(items, answers, TODAY)
    assert result.outcome == outcome
    assert {f.item_id for f in result.findings} == STEAMERS_DUTIES
    assert {f.item_id for f in result.findings if f.detainable} == detainable
    assert {f.item_id for f in result.findings if f.restriction} == restricting


@pytest.mark.parametrize("vessel, settings, failed, outcome, restriction, standing", [
    pytest.param(STEAMER, None, "nav.rigging.steering", "passed_with_observations", "daylight_only", "law",
                 id="steamer's rudder: daylight only, not detained"),
    pytest.param(STEAMER, None, "seg.machinery.running", "passed_with_observations", "daylight_only", "law",
                 id="steamer's engine: daylight only"),
    pytest.param({**LAUNCH, "propulsion": "sail", "gross_tonnage": 12.0}, None, "nav.rigging.steering",
                 "passed_with_observations", "daylight_only", "law", id="sailing vessel's rudder: daylight only"),
    pytest.param(LAUNCH, None, "nav.rigging.steering", "passed_with_observations", None, "extension",
                 id="motor launch's rudder: practice, an observation"),
    pytest.param(LAUNCH, BINDING, "seg.machinery.running", "passed_with_observations", "daylight_only", "extension",
                 id="motor launch's engine, binding: daylight only"),
])
def test_art_73_restricts_instead_of_detaining(vessel, settings, failed, outcome, restriction, standing):
    items = items_of(vessel, settings)
    assert items[failed]["restriction"] == restriction
    assert items[failed]["restriction_label"] == ("solo navegación diurna" if restriction else None)
    answers = {i: {"result": "fail" if i == failed else "pass", "observed": item["required"]}
               for i, item in items.items()}
    result = compute_outcome(list(items.values()), answers, TODAY)
    [finding] = result.findings
    assert (result.outcome, finding.detainable, finding.restriction, finding.standing) == (
        outcome, False, restriction, standing)
    assert finding.action == "within_14_days"


def test_art_73_restriction_in_english():
    catalog = load_catalog()
    [item] = [i for i in build_checklist(catalog.get("navegabilidad"), STEAMER, lang="en")["items"]
              if i["id"] == "nav.rigging.steering"]
    assert (item["consequence"], item["restriction_label"]) == ("restriction", "daylight navigation only")


@pytest.mark.parametrize("vessel, settings, slipway, judgement", [
    pytest.param(STEAMER, None, True, False, id="steamer: the slipway, a duty"),
    pytest.param(LAUNCH, None, True, False, id="motor launch: the slipway as practice"),
    pytest.param(LAUNCH, LITERAL, False, True, id="motor launch, steamers only: the inspector's judgement"),
    pytest.param({**LAUNCH, "propulsion": "sail", "gross_tonnage": 12.0}, None, False, True, id="sailing vessel"),
    pytest.param({**LAUNCH, "propulsion": "towed", "service": "cargo", "max_passengers": 0}, None, False, True,
                 id="towed barge (chata)"),
    pytest.param({**LAUNCH, "propulsion": "towed", "service": "raft", "max_passengers": 0}, None, False, False,
                 id="raft: no hull items"),
])
def test_art_202_leaves_other_vessels_slipway_to_the_inspector(vessel, settings, slipway, judgement):
    items = items_of(vessel, settings)
    assert ("nav.hull.slipway" in items, "nav.hull.slipway_judgement" in items) == (slipway, judgement)
    if judgement:
        item = items["nav.hull.slipway_judgement"]
        assert (item["standing"], item["detainable"], item["consequence"]) == ("law", False, "observation")
        assert "en las condiciones que el inspector estime conveniente" in item["text"]


def test_a_past_pinned_item_keeps_what_it_was():
    """Pinned before standings: no `standing`, `consequence` or `restriction`; its `detainable` still decides."""
    old = {"id": "nav.rigging.steering", "title": "Timón", "source": "Ley 928/1927", "article": "73", "detainable": True}
    result = compute_outcome([old], {old["id"]: {"result": "fail"}}, TODAY)
    assert result.outcome == "failed"
    assert (result.findings[0].standing, result.findings[0].restriction) == ("law", None)
