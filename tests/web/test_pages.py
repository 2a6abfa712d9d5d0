"""The registry's pages: login, vessel list and detail, admin forms, CSRF."""
import re

import pytest

from tests.conftest import PASSWORD


def login(client, user):
    return client.post("/login", data={"username": user.username, "password": PASSWORD})


def test_login_required_redirects(client):
    response = client.get("/buques")
    assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_bad_login_says_so_in_spanish(client, make_user):
    user = make_user("admin")
    response = client.post("/login", data={"username": user.username, "password": "wrong"})
    assert response.status_code == 401
    assert "Usuario o contraseña incorrectos." in response.get_data(as_text=True)


def test_login_does_not_redirect_off_site(client, make_user):
    user = make_user("admin")
    response = client.post("/login?next=https://evil.example/x", data={"username": user.username, "password": PASSWORD})
    assert response.headers["Location"].endswith("/buques")


def test_vessel_list_search_and_detail_with_formula(client, make_user, make_vessel):
    user = make_user("inspector")
    vessel = make_vessel(name="Presidente Ayala", length_m=45, beam_m=8, girth_m=14, hull_material="iron")
    make_vessel(name="Otro")
    login(client, user)
    page = client.get("/buques?q=ayala").get_data(as_text=True)
    assert "Presidente Ayala" in page and "Otro" not in page
    detail = client.get(f"/buques/{vessel.id}").get_data(as_text=True)
    assert "346,33 t" in detail and "346.33" not in detail  # one number format per page: es_PY
    assert "art. 195" in detail and "0,18" in detail
    english = client.get(f"/buques/{vessel.id}?lang=en").get_data(as_text=True)
    assert "346.33 t" in english and "0.18" in english


def test_owner_pages_show_only_own_vessels(client, make_user, make_vessel):
    user = make_user("owner")
    mine = make_vessel(owner_id=user.owner_id, name="Mío")
    theirs = make_vessel(name="Ajeno")
    login(client, user)
    page = client.get("/buques").get_data(as_text=True)
    assert "Mío" in page and "Ajeno" not in page
    assert client.get(f"/buques/{theirs.id}").status_code == 404
    assert client.get(f"/buques/{mine.id}").status_code == 200
    assert client.get("/buques/nuevo").status_code == 403


@pytest.mark.parametrize("role, q, expected", [
    ("owner", "Buque", ["Mío 0", "Mío 1"]),     # the owner's own only
    ("admin", "Buque", ["Mío 0", "Mío 1", "Suyo"]),
    ("admin", "suyo", ["Suyo"]),                 # any case, registration or name
    ("admin", "  ", []),                         # nothing typed, nothing suggested
    ("police", "Buque", None),                   # the forms it feeds are not theirs: 403
])
def test_vessel_search_suggests_from_ones_scope(client, make_user, make_vessel, role, q, expected):
    owner = make_user("owner")
    for n in range(2):
        make_vessel(owner_id=owner.owner_id, name=f"Buque Mío {n}")
    make_vessel(name="Buque Suyo")
    login(client, owner if role == "owner" else make_user(role))
    response = client.get(f"/buques/buscar?q={q}")
    if expected is None:
        assert response.status_code == 403
        return
    assert [item["label"].split(" · ")[1].removeprefix("Buque ") for item in response.json["items"]] == expected


def test_vessel_search_suggests_ten_at_most(client, make_user, make_vessel):
    for _ in range(12):
        make_vessel()
    login(client, make_user("admin"))
    assert len(client.get("/buques/buscar?q=PY").json["items"]) == 10


def test_admin_registers_vessel_through_the_form(client, make_user, make_owner, db):
    from inspection.core.models import Vessel

    user, owner = make_user("admin"), make_owner()
    login(client, user)
    form = {"registration": "py 8080", "name": "Yacyretá", "owner_id": owner.id, "flag": "national",
            "home_port": "Encarnación", "propulsion": "steam", "service": "passenger", "hull_material": "iron",
            "length_m": "45", "beam_m": "8", "girth_m": "14", "crew": "10", "max_passengers": "50",
            "boilers": "0", "cooking": "galley"}
    response = client.post("/buques/nuevo", data=form)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "Un buque a vapor debe tener al menos una caldera." in page
    assert db.session.scalar(db.select(db.func.count(Vessel.id))) == 0
    assert "Carga inflamable o explosiva habitual (kg)" in page
    assert "Practicaje en la Sección Sur del Río Paraguay" in page and 'value="unset"' in page
    response = client.post("/buques/nuevo", data={**form, "boilers": "2", "hot_climate": "on",
                                                  "flammable_cargo_kg": "300", "practicaje": "beyond_angostura"})
    assert response.status_code == 302
    vessel = db.session.scalar(db.select(Vessel))
    assert vessel.registration == "PY 8080" and vessel.hot_climate is True and vessel.steam_launch is False
    assert vessel.flammable_cargo_kg == 300 and vessel.practicaje == "beyond_angostura"
    detail = client.get(f"/buques/{vessel.id}").get_data(as_text=True)
    assert "Carga inflamable o explosiva habitual (kg)" in detail and "300" in detail
    assert "Dos prácticos (más allá de Angostura)" in detail


def test_admin_edits_owner(client, make_user, make_owner):
    user, owner = make_user("admin"), make_owner(name="Viejo Nombre")
    login(client, user)
    response = client.post(f"/armadores/{owner.id}/editar", data={"name": "Nuevo Nombre", "tax_id": owner.tax_id,
                                                                   "email": "", "phone": "", "address": ""})
    assert response.status_code == 302
    assert "Nuevo Nombre" in client.get("/armadores").get_data(as_text=True)


def test_forms_are_csrf_protected(app, client, make_user, make_owner):
    app.config["WTF_CSRF_ENABLED"] = True
    user = make_user("admin")
    page = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    assert client.post("/login", data={"username": user.username, "password": PASSWORD}).status_code == 400
    response = client.post("/login", data={"username": user.username, "password": PASSWORD, "csrf_token": token})
    assert response.status_code == 302


@pytest.mark.parametrize("path", ["/buques", "/armadores"])
def test_pages_in_english(client, make_user, path):
    login(client, make_user("admin"))
    page = client.get(path + "?lang=en").get_data(as_text=True)
    assert "Vessels" in page and "Sign out" in page


def test_empty_required_box_says_required_and_pager_links(client, make_user, make_vessel):
    login(client, make_user("admin"))
    response = client.post("/armadores/nuevo", data={"name": "", "tax_id": "123", "email": "", "phone": "", "address": ""})
    assert response.status_code == 422
    assert "Este campo es obligatorio." in response.get_data(as_text=True)
    for n in range(3):
        make_vessel(name=f"Página {n}")
    page = client.get("/buques?per_page=1&q=Página").get_data(as_text=True)
    assert "Página 1 de 3" in page and "page=2" in page


def test_users_change_their_password_and_lose_old_tokens(client, make_user, token_for):
    user = make_user("inspector")
    headers = token_for(user)
    login(client, user)
    wrong = client.post("/cuenta", data={"current": "nope", "new": "otra-clave-larga"})
    assert wrong.status_code == 422 and "La contraseña actual no es correcta." in wrong.get_data(as_text=True)
    assert client.post("/cuenta", data={"current": PASSWORD, "new": "otra-clave-larga"}).status_code == 302
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 401
    assert client.post("/api/v1/auth/token", json={"username": user.username, "password": "otra-clave-larga"}).status_code == 201
