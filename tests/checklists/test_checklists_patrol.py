"""Patrol checks (issue 23): which items a patrol applies, and the fines the law sets, both as validated data."""
import pytest

from checklists import ChecklistError, build_patrol_checklist, load_catalog, patrol_kinds, patrol_particulars
from tests.fixtures.checklists import edit, vessel_particulars

FERRY = vessel_particulars(service="passenger", max_passengers=30, cabins=2, flammable_cargo_kg=100)
CANOE = vessel_particulars(propulsion="rowing", service="work", gross_tonnage=0.5, crew=1, holds=0, cooking="none")


def test_patrols_apply_the_small_craft_conduct_and_documents_lists_only():
    assert patrol_kinds(load_catalog()) == ("documentacion", "menores", "conducta")


def test_conduct_list_covers_what_a_patrol_sees_under_way_with_its_articles():
    built = build_patrol_checklist(load_catalog().get("conducta"), FERRY)
    by_id = {i["id"]: i for i in built["items"]}
    assert built["kind"] == "conducta" and built["version"] == "2026.1" and not built["exempt"]
    assert {(i["source"], i["article"]) for i in built["items"]} >= {
        ("Ley 928/1927", "68"), ("Ley 928/1927", "154"), ("Ley 928/1927", "184"), ("Ley 928/1927", "138")}
    assert by_id["con.passengers.within_maximum"]["maximum"] == 30
    assert by_id["con.passengers.all_listed"]["fine"] == {
        "source": "Ley 928/1927", "article": "14", "min": 300, "max": 500,
        "text": "será penado con multa de ($ 300 a 500) trescientos pesos a quinientos de curso legal, por cada infracción."}
    assert by_id["con.lights.night"]["fine"] is None  # art. 68 sets no fine: none is invented


def test_pilots_are_counted_where_the_vessel_embarks_them():
    vessel = vessel_particulars(practicaje="beyond_angostura")
    items = {i["id"]: i for i in build_patrol_checklist(load_catalog().get("conducta"), vessel)["items"]}
    assert items["con.pilots.embarked_national"]["required"] == 2
    assert items["con.pilots.embarked_national"]["source"] == "Decreto 6383/1951"
    assert "con.pilots.embarked_national" not in {
        i["id"] for i in build_patrol_checklist(load_catalog().get("conducta"), vessel_particulars())["items"]}


def test_documents_patrol_is_the_subset_the_data_names():
    catalog = load_catalog()
    built = build_patrol_checklist(catalog.get("documentacion"), FERRY)
    ids = [i["id"] for i in built["items"]]
    assert "doc.roll.aboard" in ids and "doc.books.diary" not in ids
    assert set(ids) <= set(catalog.get("documentacion").patrol)
    fines = {i["id"]: (i["fine"]["article"], i["fine"]["min"], i["fine"]["max"]) for i in built["items"] if i["fine"]}
    assert fines == {"doc.roll.aboard": ("17", 200, 300), "doc.passengers.all_listed": ("14", 300, 500),
                     "doc.books.navigation": ("19", 200, 300)}


def test_small_craft_list_is_a_patrols_whole_and_exempts_a_motor_vessel():
    catalog = load_catalog()
    assert len(build_patrol_checklist(catalog.get("menores"), CANOE)["items"]) >= 3
    assert build_patrol_checklist(catalog.get("menores"), vessel_particulars())["exempt"] is True


def test_an_unregistered_craft_is_taken_as_craft_toml_says_and_its_length_decides_no_patrol_item():
    craft = load_catalog().craft
    canoe = craft.particulars_of("rowing", 3.5)
    assert (canoe["gross_tonnage"], canoe["propulsion"], canoe["length_m"]) == (0.0, "rowing", 3.5)  # art. 210: < 5 t
    assert craft.types == ("rowing", "sail", "motor") and craft.length_m == 5
    # The phone's lists for a described craft are built at craft.length_m: exact only while no patrol rule reads it.
    assert not any("length_m" in patrol_particulars(load_catalog().get(kind)) for kind in patrol_kinds(load_catalog()))
    assert {"propulsion", "gross_tonnage", "max_passengers"} <= patrol_particulars(load_catalog().get("menores"))


def test_a_list_without_patrol_items_is_refused():
    with pytest.raises(ChecklistError, match="not a patrol's"):
        build_patrol_checklist(load_catalog().get("seguridad"), FERRY)


@pytest.mark.parametrize("file, item_id, old, new, message", [
    ("conducta.toml", "con.passengers.all_listed", "min = 300", "min = 400", "does not print [400]"),
    ("conducta.toml", "con.passengers.all_listed", 'article = "14", min', 'article = "13", min',
     "fine: text is not in art. 13"),
    ("conducta.toml", "con.passengers.all_listed", "max = 500", "max = 200", "a 'max' above it"),
    ("conducta.toml", "con.passengers.all_listed", "min = 300", "minimum = 300", "fine must be a table"),
    ("conducta.toml", None, 'patrol = "all"\n\n', 'patrol = ["con.lights.nite"]\n\n', "distinct ids of this file's items"),
    ("conducta.toml", None, 'patrol = "all"\n\n', "patrol = 3\n\n", "'patrol' must be"),
    ("craft.toml", None, 'flag = "national"', 'flag = "martian"', "craft.toml: particular 'flag' must be one of"),
    ("craft.toml", None, 'cooking = "none"\n', "", "give the particulars no register says for a craft: ['cooking']"),
    ("craft.toml", None, "crew = 1\n", 'crew = 1\npropulsion = "rowing"\n', "the officer describes 'propulsion'"),
    ("craft.toml", None, "crew = 1\n", "crew = 1\nwingspan = 3\n", "unknown particular 'wingspan'"),
    ("craft.toml", None, "crew = 1\n", "crew = 1.5\n", "'crew' must be a whole number"),
    ("craft.toml", None, 'types = ["rowing", "sail", "motor"]', 'types = ["rowing", "canoe"]', "'types' must be"),
    ("craft.toml", None, "length_m = 5", "length_m = 0", "'length_m' must be above 0"),
    ("craft.toml", None, "length_m = 5", "length = 5", "unknown fields ['length']"),
])
def test_bad_patrol_data_fails_the_load(data_dir, file, item_id, old, new, message):
    edit(data_dir, file, old, new, item_id)
    with pytest.raises(ChecklistError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_catalog(data_dir, frozen=False)


def test_adding_a_fine_without_a_version_bump_fails_the_frozen_load(data_dir):
    import shutil

    from checklists.loader import DATA_DIR
    shutil.copytree(DATA_DIR / "history", data_dir / "history")
    edit(data_dir, "conducta.toml", 'article = "68"\n',
         'article = "68"\nfine = { article = "14", min = 300, text = "será penado con multa de ($ 300 a 500)" }\n',
         "con.lights.night")
    with pytest.raises(ChecklistError, match="differs from its frozen snapshot"):
        load_catalog(data_dir)
