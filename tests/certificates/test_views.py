"""The certificate pages' decisions: revocation asks once, and every decision says what it did."""
import re

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


def _forms(response) -> list[str]:
    """The decisions the page offers, by the last part of each form's action."""
    return re.findall(r'action="/certificados/[^/"]+/(\w+)"', response.get_data(as_text=True))


def test_the_decisions_follow_the_certificates_state(client, crew, issued):
    number = issued["number"]
    login(client, crew["admin_user"])
    assert _forms(client.get(f"/certificados/{number}")) == ["suspender", "revocar"]
    _decide(client, number, "suspender", reason="Casco en reparación.")
    assert _forms(client.get(f"/certificados/{number}")) == ["rehabilitar", "revocar"]
    _decide(client, number, "revocar", reason="Casco perdido.", confirmed="1")
    page = client.get(f"/certificados/{number}")
    assert _forms(page) == []
    assert "Revocado: la revocación no se deshace." in text(page)


def test_a_decision_the_record_no_longer_allows_stays_on_the_page_with_the_reason(client, crew, issued):
    """Before: "Conflicto con el estado actual… Volver al inicio"; now the page says why, the reason kept."""
    number = issued["number"]
    login(client, crew["admin_user"])
    _decide(client, number, "revocar", reason="Casco perdido.", confirmed="1")
    refused = _decide(client, number, "rehabilitar", reason="Reparado en astillero.")
    assert refused.status_code == 409
    page = text(refused)
    assert "Revocado: la revocación no se deshace." in page and "Volver al inicio" not in page
    assert "El motivo que escribió (no se registró): Reparado en astillero." in page
    assert "Certificado de" in page  # the certificate's own page


def test_a_stale_suspension_is_refused_on_the_page_naming_the_state(client, crew, issued):
    number = issued["number"]
    login(client, crew["admin_user"])
    _decide(client, number, "suspender", reason="Casco en reparación.")
    again = _decide(client, number, "suspender", reason="Otra vez el casco.")
    assert again.status_code == 409
    page = text(again)
    assert "El certificado ya está suspendido." in page and "Otra vez el casco." in page
    assert _forms(again) == ["rehabilitar", "revocar"]


def test_a_decision_without_reason_is_refused_at_its_form_in_the_readers_words(client, crew, issued):
    number = issued["number"]
    login(client, crew["admin_user"])
    refused = _decide(client, number, "suspender", reason="")
    assert refused.status_code == 422
    page = text(refused)
    assert "Indique el motivo de la decisión." in page and "reason" not in page
    assert 'aria-describedby="err-suspender"' in refused.get_data(as_text=True)
    client.get("/certificados?lang=en")
    assert "Give the reason for the decision." in text(_decide(client, number, "suspender", reason="x"))


def test_a_field_summary_names_fields_by_their_labels(client, crew, issued):
    """Before: "Revise estos campos: reason." The problem detail names the field as people read it."""
    number = issued["number"]
    answer = client.post(f"/api/v1/certificates/{number}/suspend", json={}, headers=crew["admin"])
    assert answer.status_code == 422 and answer.json["detail"] == "Revise estos campos: Motivo."
    assert "reason" in answer.json["errors"]  # the machine's keys stay
    english = client.post(f"/api/v1/certificates/{number}/suspend?lang=en", json={}, headers=crew["admin"])
    assert english.json["detail"] == "Check these fields: Reason."
