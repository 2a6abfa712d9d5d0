"""The reviewer's pages: the queue, and the report's two acts (countersign, return), asked once and said after."""
from inspection.core.extensions import db
from inspection.core.models import Certificate, Inspection
from tests.media_samples import SIGNATURES


def test_the_queue_shows_what_waits_and_the_reviewer_countersigns_from_the_report(client, crew, issued, make_user,
                                                                                login_as):
    reviewer = make_user("reviewer", full_name="Cnel. Aurelio Ramírez", title="Prefecto General de Puertos")
    browser = login_as(reviewer)
    assert browser.get("/").headers["Location"].endswith("/refrendos")
    queue = browser.get("/refrendos").get_data(as_text=True)
    assert issued["number"] in queue and crew["vessel"].registration in queue
    report_url = f"/inspecciones/{issued['inspection_id']}/informe"
    report = browser.get(report_url).get_data(as_text=True)
    assert "Pendiente de refrendo" in report and "countersign-form" in report and "js/review.js" in report
    form = {"signature": SIGNATURES["inspector"]}
    asked = browser.post(f"/inspecciones/{issued['inspection_id']}/refrendar", data=form)
    assert asked.status_code == 200 and "¿Refrendar la inspección" in asked.get_data(as_text=True)
    assert db.session.get(Inspection, issued["inspection_id"]).review_status == "pending"  # asking did nothing
    done = browser.post(f"/inspecciones/{issued['inspection_id']}/refrendar", data={**form, "confirmed": "1"},
                        follow_redirects=True)
    page = done.get_data(as_text=True)
    assert f"el certificado {issued['number']} lleva las dos firmas" in page
    assert "No hay inspecciones esperando refrendo." in page
    db.session.expire_all()
    assert db.session.scalar(db.select(Certificate.countersigned_on).filter_by(number=issued["number"])) is not None
    signed = browser.get(report_url).get_data(as_text=True)
    assert "Refrendada" in signed and "Prefecto General de Puertos" in signed and "countersign-form" not in signed
    owner_view = login_as(crew["owner"]).get(report_url).get_data(as_text=True)
    assert "Refrendada" in owner_view and "Cnel. Aurelio Ramírez" in owner_view


def test_a_blank_pad_or_a_refusal_comes_back_to_the_report_saying_why(client, crew, issued, make_user, login_as):
    browser = login_as(make_user("reviewer"))
    back = browser.post(f"/inspecciones/{issued['inspection_id']}/refrendar", data={"signature": ""},
                        follow_redirects=True)
    assert "Firme en el recuadro antes de refrendar." in back.get_data(as_text=True)
    returned = browser.post(f"/inspecciones/{issued['inspection_id']}/devolver",
                            data={"note": "Revise la caldera", "confirmed": "1"}, follow_redirects=True)
    assert (f"su certificado {issued['number']} quedó revocado y el nuevo cierre emitirá otro"
            in returned.get_data(as_text=True))  # issued at the closing: revoked with the return
    assert db.session.get(Inspection, issued["inspection_id"]).status == "in_progress"
    refused = browser.post(f"/inspecciones/{issued['inspection_id']}/devolver",
                           data={"note": "Revise la caldera", "confirmed": "1"}, follow_redirects=True)
    assert "Esta inspección no espera refrendo." in refused.get_data(as_text=True)


def test_only_reviewers_and_the_office_see_the_queue(crew, make_user, login_as):
    assert login_as(make_user("admin")).get("/refrendos").status_code == 200
    for role in ("inspector", "police"):
        assert login_as(make_user(role)).get("/refrendos").status_code == 403
    assert login_as(crew["owner"]).get("/refrendos").status_code == 403
