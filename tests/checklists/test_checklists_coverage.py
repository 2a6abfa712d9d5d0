"""Coverage of the law: every article of the texts is cited by an item or excluded with a reason (exclusions.toml)."""
from pathlib import Path

import pytest

from checklists import ChecklistError, article_coverage, load_catalog, uncovered_articles
from tests.fixtures.pages import login, text

LEY = "Ley 928/1927"
COLOMBIA = "Decreto colombiano de navegación fluvial"


def add_exclusion(directory: Path, body: str, key: str = "excluded"):
    """Append one [[excluded]] (or [[pending]]) entry to exclusions.toml."""
    path = directory / "exclusions.toml"
    path.write_text(path.read_text(encoding="utf-8") + f"\n[[{key}]]\n{body}\n", encoding="utf-8")


def statuses(source: str) -> dict[str, dict]:
    """The real data's coverage of one text, by article number."""
    text_ = next(t for t in article_coverage(load_catalog()) if t["source"] == source)
    return {a["article"]: a for a in text_["articles"]}


REASONS = 'reason_es = "Motivo."\nreason_en = "Reason."'


@pytest.mark.parametrize("body, message", [
    # art. 141 (lifebuoys) is cited by seg.lifebuoys.total: it cannot also be left out
    (f'source = "{LEY}"\narticles = ["141"]\n{REASONS}', "Ley 928/1927 art. 141 is covered by item"),
    # Ley 928 as copied holds arts. 3-118 and 123-238: art. 120 is not in the text
    (f'source = "{LEY}"\narticles = ["120"]\n{REASONS}', "Ley 928/1927 has no art. 120"),
    (f'source = "Ley 999/2000"\narticles = ["1"]\n{REASONS}', "unknown source 'Ley 999/2000'"),
    (f'source = "{LEY}"\narticles = ["119"]\nreason_es = "Motivo."', "needs a non-empty 'reason_en'"),
    (f'source = "{LEY}"\narticles = ["119"]\nreason_es = " "\nreason_en = "Reason."', "needs a non-empty 'reason_es'"),
    (f'source = "{LEY}"\narticles = [3]\n{REASONS}', "'articles' must list article numbers as strings"),
    # art. 3 is already excluded (authority's organisation)
    (f'source = "{LEY}"\narticles = ["3"]\n{REASONS}', "Ley 928/1927 art. 3 is listed twice"),
    (f'source = "{LEY}"\narticles = ["4"]\n{REASONS}\nwhy = "x"', "unknown fields ['why']"),
])
def test_a_bad_exclusion_fails_the_load_naming_it(data_dir, body, message):
    add_exclusion(data_dir, body)
    with pytest.raises(ChecklistError, match="exclusions.toml") as error:
        load_catalog(data_dir)
    assert message in str(error.value)


def test_a_pending_article_that_an_item_now_cites_must_leave_the_file(data_dir):
    add_exclusion(data_dir, f'source = "{LEY}"\narticles = ["143"]\n{REASONS}', key="pending")
    message = "pending: Ley 928/1927 art. 143 is covered by item 'nav.lifebuoys.cabins'"  # the first checklist citing it
    with pytest.raises(ChecklistError, match=message):
        load_catalog(data_dir)


def test_an_unknown_list_is_refused(data_dir):
    add_exclusion(data_dir, f'source = "{LEY}"\narticles = ["4"]\n{REASONS}', key="later")
    with pytest.raises(ChecklistError, match="unknown keys \\['later'\\]"):
        load_catalog(data_dir)


def test_an_article_dropped_from_exclusions_is_uncovered(data_dir):
    path = data_dir / "exclusions.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('articles = ["230"]', 'articles = ["230", "3"]', 1)
                    .replace('articles = ["3", "4", "20", "41"]', 'articles = ["4", "20", "41"]', 1),
                    encoding="utf-8")
    assert uncovered_articles(article_coverage(load_catalog(data_dir))) == []
    path.write_text(path.read_text(encoding="utf-8").replace('articles = ["230", "3"]', 'articles = ["230"]', 1),
                    encoding="utf-8")
    assert uncovered_articles(article_coverage(load_catalog(data_dir))) == ["Ley 928/1927 art. 3"]


def test_every_article_of_every_text_is_covered_or_excluded():
    catalog = load_catalog()
    texts = article_coverage(catalog)
    assert [t["source"] for t in texts] == list(catalog.context.sources)
    assert sum(len(t["files"]) for t in texts) == 5  # Ley 928 is two files
    for t in texts:
        assert [a["article"] for a in t["articles"]] == sorted(catalog.context.sources[t["source"]].articles, key=int)
        for a in t["articles"]:
            assert a["status"] in ("covered", "excluded", "pending"), (t["source"], a["article"])
            assert bool(a["items"]) == (a["status"] == "covered")
            assert (a["reason_es"] is None) == (a["status"] == "covered")


def test_articles_are_read_from_the_texts_by_the_quote_checker():
    ley = load_catalog().context.sources[LEY]
    assert len(ley.articles) == 232 and {"3", "118", "123", "238"} <= set(ley.articles)
    assert not {"119", "120", "121", "122"} & set(ley.articles)  # not in the copied files


@pytest.mark.parametrize("source, article, status, detail", [
    (LEY, "141", "covered", "seg.lifebuoys.total"),
    (LEY, "141", "covered", "nav.boats.lifeboats"),  # items of two checklists cite it
    (LEY, "210", "covered", "nav.exempt.art210"),  # cited by the exemption, not an item
    (LEY, "133", "covered", "nav.flammables.not_idle_at_quay"),  # the flammable-cargo items (flammable_cargo_kg)
    (LEY, "184", "covered", "nav.passengers.within_maximum"),  # no longer pending (issue 10)
    (LEY, "199", "excluded", "aranceles"),
    # the readings issue 10 corrected: technical survey and equipment, not "administration, fees"
    (COLOMBIA, "9", "excluded", "inspectores técnicos examinan al reconocer un vapor"),
    # decided in issue 10: 18.3's gear, the nationality of master and crew, hold signs and animals are items
    (COLOMBIA, "18", "covered", "nav.lifebuoys.six_aboard"),
    (COLOMBIA, "44", "excluded", "Escala de dotación"),
    ("Código de Navegación Fluvial y Marítima", "10", "covered", "doc.crew.master_paraguayan"),
    (LEY, "113", "covered", "nav.holds.fall_signs"),
    (LEY, "117", "covered", "nav.animals.fierce_secured"),
    ("Decreto 6383/1951", "1", "covered", "nav.pilots.route_recorded"),
])
def test_known_articles_have_the_status_and_detail_that_fit(source, article, status, detail):
    entry = statuses(source)[article]
    assert entry["status"] == status
    assert detail in " ".join([*(i["id"] for i in entry["items"]), entry["reason_es"] or ""])


def test_the_old_wrong_reasons_are_gone():
    colombia = statuses(COLOMBIA)
    assert "tasas" not in colombia["9"]["reason_es"] and "contadores" not in colombia["44"]["reason_es"]


def test_cli_prints_each_article_and_exits_0(runner):
    result = runner.invoke(args=["checklists", "check"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "  art. 141: CUBIERTO: nav.boats.lifeboats, seg.lifebuoys.total" in lines
    assert any(line.startswith("  art. 199: EXCLUIDO: Registros de la Prefectura") for line in lines)
    assert "  art. 184: CUBIERTO: nav.passengers.within_maximum, men.passengers.within_maximum" in lines
    assert any(line.startswith("== Ley 928/1927 (ley-928-1927-arts-003-118.txt, ley-928-1927-arts-123-238.txt)")
               and line.endswith("SIN CUBRIR 0") for line in lines)
    assert lines[-1].startswith("Datos válidos: 4 listas,")


def test_cli_exits_non_zero_naming_an_uncovered_article(runner, data_dir):
    path = data_dir / "exclusions.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('articles = ["230"]', 'articles = ["115"]', 1)
                    .replace('articles = ["38", "115", "116"]', 'articles = ["38", "116"]', 1), encoding="utf-8")
    result = runner.invoke(args=["checklists", "check", "--dir", str(data_dir)])
    assert result.exit_code != 0
    assert "  art. 230: SIN CUBRIR" in result.output
    assert "Artículos sin cubrir ni excluir (1): Ley 928/1927 art. 230" in result.output
    assert "Datos válidos" not in result.output


def test_coverage_page_for_admin(client, make_user):
    login(client, make_user("admin"))
    response = client.get("/listas/cobertura")
    assert response.status_code == 200
    page, markup = text(response), response.get_data(as_text=True)
    assert 'href="/listas/cobertura"' in markup  # in the admin's navigation
    assert f"Navegabilidad {load_catalog().get('navegabilidad').version}" in page and "Cambios respecto de la versión" in page
    assert "seg.lifebuoys.total Salvavidas" in page and "(Seguridad)" in page  # art. 141, covered
    assert "Embarcaciones menores (art. 210) 2026.1" in page and "men.buckets.total" in page
    assert "Registros de la Prefectura y aranceles de arqueo" in page  # art. 199, excluded
    assert 'id="texto-1-art-141"' in markup and 'id="texto-4-art-18"' in markup
    english = text(client.get("/listas/cobertura?lang=en"))
    assert "Law coverage" in english and "The Prefectura's registers and the tonnage and inspection fees" in english


@pytest.mark.parametrize("role", ["inspector", "owner", "police"])
def test_coverage_page_is_admin_only(client, make_user, role):
    login(client, make_user(role))
    assert client.get("/listas/cobertura").status_code == 403
    assert 'href="/listas/cobertura"' not in client.get("/buques").get_data(as_text=True)
