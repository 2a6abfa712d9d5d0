"""What a patrol's findings reach (issue 23): the owner's fleet with article and fine, the staff dashboard."""
from tests.fixtures.patrol import answer, close, start

CANOE = {"marks": "", "type": "rowing", "length_m": 4}


def infraction(client, patrol, item="con.passengers.all_listed", outcome="infraccion", **answer_extra):
    """A closed check of the patrol's vessel failing `item`; the check's id."""
    check = start(client, patrol["headers"], vessel_id=patrol["vessel"].id).json
    assert answer(client, patrol["headers"], check["id"], item, "fail", **answer_extra).status_code == 200
    assert close(client, patrol["headers"], check["id"], outcome).status_code == 200
    return check["id"]


def test_the_owner_sees_the_infraction_with_its_article_and_fine_on_the_fleet(client, patrol, login_as):
    check_id = infraction(client, patrol)
    fleet = client.get("/api/v1/fleet", headers=patrol["owner_headers"]).json
    [vessel] = fleet["items"]
    [finding] = vessel["patrol_infractions"]
    assert finding["check_id"] == check_id and finding["outcome"] == "infraccion"
    [found] = finding["infringements"]
    assert (found["source"], found["article"], found["fine"]["min"], found["fine"]["max"]) == ("Ley 928/1927", "14", 300, 500)
    page = login_as(patrol["owner"]).get("/flota").get_data(as_text=True)
    assert "Halladas por patrullas" in page and "art. 14" in page and "Multa que fija la ley (art. 14)" in page


def test_a_check_without_infraction_stays_off_the_fleet(client, patrol):
    check = start(client, patrol["headers"], vessel_id=patrol["vessel"].id).json
    answer(client, patrol["headers"], check["id"], "con.lights.night", "fail")
    close(client, patrol["headers"], check["id"], "observaciones")
    [vessel] = client.get("/api/v1/fleet", headers=patrol["owner_headers"]).json["items"]
    assert vessel["patrol_infractions"] == []


def test_the_dashboard_counts_patrol_checks_places_articles_and_repeat_offenders(client, patrol, staff, login_as):
    infraction(client, patrol)
    infraction(client, patrol, "con.lights.night")
    canoe = start(client, patrol["headers"], craft=CANOE, checklist="menores", place="Puerto de Pilar").json
    close(client, patrol["headers"], canoe["id"], "sin_novedad")
    browser = login_as(staff["admin"])
    page = browser.get("/tablero").get_data(as_text=True)
    assert "Controles de patrulla por mes" in page and "Artículos más infringidos en controles de patrulla" in page
    months = browser.get("/tablero/patrullas.csv").get_data(as_text=True).splitlines()
    assert months[-1].endswith(",3,2")  # this month: three checks, two infractions
    places = browser.get("/tablero/patrullas-lugares.csv").get_data(as_text=True)
    assert "\"Km 1630, Río Paraguay\",2" in places and "Puerto de Pilar,1" in places
    articles = browser.get("/tablero/patrullas-articulos.csv").get_data(as_text=True)
    assert "Ley 928/1927,14,1" in articles and "Ley 928/1927,68,1" in articles
    repeat = browser.get("/tablero/reincidentes.csv").get_data(as_text=True)
    assert f"{patrol['vessel'].registration},{patrol['vessel'].name},2" in repeat


def test_the_retention_notice_opens_the_check_page_with_articles_and_answers(client, patrol, staff, login_as):
    check_id = infraction(client, patrol, "con.passengers.within_maximum", "retencion", observed=35)
    admin = login_as(staff["admin"])
    notices = admin.get("/avisos").get_data(as_text=True)
    assert f'href="/patrullas/{check_id}"' in notices
    page = admin.get(f"/patrullas/{check_id}").get_data(as_text=True)
    assert "Retención" in page and "Ley 928/1927, art. 184" in page and "No cumple · 35.0" in page
    assert patrol["vessel"].registration in admin.get("/patrullas").get_data(as_text=True)
    english = admin.get(f"/patrullas/{check_id}?lang=en").get_data(as_text=True)
    assert "Detention" in english and "Passengers aboard within the maximum" in english


def test_the_pages_show_each_role_what_the_api_does(client, patrol, as_role, make_user, login_as):
    open_check = start(client, patrol["headers"], vessel_id=patrol["vessel"].id).json["id"]
    canoe = start(client, patrol["headers"], craft=CANOE, checklist="menores").json["id"]
    close(client, patrol["headers"], canoe, "sin_novedad")
    owner, stranger = login_as(patrol["owner"]), login_as(make_user("owner"))
    assert owner.get(f"/patrullas/{open_check}").status_code == 404  # not yet a finding
    assert owner.get(f"/patrullas/{canoe}").status_code == 404  # an unregistered craft's: staff and police only
    close(client, patrol["headers"], open_check, "sin_novedad")
    assert owner.get(f"/patrullas/{open_check}").status_code == 200
    assert stranger.get(f"/patrullas/{open_check}").status_code == 404
    assert patrol["vessel"].registration not in stranger.get("/patrullas").get_data(as_text=True)
    other_unit = login_as(make_user("police", unit="Comisaría 9"))
    assert other_unit.get(f"/patrullas/{canoe}").status_code == 404
    assert login_as(patrol["officer"]).get(f"/patrullas/{canoe}").status_code == 200
    assert client.get("/patrullas").status_code == 302  # to the login
