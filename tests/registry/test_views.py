"""The checklist pages: a vessel's checklist by topic, every line citing its article."""
import html
import re
from decimal import Decimal

import pytest

from tests.fixtures.pages import login, reported, text

STEAMER = dict(propulsion="steam", service="passenger", hull_material="iron", length_m=45, beam_m=8, girth_m=14,
               crew=40, max_passengers=200, cabins=60, fire_hydrants=7, holds=2, boilers=2, boats=4,
               cooking="galley", hot_climate=True)
ROWING = dict(propulsion="rowing", service="work", hull_material="wood", crew=2, fire_hydrants=0, holds=0, boats=0,
              cooking="none", length_m=5, beam_m=1.2, girth_m=2)






def test_passenger_steamer_needs_240_lifebuoys(client, make_user, make_vessel):
    steamer = make_vessel(**STEAMER)
    login(client, make_user("inspector"))
    response = client.get(f"/buques/{steamer.id}/listas/seguridad")
    assert response.status_code == 200
    page, markup = text(response), response.get_data(as_text=True)
    assert "240 salvavidas" in page  # art. 141: crew 40 + 200 passengers
    assert "Ley 928/1927, art. 141" in page
    assert "Requiere foto" in page and "Causa detención" in page
    assert '<li id="seg.lifebuoys.total">' in markup and "<details>" in markup
    assert "<blockquote" in markup  # the article's quoted text, opened by tapping the line


def test_a_line_names_the_clause_it_covers(client, make_user, make_vessel):
    """Código art. 41 b) (issue 20): the citation names the clause; an article without clauses names none."""
    steamer = make_vessel(**STEAMER)
    login(client, make_user("inspector"))
    page = text(client.get(f"/buques/{steamer.id}/listas/navegabilidad"))
    assert "Código de Navegación Fluvial y Marítima, art. 41 (b)" in page  # accommodation and food
    assert "Código de Navegación Fluvial y Marítima, art. 41 (c)" in page  # first-aid kit
    assert "Ley 928/1927, art. 63 Requiere foto" in page  # hull condition: art. 63 has no clauses


def test_lines_are_grouped_by_topic_with_tabs_between_kinds(client, make_user, make_vessel):
    steamer = make_vessel(**STEAMER)
    login(client, make_user("admin"))
    markup = client.get(f"/buques/{steamer.id}/listas/navegabilidad").get_data(as_text=True)
    assert markup.count('class="card topic"') > 3
    for kind in ("navegabilidad", "seguridad", "documentacion", "menores"):
        assert f'href="/buques/{steamer.id}/listas/{kind}"' in markup
    assert 'aria-current="page">Navegabilidad' in markup


def test_exempt_rowing_boat_shows_article_210(client, make_user, make_vessel):
    boat = make_vessel(**ROWING)
    login(client, make_user("inspector"))
    page = text(client.get(f"/buques/{boat.id}/listas/navegabilidad"))
    assert "Exento" in page and "Ley 928/1927, art. 210" in page
    assert "remo" in page  # the reason
    assert "Exceptuánse de la inspección de cascos y arqueo" in page
    assert "Programar inspección" not in page  # an exempt vessel cannot be inspected
    assert "art. 211" in text(client.get(f"/buques/{boat.id}/listas/seguridad"))


def test_english_checklist(client, make_user, make_vessel):
    steamer = make_vessel(**STEAMER)
    login(client, make_user("inspector"))
    page = text(client.get(f"/buques/{steamer.id}/listas/seguridad?lang=en"))
    assert "240 lifebuoys" in page and "Checklists" in page and "Photo required" in page


@pytest.mark.parametrize("lang, maximum, required", [
    ("es", "Máximo: 200 pasajeros", "Requerido: 1 canoa"),
    ("en", "Maximum: 200 passengers", "Required: 1 canoe"),
])
def test_a_maximum_is_shown_as_a_maximum(client, make_user, make_vessel, lang, maximum, required):
    steamer = make_vessel(**STEAMER)
    login(client, make_user("inspector"))
    response = client.get(f"/buques/{steamer.id}/listas/navegabilidad?lang={lang}")
    page, markup = text(response), response.get_data(as_text=True)
    assert maximum in page  # art. 184: at most the passengers the Prefectura allows
    assert '<li id="nav.passengers.within_maximum">' in markup
    assert required in page


def test_owner_sees_own_checklists_only_and_police_may_look(client, make_user, make_vessel):
    owner = make_user("owner")
    mine, theirs = make_vessel(owner_id=owner.owner_id), make_vessel()
    login(client, owner)
    assert client.get(f"/buques/{mine.id}/listas/documentacion").status_code == 200
    assert client.get(f"/buques/{theirs.id}/listas/documentacion").status_code == 404
    police = make_user("police")
    client.post("/logout")
    login(client, police)
    assert client.get(f"/buques/{theirs.id}/listas/seguridad").status_code == 200


@pytest.mark.parametrize("path", ["/buques/{id}/listas/seguridad", "/buques/{id}/listas/otra"])
def test_anonymous_and_unknown_kind(client, make_user, make_vessel, path):
    vessel = make_vessel()
    url = path.format(id=vessel.id)
    if "otra" in path:
        login(client, make_user("admin"))
        assert client.get(url).status_code == 404
    else:
        response = client.get(url)
        assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_vessel_page_links_to_checklists_and_inspections(client, make_user, make_vessel):
    vessel = make_vessel()
    login(client, make_user("owner", owner_id=vessel.owner_id))
    markup = client.get(f"/buques/{vessel.id}").get_data(as_text=True)
    assert f'href="/buques/{vessel.id}/listas/navegabilidad"' in markup
    assert f'href="/inspecciones?vessel_id={vessel.id}"' in markup


PRACTICE_ES = "Práctica adoptada (instrumento extranjero): su incumplimiento es una observación, no causa detención"
PRACTICE_EN = "Practice adopted from a foreign instrument: a failure is an observation, not a detention"
BINDING_ES = "Instrumento extranjero declarado vinculante por la autoridad"


@pytest.mark.parametrize("settings, lang, shown, hidden", [
    ({}, "es", PRACTICE_ES, BINDING_ES),
    ({}, "en", PRACTICE_EN, "declared binding"),
    ({"opt_binding_colombian_decree": True}, "es", BINDING_ES, PRACTICE_ES),
])
def test_colombian_items_say_they_are_adopted_practice(client, make_user, make_vessel, monkeypatch, app,
                                                       settings, lang, shown, hidden):
    monkeypatch.setitem(app.config, "CHECKLIST_SETTINGS", settings)
    steamer = make_vessel(**STEAMER, flammable_cargo_kg=300)
    login(client, make_user("inspector"))
    markup = client.get(f"/buques/{steamer.id}/listas/seguridad?lang={lang}").get_data(as_text=True)
    hold = re.search(r'<li id="seg.fire.flammables_hold">.*?</li>', markup, re.S).group(0)  # art. 36
    assert shown in html.unescape(hold) and hidden not in html.unescape(hold)
    assert ('class="badge bad"' in hold) == bool(settings)  # detains only once declared binding
    lifebuoys = re.search(r'<li id="seg.lifebuoys.total">.*?</li>', markup, re.S).group(0)  # Ley 928 art. 141
    assert "instrumento extranjero" not in lifebuoys.lower() and "foreign" not in lifebuoys


def test_small_craft_check_page(client, make_user, make_vessel):
    boat, steamer = make_vessel(**ROWING), make_vessel(**STEAMER)
    login(client, make_user("police"))
    response = client.get(f"/buques/{boat.id}/listas/menores")
    assert response.status_code == 200
    page = text(response)
    assert "Control de embarcaciones menores (Ley 928 art. 210)" in page
    assert "2 baldes" in page and "Ley 928/1927, art. 144" in page  # one bucket per crew member
    assert "Programar inspección" not in page  # a check, not an inspection
    assert 'aria-current="page">Embarcaciones menores (art. 210)' in response.get_data(as_text=True)
    other = text(client.get(f"/buques/{steamer.id}/listas/menores"))
    assert "Exento" in other and "Ley 928/1927, art. 210" in other
    english = text(client.get(f"/buques/{boat.id}/listas/menores?lang=en"))
    assert "Check of small craft (Law 928 art. 210)" in english and "2 buckets" in english
    detail = client.get(f"/buques/{boat.id}").get_data(as_text=True)
    assert f'href="/buques/{boat.id}/listas/menores"' in detail


def test_coverage_page_shows_each_version_and_its_changes(client, make_user):
    """Per checklist: version, item count and what changed from the previous frozen version (checklists/history)."""
    login(client, make_user("admin"))
    response = client.get("/listas/cobertura")
    markup = response.get_data(as_text=True)
    row = text(response).split("Versiones de las listas", 1)[1].split("Ley 928/1927", 1)[0]
    assert "Navegabilidad 2026.5" in row and "Cambios respecto de la versión 2026.4" in row
    assert "Ítems nuevos" in row and "nav.boats.canoe_paddles Tres canaletes" in row  # Colombian art. 45
    assert "nav.rafts.tug_ball_signal Balón negro" in row  # art. 238, the towing steamer
    nav = markup.split('id="version-navegabilidad"', 1)[1].split("</tr>", 1)[0]
    assert "Ítems modificados" in nav and "nav.boats.canoe" in nav and "(a qué buques se aplica)" in nav
    assert "nav.flammables.passenger_limit_360" in nav  # art. 138 counts the kilos aboard (issue 20)
    assert "Ítems retirados" not in nav
    seguridad = markup.split('id="version-seguridad"', 1)[1].split("</tr>", 1)[0]
    assert "seg.machinery.condition" not in seguridad
    assert "Documentación 2026.6" in row and "doc.books.navigation" in row  # its fine as data (issue 23)
    documents = markup.split('id="version-documentacion"', 1)[1].split("</tr>", 1)[0]
    assert "multa que fija la ley" in documents and "Conducta en navegación" in text(response)
    english = text(client.get("/listas/cobertura?lang=en"))
    assert "nav.hull.slipway_judgement Varadero, si el inspector lo exige" in row  # art. 202
    assert "Ítems modificados" in nav and "nav.rigging.steering" in nav  # art. 73 restricts (issue 20)
    assert "(causa detención, restricción en lugar de detención)" in nav
    assert "Cambios respecto de la versión 2026.4" in seguridad and "seg.machinery.running" in seguridad
    assert "seg.fire.elements_sufficient" not in seguridad  # retired in 2026.4, not now
    assert "Cambios respecto de la versión 2026.5" in row
    assert "Changes from version 2026.4" in english and "restriction instead of detention" in english


def test_a_craft_of_4998_tons_is_shown_4998_and_exempt(client, make_user, make_vessel):
    """Art. 210 exempts sailing craft under five tons; the pages show 4,998 t, never 5,00 t, beside the exemption."""
    craft = make_vessel(propulsion="sail", service="work", hull_material="wood", length_m=Decimal("7.24"),
                        beam_m=Decimal("2.79"), girth_m=Decimal("3.99"), crew=2, fire_hydrants=0, holds=0, boats=0,
                        cooking="none")
    login(client, make_user("inspector"))
    detail = text(client.get(f"/buques/{craft.id}"))
    assert "Arqueo: 4,998 t" in detail and "= 4,998 t" in detail and "5,00" not in detail
    listed = text(client.get("/buques"))
    assert f"{craft.registration} {craft.name} Vela Trabajo 4,998" in listed and "5,00" not in listed
    nav = text(client.get(f"/buques/{craft.id}/listas/navegabilidad"))
    assert "Exento" in nav and "Ley 928/1927, art. 210" in nav
    assert "Control de embarcaciones menores" in text(client.get(f"/buques/{craft.id}/listas/menores"))
    assert "4.998 t" in text(client.get(f"/buques/{craft.id}?lang=en"))


def test_the_vessel_list_sorts_by_any_column_keeping_the_search(client, make_user, make_vessel):
    login(client, make_user("admin"))
    small = make_vessel(registration="PY-Q 2", name="Carpincho", length_m=Decimal("12"))
    big = make_vessel(registration="PY-Q 1", name="Tatú", length_m=Decimal("60"))
    make_vessel(registration="PY-R 1", name="Fuera")

    def listed(query):
        return [int(n) for n in re.findall(r'<a href="/buques/(\d+)">', client.get(f"/buques?{query}").get_data(True))]

    assert listed("q=PY-Q") == [big.id, small.id]  # by registration
    assert listed("q=PY-Q&sort=name") == [small.id, big.id]
    assert listed("q=PY-Q&sort=-gross_tonnage") == [big.id, small.id]
    assert listed("q=PY-Q&sort=gross_tonnage") == [small.id, big.id]
    assert listed("q=PY-Q&sort=nope") == [big.id, small.id]  # an unknown order: the default
    markup = client.get("/buques?q=PY-Q&sort=name").get_data(True)
    assert '<th aria-sort="ascending"><a class="sort" href="?q=PY-Q&amp;sort=-name">' in markup

# --- the vessel and owner forms: each act says what it did; a refusal keeps what was typed ------------------------

def _vessel_form(owner_id, **overrides):
    return {"registration": "PY-8080", "name": "Yacyretá", "owner_id": owner_id, "flag": "national",
            "home_port": "Encarnación", "propulsion": "motor", "service": "cargo", "hull_material": "iron",
            "length_m": "30", "beam_m": "7", "girth_m": "11", "crew": "6", "cooking": "galley", **overrides}


def test_registering_and_editing_a_vessel_say_so_once_in_the_readers_language(client, make_user, make_owner, db):
    from inspection.core.models import Vessel

    login(client, make_user("admin"))
    form = _vessel_form(make_owner().id)
    reported(client, client.post("/buques/nuevo", data=form), "Buque PY-8080 registrado.")
    vessel = db.session.scalar(db.select(Vessel))
    client.get("/buques?lang=en")
    reported(client, client.post(f"/buques/{vessel.id}/editar", data={**form, "crew": "8"}), "Vessel PY-8080 updated.")


def test_a_refused_vessel_comes_back_with_what_was_typed_and_why_at_its_field(client, make_user, make_vessel):
    login(client, make_user("admin"))
    taken = make_vessel(registration="PY-7070")
    client.get("/buques?lang=en")
    refused = client.post("/buques/nuevo", data=_vessel_form(taken.owner_id, registration="PY-7070", name="Otro Río"))
    assert refused.status_code == 422
    markup = refused.get_data(as_text=True)
    field = markup[markup.index('name="registration"'):]
    assert 'value="PY-7070"' in field[:200] and "A vessel with that registration already exists." in field[:600]
    assert 'value="Otro Río"' in markup and 'value="Encarnación"' in markup


def test_registering_and_editing_an_owner_say_so(client, make_user, make_owner, db):
    from inspection.core.models import Owner

    login(client, make_user("admin"))
    form = {"name": "Flota Norte", "tax_id": "80012345-6", "email": "", "phone": "", "address": ""}
    reported(client, client.post("/armadores/nuevo", data=form), "Armador Flota Norte registrado.")
    owner = db.session.scalar(db.select(Owner).filter_by(name="Flota Norte"))
    client.get("/armadores?lang=en")
    reported(client, client.post(f"/armadores/{owner.id}/editar", data={**form, "name": "Flota Sur"}),
             "Owner Flota Sur updated.")
    refused = client.post("/armadores/nuevo", data={**form, "name": "Copia"})  # the same tax id
    assert refused.status_code == 422 and 'value="Copia"' in refused.get_data(as_text=True)
