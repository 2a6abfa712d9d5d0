"""The account and user pages' acts: each says on the next page what it did, once, in the reader's language; signing
a device out asks first (it cannot be undone); a refused form comes back with what was typed and why at its field."""
from inspection.accounts.auth import issue_token
from inspection.core.clock import office_now
from inspection.core.extensions import db
from inspection.core.models import ApiToken, ConflictOfInterest, User
from tests.conftest import PASSWORD
from tests.fixtures.pages import asked, reported, text


def _device(user, name="Tableta 7") -> ApiToken:
    _, record = issue_token(user, office_now(), name)
    db.session.commit()
    return record


# --- one's own account ---------------------------------------------------------------------------

def test_changing_the_password_says_so_once_and_a_wrong_one_is_refused_at_its_field(make_user, login_as):
    client = login_as(make_user("inspector"))
    refused = client.post("/cuenta", data={"current": "no-es-esta", "new": "otra-clave-larga"})
    assert refused.status_code == 422 and "La contraseña actual no es correcta." in text(refused)
    done = client.post("/cuenta", data={"current": PASSWORD, "new": "otra-clave-larga"})
    reported(client, done, "Contraseña cambiada. Las sesiones de la API abiertas con la anterior quedaron cerradas.")
    english = login_as(make_user("owner"))
    english.get("/cuenta?lang=en")
    reported(english, english.post("/cuenta", data={"current": PASSWORD, "new": "otra-clave-larga"}),
             "Password changed. API sessions opened with the old one were closed.")


def test_the_account_language_is_kept_and_said_in_that_language(make_user, login_as):
    user = make_user("owner")
    client = login_as(user)
    shown = reported(client, client.post("/cuenta/idioma", data={"language": "en"}),
                     "Account language: English. Notices and the calendar also come in this language.")
    assert "My account" in shown
    assert db.session.get(User, user.id).language == "en"
    reported(client, client.post("/cuenta/idioma", data={"language": "es"}),
             "Idioma de la cuenta: Español. Los avisos y el calendario también llegan en este idioma.")
    refused = client.post("/cuenta/idioma", data={"language": "fr"})
    assert refused.status_code == 422 and "Idioma desconocido: fr." in text(refused)
    assert db.session.get(User, user.id).language == "es"


def test_signing_a_device_out_asks_first_then_acts_and_says_so(make_user, login_as):
    user = make_user("inspector")
    device = _device(user)
    client = login_as(user)
    question = asked(client.post(f"/cuenta/dispositivos/{device.id}/revocar"),
                     "¿Cerrar la sesión del dispositivo «Tableta 7»?")
    assert "No se puede deshacer" in question
    assert db.session.get(ApiToken, device.id).revoked_at is None  # nothing changed until confirmed
    done = client.post(f"/cuenta/dispositivos/{device.id}/revocar", data={"confirmed": "1"})
    reported(client, done, "Sesión cerrada en el dispositivo «Tableta 7».")
    db.session.expire_all()
    assert db.session.get(ApiToken, device.id).revoked_at is not None

    other = _device(user, "Tableta 9")
    client.get("/cuenta?lang=en")
    asked(client.post(f"/cuenta/dispositivos/{other.id}/revocar"), "Sign out the device “Tableta 9”?")
    reported(client, client.post(f"/cuenta/dispositivos/{other.id}/revocar", data={"confirmed": "1"}),
             "Signed out on the device “Tableta 9”.")


# --- the admin's user pages ----------------------------------------------------------------------

def test_creating_a_user_says_so_and_a_refusal_keeps_what_was_typed(make_user, make_owner, login_as):
    client = login_as(make_user("admin"))
    owner = make_owner(name="Flota Norte")
    form = {"username": "carla", "full_name": "Carla Ríos", "email": "carla@example.com", "role": "owner",
            "owner_id": "", "password": "una-clave-larga"}
    refused = client.post("/usuarios", data=form)
    assert refused.status_code == 422
    html = refused.get_data(as_text=True)
    assert 'value="Carla Ríos"' in html and 'value="carla@example.com"' in html
    assert '<option value="owner" selected>' in html and "Un usuario armador debe estar vinculado" in text(refused)
    reported(client, client.post("/usuarios", data={**form, "owner_id": str(owner.id)}),
             "Usuario carla creado (Armador).")
    client.get("/usuarios?lang=en")
    reported(client, client.post("/usuarios", data={**form, "username": "dora", "role": "inspector"}),
             "User dora created (Inspector).")


def test_declaring_a_conflict_says_so_and_a_refusal_reopens_the_form_with_what_was_typed(
        make_user, make_owner, login_as):
    client = login_as(make_user("admin"))
    inspector, owner = make_user("inspector", full_name="Insp. Benítez"), make_owner(name="Flota Norte")
    make_owner(name="Astillero Sur")
    refused = client.post(f"/usuarios/{inspector.id}/conflictos", data={"owner_id": str(owner.id), "reason": "Ex"})
    assert refused.status_code == 422
    html = refused.get_data(as_text=True)
    row = html[html.index(f'id="user-{inspector.id}"'):]
    assert "<details open>" in row[:row.index("</tr>")] and 'value="Ex"' in row
    assert f'<option value="{owner.id}" selected>' in row
    assert db.session.scalar(db.select(db.func.count()).select_from(ConflictOfInterest)) == 0
    done = client.post(f"/usuarios/{inspector.id}/conflictos", data={"owner_id": str(owner.id), "reason": "Ex socio"})
    reported(client, done, "Vínculo de Insp. Benítez con Flota Norte declarado.")


def test_disabling_and_enabling_say_so_and_only_the_possible_one_is_offered(make_user, login_as):
    client = login_as(make_user("admin"))
    user = make_user("inspector", username="ines")

    def buttons():
        html = client.get("/usuarios").get_data(as_text=True)
        row = html[html.index(f'id="user-{user.id}"'):]
        row = row[:row.index("</tr>")]
        return "Desactivar" in row, "Reactivar" in row

    assert buttons() == (True, False)
    reported(client, client.post(f"/usuarios/{user.id}/activo", data={"active": "0"}),
             "Cuenta ines desactivada: sus sesiones y dispositivos quedaron cerrados.")
    assert buttons() == (False, True)
    client.get("/usuarios?lang=en")
    reported(client, client.post(f"/usuarios/{user.id}/activo", data={"active": "1"}), "Account ines enabled again.")


def test_signing_out_a_users_devices_asks_first_then_says_how_many(make_user, login_as):
    client = login_as(make_user("admin"))
    user = make_user("inspector", username="ines")
    first, second = _device(user), _device(user, "Tableta 9")
    asked(client.post(f"/usuarios/{user.id}/dispositivos/revocar"),
          "¿Cerrar las sesiones de todos los dispositivos de ines?")
    assert db.session.get(ApiToken, first.id).revoked_at is None  # nothing changed until confirmed
    done = client.post(f"/usuarios/{user.id}/dispositivos/revocar", data={"confirmed": "1"})
    reported(client, done, "Sesiones cerradas en los dispositivos de ines: 2.")
    db.session.expire_all()
    assert db.session.get(ApiToken, second.id).revoked_at is not None
    client.get("/usuarios?lang=en")
    asked(client.post(f"/usuarios/{user.id}/dispositivos/revocar"), "Sign out every device of ines?")
