"""The owner's fleet at a glance and applying for an inspection (art. 222) as pages, in Spanish and English.

State is built with the operations (tests/fleets.py, the certify fixture); the pages are read as their
users see them; the office's date is fixed with set_clock.
"""
import re
import uuid
from datetime import date, datetime, timezone

import pytest

from inspection.core.extensions import db
from inspection.core.models import Application, Certificate, Deficiency, FineAssessment, Inspection, User, Vessel
from inspection.cycle.applications import apply_for_inspection
from inspection.inspections.operations import schedule_inspection
from tests.conftest import certify_for, new_staff, new_user, new_vessel, restore_rows, shared_state
from tests.fleets import submit_inspection
from tests.inspections.test_views import text

STEAMER = {"propulsion": "steam", "boilers": 2}
# A seguridad inspection closed on 30 Nov 2026 with one observation: certificate to 30 May 2027 (art. 211),
# apply by 30 Apr 2027 (art. 222), the deficiency due on 14 Dec 2026 (within 14 days).
SEG_UNTIL, SEG_APPLY_BY, DEFICIENCY_DUE = date(2027, 5, 30), date(2027, 4, 30), date(2026, 12, 14)


def at(day: date) -> datetime:
    """Mid-afternoon in Asunción on `day`, as a UTC moment for set_clock."""
    return datetime(day.year, day.month, day.day, 15, 0, tzinfo=timezone.utc)


@pytest.fixture
def owner(make_user):
    return make_user("owner")


@pytest.fixture(scope="module")
def observed_built(_app):
    """The owner's steamer after a seguridad inspection passed with an observation, built once with the operations
    for the tests that only read the fleet page on other days: ((owner, vessel, inspection, certificate) ids, rows)."""
    def build():
        staff, owner = new_staff(), new_user("owner")
        vessel = new_vessel(owner_id=owner.owner_id, name="Ñandutí", **STEAMER)
        inspection, _, certificate = submit_inspection(staff["admin"], staff["inspector"], vessel)
        return owner.id, vessel.id, inspection.id, certificate.id

    return shared_state(_app, build)


@pytest.fixture
def observed(app, observed_built):
    """observed_built's rows restored for this test: (owner user, vessel, inspection, certificate)."""
    (owner_id, vessel_id, inspection_id, certificate_id), rows = observed_built
    restore_rows(rows)
    return (db.session.get(User, owner_id), db.session.get(Vessel, vessel_id), db.session.get(Inspection, inspection_id),
            db.session.get(Certificate, certificate_id))


@pytest.fixture(scope="module")
def certified_steamer_built(_app):
    """An owner's steamer with its seguridad and navegabilidad certificates of 30 Nov 2026, built once with the
    operations for the tests that only read the fleet page on other days: (owner user id, rows)."""
    def build():
        owner = new_user("owner")
        vessel = new_vessel(owner_id=owner.owner_id, **STEAMER)
        certify = certify_for(new_staff())
        certify(vessel, "seguridad"), certify(vessel, "navegabilidad")
        return owner.id

    return shared_state(_app, build)


@pytest.fixture
def certified_steamer(app, certified_steamer_built):
    """certified_steamer_built's rows restored for this test: {"owner": the owner user}."""
    owner_id, rows = certified_steamer_built
    restore_rows(rows)
    return {"owner": db.session.get(User, owner_id)}


# --- the fleet page ------------------------------------------------------------------------------

def test_owners_land_on_their_fleet(app, owner):
    from tests.conftest import PASSWORD

    client = app.test_client()
    signed = client.post("/login", data={"username": owner.username, "password": PASSWORD})
    assert signed.headers["Location"].endswith("/flota")
    assert client.get("/").headers["Location"].endswith("/flota")


@pytest.mark.parametrize("today, countdown_es, countdown_en, days_es, days_en", [
    (date(2026, 12, 11), "vence en 3 días", "due in 3 days", "quedan 170 días", "170 days left"),
    (date(2026, 12, 14), "el plazo vence hoy", "due today", "quedan 167 días", "167 days left"),
    (date(2026, 12, 16), "vencida hace 2 días", "overdue by 2 days", "quedan 165 días", "165 days left"),
])
def test_the_fleet_page_shows_certificates_deficiencies_and_countdowns(
        observed, login_as, set_clock, today, countdown_es, countdown_en, days_es, days_en):
    owner, vessel, inspection, certificate = observed
    set_clock(at(today))
    client = login_as(owner)
    page = text(client.get("/flota"))
    assert "Mi flota" in page and vessel.registration in page and "Ñandutí" in page
    assert "Sin certificado" in page  # navegabilidad never issued: missing
    assert certificate.number in page and "Válido" in page and "30 may. 2027" in page and days_es in page
    assert "Solicitar la próxima inspección hasta el 30 abr. 2027 (art. 222)" in page
    assert countdown_es in page and "Plazo: 14 dic. 2026" in page
    body = client.get("/flota").get_data(as_text=True)
    assert f'href="/inspecciones/{inspection.id}/informe.pdf"' in body  # the report, as a PDF with photos and signatures
    assert f"/solicitudes/nueva?vessel_id={vessel.id}&amp;kind=seguridad" in body
    english = text(client.get("/flota?lang=en"))
    assert "My fleet" in english and "Certificate missing" in english and countdown_en in english
    assert days_en in english and "May 30, 2027" in english


def test_a_deficiency_reads_in_the_pages_language(observed, login_as, set_clock):
    """Issue 21: /flota?lang=en showed the deficiency's item title in Spanish (the pinned item has its English)."""
    owner, _, inspection, _ = observed
    deficiency = db.session.scalar(db.select(Deficiency).filter_by(inspection_id=inspection.id))
    item = next(item for item in inspection.items if item["id"] == deficiency.item_id)
    assert item["title"] != item["title_en"] and deficiency.description.startswith(item["title"])
    set_clock(at(date(2026, 12, 1)))
    client = login_as(owner)
    assert item["title"] in text(client.get("/flota"))
    english = text(client.get("/flota?lang=en"))
    assert item["title_en"] + deficiency.description[len(item["title"]):] in english
    assert item["title"] not in english


@pytest.mark.parametrize("today, state_es, state_en", [
    (date(2027, 4, 29), "Al día", "Up to date"),   # the navegabilidad certificate too: ok until apply_by
    (date(2027, 4, 30), "Por vencer", "Expiring soon"),
    (date(2027, 5, 31), "Vencido", "Expired"),
])
def test_the_state_chip_says_the_state_in_words(certified_steamer, login_as, set_clock, today, state_es, state_en):
    set_clock(at(today))
    client = login_as(certified_steamer["owner"])
    body = client.get("/flota").get_data(as_text=True)
    chip = re.search(r'<span class="state-chip state-(\w+)" data-state="\w+"><span aria-hidden="true">.</span> ([^<]+)</span>',
                     body)
    assert chip and chip.group(2) == state_es
    assert f'state-chip state-{chip.group(1)}' in client.get("/flota?lang=en").get_data(as_text=True)
    assert state_en in text(client.get("/flota?lang=en"))


def test_a_revoked_or_suspended_certificate_is_not_shown_as_current(certify, staff, owner, make_vessel, login_as,
                                                                     set_clock):
    """Issue 21: /flota showed a revoked certificate with "quedan 25 días" and its renewal date."""
    from inspection.certificates.operations import revoke_certificate, suspend_certificate

    vessel = make_vessel(owner_id=owner.owner_id, **STEAMER)
    hull, safety = certify(vessel, "navegabilidad"), certify(vessel, "seguridad")
    revoke_certificate(staff["admin"], hull, "Casco no apto.", at(date(2027, 5, 4)))
    suspend_certificate(staff["admin"], safety, "Extintores vacíos.", at(date(2027, 5, 4)))
    db.session.commit()
    set_clock(at(date(2027, 5, 5)))  # both certificates would still run 25 days
    client = login_as(owner)
    page = text(client.get("/flota"))
    assert "quedan 25 días" not in page and "Solicitar la próxima inspección hasta" not in page
    assert "Revocado" in page and "Este certificado ya no ampara al buque" in page
    assert "Navegabilidad: certificado revocado; solicite ya una nueva inspección" in page
    assert "Suspendido" in page and "El buque no debe navegar mientras dure la suspensión" in page
    english = text(client.get("/flota?lang=en"))
    assert "25 days left" not in english and "This certificate no longer covers the vessel" in english


def test_the_fleet_page_shows_fines_owed_fees_and_the_scheduled_inspection(certify, staff, owner, make_vessel,
                                                                            login_as, set_clock):
    vessel = make_vessel(owner_id=owner.owner_id, **STEAMER)
    certify(vessel)
    late_day = date(2027, 5, 10)
    apply_for_inspection(owner, vessel, "seguridad", "Asunción", date(2027, 5, 20), late_day)
    schedule_inspection(staff["admin"], vessel, "navegabilidad", staff["inspector"], date(2027, 5, 25), "Pilar",
                        late_day)
    db.session.commit()
    set_clock(at(late_day))
    client = login_as(owner)
    page = text(client.get("/flota"))
    assert "Multa · Ley 928/1927, art. 225" in page and "1.000,00" in page
    assert "Aranceles · Seguridad (solicitada; arts. 209, 233)" in page
    assert "Aranceles · Navegabilidad (programada; arts. 209, 233)" in page
    assert "Navegabilidad: programada el 25 may. 2027 en Pilar" in page
    assert "Solicitud de seguridad pendiente" in page
    assert "Inspección de navegabilidad programada: 25 may. 2027" in page  # not a second request for it
    assert "Solicitar inspección: navegabilidad" not in page
    english = text(client.get("/flota?lang=en"))
    assert "Fine · Ley 928/1927, art. 225" in english and "1,000.00" in english
    assert "Application filed after April 30, 2027" in english
    fine = db.session.scalar(db.select(FineAssessment))
    fine.waived_at, fine.waived_reason = at(late_day), "Error de la oficina."
    db.session.commit()
    assert "art. 225" not in text(client.get("/flota"))  # a waived fine is not owed


def test_owners_see_only_their_fleet_and_staff_any_owners(owner, make_vessel, make_user, login_as, staff):
    mine = make_vessel(owner_id=owner.owner_id, name="Mío")
    theirs = make_vessel(name="Ajeno")
    client = login_as(owner)
    page = text(client.get("/flota"))
    assert "Mío" in page and "Ajeno" not in page
    assert client.get(f"/flota?owner_id={theirs.owner_id}").status_code == 404
    assert client.get(f"/flota?owner_id={mine.owner_id}").status_code == 200
    admin = login_as(staff["admin"])
    everyone = text(admin.get("/flota"))
    assert "Mío" in everyone and "Ajeno" in everyone
    one = text(admin.get(f"/flota?owner_id={theirs.owner_id}"))
    assert "Ajeno" in one and "Mío" not in one
    assert login_as(make_user("police")).get("/flota").status_code == 403


@pytest.fixture
def fleet_of_size(make_owner, make_user):
    """fleet_of_size(n): an owner user with n vessels, each with a pending application and a scheduled inspection."""
    from inspection.registry.vessels import create_vessel
    from tests.conftest import VESSEL_DEFAULTS

    def build(n, admin, inspector):
        owner = make_owner()
        user = make_user("owner", owner_id=owner.id)
        for i in range(n):
            vessel = create_vessel({**VESSEL_DEFAULTS, **STEAMER, "registration": f"FP-{owner.id}-{i:02d}",
                                    "name": f"B{i}", "owner_id": owner.id})
            schedule_inspection(admin, vessel, "navegabilidad", inspector, date(2027, 1, 5), "Asunción",
                                date(2026, 11, 30))
            apply_for_inspection(admin, vessel, "seguridad", "Asunción", date(2026, 12, 5), date(2026, 11, 30))
        db.session.commit()
        return user

    return build


def test_the_fleet_page_takes_the_same_number_of_queries_for_3_and_30_vessels(fleet_of_size, staff, login_as,
                                                                             count_queries, set_clock):
    set_clock(at(date(2026, 12, 1)))
    counts = {}
    for n in (3, 30):
        client = login_as(fleet_of_size(n, staff["admin"], staff["inspector"]))
        client.get("/flota")  # warm: the first request of a browser may refresh its session
        response = []
        counts[n] = count_queries(lambda: response.append(client.get("/flota")))
        assert response[0].status_code == 200
        assert text(response[0]).count("Solicitud de seguridad pendiente") == n
    assert counts[3] == counts[30]


# --- applying ------------------------------------------------------------------------------------

def test_a_late_application_shows_its_art_225_fine_before_confirming_and_files_once(
        certify, owner, make_vessel, login_as, set_clock):
    vessel = make_vessel(owner_id=owner.owner_id, home_port="Concepción", **STEAMER)
    certify(vessel)
    set_clock(at(date(2027, 5, 10)))
    client = login_as(owner)
    form = text(client.get(f"/solicitudes/nueva?vessel_id={vessel.id}&kind=seguridad"))
    assert "Solicitar inspección" in form
    assert 'value="Concepción"' in client.get(f"/solicitudes/nueva?vessel_id={vessel.id}").get_data(as_text=True)
    values = {"vessel_id": vessel.id, "kind": "seguridad", "port": "Asunción", "preferred_on": "2027-05-20"}
    preview = client.post("/solicitudes/vista-previa", data=values)
    assert preview.status_code == 200
    page = text(preview)
    assert "Solicitud fuera de término" in page and "art. 225" in page and "1.000,00" in page
    assert "Solicitud presentada después del 30 de abril de 2027" in page
    assert db.session.scalar(db.select(db.func.count()).select_from(Application)) == 0  # the preview writes nothing
    client_id = re.search(r'name="client_id" value="([^"]+)"', preview.get_data(as_text=True)).group(1)
    confirm = {**values, "client_id": client_id}
    first = client.post("/solicitudes", data=confirm)
    again = client.post("/solicitudes", data=confirm)  # the same form sent twice
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]
    [application] = db.session.scalars(db.select(Application)).all()
    assert application.late and [f.article for f in application.fines] == ["225"]
    listed = text(client.get(first.headers["Location"]))
    assert listed.count("Solicitud de seguridad enviada para") == 1  # the second submit's redirect shows it again
    assert "No: fuera de término" in listed and "art. 225" in listed
    assert "10 may. 2027" in listed and "Pendiente" in listed
    twice = client.post("/solicitudes", data={**values, "client_id": str(uuid.uuid4())})
    assert twice.status_code == 409 and "Ya hay una solicitud pendiente" in text(twice)
    english = client.post("/solicitudes?lang=en", data={**values, "client_id": str(uuid.uuid4())})
    assert english.status_code == 409 and "already a pending application" in text(english)


def test_the_preview_totals_fees_and_fine_in_the_laws_unit(certify, owner, make_vessel, login_as, set_clock):
    """Issue 21: the preview's total left out the art. 225 fine, and every amount came without its unit."""
    from inspection.law.fees import fee_statement, inspection_fees
    from inspection.registry.vessels import particulars_of

    vessel = make_vessel(owner_id=owner.owner_id, **STEAMER)
    certify(vessel)
    fees = fee_statement(inspection_fees("seguridad", particulars_of(vessel)))["total"]
    set_clock(at(date(2027, 5, 10)))  # late: the $ 1.000 fine of art. 225
    client = login_as(owner)
    values = {"vessel_id": vessel.id, "kind": "seguridad", "port": "Asunción", "preferred_on": "2027-05-20"}
    page = text(client.post("/solicitudes/vista-previa", data=values)).replace("\xa0", " ")
    owed = f"{fees + 1000:,.2f}".replace(",", "x").replace(".", ",").replace("x", ".")
    assert "$ 1.000,00" in page  # the fine, with its unit
    assert f"Total de aranceles $ {fees:.2f}".replace(".", ",") in page
    assert f"Total a abonar (aranceles y multas): $ {owed}" in page
    english = text(client.post("/solicitudes/vista-previa?lang=en", data=values))
    assert f"Total to pay (fees and fines): ${fees + 1000:,.2f}" in english


def test_an_application_in_time_says_so_and_shows_its_fees(certify, owner, make_vessel, login_as, set_clock):
    vessel = make_vessel(owner_id=owner.owner_id, **STEAMER)
    certify(vessel)
    set_clock(at(date(2027, 4, 1)))
    client = login_as(owner)
    values = {"vessel_id": vessel.id, "kind": "seguridad", "port": "Asunción", "preferred_on": "2027-04-20"}
    page = text(client.post("/solicitudes/vista-previa", data=values))
    assert "Solicitud a tiempo: no corresponde multa." in page and "art. 225" not in page
    assert "Aranceles" in page and "art. 233" in page
    english = text(client.post("/solicitudes/vista-previa?lang=en", data=values))
    assert "Application in time: no fine." in english


@pytest.mark.parametrize("change, field_es, field_en", [
    ({"preferred_on": "2027-03-01"}, "La fecha preferida no puede ser anterior a hoy.",
     "The preferred date cannot be before today."),
    ({"port": ""}, "Este campo es obligatorio.", "This field is required."),
    ({"preferred_on": "mañana"}, "Debe ser una fecha (AAAA-MM-DD).", "Must be a date (YYYY-MM-DD)."),
])
def test_refusals_come_back_into_the_form_in_the_users_language(certify, owner, make_vessel, login_as, set_clock,
                                                                change, field_es, field_en):
    vessel = make_vessel(owner_id=owner.owner_id, **STEAMER)
    certify(vessel)
    set_clock(at(date(2027, 4, 1)))
    client = login_as(owner)
    values = {"vessel_id": vessel.id, "kind": "seguridad", "port": "Asunción", "preferred_on": "2027-04-20", **change}
    for url in ("/solicitudes/vista-previa", "/solicitudes"):
        refused = client.post(f"{url}?lang=es", data={**values, "client_id": str(uuid.uuid4())})
        assert refused.status_code == 422 and field_es in text(refused)
        assert field_en in text(client.post(f"{url}?lang=en", data=values))
    assert db.session.scalar(db.select(db.func.count()).select_from(Application)) == 0


def test_another_owners_vessel_is_not_found_on_every_application_page(owner, make_vessel, login_as):
    theirs = make_vessel(name="Ajeno")
    make_vessel(owner_id=owner.owner_id, name="Mío")
    client = login_as(owner)
    values = {"vessel_id": theirs.id, "kind": "seguridad", "port": "Asunción", "preferred_on": "2099-01-01"}
    assert client.get(f"/solicitudes/nueva?vessel_id={theirs.id}").status_code == 404
    assert client.post("/solicitudes/vista-previa", data=values).status_code == 404
    assert client.post("/solicitudes", data={**values, "client_id": str(uuid.uuid4())}).status_code == 404
    typed = {**values, "vessel_id": "", "vessel": theirs.registration}  # typed: as if it did not exist
    assert "Ningún buque coincide" in text(client.post("/solicitudes/vista-previa", data=typed))
    assert [item["label"].split(" · ")[1] for item in client.get("/buques/buscar?q=o").json["items"]] == ["Mío"]
    assert db.session.scalar(db.select(db.func.count()).select_from(Application)) == 0


@pytest.mark.parametrize("typed, found", [
    ("{mine}", "Mío"),                       # the registration, exactly
    ("{mine_key}", "Mío"),                   # in other case, with spaces
    ("{mine} · Mío", "Mío"),                 # the label the suggestions offer
    ("Mío", "Mío"),                          # a name that only one vessel contains
    ("Buque", "Varios buques coinciden"),    # in both names: the full registration is asked for
    ("PY-NADA", "Ningún buque coincide"),
])
def test_the_typed_vessel_is_resolved_or_refused_with_why(owner, make_vessel, login_as, typed, found):
    mine = make_vessel(owner_id=owner.owner_id, name="Buque Mío")
    make_vessel(owner_id=owner.owner_id, name="Buque Otro")
    client = login_as(owner)
    typed = typed.format(mine=mine.registration, mine_key=mine.registration.lower().replace("-", "- "))
    page = text(client.post("/solicitudes/vista-previa", data={"vessel": typed, "kind": "seguridad", "port": "Asunción",
                                                                "preferred_on": "2099-01-01"}))
    assert found in page
    if found == "Mío":
        assert "Ningún buque" not in page and "Varios buques" not in page


def test_the_applications_list_shows_only_the_owners(owner, make_vessel, login_as, staff):
    mine = make_vessel(owner_id=owner.owner_id, registration="PY-MIO-1")
    theirs = make_vessel(registration="PY-AJENO-1")
    for vessel in (mine, theirs):
        apply_for_inspection(staff["admin"], vessel, "navegabilidad", "Asunción", date(2026, 12, 1),
                             date(2026, 11, 30))
    db.session.commit()
    page = text(login_as(owner).get("/solicitudes"))
    assert "PY-MIO-1" in page and "PY-AJENO-1" not in page and "30 nov. 2026" in page and "Sí" in page
    everyone = text(login_as(staff["admin"]).get("/solicitudes?lang=en"))
    assert "PY-MIO-1" in everyone and "PY-AJENO-1" in everyone and "Pending" in everyone


def test_the_applications_list_filters_by_status_and_kind_and_sorts(owner, make_vessel, login_as, staff):
    alfa, zeta = make_vessel(registration="PY-AA-1"), make_vessel(registration="PY-ZZ-1")
    first = apply_for_inspection(staff["admin"], zeta, "seguridad", "Asunción", date(2026, 12, 20), date(2026, 11, 20))
    second = apply_for_inspection(staff["admin"], alfa, "navegabilidad", "Asunción", date(2026, 12, 5),
                                  date(2026, 11, 25))
    first.status = "cancelled"
    db.session.commit()
    admin = login_as(staff["admin"])

    def listed(query):
        return [int(n) for n in re.findall(r'id="solicitud-(\d+)"', admin.get(f"/solicitudes?{query}").get_data(True))]

    assert listed("") == [second.id, first.id]  # newest first
    assert listed("sort=applied_on") == [first.id, second.id]
    assert listed("sort=vessel") == [second.id, first.id]
    assert listed("sort=preferred_on") == [second.id, first.id]
    assert listed("status=cancelled") == [first.id]
    assert listed("status=pending&kind=navegabilidad") == [second.id]
    assert listed("status=pending&kind=seguridad") == []
    assert listed("sort=nope&status=bogus") == [second.id, first.id]  # malformed: dropped
    assert "Cancelled" in text(admin.get("/solicitudes?status=cancelled&lang=en"))
    assert listed("status=pending&per_page=1") == [second.id]
    assert 'href="?status=pending&amp;per_page=1&amp;page=2"' not in admin.get("/solicitudes?status=pending&per_page=1").get_data(True)
    paged = admin.get("/solicitudes?sort=applied_on&per_page=1").get_data(True)
    assert 'href="?sort=applied_on&amp;per_page=1&amp;page=2"' in paged
