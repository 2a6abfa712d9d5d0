"""The certificate pages' decisions: revocation asks once, and every decision says what it did."""
from tests.fixtures.pages import login, text


def _decide(client, number, decision, **form):
    return client.post(f"/certificados/{number}/{decision}", data=form)


def test_revoking_asks_once_then_acts_and_says_so(client, crew, issued):
    number = issued["number"]
    login(client, crew["admin_user"])
    asked = _decide(client, number, "revocar", reason="Casco con avería grave.")
    assert asked.status_code == 200
    page = text(asked)
    assert f"¿Revocar el certificado {number}?" in page and "no se puede deshacer" in page
    assert "Casco con avería grave." in page  # what will be recorded, before it is
    assert client.get(f"/api/v1/certificates/{number}", headers=crew["admin"]).json["status"] == "valid"

    done = _decide(client, number, "revocar", reason="Casco con avería grave.", confirmed="1")
    assert done.status_code == 302
    shown = text(client.get(done.headers["Location"]))
    assert f"Certificado {number} revocado." in shown
    assert f"Certificado {number} revocado." not in text(client.get(done.headers["Location"]))  # once
    assert client.get(f"/api/v1/certificates/{number}", headers=crew["admin"]).json["status"] == "revoked"


def test_a_reversible_decision_acts_at_once_and_reports_in_english(client, crew, issued):
    number = issued["number"]
    login(client, crew["admin_user"])
    client.get("/certificados?lang=en")
    done = _decide(client, number, "suspender", reason="Pending repair of the hull.")
    assert done.status_code == 302
    assert f"Certificate {number} suspended." in text(client.get(done.headers["Location"]))
