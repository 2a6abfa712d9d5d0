"""Art. 73's restriction on the certificate and the police verdict, online and offline; a steamer's duty on a motor
launch as the authority's practice, through a real inspection (issue 20, findings 1 and 2)."""
import html
import json
import re
import uuid

import pypdfium2
import pytest

from inspection.certificates.keys import signer
from inspection.certificates.signing import decode_token
from inspection.core.clock import office_zone
from inspection.core.extensions import db
from inspection.core.models import Deficiency
from inspection.core.office import current_office
from inspection.inspections.closing import close_inspection
from inspection.inspections.operations import record_answer, schedule_inspection
from inspection.media.configured import media_storage
from tests.conftest import CERTIFIED_AT, CERTIFIED_ON, pass_every_item
from tests.fixtures.pages import text
from tests.media_samples import signature_images

pytestmark = pytest.mark.db

STEAMER = dict(propulsion="steam", service="passenger", crew=8, max_passengers=40, boilers=1, boats=2)
LAUNCH = dict(propulsion="motor", service="passenger", length_m=7, beam_m=2.1, girth_m=3.2, crew=2,
              max_passengers=10, holds=0, boats=0, fire_hydrants=0)  # 3 t (art. 195)
DAYLIGHT = "Restricción: solo navegación diurna, Ley 928/1927, art. 73"
RESTRICTION = {"code": "D", "name": "daylight_only", "label": "solo navegación diurna", "source": "Ley 928/1927",
               "article": "73"}


def close_failing(staff, vessel, kind, failed):
    """Schedule, pass every item but `failed`, close on 30 Nov 2026: close_inspection's result."""
    inspector = staff["inspector"]
    inspection = schedule_inspection(staff["admin"], vessel, kind, inspector, CERTIFIED_ON, "Asunción", CERTIFIED_ON)
    pass_every_item(inspection, inspector, CERTIFIED_AT)
    for item_id in failed:
        record_answer(inspector, inspection, item_id, {"client_id": str(uuid.uuid4()), "result": "fail", "observed": 0,
                                                       "note": "", "recorded_at": CERTIFIED_AT, "photos": [],
                                                       "action": None}, CERTIFIED_AT)
    office = current_office()
    result = close_inspection(inspector, inspection, {"client_id": str(uuid.uuid4()), "signature": "Insp.",
                                                      "master_name": "Cap.", "signatures": signature_images()},
                              office, signer(office, CERTIFIED_AT), CERTIFIED_ON, CERTIFIED_AT, media_storage(),
                              office_zone())
    db.session.commit()
    return inspection, result


@pytest.mark.parametrize("vessel, kind, failed, settings, outcome, restrictions, standing, condition", [
    pytest.param(STEAMER, "navegabilidad", "nav.rigging.steering", {}, "passed_with_observations", ("D",), "law",
                 DAYLIGHT, id="steamer's rudder: issued, daylight only"),
    pytest.param(STEAMER, "seguridad", "seg.machinery.running", {}, "passed_with_observations", ("D",), "law",
                 DAYLIGHT, id="steamer's engine: issued, daylight only"),
    pytest.param(LAUNCH, "navegabilidad", "nav.rigging.steering", {}, "passed_with_observations", (), "extension",
                 "Ley 928/1927, art. 73: práctica de la autoridad (deber de los vapores extendido a los buques a motor)",
                 id="motor launch's rudder: practice, an observation"),
    pytest.param(LAUNCH, "navegabilidad", "nav.rigging.steering", {"opt_binding_motor_extension": True},
                 "passed_with_observations", ("D",), "extension", DAYLIGHT, id="motor launch, binding: daylight only"),
    pytest.param(LAUNCH, "navegabilidad", "nav.boats.lifeboats", {}, "passed_with_observations", (), "extension",
                 "Ley 928/1927, art. 141: práctica de la autoridad", id="motor launch without a boat: an observation"),
    pytest.param(LAUNCH, "seguridad", "seg.pumps.bilge_fire", {}, "passed_with_observations", (), "extension",
                 "Ley 928/1927, art. 156: práctica de la autoridad", id="motor launch's bilge pump: an observation"),
    pytest.param(STEAMER, "navegabilidad", "nav.boats.lifeboats", {}, "failed", None, "law", None,
                 id="steamer without a boat: detained by law"),
])
def test_a_failure_restricts_observes_or_detains(app, monkeypatch, staff, make_vessel, vessel, kind, failed, settings,
                                                 outcome, restrictions, standing, condition):
    monkeypatch.setitem(app.config, "CHECKLIST_SETTINGS", settings)
    inspection, result = close_failing(staff, make_vessel(**vessel), kind, [failed])
    assert result["outcome"] == outcome
    deficiency = db.session.scalar(db.select(Deficiency).filter_by(inspection_id=inspection.id))
    assert (deficiency.item_id, deficiency.standing) == (failed, standing)
    assert deficiency.restriction == ("daylight_only" if restrictions else None)
    assert deficiency.detainable == (outcome == "failed")
    certificate = result["certificate"]
    if restrictions is None:
        assert certificate is None
        return
    [line] = certificate.conditions
    assert line.startswith(condition) if restrictions else condition in line
    assert decode_token(certificate.token)[1].restrictions == restrictions


def test_the_police_see_the_restriction_online_and_on_paper(app, client, staff, make_vessel, make_user, login_as):
    owner = make_user("owner")
    inspection, result = close_failing(staff, make_vessel(owner_id=owner.owner_id, **STEAMER), "navegabilidad",
                                       ["nav.rigging.steering"])
    token = result["certificate"].token
    page = client.get(f"/v/{token}")
    assert page.status_code == 200
    shown = text(page)
    assert "VÁLIDO" in shown and "Restricción: solo navegación diurna (Ley 928/1927, art. 73)" in shown
    assert 'data-restriction="D"' in page.get_data(as_text=True)
    assert "Restriction: daylight navigation only (Ley 928/1927, art. 73)" in text(client.get(f"/v/{token}?lang=en"))
    answer = client.get(f"/api/v1/verify/{token}").json
    assert answer["verdict"] == "valid" and answer["certificate"]["restrictions"] == [RESTRICTION]
    english = client.get(f"/api/v1/verify/{token}", headers={"Accept-Language": "en"}).json
    assert english["certificate"]["restrictions"][0]["label"] == "daylight navigation only"
    number = result["certificate"].number
    holder = login_as(owner)
    assert DAYLIGHT in text(holder.get(f"/certificados/{number}"))
    pdf = pypdfium2.PdfDocument(holder.get(f"/api/v1/certificates/{number}/pdf").data)
    printed = " ".join(" ".join(pdf[i].get_textpage().get_text_range().split()) for i in range(len(pdf)))
    assert "solo navegación diurna, Ley 928/1927, art. 73" in printed
    report = text(holder.get(f"/inspecciones/{inspection.id}"))
    assert "Restricción: solo navegación diurna (no causa detención)" in report


def test_a_certificate_without_a_restriction_shows_none(client, staff, make_vessel):
    _, result = close_failing(staff, make_vessel(**STEAMER), "navegabilidad", [])
    assert decode_token(result["certificate"].token)[1].restrictions == ()
    answer = client.get(f"/api/v1/verify/{result['certificate'].token}").json
    assert answer["verdict"] == "valid" and answer["certificate"]["restrictions"] == []
    assert "Restricción" not in text(client.get(f"/v/{result['certificate'].token}"))


def test_the_offline_verifier_page_carries_the_restrictions_words(client):
    """/verificar reads claim -7 offline and writes each code in the words its page carries (verdicts.js)."""
    page = client.get("/verificar").get_data(as_text=True)
    words = json.loads(html.unescape(re.search(r"data-restrictions='([^']*)'", page).group(1)))
    assert words == {"D": "solo navegación diurna (Ley 928/1927, art. 73)"}
    english = client.get("/verificar?lang=en").get_data(as_text=True)
    assert "daylight navigation only (Ley 928/1927, art. 73)" in html.unescape(english)
