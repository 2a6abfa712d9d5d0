"""GET /api/v1/vessels/{id}/checklists/{kind}: the law computed for a registered vessel."""
from decimal import Decimal

import pytest

STEAMER = dict(propulsion="steam", service="passenger", crew=40, max_passengers=200, cabins=60, fire_hydrants=7,
               holds=2, boilers=2, hot_climate=True, length_m=Decimal(45), beam_m=Decimal(8), girth_m=Decimal(14))


def required(checklist, item_id):
    return next(i["required"] for i in checklist["items"] if i["id"] == item_id)


def test_passenger_steamer_quantities(client, as_role, make_vessel):
    _, headers = as_role("inspector")
    vessel = make_vessel(**STEAMER)
    body = client.get(f"/api/v1/vessels/{vessel.id}/checklists/seguridad", headers=headers).json
    assert body["kind"] == "seguridad" and body["version"] and body["exempt"] is False
    assert required(body, "seg.lifebuoys.total") == 240
    assert required(body, "seg.lifebuoys.cabins") == 60
    assert required(body, "seg.buckets.total") == 40
    assert required(body, "seg.hoses.total") == 4
    assert required(body, "seg.hydrants.steam_fire_cocks") == 2
    for item in ("seg.boilers.safety_valves", "seg.boilers.manometers", "seg.boilers.level_glasses"):
        assert required(body, item) == 4
    item = body["items"][0]
    assert set(item) >= {"id", "title", "source", "article", "text", "required", "unit", "evidence_required",
                         "detainable"}


def test_rowing_boat_is_exempt_with_its_article(client, as_role, make_vessel):
    user, headers = as_role("owner")
    canoe = make_vessel(owner_id=user.owner_id, propulsion="rowing", service="work", crew=1, fire_hydrants=0,
                        holds=0, boats=0, cooking="none", length_m=Decimal(5), beam_m=Decimal("1.2"), girth_m=Decimal(2))
    body = client.get(f"/api/v1/vessels/{canoe.id}/checklists/navegabilidad", headers=headers).json
    assert body["exempt"] is True and body["items"] == []
    assert body["exemption"]["article"] == "210"
    machinery = client.get(f"/api/v1/vessels/{canoe.id}/checklists/seguridad", headers=headers).json
    assert machinery["exempt"] is True and machinery["exemption"]["reason"]


def test_english_titles(client, as_role, make_vessel):
    _, headers = as_role("admin")
    vessel = make_vessel(**STEAMER)
    es = client.get(f"/api/v1/vessels/{vessel.id}/checklists/seguridad", headers=headers).json
    en = client.get(f"/api/v1/vessels/{vessel.id}/checklists/seguridad", headers={**headers, "Accept-Language": "en"}).json
    assert [i["id"] for i in es["items"]] == [i["id"] for i in en["items"]]
    assert es["items"][0]["title"] != en["items"][0]["title"]
    assert es["items"][0]["text"] == en["items"][0]["text"]  # the law is quoted as written


def test_unknown_kind_and_other_owner(client, as_role, make_vessel):
    user, headers = as_role("owner")
    mine, theirs = make_vessel(owner_id=user.owner_id), make_vessel()
    assert client.get(f"/api/v1/vessels/{mine.id}/checklists/nada", headers=headers).status_code == 404
    assert client.get(f"/api/v1/vessels/{theirs.id}/checklists/seguridad", headers=headers).status_code == 404
    assert client.get(f"/api/v1/vessels/{mine.id}/checklists/documentacion", headers=headers).status_code == 200


@pytest.mark.parametrize("vessel, exempt, buckets", [
    (dict(propulsion="rowing", service="work", crew=2, fire_hydrants=0, holds=0, boats=0, cooking="none",
          length_m=Decimal(5), beam_m=Decimal("1.2"), girth_m=Decimal(2)), False, 2),
    (STEAMER, True, None),
])
def test_small_craft_check_is_served(client, as_role, make_vessel, vessel, exempt, buckets):
    """GET .../checklists/menores: the art. 210 craft's short check; every other vessel is exempt, citing art. 210."""
    _, headers = as_role("police")
    body = client.get(f"/api/v1/vessels/{make_vessel(**vessel).id}/checklists/menores", headers=headers).json
    assert body["kind"] == "menores" and body["version"] == "2026.5" and body["exempt"] is exempt
    if exempt:
        assert body["exemption"]["article"] == "210" and body["items"] == []
    else:
        assert required(body, "men.buckets.total") == buckets
        assert {i["certificate"] for i in body["items"]} == {"none"}
