"""The police phone's pages (issue 23): the patrol shell with its offline lists, the vessel search and a vessel's
lists with signal; only police reach them."""
import json
import re
from decimal import Decimal

import pytest

from checklists import load_catalog
from tests.fixtures.node import NODE, run_cli
from tests.fixtures.patrol import patrol, start  # noqa: F401  (fixture)


def kit_of(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="patrol-kit">(.*?)</script>', html, re.S)[1])


def test_police_get_the_phone_shell_with_every_list_for_offline_use(login_as, patrol):  # noqa: F811
    browser = login_as(patrol["officer"])
    response = browser.get("/patrulla")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and response.headers["X-Baliza-Shell"] == "1"  # the worker keeps it
    assert 'href="/patrulla"' in html and "Todo cumple" in html and 'id="sync-badge"' in html
    assert "Preparando el teléfono…" in html and "tableta" not in html  # the badge names the phone
    kit = kit_of(html)
    canoe = lists_of(kit, kit["crafts"]["rowing"])
    assert [i["id"] for i in canoe["menores"]["items"]][:2] == ["men.hull.condition", "men.ground_tackle.outfit"]
    buckets = next(i for i in canoe["menores"]["items"] if i["id"] == "men.buckets.total")
    assert (buckets["required"], buckets["article"]) == (1, "144")
    motor = lists_of(kit, kit["crafts"]["motor"])
    assert "reason" in motor["menores"]["exemption"]  # art. 210: a motor craft is no small craft
    assert set(kit["crafts"]) == set(load_catalog().craft.types)  # checklists/craft.toml
    [launch] = kit["vessels"]  # every vessel the officer may see: its name, registration and lists, nothing else
    assert set(launch) == {"id", "label", "registration", "lists"} and launch["id"] == patrol["vessel"].id
    assert lists_of(kit, launch["lists"])["conducta"]["items"][0]["id"] == "con.lights.night"
    catalog = load_catalog()
    for kind, found in kit["unknown"].items():  # a vessel known only by its QR: every patrol item of the list
        assert [i["id"] for i in found["items"]] == list(catalog.get(kind).patrol)
    english = browser.get("/patrulla?lang=en").get_data(as_text=True)
    assert "All compliant" in english and '<html lang="en"' in english and "Preparing the phone…" in english


def lists_of(kit: dict, profile: int) -> dict:
    """A profile of the kit as lists, as the phone rebuilds it (flow.js listsOf)."""
    lists = {kind: kit["lists"][index] for kind, index in kit["profiles"][profile].items()}
    return {kind: {"exemption": kit["exemptions"][found["exemption"]]} if "exemption" in found
            else {"items": [kit["items"][i] for i in found["items"]]} for kind, found in lists.items()}


def test_the_tablet_badge_still_names_the_tablet(login_as, make_user):
    html = login_as(make_user("inspector")).get("/agenda").get_data(as_text=True)
    assert "Preparando la tableta…" in html and 'data-device="tablet"' in html


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_offline_the_phone_shows_the_items_the_server_pins(login_as, patrol, certify, make_vessel, client, tmp_path):  # noqa: F811
    """A canoe, a motor launch with passengers (by its id and by its certificate's QR) and unregistered craft of each
    type: the lists the phone looks up offline (node, flow.js) are the items the server pins, with their bounds."""
    canoe = make_vessel(propulsion="rowing", service="work", hull_material="wood", length_m=Decimal("4.5"),
                        beam_m=Decimal("1.2"), girth_m=Decimal("2"), crew=1, holds=0, cooking="none", boats=0,
                        fire_hydrants=0)
    launch = patrol["vessel"]
    token = certify(launch).token
    kit = kit_of(login_as(patrol["officer"]).get("/patrulla").get_data(as_text=True))
    asks = [{"craft": "rowing"}, {"craft": "sail"}, {"craft": "motor"}, {"vessel_id": canoe.id},
            {"vessel_id": launch.id}, {"token": token}]
    bodies = [{"craft": {"type": "rowing", "marks": "", "length_m": 3.5}},
              {"craft": {"type": "sail", "marks": "", "length_m": 7}},
              {"craft": {"type": "motor", "marks": "", "length_m": 12}},
              {"vessel_id": canoe.id}, {"vessel_id": launch.id}, {"verification": {"token": token}}]
    shown = run_cli("patrol_cli.mjs", {"kit": kit, "asks": asks}, tmp_path)
    for ask, body, lists in zip(asks, bodies, shown):
        for kind, phone in lists.items():
            response = start(client, patrol["headers"], checklist=kind, **body)
            if isinstance(phone, dict):  # the list does not apply: the server refuses it too, with the article
                assert response.status_code == 422 and phone["exempt"] in response.get_data(as_text=True), (ask, kind)
                continue
            assert response.status_code == 201, (ask, kind, response.json)
            pinned = [{k: item[k] for k in ("id", "required", "maximum", "detainable")} for item in response.json["items"]]
            assert phone == pinned, (ask, kind)
    assert all(isinstance(kind, list) for kind in shown[3].values())  # the canoe gets the small-craft list
    assert "exempt" in shown[4]["menores"] and shown[5] == shown[4]  # the launch: by id and by its QR alike
    assert len(shown[4]["conducta"]) < len(kit["unknown"]["conducta"]["items"])  # not every item: those that apply


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
