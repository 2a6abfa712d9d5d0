"""The certificate pages: revocation asks once, every decision says what it did; the list searches, filters and sorts."""
import re
from datetime import datetime, timedelta, timezone

import pytest

from inspection.core.clock import office_today
from inspection.core.extensions import db as _db
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


# --- the list: search, status filter, order, kept in the pager and the CSV --------------------------

def _listed(client, query: str) -> list[str]:
    """The certificate numbers the list page shows, in order."""
    return re.findall(r'class="mono cert-number"[^>]*>([^<]+)<', client.get(f"/certificados?{query}").get_data(True))


@pytest.fixture
def shelf(records, make_vessel, make_user, crew):
    """Four certificates of three vessels (one revoked, one expired), the owner's fleet holding two."""
    inspector, today = make_user("inspector"), office_today()
    ours = crew["vessel"]
    ours.name = "Ñandutí"
    other = make_vessel(registration="PY-ZZ 9", name="Yacaré")
    third = make_vessel(registration="PY-AA 1", name="Mburucuyá")
    made = {
        "ours": records["certificate"](ours, inspector, "seguridad", today - timedelta(days=10), today + timedelta(days=170)),
        "ours_old": records["certificate"](ours, inspector, "navegabilidad", today - timedelta(days=400),
                                           today - timedelta(days=35)),
        "other": records["certificate"](other, inspector, "seguridad", today - timedelta(days=5), today + timedelta(days=60),
                                        revoked_at=datetime(2026, 1, 1, tzinfo=timezone.utc)),
        "third": records["certificate"](third, inspector, "navegabilidad", today - timedelta(days=1),
                                        today + timedelta(days=300)),
    }
    _db.session.commit()
    return {key: row.number for key, row in made.items()}


def test_the_certificate_list_searches_number_registration_and_name(client, crew, shelf):
    login(client, crew["admin_user"])
    assert set(_listed(client, "q=Ñandutí")) == {shelf["ours"], shelf["ours_old"]}
    assert set(_listed(client, "q=ANDUT")) == {shelf["ours"], shelf["ours_old"]}  # case aside, as the vessel search
    assert _listed(client, "q=yacar") == [shelf["other"]]
    assert _listed(client, "q=py-zz9") == [shelf["other"]]  # the registration's key: spaces and case aside
    assert _listed(client, f"q={shelf['third'].lower()}") == [shelf["third"]]
    assert "No hay certificados que coincidan" in text(client.get("/certificados?q=nadie"))


def test_the_certificate_list_filters_by_the_status_police_see(client, crew, shelf):
    login(client, crew["admin_user"])
    assert _listed(client, "status=revoked") == [shelf["other"]]
    assert _listed(client, "status=expired") == [shelf["ours_old"]]
    assert set(_listed(client, "status=valid")) == {shelf["ours"], shelf["third"]}
    assert _listed(client, "status=valid&kind=navegabilidad") == [shelf["third"]]
    assert len(_listed(client, "status=nonsense")) == 4  # a malformed filter is dropped, not refused


def test_the_certificate_list_sorts_in_the_database_and_says_how(client, crew, shelf):
    login(client, crew["admin_user"])
    assert _listed(client, "") == [shelf[k] for k in ("third", "other", "ours", "ours_old")]  # newest issued first
    assert _listed(client, "sort=valid_until") == [shelf[k] for k in ("ours_old", "other", "ours", "third")]
    assert _listed(client, "sort=-valid_until") == [shelf[k] for k in ("third", "ours", "other", "ours_old")]
    assert _listed(client, "sort=-vessel")[0] == shelf["other"]  # PY-ZZ 9 last of the registrations
    assert _listed(client, "sort=status") == [shelf[k] for k in ("ours", "third", "ours_old", "other")]  # ties by id
    assert _listed(client, "sort=owner_id") == _listed(client, "")  # not a sort key: the default order
    page = client.get("/certificados?sort=-valid_until&status=valid").get_data(True)
    assert re.search(r'<th aria-sort="descending"><a class="sort" href="\?sort=valid_until&amp;status=valid"', page)
    assert page.count("aria-sort=") == 1
    assert 'href="/certificados.csv?sort=-valid_until&amp;status=valid"' in page


def test_the_pager_keeps_the_search_filter_and_order(client, crew, shelf):
    login(client, crew["admin_user"])
    first = client.get("/certificados?status=valid&sort=valid_until&per_page=1").get_data(True)
    assert 'href="?status=valid&amp;sort=valid_until&amp;per_page=1&amp;page=2"' in first
    assert _listed(client, "status=valid&sort=valid_until&per_page=1&page=2") == [shelf["third"]]


def test_the_certificate_csv_follows_the_page_and_the_owner_sees_only_theirs(app, client, crew, shelf):
    login(client, crew["admin_user"])
    rows = client.get("/certificados.csv?status=valid&sort=-valid_until").get_data(True).splitlines()[1:]
    assert [row.split(",")[0] for row in rows] == [shelf["third"], shelf["ours"]]
    client = app.test_client()
    login(client, crew["owner"])
    assert set(_listed(client, "")) == {shelf["ours"], shelf["ours_old"]}
    assert _listed(client, "q=yacar") == [] and _listed(client, "status=revoked") == []
    rows = client.get("/certificados.csv?sort=valid_until").get_data(True).splitlines()[1:]
    assert [row.split(",")[0] for row in rows] == [shelf["ours_old"], shelf["ours"]]


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
