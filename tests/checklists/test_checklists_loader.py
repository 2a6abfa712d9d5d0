"""Loading checklist data: broken files fail with the file and the item named."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import checklists
from checklists import ChecklistError, build_checklist, load_catalog
from checklists.loader import DATA_DIR
from tests.fixtures.checklists import edit, vessel_particulars

PASSENGERS, MAXIMUM = "nav.passengers.within_maximum", 'maximum = "max_passengers"'


def test_copy_of_the_data_loads(data_dir):
    catalog = load_catalog(data_dir)
    assert catalog.kinds == ("navegabilidad", "seguridad", "documentacion", "menores", "conducta")


@pytest.mark.parametrize("file, item_id, old, new, message", [
    ("navegabilidad.toml", "nav.hull.slipway", 'id = "nav.hull.slipway"', 'id = "nav.hull.condition"',
     "duplicate id"),
    ("seguridad.toml", "seg.exempt.no_machinery", 'id = "seg.exempt.no_machinery"',
     'id = "seg.lifebuoys.total"', "duplicate id"),
    ("navegabilidad.toml", "nav.hull.slipway", 'applies = "vapor"', 'applies = "vapour"',
     "unknown name 'vapour'"),
    ("seguridad.toml", "seg.lifebuoys.total", 'required = "crew + max_passengers"',
     'required = "crew + * max_passengers"', "syntax error"),
    ("seguridad.toml", "seg.lifebuoys.total", 'required = "crew + max_passengers"',
     'required = "crew.__class__"', "attribute access is not allowed"),
    ("seguridad.toml", "seg.lifebuoys.cabins", "En cada camarote se colocará",
     "En cada camarote se pondrá", "text not found in Ley 928/1927"),
    ("seguridad.toml", "seg.lifebuoys.cabins", 'article = "143"', 'article = "142"',
     "text is not in art. 142 of Ley 928/1927"),
    ("seguridad.toml", "seg.lifebuoys.cabins", 'article = "143"', 'article = "999"',
     "Ley 928/1927 has no art. 999"),
    ("seguridad.toml", "seg.lifebuoys.cabins", 'article = "143"', "article = 143",
     "'article' must be an article number as a string"),
    ("seguridad.toml", "seg.lifebuoys.cabins", "detainable = false\n", "", "missing field 'detainable'"),
    ("seguridad.toml", "seg.lifebuoys.cabins", "detainable = false", "detanable = false",
     "missing field 'detainable'"),
    ("seguridad.toml", "seg.lifebuoys.cabins", 'certificate = "seguridad"', 'certificate = "safety"',
     "certificate must be one of"),
    ("seguridad.toml", "seg.lifebuoys.cabins", 'topic = "lifebuoys"', 'topic = "lifejackets"',
     "unknown topic 'lifejackets'"),
    ("seguridad.toml", "seg.lifebuoys.cabins", 'source = "Ley 928/1927"', 'source = "Ley 928"',
     "unknown source 'Ley 928'"),
    ("seguridad.toml", "seg.fire.no_brazier_motor", 'propulsion == "motor"', 'propulsion == "diesel"',
     "'diesel' is not a value of 'propulsion'"),
    ("seguridad.toml", "seg.lifebuoys.cabins", 'required = "cabins"', 'required = "cabins == \\"60\\""',
     "'cabins' is compared with the string"),
    ("seguridad.toml", "seg.lifebuoys.cabins", "\nunit = ", "\nxunit = ", "unknown fields"),
    ("seguridad.toml", "seg.fire.alarm_bell", "evidence_required = false", "evidence_required = \"no\"",
     "'evidence_required' must be true or false"),
    ("seguridad.toml", "seg.fire.alarm_bell", "evidence_required = false",
     'unit = { es = "x", en = "x" }\nevidence_required = false', "'unit' without 'required'"),
    ("seguridad.toml", "seg.fire.alarm_bell", 'id = "seg.fire.alarm_bell"', 'id = "nav.fire.alarm_bell"',
     "ids in seguridad.toml start with 'seg'"),
    # a bound is a count the inspector observes: a constant one is checked at load (required or maximum)
    ("seguridad.toml", "seg.lifebuoys.cabins", 'required = "cabins"', "required = -1",
     "required must be a whole number >= 0, got -1"),
    ("navegabilidad.toml", PASSENGERS, MAXIMUM, "maximum = -1", "maximum must be a whole number >= 0, got -1"),
    ("navegabilidad.toml", PASSENGERS, MAXIMUM, "maximum = 2.5", "maximum must be a whole number >= 0, got 2.5"),
    ("navegabilidad.toml", PASSENGERS, MAXIMUM, 'maximum = "true"', "maximum must be a whole number >= 0, got True"),
    ("navegabilidad.toml", PASSENGERS, MAXIMUM, 'maximum = "max_pasengers"', "unknown name 'max_pasengers'"),
    ("navegabilidad.toml", PASSENGERS, MAXIMUM, 'maximum = "1 / 0"', "maximum: division by zero"),
    ("navegabilidad.toml", PASSENGERS, '\nunit = { es = "pasajeros", en = "passengers" }', "",
     "a quantity item needs unit"),
    # an article divided into clauses is cited clause by clause (Código art. 41 a-f), and the quote is in one named
    ("navegabilidad.toml", "nav.health.first_aid_kit", 'clauses = ["c"]\n', "",
     "art. 41 is divided into clauses (41(a), 41(b), 41(c), 41(d), 41(e), 41(f)): name those the item covers"),
    ("navegabilidad.toml", "nav.health.first_aid_kit", 'clauses = ["c"]', 'clauses = ["g"]',
     "clauses ['g'] must be distinct clauses of art. 41"),
    ("navegabilidad.toml", "nav.health.first_aid_kit", 'clauses = ["c"]', 'clauses = ["c", "c"]',
     "must be distinct clauses of art. 41"),
    ("navegabilidad.toml", "nav.health.first_aid_kit", 'clauses = ["c"]', 'clauses = ["b"]',
     "text is in art. 41(c), which 'clauses' does not name"),
    ("navegabilidad.toml", "nav.health.first_aid_kit", 'clauses = ["c"]', 'clauses = "c"',
     "name those the item covers"),
    ("navegabilidad.toml", "nav.health.first_aid_kit", "Dotar a las embarcaciones de un botiquín con elementos "
     "sanitarios suficiente para brindar a la tripulación y a los pasajeros atención médica de primeros auxilios.",
     "en materia sanitaria. d) Pedir el rearqueo", "text runs across the clauses of art. 41"),
    ("seguridad.toml", "seg.lifebuoys.cabins", 'article = "143"', 'article = "143"\nclauses = ["a"]',
     "Ley 928/1927 art. 143 has no clauses; remove 'clauses'"),
    # one duty, one bound: a floor and a ceiling on the same item are refused
    ("navegabilidad.toml", PASSENGERS, MAXIMUM, f'{MAXIMUM}\nrequired = "1"', "'required' or 'maximum', not both"),
    # a restriction in place of a detention is its own article's; a steamer's duty quotes the steamer (issue 20)
    ("navegabilidad.toml", "nav.rigging.steering", 'restriction = "daylight_only"', 'restriction = "night_only"',
     "unknown restriction 'night_only'"),
    ("navegabilidad.toml", "nav.rigging.steering", "detainable = false", "detainable = true",
     "an item that restricts ('daylight_only') does not detain"),
    ("navegabilidad.toml", "nav.hull.slipway", "detainable = true", 'detainable = false\nrestriction = "daylight_only"',
     "restriction 'daylight_only' is ordered by Ley 928/1927 art. 73, not by the item's article"),
    ("seguridad.toml", "seg.lifebuoys.total", "Todos los vapores que hacen la navegación de los ríos Paraná y Paraguay, "
     "deberán tener las embarcaciones menores necesarias, botes o canoas para los casos de naufragio, incendio u otros "
     "accidentes que puedan ocurrir, c", "c",
     "the item applies through 'vapor', which extends the law's word, and its article names 'vapor'"),
    ("seguridad.toml", "seg.pumps.bilge_fire", "En los buques a vapor, el personal de máquina, dada la voz de alarma, "
     "ocupará su respectivo puesto en el zafarrancho. ", "", "quote from where the sentence names it"),
])
def test_broken_item_names_file_and_item(data_dir, file, item_id, old, new, message):
    edit(data_dir, file, old, new, item_id)
    with pytest.raises(ChecklistError) as caught:
        load_catalog(data_dir)
    text = str(caught.value)
    assert text.startswith(f"{file}: item "), text
    assert message in text, text
    assert caught.value.file == file
    assert caught.value.item_id is not None and caught.value.item_id in text


def test_toml_syntax_error_names_file_line_and_item(data_dir):
    edit(data_dir, "navegabilidad.toml", 'title_es = "Pito para señales de niebla (prueba)"',
         'title_es = "Pito para señales', "nav.signals.whistle")
    with pytest.raises(ChecklistError) as caught:
        load_catalog(data_dir)
    text = str(caught.value)
    assert text.startswith("navegabilidad.toml: item 'nav.signals.whistle': TOML syntax error"), text
    assert re.search(r"line \d+", text)


@pytest.mark.parametrize("maximum, vessel, message", [
    ("max_passengers", {"max_passengers": 40}, None),
    ("max_passengers - 50", {"max_passengers": 40}, "maximum must be a whole number >= 0, got -10"),
    ("max_passengers / 3", {"max_passengers": 40}, "maximum must be a whole number >= 0, got 13.33"),
    ("max_passengers / 4", {"max_passengers": 40}, None),
])
def test_a_maximum_over_particulars_is_checked_per_vessel(data_dir, maximum, vessel, message):
    edit(data_dir, "navegabilidad.toml", MAXIMUM, f'maximum = "{maximum}"', PASSENGERS)
    checklist = load_catalog(data_dir).get("navegabilidad")
    particulars = vessel_particulars(service="passenger", **vessel)
    if message is None:
        [item] = [i for i in build_checklist(checklist, particulars)["items"] if i["id"] == PASSENGERS]
        assert type(item["maximum"]) is int
        return
    with pytest.raises(ChecklistError) as caught:
        build_checklist(checklist, particulars)
    assert str(caught.value).startswith(f"navegabilidad.toml: item '{PASSENGERS}': {message}"), str(caught.value)


@pytest.mark.parametrize("file, old, new, message", [
    ("navegabilidad.toml", '"Ley 928/1927" = ["26",', '"Ley 928/1927" = ["26", "237",',
     "covers Ley 928/1927 art. 237 but no item cites it"),
    ("navegabilidad.toml", '"Ley 928/1927" = ["26", "35",', '"Ley 928/1927" = ["26",',
     "which 'covers' does not list"),
    ("navegabilidad.toml", '"Decreto 6383/1951" = ', '"Decreto 9999" = ', "covers: unknown source"),
    ("seguridad.toml", 'version = "2026.5"\n', "", "missing 'version'"),
    ("seguridad.toml", 'kind = "seguridad"', 'kind = "navegabilidad"', "does not match the file name"),
    ("terms.toml", "expr = 'not has_machinery and", "expr = 'not pilot_cabins and",
     "unknown name 'pilot_cabins'"),  # a term may only use earlier terms: no cycles
    ("settings.toml", "default = true", 'default = "yes"', "default must be a boolean or a number"),
    ("particulars.toml", 'values = ["national", "foreign"]', "values = []", "'values' is required"),
    ("sources.toml", '"decreto-6383-1951-practicaje.txt"', '"missing.txt"', "No such file"),
    # a term read beyond the law's word, and a restriction in place of a detention (issue 20)
    ("terms.toml", 'binding_setting = "opt_binding_motor_extension"\n', "",
     "term 'vapor': a term that extends the law's word names ['law', 'binding_setting', 'subject']"),
    ("terms.toml", '"opt_binding_motor_extension"', '"opt_vapores_binding"',
     "term 'vapor': binding_setting 'opt_vapores_binding' is not a boolean setting"),
    ("terms.toml", "law = 'propulsion == \"steam\"'", "law = 'propulsion == \"stem\"'",
     "'stem' is not a value of 'propulsion'"),
    ("restrictions.toml", 'code = "D"', 'code = "day"', "restriction 'daylight_only': code must be one to three capital"),
    ("restrictions.toml", 'article = "73"', 'article = "72"', "text is not in art. 72 of Ley 928/1927"),
    ("restrictions.toml", "únicamente lo hará", "solamente lo hará", "text not found in Ley 928/1927"),
])
def test_broken_shared_files_name_the_file(data_dir, file, old, new, message):
    edit(data_dir, file, old, new)
    with pytest.raises(ChecklistError) as caught:
        load_catalog(data_dir)
    assert str(caught.value).startswith(file), str(caught.value)
    assert message in str(caught.value), str(caught.value)


def test_default_catalog_is_cached():
    assert load_catalog() is load_catalog()
    assert load_catalog(DATA_DIR) is not load_catalog()


def test_import_loads_nothing_and_needs_no_flask():
    code = ("import sys, checklists, checklists.loader as l; "
            "assert l._default_catalog.cache_info().currsize == 0; "
            "assert 'flask' not in sys.modules and 'sqlalchemy' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(checklists.__file__).parents[1])


def test_unknown_kind_is_a_checklist_error():
    with pytest.raises(ChecklistError, match="unknown checklist kind"):
        load_catalog().get("sanidad")


def test_settings_defaults_and_versions():
    catalog = load_catalog()
    assert catalog.settings_defaults == {
        "opt_vapores_includes_motor": True,
        "opt_art143_passenger_vessels_only": False,
        "opt_art138_limit_400": False,
        "opt_apply_colombian_decree": True,
        "opt_binding_colombian_decree": False,
        "opt_unpowered_fire_gear_in_navegabilidad": True,
        "opt_binding_motor_extension": False,
    }
    for kind in catalog.kinds:
        checklist = catalog.get(kind)
        assert re.fullmatch(r"\d{4}\.\d+", checklist.version)
        assert checklist.items and checklist.covers
