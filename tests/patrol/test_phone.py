"""The police phone's pages (issue 23): the patrol shell with its offline lists, the vessel search and a vessel's
lists with signal; only police reach them."""
import json
import re

from checklists import load_catalog
from tests.fixtures.patrol import patrol  # noqa: F401  (fixture)


def kit_of(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="patrol-kit">(.*?)</script>', html, re.S)[1])


def test_police_get_the_phone_shell_with_every_list_for_offline_use(login_as, patrol):  # noqa: F811
    browser = login_as(patrol["officer"])
    response = browser.get("/patrulla")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and response.headers["X-Baliza-Shell"] == "1"  # the worker keeps it
    assert 'href="/patrulla"' in html and "Todo cumple" in html and 'id="sync-badge"' in html
    kit = kit_of(html)
    canoe = kit["crafts"]["rowing"]
    assert [i["id"] for i in canoe["menores"]["items"]][:2] == ["men.hull.condition", "men.ground_tackle.outfit"]
    buckets = next(i for i in canoe["menores"]["items"] if i["id"] == "men.buckets.total")
    assert (buckets["required"], buckets["article"]) == (1, "144")
    assert "reason" in kit["crafts"]["motor"]["menores"]["exemption"]  # art. 210: a motor craft is no small craft
    catalog = load_catalog()
    for kind, found in kit["unknown"].items():  # a vessel known only by its QR: every patrol item of the list
        assert [i["id"] for i in found["items"]] == list(catalog.get(kind).patrol)
    english = browser.get("/patrulla?lang=en").get_data(as_text=True)
    assert "All compliant" in english and '<html lang="en"' in english


def test_only_police_open_the_phone(login_as, make_user, client):
    assert client.get("/patrulla").status_code == 302
    for role in ("admin", "inspector"):
        assert login_as(make_user(role)).get("/patrulla").status_code == 403


def test_a_vessel_is_found_by_registration_and_gets_its_own_lists(login_as, patrol):  # noqa: F811
    browser = login_as(patrol["officer"])
    vessel = patrol["vessel"]
    found = browser.get(f"/patrulla/buques?q={vessel.registration}").json["items"]
    assert [v["id"] for v in found] == [vessel.id]
    lists = browser.get(f"/patrulla/listas?vessel_id={vessel.id}").json
    conduct = {i["id"]: i for i in lists["lists"]["conducta"]["items"]}
    assert lists["vessel"]["id"] == vessel.id and conduct["con.passengers.within_maximum"]["maximum"] == 20
    assert "exemption" in lists["lists"]["menores"]  # a passenger motor launch: no small-craft list
    missing = browser.get("/patrulla/listas?t=NOT-A-TOKEN")
    assert missing.status_code == 404 and "matrícula" in missing.get_data(as_text=True)


def test_a_scanned_certificate_token_gives_its_vessels_lists(login_as, patrol, certify):  # noqa: F811
    certificate = certify(patrol["vessel"])
    lists = login_as(patrol["officer"]).get(f"/patrulla/listas?t={certificate.token}").json
    assert lists["vessel"]["id"] == patrol["vessel"].id
