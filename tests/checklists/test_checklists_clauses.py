"""Clauses (issue 20): the texts split into their lettered and numbered clauses, and the clauses an article-level
count hid, each now covered by an item a constructed vessel gets, or excluded."""

import re

import pytest

from checklists import build_checklist, load_catalog
from checklists.legal import split_clauses
from tests.fixtures.checklists import vessel_particulars

LEY = "Ley 928/1927"
CODIGO = "Código de Navegación Fluvial y Marítima"
COLOMBIA = "Decreto colombiano de navegación fluvial"
PILOTS = "Decreto 6383/1951"


def clauses_of(source, article):
    return list(load_catalog().context.sources[source].parts[article].clauses)


@pytest.mark.parametrize("source, article, labels", [
    (CODIGO, "41", ["a", "b", "c", "d", "e", "f"]),
    (CODIGO, "10", ["a", "b", "c"]),
    (CODIGO, "47", ["a", "b", "c"]),  # the ranks under each letter are lines, not clauses
    (PILOTS, "1", ["a", "b", "c", "d", "e"]),
    (LEY, "9", ["a", "b", "c", "d", "e", "f", "g"]),
    (LEY, "175", ["1", "2"]),  # "1º)"
    (LEY, "141", []),  # no clauses: the article is one
    (LEY, "199", []),  # a fee scale's rows are not clauses
    # the copy prints most of art. 18's numbers as "• 1. º": they are numbered by place, 1º to 18º
    (COLOMBIA, "18", [str(n) for n in range(1, 19)]),
    (COLOMBIA, "5", [str(n) for n in range(1, 16)]),  # its a)-h) nest in clause 14
    (COLOMBIA, "36", []),
])
def test_the_texts_split_into_their_clauses(source, article, labels):
    assert clauses_of(source, article) == labels


def test_clause_texts_keep_their_words_and_what_follows_them():
    parts = load_catalog().context.sources
    codigo, colombia = parts[CODIGO].parts["41"], parts[COLOMBIA].parts["5"]
    assert codigo.opening == "Art. 41. - Son obligaciones de los Armadores:"
    assert codigo.clauses["b"].startswith("b) Dotar a sus embarcaciones de las comodidades necesarias")
    assert codigo.clauses["f"].endswith("negligencia del propio interesado.")  # its second paragraph stays with f)
    assert "• h) Anotación de los accidentes" in colombia.clauses["14"]
    assert parts[COLOMBIA].parts["18"].clauses["8"].startswith("• 8º Cuidar que por las noches")


@pytest.mark.parametrize("text, labels", [
    ("Art. 1. Intro:\n\na) Uno;\n\nb) Dos.\n", ["a", "b"]),
    ("Art. 2. Intro:\n\n1º. Uno.\n\n• 1. º Dos.\n\n3.º Tres.\n\n• 1. Cuatro.\n", ["1", "2", "3", "4"]),
    ("Art. 3. Intro:\n\n1.ª Uno.\n\n• 1. ª Dos:\n\n• a) letra;\n\n• b) letra.\n", ["1", "2"]),
    ("Art. 4. Sin incisos, aunque cite el inciso c) del artículo anterior.\n", []),
])
def test_split_clauses(text, labels):
    assert list(split_clauses("1", text).clauses) == labels


@pytest.mark.parametrize("text, message", [
    ("Art. 5. x:\n\na) Uno.\n\nc) Tres.\n", "clause c) found where b) was expected"),
    ("Art. 5. x:\n\n1º. Uno.\n\n3º. Tres.\n", "clause 3 found where clause 2 was expected"),
    ("Art. 5. x:\n\n1º. Uno.\n\n1º. Otra vez.\n", "clause 1 found where clause 2 was expected"),  # only "• 1" is damage
])
def test_a_misread_clause_fails(text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        split_clauses("5", text)


def applicable(vessel, settings=None):
    """Every applicable item of every checklist, id -> required quantity."""
    catalog = load_catalog()
    return {item["id"]: item["required"] for kind in catalog.kinds
            for item in build_checklist(catalog.get(kind), vessel, settings)["items"]}


FLAG, ROOMS, GEAR = "nav.markings.national_flag", "nav.hygiene.accommodation", "nav.crew.work_gear"  # Código 10(a), 41
TITLES, MINORS, ABROAD = "doc.crew.titles", "doc.crew.no_minors", "seg.boilers.foreign_built"  # Ley 928 103, 109, 230
HOLD, MARKED, APART = "seg.fire.flammables_hold", "seg.fire.flammables_marked", "nav.flammables.apart_compartment"
WATCHED = {FLAG, ROOMS, GEAR, TITLES, MINORS, ABROAD, HOLD, MARKED, APART, "seg.fire.elements_sufficient"}

HIDDEN = [
    ("national motor cargo vessel with crew", vessel_particulars(),
     {FLAG: None, ROOMS: None, GEAR: None, TITLES: None, MINORS: None}),
    ("foreign vessel: its own flag, the same duties to crew", vessel_particulars(flag="foreign"),
     {ROOMS: None, GEAR: None, TITLES: None, MINORS: None}),
    ("unmanned towed barge: no crew to house, equip or check", vessel_particulars(propulsion="towed", crew=0,
                                                                                   cooking="none"), {FLAG: None}),
    ("unmanned barge carrying passengers: their accommodation", vessel_particulars(
        propulsion="towed", crew=0, cooking="none", max_passengers=10), {FLAG: None, ROOMS: None}),
    ("log raft: no flag, its crew housed and equipped", vessel_particulars(propulsion="towed", service="raft", crew=4,
                                                                            holds=0, cooking="brazier"),
     {ROOMS: None, GEAR: None, TITLES: None, MINORS: None}),
    ("steam tug with a boiler: built abroad or not, the inspector says", vessel_particulars(
        propulsion="steam", service="tug", boilers=2, crew=6, holds=0),
     {FLAG: None, ROOMS: None, GEAR: None, TITLES: None, MINORS: None, ABROAD: None}),
    ("steamer with holds carrying kerosene: hold aft and marked packages (art. 36)", vessel_particulars(
        propulsion="steam", boilers=1, holds=2, flammable_cargo_kg=5_000),
     {FLAG: None, ROOMS: None, GEAR: None, TITLES: None, MINORS: None, ABROAD: None, HOLD: None, MARKED: None}),
    ("motor launch without holds carrying kerosene: no hold aft demanded, the 18(3) compartment", vessel_particulars(
        gross_tonnage=12.0, crew=2, holds=0, flammable_cargo_kg=800),
     {FLAG: None, ROOMS: None, GEAR: None, TITLES: None, MINORS: None, MARKED: None, APART: None}),
    ("motor tanker without holds: bulk in tanks, no packages to mark", vessel_particulars(
        service="tanker", holds=0, flammable_cargo_kg=400_000),
     {FLAG: None, ROOMS: None, GEAR: None, TITLES: None, MINORS: None, APART: None}),
    ("the decree switched off: no art. 18(3) or 36 items", vessel_particulars(holds=0, flammable_cargo_kg=800),
     {FLAG: None, ROOMS: None, GEAR: None, TITLES: None, MINORS: None}),
]


@pytest.mark.parametrize("name, vessel, expected", HIDDEN, ids=[h[0] for h in HIDDEN])
def test_the_hidden_clauses_reach_the_vessels_they_bind(name, vessel, expected):
    settings = {"opt_apply_colombian_decree": False} if "switched off" in name else None
    got = applicable(vessel, settings)
    assert {i: q for i, q in got.items() if i in WATCHED} == expected


def test_each_new_item_cites_the_clause_it_covers():
    catalog = load_catalog()
    cited = {i.id: (i.source, i.article, i.clauses) for kind in catalog.kinds for i in catalog.get(kind).items}
    assert cited[FLAG] == (CODIGO, "10", ("a",))
    assert cited[ROOMS] == (CODIGO, "41", ("b",)) and cited[GEAR] == (CODIGO, "41", ("e",))
    assert cited["nav.health.first_aid_kit"] == (CODIGO, "41", ("c",))
    assert cited[TITLES] == (LEY, "103", ()) and cited[MINORS] == (LEY, "109", ()) and cited[ABROAD] == (LEY, "230", ())
    assert cited[MARKED] == (COLOMBIA, "36", ())
    assert cited["nav.lifebuoys.six_aboard"] == (COLOMBIA, "18", ("3",))
    assert "seg.fire.elements_sufficient" not in cited  # art. 168 orders the inspection: excluded, not an item


def test_the_built_item_names_its_clauses():
    items = {i["id"]: i for i in build_checklist(load_catalog().get("navegabilidad"), vessel_particulars())["items"]}
    assert items[ROOMS]["clauses"] == ["b"] and items["nav.hull.condition"]["clauses"] == []
