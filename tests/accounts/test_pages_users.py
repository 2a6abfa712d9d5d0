"""Admin pages for accounts and conflicts of interest."""
from inspection.core.models import ConflictOfInterest, User
from tests.conftest import PASSWORD


def login(client, user):
    assert client.post("/login", data={"username": user.username, "password": PASSWORD}).status_code == 302


def test_admin_creates_users_and_declares_conflicts(client, make_user, make_owner, db):
    login(client, make_user("admin"))
    owner = make_owner(name="Flota Norte")
    response = client.post("/usuarios", data={"username": "Carla", "full_name": "Carla R.", "role": "owner",
                                              "owner_id": "", "password": "una-clave-larga"})
    assert response.status_code == 422 and "armador" in response.get_data(as_text=True)
    response = client.post("/usuarios", data={"username": "carla", "full_name": "Carla R.", "role": "owner",
                                              "owner_id": str(owner.id), "password": "una-clave-larga"})
    assert response.status_code == 302
    assert db.session.scalar(db.select(User).filter_by(username="carla")).owner_id == owner.id
    inspector = make_user("inspector")
    response = client.post(f"/usuarios/{inspector.id}/conflictos", data={"owner_id": str(owner.id), "reason": "Ex empleado"})
    assert response.status_code == 302
    assert db.session.scalar(db.select(ConflictOfInterest).filter_by(user_id=inspector.id)).owner_id == owner.id
    assert "Ex empleado" in client.get("/usuarios").get_data(as_text=True)


def test_only_admins_see_users(client, make_user):
    login(client, make_user("inspector"))
    assert client.get("/usuarios").status_code == 403
