"""Coverage of the law: every clause of the texts is covered by an item or excluded with a reason (exclusions.toml)."""
from pathlib import Path

import pytest

from checklists import ChecklistError, clause_coverage, load_catalog, uncovered_clauses
from tests.fixtures.pages import login, text

LEY = "Ley 928/1927"
COLOMBIA = "Decreto colombiano de navegación fluvial"
CODIGO = "Código de Navegación Fluvial y Marítima"
PILOTS = "Decreto 6383/1951"


def add_exclusion(directory: Path, body: str, key: str = "excluded"):
    """Append one [[excluded]] (or [[pending]]) entry to exclusions.toml."""
    path = directory / "exclusions.toml"
    path.write_text(path.read_text(encoding="utf-8") + f"\n[[{key}]]\n{body}\n", encoding="utf-8")


def statuses(source: str) -> dict[str, dict]:
    """The real data's coverage of one text, by clause ("141", "41(b)")."""
    text_ = next(t for t in clause_coverage(load_catalog()) if t["source"] == source)
    return {c["ref"]: c for c in text_["clauses"]}


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
    # clauses: written 41(b); they must exist, be uncovered and be listed once, whole or one by one
    (f'source = "{CODIGO}"\narticles = ["41(g)"]\n{REASONS}', "art. 41 has no clause 41(g)"),
    (f'source = "{LEY}"\narticles = ["3(a)"]\n{REASONS}', "art. 3 has no clause 3(a)"),
    (f'source = "{CODIGO}"\narticles = ["41(c)"]\n{REASONS}',
     "art. 41(c) is covered by item 'nav.health.first_aid_kit'"),
    (f'source = "{CODIGO}"\narticles = ["41"]\n{REASONS}', "art. 41 has a clause covered by item"),
    (f'source = "{COLOMBIA}"\narticles = ["18(8)"]\n{REASONS}', "art. 18(8) is listed twice"),
    (f'source = "{COLOMBIA}"\narticles = ["5(3)"]\n{REASONS}', "art. 5(3) is listed twice"),  # art. 5 is out whole
    (f'source = "{CODIGO}"\narticles = ["41 b"]\n{REASONS}', "or clauses such as \"41(b)\""),
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
    path.write_text(path.read_text(encoding="utf-8").replace('articles = ["168"]', 'articles = ["168", "3"]', 1)
                    .replace('articles = ["3", "4", "20", "41"]', 'articles = ["4", "20", "41"]', 1),
                    encoding="utf-8")
    assert uncovered_clauses(clause_coverage(load_catalog(data_dir))) == []
    path.write_text(path.read_text(encoding="utf-8").replace('articles = ["168", "3"]', 'articles = ["168"]', 1),
                    encoding="utf-8")
    assert uncovered_clauses(clause_coverage(load_catalog(data_dir))) == ["Ley 928/1927 art. 3"]


def test_a_clause_dropped_from_exclusions_is_uncovered_though_its_article_is_cited(data_dir):
    """Código art. 41 is cited (41 b, c, e): its clause d) is unaccounted once its exclusion goes."""
    drop_exclusion(data_dir, '["41(d)"]')
    assert uncovered_clauses(clause_coverage(load_catalog(data_dir))) == [f"{CODIGO} art. 41(d)"]


def test_every_clause_of_every_text_is_covered_or_excluded():
    catalog = load_catalog()
    texts = clause_coverage(catalog)
    assert [t["source"] for t in texts] == list(catalog.context.sources)
    assert sum(len(t["files"]) for t in texts) == 5  # Ley 928 is two files
    for t in texts:
        parts = catalog.context.sources[t["source"]].parts
        expected = [(n, c) for n in sorted(parts, key=int) for c in (parts[n].clauses or [None])]
        assert [(c["article"], c["clause"]) for c in t["clauses"]] == expected
        for c in t["clauses"]:
            assert c["status"] in ("covered", "excluded"), (t["source"], c["ref"])
            assert bool(c["items"]) == (c["status"] == "covered")
            assert (c["reason_es"] is None) == (c["status"] == "covered")
        assert t["counts"]["total"] == len(t["clauses"]) and t["counts"]["uncovered"] == 0


def test_articles_are_read_from_the_texts_by_the_quote_checker():
    ley = load_catalog().context.sources[LEY]
    assert len(ley.articles) == 232 and {"3", "118", "123", "238"} <= set(ley.articles)
    assert not {"119", "120", "121", "122"} & set(ley.articles)  # not in the copied files


@pytest.mark.parametrize("source, ref, status, detail", [
    (LEY, "141", "covered", "seg.lifebuoys.total"),
    (LEY, "141", "covered", "nav.boats.lifeboats"),  # items of two checklists cite it
    (LEY, "210", "covered", "nav.exempt.art210"),  # cited by the exemption, not an item
    (LEY, "133", "covered", "nav.flammables.not_idle_at_quay"),  # the flammable-cargo items (flammable_cargo_kg)
    (LEY, "184", "covered", "nav.passengers.within_maximum"),  # no longer pending (issue 10)
    (LEY, "199", "excluded", "aranceles"),
    # the readings issue 10 corrected: technical survey and equipment, not "administration, fees"
    (COLOMBIA, "9", "excluded", "inspectores técnicos examinan al reconocer un vapor"),
    # decided in issue 10: 18.3's gear, the nationality of master and crew, hold signs and animals are items
    (COLOMBIA, "18(3)", "covered", "nav.lifebuoys.six_aboard"),
    (COLOMBIA, "44", "excluded", "Escala de dotación"),
    (CODIGO, "10(b)", "covered", "doc.crew.master_paraguayan"),
    (LEY, "113", "covered", "nav.holds.fall_signs"),
    (LEY, "117", "covered", "nav.animals.fierce_secured"),
    (PILOTS, "1(b)", "covered", "nav.pilots.route_recorded"),
    # issue 20: the clauses an article-level count hid
    (CODIGO, "10(a)", "covered", "nav.markings.national_flag"),
    (CODIGO, "41(a)", "excluded", "Ley 928 art. 63"),
    (CODIGO, "41(b)", "covered", "nav.hygiene.accommodation"),
    (CODIGO, "41(c)", "covered", "nav.health.first_aid_kit"),
    (CODIGO, "41(d)", "excluded", "nav.tonnage.unaltered"),
    (CODIGO, "41(e)", "covered", "nav.crew.work_gear"),
    (CODIGO, "41(f)", "excluded", "Indemnización"),
    (COLOMBIA, "18(1)", "excluded", "permiso escrito de salida"),
    (COLOMBIA, "18(8)", "excluded", "guardia nocturna"),
    (COLOMBIA, "18(10)", "excluded", "carpintero calafate"),
    (COLOMBIA, "36", "covered", "seg.fire.flammables_marked"),
    (PILOTS, "1(a)", "covered", "nav.pilots.embarked_foreign"),
    (PILOTS, "1(b)", "covered", "nav.pilots.monthly"),
    (PILOTS, "1(c)", "covered", "nav.pilots.embarked_national"),
    (PILOTS, "1(e)", "covered", "nav.pilots.embarked_foreign"),
    (LEY, "103", "covered", "doc.crew.titles"),
    (LEY, "109", "covered", "doc.crew.no_minors"),
    (LEY, "230", "covered", "seg.boilers.foreign_built"),
    (LEY, "168", "excluded", "mandato de la inspección de seguridad misma"),
])
def test_known_clauses_have_the_status_and_detail_that_fit(source, ref, status, detail):
    entry = statuses(source)[ref]
    assert entry["status"] == status
    assert detail in " ".join([*(i["id"] for i in entry["items"]), entry["reason_es"] or ""])


def test_the_old_wrong_reasons_are_gone():
    colombia = statuses(COLOMBIA)
    assert "tasas" not in colombia["9"]["reason_es"] and "contadores" not in colombia["44"]["reason_es"]


def test_cli_prints_each_clause_and_exits_0(runner):
    result = runner.invoke(args=["checklists", "check"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "  art. 141: CUBIERTO: nav.boats.lifeboats, seg.lifebuoys.total" in lines
    assert any(line.startswith("  art. 199: EXCLUIDO: Registros de la Prefectura") for line in lines)
    assert "  art. 184: CUBIERTO: nav.passengers.within_maximum, men.passengers.within_maximum, con.passengers.within_maximum" in lines
    assert "  art. 41(b): CUBIERTO: nav.hygiene.accommodation" in lines
    assert any(line.startswith("  art. 41(f): EXCLUIDO: Indemnización") for line in lines)
    assert any(line.startswith("== Ley 928/1927 (ley-928-1927-arts-003-118.txt, ley-928-1927-arts-123-238.txt)")
               and line.endswith("SIN CUBRIR 0") for line in lines)
    assert "Cláusulas: 472 (cubierto 126, excluido 346, pendiente 0, sin cubrir 0)" in lines
    assert lines[-1].startswith("Datos válidos: 5 listas,")


def drop_exclusion(directory: Path, articles: str):
    """Remove the exclusions.toml entry whose `articles` line is exactly `articles`."""
    path = directory / "exclusions.toml"
    text_ = path.read_text(encoding="utf-8")
    start = text_.rindex("[[excluded]]", 0, text_.index(f"articles = {articles}\n"))
    path.write_text(text_[:start] + text_[text_.index("[[excluded]]", start + 1):], encoding="utf-8")


def test_cli_exits_non_zero_naming_an_uncovered_clause(runner, data_dir):
    drop_exclusion(data_dir, '["18(8)"]')
    result = runner.invoke(args=["checklists", "check", "--dir", str(data_dir)])
    assert result.exit_code != 0
    assert "  art. 18(8): SIN CUBRIR" in result.output
    assert f"Cláusulas sin cubrir ni excluir (1): {COLOMBIA} art. 18(8)" in result.output
    assert "Datos válidos" not in result.output


def test_coverage_page_for_admin(client, make_user):
    login(client, make_user("admin"))
    response = client.get("/listas/cobertura")
    assert response.status_code == 200
    page, markup = text(response), response.get_data(as_text=True)
    assert 'href="/listas/cobertura"' in markup  # in the admin's navigation
    assert f"Navegabilidad {load_catalog().get('navegabilidad').version}" in page and "Cambios respecto de la versión" in page
    assert "seg.lifebuoys.total Salvavidas" in page and "(Seguridad)" in page  # art. 141, covered
    assert "Embarcaciones menores (art. 210) 2026.5" in page and "men.buckets.total" in page
    assert "Registros de la Prefectura y aranceles de arqueo" in page  # art. 199, excluded
    assert "Cláusulas: 472 · Cubierto: 126 · Excluido: 346 · Pendiente: 0 · Sin cubrir: 0" in page
    assert 'id="texto-1-art-141"' in markup and 'id="texto-4-art-18-3"' in markup
    clause = markup.split('id="texto-3-art-41-b"', 1)[1].split("</tr>", 1)[0]
    assert "41(b)" in clause and "nav.hygiene.accommodation" in clause and "b) Dotar a sus embarcaciones" in clause
    english = text(client.get("/listas/cobertura?lang=en"))
    assert "Law coverage" in english and "The Prefectura's registers and the tonnage and inspection fees" in english
    assert "Clauses: 472" in english


@pytest.mark.parametrize("role", ["inspector", "owner", "police"])
def test_coverage_page_is_admin_only(client, make_user, role):
    login(client, make_user(role))
    assert client.get("/listas/cobertura").status_code == 403
    assert 'href="/listas/cobertura"' not in client.get("/buques").get_data(as_text=True)
