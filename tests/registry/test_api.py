"""The registry's JSON API: owners and vessels, filters, pagination, isolation, errors."""
import pytest

from inspection.core.models import Vessel
from inspection.i18n.labels import field_label
from tests.fixtures.checklists import VESSEL


@pytest.fixture
def admin(as_role):
    return as_role("admin")[1]


def test_create_vessel_computes_tonnage_and_normalises_registration(client, admin, make_owner):
    owner = make_owner()
    response = client.post("/api/v1/vessels", json={**VESSEL, "owner_id": owner.id}, headers=admin)
    assert response.status_code == 201, response.json
    body = response.json
    assert body["registration"] == "PY 7001"
    assert body["gross_tonnage"] == 346.33  # art. 195: 45 x 8 m iron hull, 14 m girth
    assert body["length_m"] == 45.0
    assert client.get(f"/api/v1/vessels/{body['id']}", headers=admin).json["name"] == "Tacuary"


def test_registration_is_unique_after_normalising_case_and_spaces(client, admin, make_owner, db):
    owner = make_owner()
    assert client.post("/api/v1/vessels", json={**VESSEL, "owner_id": owner.id}, headers=admin).status_code == 201
    response = client.post("/api/v1/vessels", json={**VESSEL, "registration": " PY7001 ", "owner_id": owner.id},
                           headers=admin)
    assert response.status_code == 409
    assert response.mimetype == "application/problem+json"
    assert "matrícula" in response.json["errors"]["registration"][0]
    assert db.session.scalar(db.select(db.func.count(Vessel.id))) == 1


@pytest.mark.parametrize("changes, field, words", [
    ({"propulsion": "rowing", "boilers": 1, "crew": 2, "fire_hydrants": 0}, "boilers", "remo"),
    ({"propulsion": "steam", "boilers": 0}, "boilers", "vapor"),
    ({"steam_launch": True}, "steam_launch", "vapor"),
    ({"service": "passenger", "max_passengers": 0}, "max_passengers", "pasajero"),
    ({"crew": -1}, "crew", "mayor o igual"),
    ({"crew": 2.5}, "crew", "número entero"),  # refused, never read as 2
    ({"cabins": "3.5"}, "cabins", "número entero"),
    ({"flag": "foreign"}, "cabotage_permit", "cabotaje"),
    ({"beam_m": 50}, "beam_m", "manga"),
    ({"propulsion": "nuclear"}, "propulsion", "Debe ser uno de"),
    ({"length_m": "abc"}, "length_m", "número"),
    ({"color": "rojo"}, "color", "desconocido"),
    ({"name": "   "}, "name", "no puede quedar en blanco"),  # three spaces are no name
    ({"home_port": " \t "}, "home_port", "no puede quedar en blanco"),
    ({"registration": "  "}, "registration", "no puede quedar en blanco"),
])
def test_impossible_vessels_are_refused_in_spanish_naming_the_field(client, admin, make_owner, db, changes, field, words):
    owner = make_owner()
    response = client.post("/api/v1/vessels", json={**VESSEL, "owner_id": owner.id, **changes}, headers=admin)
    assert response.status_code == 422, response.json
    assert response.mimetype == "application/problem+json"
    assert field in response.json["errors"]
    assert words in " ".join(response.json["errors"][field])
    assert field_label(field, "es") in response.json["detail"]  # people read the detail: the field's label
    assert db.session.scalar(db.select(db.func.count(Vessel.id))) == 0


def test_typed_names_are_trimmed_and_a_blank_one_is_refused_on_change_too(client, admin, make_owner):
    owner = make_owner()
    created = client.post("/api/v1/vessels", json={**VESSEL, "owner_id": owner.id, "name": "  Tacuary  ",
                                                   "cabotage_permit": "   "}, headers=admin)
    assert created.status_code == 201, created.json
    assert (created.json["name"], created.json["cabotage_permit"]) == ("Tacuary", None)
    url = f"/api/v1/vessels/{created.json['id']}"
    blank = client.patch(url, json={"name": "   "}, headers={**admin, "Accept-Language": "en"})
    assert blank.status_code == 422 and blank.json["errors"] == {"name": ["This field cannot be blank."]}
    assert client.get(url, headers=admin).json["name"] == "Tacuary"
    owner_url = f"/api/v1/owners/{owner.id}"
    assert client.patch(owner_url, json={"name": "  "}, headers=admin).status_code == 422
    renamed = client.patch(owner_url, json={"name": " Naviera Tacuary S.A. ", "phone": "  "}, headers=admin)
    assert (renamed.json["name"], renamed.json["phone"]) == ("Naviera Tacuary S.A.", None)


def test_errors_in_english_when_asked(client, admin, make_owner):
    owner = make_owner()
    response = client.post("/api/v1/vessels", json={**VESSEL, "owner_id": owner.id, "boilers": 1, "propulsion": "rowing",
                                                    "fire_hydrants": 0},
                           headers={**admin, "Accept-Language": "en"})
    assert response.status_code == 422
    assert response.json["title"] == "Invalid data"
    assert "rowing" in response.json["errors"]["boilers"][0]
    assert response.headers["Content-Language"] == "en"


def test_missing_fields_named(client, admin):
    response = client.post("/api/v1/vessels", json={}, headers=admin)
    assert response.status_code == 422
    assert response.json["errors"]["registration"] == ["Este campo es obligatorio."]


def test_malformed_json_is_a_clear_400_or_422(client, admin):
    response = client.post("/api/v1/vessels", data="{not json", headers={**admin, "Content-Type": "application/json"})
    assert response.status_code in (400, 422)
    assert response.mimetype == "application/problem+json"


def test_patch_rechecks_the_merged_vessel(client, admin, make_vessel):
    vessel = make_vessel(propulsion="motor", boilers=0)
    response = client.patch(f"/api/v1/vessels/{vessel.id}", json={"propulsion": "steam"}, headers=admin)
    assert response.status_code == 422
    assert "boilers" in response.json["errors"]
    response = client.patch(f"/api/v1/vessels/{vessel.id}", json={"propulsion": "steam", "boilers": 1}, headers=admin)
    assert response.status_code == 200
    assert response.json["boilers"] == 1


def test_patch_recomputes_tonnage(client, admin, make_vessel):
    vessel = make_vessel(length_m=45, beam_m=8, girth_m=14, hull_material="iron")
    response = client.patch(f"/api/v1/vessels/{vessel.id}",
                            json={"length_m": 20, "beam_m": 5, "girth_m": 9, "hull_material": "wood"}, headers=admin)
    assert response.json["gross_tonnage"] == 58.87


def test_list_filters_and_pagination(client, admin, make_vessel, make_owner):
    owner = make_owner()
    make_vessel(owner_id=owner.id, name="Aurora", propulsion="motor", service="cargo")
    make_vessel(owner_id=owner.id, name="Boreal", propulsion="sail", service="cargo", crew=3, fire_hydrants=0)
    make_vessel(name="Cometa", propulsion="steam", boilers=1, service="passenger", max_passengers=10)
    page = client.get("/api/v1/vessels?per_page=2&page=1", headers=admin).json
    assert page["total"] == 3 and page["per_page"] == 2 and len(page["items"]) == 2
    last = client.get("/api/v1/vessels?per_page=2&page=2", headers=admin).json
    assert len(last["items"]) == 1 and last["total"] == 3  # a short last page knows the total without counting
    assert client.get("/api/v1/vessels?per_page=2&page=3", headers=admin).json == {
        "items": [], "page": 3, "per_page": 2, "total": 3}  # past the end: counted
    names = lambda q: [v["name"] for v in client.get(f"/api/v1/vessels?{q}", headers=admin).json["items"]]
    assert names(f"owner_id={owner.id}") == ["Aurora", "Boreal"]
    assert names("propulsion=sail") == ["Boreal"]
    assert names("service=passenger") == ["Cometa"]
    assert names("q=come") == ["Cometa"]
    assert client.get("/api/v1/vessels?per_page=1000", headers=admin).status_code == 422


def test_text_search_matches_registration_ignoring_spaces(client, admin, make_vessel):
    make_vessel(registration="PY-4455", name="Uno")
    make_vessel(registration="PY-9999", name="Dos")
    items = client.get("/api/v1/vessels?q=py-44 55", headers=admin).json["items"]
    assert [v["name"] for v in items] == ["Uno"]


def test_owner_sees_only_own_fleet(client, as_role, make_vessel):
    user, headers = as_role("owner")
    mine = make_vessel(owner_id=user.owner_id)
    theirs = make_vessel()
    items = client.get("/api/v1/vessels", headers=headers).json["items"]
    assert [v["id"] for v in items] == [mine.id]
    assert client.get(f"/api/v1/vessels?owner_id={theirs.owner_id}", headers=headers).json["total"] == 0
    assert client.get(f"/api/v1/vessels/{mine.id}", headers=headers).status_code == 200
    assert client.get(f"/api/v1/vessels/{theirs.id}", headers=headers).status_code == 404
    assert client.patch(f"/api/v1/vessels/{theirs.id}", json={"name": "X"}, headers=headers).status_code == 404
    assert client.patch(f"/api/v1/vessels/{mine.id}", json={"name": "X"}, headers=headers).status_code == 403
    assert client.get(f"/api/v1/owners/{theirs.owner_id}", headers=headers).status_code == 404
    assert client.get(f"/api/v1/owners/{user.owner_id}", headers=headers).status_code == 200
    assert [o["id"] for o in client.get("/api/v1/owners", headers=headers).json["items"]] == [user.owner_id]


def stamp_reads(db) -> int:
    """What a kept answer costs: the stamps read (SQLite), or nothing, heard from the writers' notices (PostgreSQL)."""
    return 0 if db.engine.dialect.name == "postgresql" else 1


def test_a_repeated_list_is_served_from_the_cache_until_a_vessel_changes(client, db, admin, make_vessel,
                                                                         count_queries):
    first, second = make_vessel(name="Aurora"), make_vessel(name="Boreal")
    make_vessel(name="Cometa")
    url = "/api/v1/vessels?per_page=2"  # a full page: the count is its own query
    served = []
    fresh = count_queries(lambda: served.append(client.get(url, headers=admin)))
    cached = count_queries(lambda: served.append(client.get(url, headers=admin)))
    assert served[0].data == served[1].data and served[1].json["total"] == 3
    assert served[1].headers["Idempotent-Replayed"] == "false"
    assert cached == stamp_reads(db) < fresh  # at most the stamps (the token's, the registry's): not the page, the count
    assert client.patch(f"/api/v1/vessels/{second.id}", json={"name": "Boreal II"}, headers=admin).status_code == 200
    assert [v["name"] for v in client.get(url, headers=admin).json["items"]] == ["Aurora", "Boreal II"]
    make_vessel(name="Delta")
    assert client.get(url, headers=admin).json["total"] == 4
    assert client.get(f"{url}&q=Aurora", headers=admin).json["items"][0]["id"] == first.id  # arguments are the key


def test_the_cached_list_of_one_owner_is_never_another_owners(client, as_role, make_vessel):
    (one, one_headers), (two, two_headers) = as_role("owner"), as_role("owner")
    mine, theirs = make_vessel(owner_id=one.owner_id), make_vessel(owner_id=two.owner_id)
    assert [v["id"] for v in client.get("/api/v1/vessels", headers=one_headers).json["items"]] == [mine.id]
    assert [v["id"] for v in client.get("/api/v1/vessels", headers=two_headers).json["items"]] == [theirs.id]


def test_a_kept_vessel_is_served_until_it_changes_and_never_outside_its_owner_s_fleet(client, db, admin, as_role,
                                                                                      make_vessel, count_queries):
    (one, one_headers), (_, two_headers) = as_role("owner"), as_role("owner")
    vessel = make_vessel(name="Aurora", owner_id=one.owner_id)
    url = f"/api/v1/vessels/{vessel.id}"
    served = []
    fresh = count_queries(lambda: served.append(client.get(url, headers=admin)))
    cached = count_queries(lambda: served.append(client.get(url, headers=admin)))
    assert served[0].data == served[1].data and served[1].json["name"] == "Aurora"
    assert cached == stamp_reads(db) < fresh  # at most the stamps: not the vessel's row
    assert client.get(url, headers=one_headers).json["name"] == "Aurora"
    assert client.get(url, headers=two_headers).status_code == 404  # kept for staff and its owner, not for another
    assert client.patch(url, json={"name": "Aurora II"}, headers=admin).status_code == 200
    assert client.get(url, headers=admin).json["name"] == "Aurora II"
    assert client.get(url, headers=one_headers).json["name"] == "Aurora II"


def test_owner_cannot_create_vessels_or_owners(client, as_role, make_owner):
    user, headers = as_role("owner")
    assert client.post("/api/v1/vessels", json={**VESSEL, "owner_id": user.owner_id}, headers=headers).status_code == 403
    assert client.post("/api/v1/owners", json={"name": "X S.A.", "tax_id": "123"}, headers=headers).status_code == 403


def test_owner_crud_and_unique_tax_id(client, admin):
    response = client.post("/api/v1/owners", json={"name": "Flota S.A.", "tax_id": "80011122-3", "email": "a@b.py"},
                           headers=admin)
    assert response.status_code == 201
    owner_id = response.json["id"]
    again = client.post("/api/v1/owners", json={"name": "Otra", "tax_id": "80011122-3"}, headers=admin)
    assert again.status_code == 409
    patched = client.patch(f"/api/v1/owners/{owner_id}", json={"phone": "+595 21 000"}, headers=admin)
    assert patched.json["phone"] == "+595 21 000"
    assert client.post("/api/v1/owners", json={"name": "Y", "tax_id": "9", "email": "no"}, headers=admin).status_code == 422


def test_police_reads_vessels_but_not_owners(client, as_role, make_vessel):
    _, headers = as_role("police")
    vessel = make_vessel()
    assert client.get(f"/api/v1/vessels/{vessel.id}", headers=headers).status_code == 200
    assert client.get("/api/v1/owners", headers=headers).status_code == 403


def test_anonymous_gets_401(client, make_vessel):
    vessel = make_vessel()
    response = client.get(f"/api/v1/vessels/{vessel.id}")
    assert response.status_code == 401
    assert response.json["title"] == "Debe iniciar sesión"


def test_openapi_is_generated_from_schemas(client):
    spec = client.get("/api/v1/openapi.json").json
    assert spec["openapi"].startswith("3.")
    vessel = spec["components"]["schemas"]["Vessel"]["properties"]
    for field in ("registration", "gross_tonnage", "boilers", "steam_launch", "hot_climate", "cooking",
                  "flammable_cargo_kg", "practicaje"):
        assert field in vessel
    assert "/api/v1/vessels/{vessel_id}" in spec["paths"]


def test_exact_tonnage_is_kept_beside_the_rounded_one(client, admin, make_owner):
    owner = make_owner()
    body = client.post("/api/v1/vessels", json={**VESSEL, "owner_id": owner.id}, headers=admin).json
    assert body["gross_tonnage"] == 346.33
    assert body["gross_tonnage_exact"].startswith("346.32508833922261484098939929328621908")


@pytest.mark.parametrize("url, status", [
    ("/api/v1/vessels/99999999999999999999999", 404),
    ("/api/v1/vessels?page=30936990035050007598465024", 422),
    ("/api/v1/vessels?owner_id=99999999999999999999", 422),
    ("/api/v1/inspections?vessel_id=-5", 422),
])
def test_out_of_range_numbers_are_clear_errors_not_500(client, admin, url, status):
    """Found by schemathesis against the OpenAPI document: numbers past 64 bits overflowed SQLite."""
    response = client.get(url, headers=admin)
    assert response.status_code == status
    assert response.mimetype == "application/problem+json"


def test_openapi_bounds_are_numbers(client):
    vessel = client.get("/api/v1/openapi.json").json["components"]["schemas"]["Vessel"]["properties"]
    assert vessel["beam_m"]["maximum"] == 500 and vessel["beam_m"]["exclusiveMinimum"] is True


def test_flammable_cargo_is_created_read_and_patched(client, admin, make_owner):
    """flammable_cargo_kg (api.md) defaults to 0, round-trips, and a PATCH changes the barge's checklist."""
    owner = make_owner()
    barge = {**VESSEL, "propulsion": "towed", "crew": 0, "fire_hydrants": 0, "cooking": "none", "owner_id": owner.id}
    created = client.post("/api/v1/vessels", json=barge, headers=admin).json
    assert created["flammable_cargo_kg"] == 0
    url = f"/api/v1/vessels/{created['id']}"
    checklist = f"{url}/checklists/navegabilidad"
    assert "nav.flammables.steel_towline" not in {i["id"] for i in client.get(checklist, headers=admin).json["items"]}
    response = client.patch(url, json={"flammable_cargo_kg": 5000}, headers=admin)
    assert response.status_code == 200 and response.json["flammable_cargo_kg"] == 5000
    assert client.get(url, headers=admin).json["flammable_cargo_kg"] == 5000
    ids = {i["id"] for i in client.get(checklist, headers=admin).json["items"]}
    assert {"nav.flammables.steel_towline", "nav.flammables.no_fire", "nav.flammables.not_idle_at_quay"} <= ids


@pytest.mark.parametrize("value", [-1, 100_000_001, "mucho"])
def test_flammable_cargo_must_be_whole_kilograms(client, admin, make_owner, value):
    owner = make_owner()
    response = client.post("/api/v1/vessels", json={**VESSEL, "owner_id": owner.id, "flammable_cargo_kg": value},
                           headers=admin)
    assert response.status_code == 422
    assert "flammable_cargo_kg" in response.json["errors"]


def test_practicaje_is_created_read_and_patched(client, admin, make_owner):
    """practicaje defaults to unset (the route is asked), round-trips, and a PATCH gives pilots their cabins."""
    owner = make_owner()
    created = client.post("/api/v1/vessels", json={**VESSEL, "cabins": 4, "owner_id": owner.id}, headers=admin).json
    assert created["practicaje"] == "unset"
    url = f"/api/v1/vessels/{created['id']}"
    checklist = f"{url}/checklists/navegabilidad"
    items = {i["id"]: i["required"] for i in client.get(checklist, headers=admin).json["items"]}
    assert "nav.pilots.route_recorded" in items and "nav.pilots.cabin_location" not in items
    response = client.patch(url, json={"practicaje": "beyond_angostura"}, headers=admin)
    assert response.status_code == 200 and response.json["practicaje"] == "beyond_angostura"
    items = {i["id"]: i["required"] for i in client.get(checklist, headers=admin).json["items"]}
    assert items["nav.pilots.cabin_location"] == 2 and "nav.pilots.route_recorded" not in items


@pytest.mark.parametrize("changes, status", [
    ({"practicaje": "somewhere"}, 422),
    ({"flag": "foreign", "cabotage_permit": "CAB-1", "practicaje": "fixed_itinerary"}, 422),
])
def test_practicaje_refuses_unknown_routes_and_foreign_fixed_itineraries(client, admin, make_owner, changes,
                                                                         status):
    owner = make_owner()
    response = client.post("/api/v1/vessels", json={**VESSEL, "owner_id": owner.id, **changes}, headers=admin)
    assert response.status_code == status
    assert "practicaje" in response.json["errors"]


def test_the_vessel_list_rows_dump_as_the_schema_dumps_the_vessel(client, admin, make_vessel, db):
    """The list reads plain rows of VESSEL_COLUMNS, not Vessel objects; each item is still the schema's dump."""
    from decimal import Decimal

    from inspection.core.models import Vessel
    from inspection.registry.schemas import VesselSchema

    made = [make_vessel(), make_vessel(length_m=Decimal("12.35"), beam_m=Decimal("3.1"), hull_material="wood")]
    items = {item["id"]: item for item in client.get("/api/v1/vessels?per_page=50", headers=admin).json["items"]}
    for vessel in made:
        assert items[vessel.id] == VesselSchema().dump(db.session.get(Vessel, vessel.id))



# Issue 20, finding 6: a measure finer than the centimetre is refused, never stored rounded (8.125 was kept as 8.12).
@pytest.mark.parametrize("field", ["length_m", "beam_m", "girth_m"])
@pytest.mark.parametrize("value", [8.125, "8.125", 4.001])
def test_a_measure_finer_than_the_centimetre_is_refused_naming_the_precision(client, admin, make_owner, db, field,
                                                                           value):
    owner = make_owner()
    response = client.post("/api/v1/vessels", json={**VESSEL, "owner_id": owner.id, field: value}, headers=admin)
    assert response.status_code == 422, response.json
    assert response.json["errors"][field] == ["Admite como mucho 2 decimales: las medidas se registran al centímetro."]
    assert db.session.scalar(db.select(db.func.count(Vessel.id))) == 0
    english = client.post("/api/v1/vessels", json={**VESSEL, "owner_id": owner.id, field: value},
                          headers={**admin, "Accept-Language": "en"})
    assert english.json["errors"][field] == ["At most 2 decimals: measurements are recorded to the centimetre."]


def test_a_patch_finer_than_the_centimetre_changes_nothing(client, admin, make_vessel, db):
    vessel = make_vessel(length_m=8, beam_m=2, girth_m=3, hull_material="wood")
    response = client.patch(f"/api/v1/vessels/{vessel.id}", json={"length_m": 8.125}, headers=admin)
    assert response.status_code == 422 and "length_m" in response.json["errors"]
    db.session.expire_all()
    assert db.session.get(Vessel, vessel.id).length_m == 8


@pytest.mark.parametrize("value, stored", [(8.13, "8.13"), ("8.120", "8.12"), (8, "8")])
def test_a_measure_to_the_centimetre_is_stored_as_given(client, admin, make_owner, db, value, stored):
    from decimal import Decimal

    owner = make_owner()
    response = client.post("/api/v1/vessels", json={**VESSEL, "owner_id": owner.id, "length_m": value}, headers=admin)
    assert response.status_code == 201, response.json
    assert response.json["length_m"] == float(stored)
    db.session.expire_all()
    assert db.session.get(Vessel, response.json["id"]).length_m == Decimal(stored)


def test_a_sailing_craft_of_4998_tons_reads_4998_and_is_exempt(client, admin, make_owner):
    """Art. 210: under five tons is exempt; the API's gross_tonnage is the shown figure, never 5.0 (issue 20)."""
    craft = {**VESSEL, "owner_id": make_owner().id, "propulsion": "sail", "service": "work", "hull_material": "wood",
             "length_m": 7.24, "beam_m": 2.79, "girth_m": 3.99, "crew": 2, "fire_hydrants": 0, "holds": 0,
             "boats": 0, "cooking": "none"}
    body = client.post("/api/v1/vessels", json=craft, headers=admin).json
    assert body["gross_tonnage"] == 4.998 and body["gross_tonnage_exact"].startswith("4.99804829")
    nav = client.get(f"/api/v1/vessels/{body['id']}/checklists/navegabilidad", headers=admin).json
    assert nav["exempt"] is True and nav["exemption"]["article"] == "210"
    listed = client.get("/api/v1/vessels", headers=admin).json["items"]
    assert [v["gross_tonnage"] for v in listed] == [4.998]
