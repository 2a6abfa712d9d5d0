"""Inspection pages: list and schedule, the tablet shell or a read-only view, the report and its follow-up forms.

The tablet screen itself (static/js/tablet) is walked in Chromium by tests/tablet/test_journey*.py;
here the state is built with the operations and the pages are read as their users see them.
"""
import html
import io
import re
import uuid
from datetime import timedelta

import pytest
from flask import render_template

from inspection.certificates.keys import signer
from inspection.core.clock import office_date, office_now, office_today, office_zone
from inspection.core.extensions import db as _db
from inspection.core.models import Answer, Deficiency, Detention, Inspection, Photo, Vessel
from inspection.core.office import current_office
from inspection.i18n.formats import format_day
from inspection.inspections.aboard import agenda
from inspection.inspections.closing import close_inspection
from inspection.inspections.operations import add_photo, detain_vessel, record_answer, start_inspection
from inspection.media.configured import media_storage, photo_limits
from inspection.media.photos import process_photo
from tests.media_samples import encode, noisy_image, signature_images


def jpeg(seed: int = 1) -> bytes:
    """A small, distinct JPEG per seed."""
    return encode(noisy_image((64, 48), seed=seed), "JPEG", quality=80)


def text(response) -> str:
    """The visible text of a page, tags removed and spaces collapsed."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))))


@pytest.fixture
def crew(make_user, make_vessel, login_as):
    """Users of every role, signed in, and a motor cargo vessel of the owner."""
    admin, inspector, owner, police = (make_user(r) for r in ("admin", "inspector", "owner", "police"))
    vessel = make_vessel(owner_id=owner.owner_id, propulsion="motor", service="cargo", crew=6, fire_hydrants=3,
                         holds=1, boilers=0, cooking="galley")
    return {"admin": login_as(admin), "inspector": login_as(inspector), "owner": login_as(owner),
            "police": login_as(police), "inspector_user": inspector, "owner_user": owner, "vessel": vessel}


def schedule(crew, kind="seguridad", on=None, who="admin", vessel=None):
    """Schedule through the page's form (the vessel typed by its registration); returns the new inspection's id."""
    form = {"vessel": (vessel or crew["vessel"]).registration, "kind": kind, "inspector_id": crew["inspector_user"].id,
            "scheduled_on": (on or office_today()).isoformat(), "port": "Asunción"}
    response = crew[who].post("/inspecciones", data=form)
    assert response.status_code == 302, text(response)
    return int(response.headers["Location"].rsplit("/", 1)[-1])


def start(crew, inspection_id, db):
    """Start as the tablet does (the operation; its HTTP face is tested in test_inspections_api)."""
    inspection = db.session.get(Inspection, inspection_id)
    start_inspection(crew["inspector_user"], inspection, office_now())
    db.session.commit()
    return inspection.items


def answer_all(crew, inspection_id, items, fail=(), photos=True, db=_db):
    """Answer every item (pass unless in `fail`), photographing evidence items, through the operations."""
    inspection, inspector, now = db.session.get(Inspection, inspection_id), crew["inspector_user"], office_now()
    for n, item in enumerate(items):
        result = "fail" if item["id"] in fail else "pass"
        observed = (0 if result == "fail" else item["required"]) if item["required"] is not None else None
        record_answer(inspector, inspection, item["id"], {"client_id": str(uuid.uuid4()), "result": result,
                                                          "observed": observed, "note": "", "photos": [],
                                                          "action": None}, now)
        if photos and item["evidence_required"]:
            add_photo(inspector, inspection, item["id"], str(uuid.uuid4()), process_photo(jpeg(2000 + n), photo_limits()),
                      media_storage(), None, None, None, now)
    db.session.commit()


def submit(crew, inspection_id, db=_db, **data):
    """Close as the tablet does, with drawn signatures; the operation's result."""
    inspection, now, office = db.session.get(Inspection, inspection_id), office_now(), current_office()
    result = close_inspection(crew["inspector_user"], inspection,
                              {"client_id": str(uuid.uuid4()), "signature": "Insp. Demo", "master_name": "Cap. Benítez",
                               "signatures": signature_images(), **data},
                              office, signer(office, now), office_date(now), now, media_storage(), office_zone())
    db.session.commit()
    return result


# --- who sees what ---------------------------------------------------------------------------------

def test_login_required(client):
    for path in ("/inspecciones", "/inspecciones/1", "/inspecciones/1/informe"):
        response = client.get(path)
        assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_pages_by_role(crew, make_vessel):
    inspection_id = schedule(crew)
    for role in ("admin", "inspector", "owner"):
        assert crew[role].get("/inspecciones").status_code == 200, role
        assert crew[role].get(f"/inspecciones/{inspection_id}").status_code == 200, role
    assert crew["police"].get("/inspecciones").status_code == 403
    assert crew["police"].get(f"/inspecciones/{inspection_id}").status_code == 403
    assert "Programar inspección" in text(crew["admin"].get("/inspecciones"))
    assert "Programar inspección" not in text(crew["owner"].get("/inspecciones"))
    assert crew["owner"].post("/inspecciones", data={}).status_code == 403


def test_owner_sees_only_own_inspections(crew, make_vessel, make_user, login_as):
    mine = schedule(crew)
    other_owner = make_user("owner")
    stranger = login_as(other_owner)
    assert stranger.get(f"/inspecciones/{mine}").status_code == 404
    assert stranger.get(f"/inspecciones/{mine}/informe").status_code == 404
    assert crew["vessel"].registration not in text(stranger.get("/inspecciones"))
    assert crew["vessel"].registration in text(crew["owner"].get("/inspecciones"))


# --- the whole flow through the pages --------------------------------------------------------------

def test_the_assigned_inspector_gets_the_tablet_screen(crew, db):
    inspection_id = schedule(crew)
    response = crew["inspector"].get(f"/inspecciones/{inspection_id}")
    markup = response.get_data(as_text=True)
    assert response.status_code == 200 and response.headers["X-Baliza-Shell"] == "1"
    assert 'id="inspection"' in markup and "js/tablet/inspection.bundle.js" in markup
    assert 'type="application/json" id="terms"' in markup and '"not_applicable": "No corresponde"' in markup
    assert f'data-user="{crew["inspector_user"].id}"' in markup
    assert "no-cache" in response.headers["Cache-Control"]
    english = crew["inspector"].get(f"/inspecciones/{inspection_id}?lang=en").get_data(as_text=True)
    assert '"not_applicable": "Not applicable"' in english and '"Siguiente sin responder": "Next unanswered"' in english
    shell = crew["inspector"].get("/tablet/inspeccion")
    assert shell.status_code == 200 and shell.headers["X-Baliza-Shell"] == "1"
    assert crew["admin"].get("/tablet/inspeccion").status_code == 403


def test_others_follow_an_inspection_read_only_then_read_its_report(crew, db):
    inspection_id = schedule(crew)
    page = text(crew["admin"].get(f"/inspecciones/{inspection_id}"))
    assert "Programada" in page and "en su tableta" in page
    assert "Comenzar" not in page

    items = start(crew, inspection_id, db)
    response = crew["admin"].get(f"/inspecciones/{inspection_id}")
    markup, page = response.get_data(as_text=True), text(response)
    assert "Respondidos 0 de" in page and "esta vista es de lectura" in page
    assert markup.count('class="item card') == len(items)
    assert 'name="result"' not in markup and 'type="file"' not in markup  # no per-item forms anywhere
    buckets = next(i for i in items if i["id"] == "seg.buckets.total")
    assert f"Requerido: {buckets['required']} {buckets['unit']}" in page
    assert "<details class=\"article\">" in markup

    answer_all(crew, inspection_id, items)
    page = text(crew["admin"].get(f"/inspecciones/{inspection_id}"))
    assert f"Respondidos {len(items)} de {len(items)}" in page and "Evidencia completa" in page
    assert "/api/v1/photos/" in crew["admin"].get(f"/inspecciones/{inspection_id}").get_data(as_text=True)

    assert submit(crew, inspection_id)["outcome"] == "passed"
    report = crew["owner"].get(f"/inspecciones/{inspection_id}")
    page, markup = text(report), report.get_data(as_text=True)
    assert "Resultado de la inspección" in page and "Aprobada" in page
    assert "Insp. Demo" in page and "Cap. Benítez" in page
    assert f"/api/v1/inspections/{inspection_id}/signatures/inspector" in markup  # the drawn signatures
    assert f"/api/v1/inspections/{inspection_id}/signatures/master" in markup
    assert "Registro de auditoría" in page and "Inspección cerrada" in page
    answer_row = db.session.scalar(db.select(Answer).filter_by(inspection_id=inspection_id).limit(1))
    assert answer_row.client_id in page  # the audit trail shows each write's client_id
    assert "Sin deficiencias." in page
    assert "Aranceles" in page and "El art. 233 cobra la inspección semestral «por cada caldera»" in page  # no boilers
    assert crew["owner"].get(f"/inspecciones/{inspection_id}/informe").status_code == 200
    assert crew["inspector"].get(f"/inspecciones/{inspection_id}").headers.get("X-Baliza-Shell") is None  # closed
    assert "@media print" in crew["owner"].get("/static/css/baliza.css").get_data(as_text=True)
    # the thumbnails and signatures the report shows are served to the page session
    photo = db.session.scalar(db.select(Photo).filter_by(inspection_id=inspection_id).limit(1))
    assert crew["owner"].get(f"/api/v1/photos/{photo.id}/thumb").status_code == 200
    signature = crew["owner"].get(f"/api/v1/inspections/{inspection_id}/signatures/master")
    assert signature.status_code == 200 and signature.mimetype == "image/png"


def test_schedule_errors_are_shown_in_the_form(crew):
    form = {"vessel_id": crew["vessel"].id, "kind": "seguridad", "inspector_id": crew["inspector_user"].id,
            "scheduled_on": (office_today() - timedelta(days=1)).isoformat(), "port": ""}
    response = crew["admin"].post("/inspecciones", data=form)
    assert response.status_code == 422 and "Este campo es obligatorio." in text(response)
    response = crew["admin"].post("/inspecciones", data={**form, "port": "Pilar"})
    assert response.status_code == 422 and "La fecha no puede ser anterior a hoy." in text(response)
    assert "<details class=\"card schedule\" id=\"programar\" open>" in response.get_data(as_text=True)


def test_a_second_open_inspection_of_the_kind_is_refused_on_the_page_naming_the_first(crew):
    first = schedule(crew, on=office_today() + timedelta(days=2))
    form = {"vessel": crew["vessel"].registration, "kind": "seguridad", "inspector_id": crew["inspector_user"].id,
            "scheduled_on": office_today().isoformat(), "port": "Pilar"}
    response = crew["admin"].post("/inspecciones", data=form)
    assert response.status_code == 409
    assert (f"El buque ya tiene la inspección n.º {first} de este tipo sin cerrar (programada para el "
            f"{format_day(office_today() + timedelta(days=2), 'es')})") in text(response)


def test_inspector_cannot_schedule_for_another(crew, make_user):
    other = make_user("inspector")
    form = {"vessel_id": crew["vessel"].id, "kind": "seguridad", "inspector_id": other.id,
            "scheduled_on": office_today().isoformat(), "port": "Pilar"}
    response = crew["inspector"].post("/inspecciones", data=form)
    assert response.status_code == 403
    assert "Un inspector solo puede programar inspecciones para sí mismo." in text(response)


def test_exempt_vessel_cannot_be_scheduled_from_the_page(crew, make_vessel):
    canoe = make_vessel(owner_id=crew["vessel"].owner_id, propulsion="rowing", service="work", crew=1,
                        fire_hydrants=0, holds=0, boats=0, cooking="none", length_m=5, beam_m=1.2, girth_m=2)
    form = {"vessel_id": canoe.id, "kind": "navegabilidad", "inspector_id": crew["inspector_user"].id,
            "scheduled_on": office_today().isoformat(), "port": "Pilar"}
    response = crew["admin"].post("/inspecciones", data=form)
    assert response.status_code == 422 and "art. 210" in text(response)


def test_the_read_only_view_lists_missing_photos(crew, db):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    answer_all(crew, inspection_id, items, photos=False)
    page = text(crew["admin"].get(f"/inspecciones/{inspection_id}"))
    evidence_items = [i for i in items if i["evidence_required"]]
    assert f"Faltan {len(evidence_items)} fotos de evidencia" in page
    assert "Fotos de evidencia que faltan" in page
    for item in evidence_items:
        assert item["title"] in page


def test_the_read_only_view_lists_unanswered_items_with_links(crew, db):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    answer_all(crew, inspection_id, items[:2])
    response = crew["owner"].get(f"/inspecciones/{inspection_id}")
    page, markup = text(response), response.get_data(as_text=True)
    assert f"Ítems sin responder: {len(items) - 2}" in page
    for item in items[2:]:
        assert f'<a href="#item-{item["id"]}">{html.escape(item["title"])}</a>' in markup
    assert f'href="#item-{items[0]["id"]}"' not in markup


def test_an_admin_interrupts_an_inspection_from_its_page(crew, db):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    answer_all(crew, inspection_id, items[:1])
    url = f"/inspecciones/{inspection_id}/interrumpir"
    assert "Interrumpir inspección" in text(crew["admin"].get(f"/inspecciones/{inspection_id}"))
    assert crew["owner"].post(url, data={"reason": "Quiero que pare"}).status_code == 403
    refused = crew["admin"].post(url, data={"reason": "no"})
    assert refused.status_code == 422 and "Debe tener entre 3 y 2000 caracteres." in text(refused)
    asked = crew["admin"].post(url, data={"reason": "Tormenta: el buque volvió a amarrar."})
    assert asked.status_code == 200 and f"¿Interrumpir la inspección n.º {inspection_id}?" in text(asked)
    assert "no se deshace" in text(asked) and "Motivo Tormenta: el buque volvió a amarrar." in text(asked)
    assert db.session.get(Inspection, inspection_id).status == "in_progress"  # asking acts on nothing
    response = crew["admin"].post(url, data={"reason": "Tormenta: el buque volvió a amarrar.", "confirmed": "1"})
    assert response.status_code == 302
    assert f"Inspección n.º {inspection_id} interrumpida." in text(crew["admin"].get(response.headers["Location"]))
    page = text(crew["owner"].get(f"/inspecciones/{inspection_id}"))
    assert "Inspección interrumpida" in page and "Tormenta: el buque volvió a amarrar." in page
    assert "Sin resultado" in page and "Respondidos 1 de" in page
    db.session.expire_all()
    inspection = db.session.get(Inspection, inspection_id)
    assert inspection.status == "interrupted" and inspection.outcome is None
    assert "Interrumpida" in text(crew["admin"].get("/inspecciones"))
    assert crew["inspector"].get(f"/inspecciones/{inspection_id}/informe").status_code == 302


def test_a_scheduled_inspection_booked_wrong_is_cancelled_from_its_page_and_scheduled_again(crew, db):
    """The refused second booking links to the open one; an admin cancels it there with the reason, its page then
    says when and why (to the assigned inspector too, no longer the tablet's), the agenda drops it, the kind is free."""
    first = schedule(crew, on=office_today() + timedelta(days=2))
    form = {"vessel": crew["vessel"].registration, "kind": "seguridad", "inspector_id": crew["inspector_user"].id,
            "scheduled_on": office_today().isoformat(), "port": "Pilar"}
    refused = crew["admin"].post("/inspecciones", data=form)
    assert refused.status_code == 409
    assert f'<a href="/inspecciones/{first}">Ver la inspección n.º {first}</a>' in refused.get_data(as_text=True)
    assert "Cancelar la inspección" in text(crew["admin"].get(f"/inspecciones/{first}"))
    assert "Cancelar la inspección" not in text(crew["owner"].get(f"/inspecciones/{first}"))
    url = f"/inspecciones/{first}/cancelar"
    for who in ("owner", "police"):
        assert crew[who].post(url, data={"reason": "Otra fecha"}).status_code == 403
    bad = crew["admin"].post(url, data={"reason": "no"})
    assert bad.status_code == 422 and "Debe tener entre 3 y 2000 caracteres." in text(bad)
    asked = crew["admin"].post(url, data={"reason": "Inspector equivocado: va Zárate."})
    assert asked.status_code == 200 and f"¿Cancelar la inspección n.º {first}?" in text(asked)
    response = crew["admin"].post(url, data={"reason": "Inspector equivocado: va Zárate.", "confirmed": "1"})
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/inspecciones/{first}")
    assert f"Inspección n.º {first} cancelada." in text(crew["admin"].get(response.headers["Location"]))
    for who in ("admin", "inspector", "owner"):
        page = text(crew[who].get(f"/inspecciones/{first}"))
        assert "Inspección cancelada" in page and "Motivo de la cancelación: Inspector equivocado: va Zárate." in page
        assert "Cancelada el " in page and "Cancelar la inspección" not in page
    assert "Cancelada" in text(crew["admin"].get("/inspecciones"))
    assert agenda(crew["inspector_user"], office_today(), 7)["items"] == []
    assert crew["admin"].post("/inspecciones", data=form).status_code == 302


def test_an_inspection_started_meanwhile_is_not_cancelled_from_a_stale_page(crew, db):
    inspection_id = schedule(crew)
    assert "Cancelar la inspección" in text(crew["admin"].get(f"/inspecciones/{inspection_id}"))
    start(crew, inspection_id, db)
    _db.session.commit()
    response = crew["admin"].post(f"/inspecciones/{inspection_id}/cancelar",
                                  data={"reason": "Fecha equivocada.", "confirmed": "1"})
    page = text(response)
    assert response.status_code == 409
    assert "La inspección ya comenzó: no se cancela, se interrumpe con el motivo." in page
    assert "Interrumpir inspección" in page and "Cancelar la inspección" not in page


# --- the report: deficiencies and detention ---------------------------------------------------------

def test_deficiency_follow_up_and_detention_from_the_report(crew, db):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    minor = next(i for i in items if not i["detainable"] and i["required"] is None)
    answer_all(crew, inspection_id, items, fail={minor["id"]})
    assert submit(crew, inspection_id)["outcome"] == "passed_with_observations"
    deficiency = db.session.scalar(db.select(Deficiency).filter_by(inspection_id=inspection_id))
    report = crew["owner"].get(f"/inspecciones/{inspection_id}")
    page = text(report)
    assert "Aprobada con observaciones" in page and "Dentro de 14 días" in page and "Informar subsanada" in page
    assert "Detener buque" not in page  # owners do not detain

    response = crew["owner"].post(f"/deficiencias/{deficiency.id}/subsanada", data={"reason": "no"})
    assert response.status_code == 422 and "Debe tener entre 3 y 2000 caracteres." in text(response)
    response = crew["owner"].post(f"/deficiencias/{deficiency.id}/subsanada", content_type="multipart/form-data",
                                  data={"reason": "Repuesto a bordo", "file": (io.BytesIO(jpeg(4242)), "arreglo.jpg")})
    assert response.status_code == 302 and response.headers["Location"].endswith(f"#def-{deficiency.id}")
    assert f"Deficiencia «{minor['title']}» informada subsanada; un inspector la verificará." in text(
        crew["owner"].get(response.headers["Location"]))
    db.session.refresh(deficiency)
    assert deficiency.status == "reported_fixed" and deficiency.reported_photo_id is not None
    assert crew["owner"].post(f"/deficiencias/{deficiency.id}/cerrar", data={"reason": "Visto"}).status_code == 403

    assert "Cerrar" in text(crew["inspector"].get(f"/inspecciones/{inspection_id}/informe"))
    asked = crew["inspector"].post(f"/deficiencias/{deficiency.id}/cerrar", data={"reason": "Verificado a bordo"})
    assert asked.status_code == 200 and f"¿Cerrar la deficiencia «{minor['title']}»?" in text(asked)
    db.session.refresh(deficiency)
    assert deficiency.status == "reported_fixed"
    response = crew["inspector"].post(f"/deficiencias/{deficiency.id}/cerrar",
                                      data={"reason": "Verificado a bordo", "confirmed": "1"})
    assert response.status_code == 302
    assert f"Deficiencia «{minor['title']}» cerrada." in text(crew["inspector"].get(response.headers["Location"]))
    db.session.refresh(deficiency)
    assert deficiency.status == "closed"
    response = crew["inspector"].post(f"/deficiencias/{deficiency.id}/cerrar", data={"reason": "Otra vez", "confirmed": "1"})
    assert response.status_code == 409 and "La deficiencia ya está cerrada." in text(response)

    response = crew["admin"].post(f"/inspecciones/{inspection_id}/detener", data={"reason": "Sin salvavidas suficientes"})
    assert response.status_code == 302
    detention = db.session.scalar(db.select(Detention).filter_by(inspection_id=inspection_id))
    assert detention.reason == "Sin salvavidas suficientes"
    assert "Sin salvavidas suficientes" in text(crew["owner"].get(f"/inspecciones/{inspection_id}/informe"))
    assert crew["owner"].post(f"/inspecciones/{inspection_id}/detener", data={"reason": "xxxx"}).status_code == 403
    again = crew["inspector"].post(f"/inspecciones/{inspection_id}/detener", data={"reason": "Extintores vencidos"})
    assert again.status_code == 409
    assert f"El buque ya está detenido (detención n.º {detention.id}); levántela antes de decidir otra." in text(again)


@pytest.mark.parametrize("settings, outcome, practice", [
    ({}, "passed_with_observations", True),
    # the hold aft is a steamer's duty too (art. 36 "Todo buque de vapor"): on this motor vessel, both practices bind
    ({"opt_binding_colombian_decree": True, "opt_binding_motor_extension": True}, "failed", False),
])
def test_a_failed_foreign_practice_item_is_an_observation_on_the_report(crew, db, make_vessel, monkeypatch, app,
                                                                       settings, outcome, practice):
    """Colombian decree art. 36 (flammables hold aft): adopted practice unless the installation declares it binding."""
    monkeypatch.setitem(app.config, "CHECKLIST_SETTINGS", settings)
    crew = {**crew, "vessel": make_vessel(owner_id=crew["owner_user"].owner_id, propulsion="motor", service="cargo",
                                          crew=6, fire_hydrants=3, holds=1, boilers=0, cooking="galley",
                                          hot_climate=True, flammable_cargo_kg=2_000)}
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    hold = next(i for i in items if i["id"] == "seg.fire.flammables_hold")
    assert (hold["practice"], hold["detainable"]) == (practice, not practice)  # pinned with its standing
    answer_all(crew, inspection_id, items, fail={hold["id"]})
    result = submit(crew, inspection_id)
    assert result["outcome"] == outcome
    deficiency = db.session.scalar(db.select(Deficiency).filter_by(inspection_id=inspection_id))
    assert (deficiency.practice, deficiency.detainable) == (practice, not practice)
    markup = crew["owner"].get(f"/inspecciones/{inspection_id}").get_data(as_text=True)
    row = html.unescape(re.search(rf'<article class="deficiency[^"]*" id="def-{deficiency.id}">.*?</article>',
                                  markup, re.S).group(0))
    assert ("Práctica adoptada (instrumento extranjero)" in row) == practice
    assert ("Causa detención" in row) == (not practice)
    if practice:
        [condition] = result["certificate"].conditions
        assert "Decreto colombiano de navegación fluvial, art. 36: práctica adoptada (instrumento extranjero)" in condition
        english = text(crew["owner"].get(f"/inspecciones/{inspection_id}?lang=en"))
        assert "Practice adopted from a foreign instrument: a failure is an observation, not a detention" in english
    else:
        assert result["certificate"] is None and "declarado vinculante por la autoridad" in text(
            crew["owner"].get(f"/inspecciones/{inspection_id}"))


# --- list ------------------------------------------------------------------------------------------

def test_list_filters_and_pages(crew, db):
    first = schedule(crew, "seguridad", office_today() + timedelta(days=1))
    schedule(crew, "navegabilidad", office_today() + timedelta(days=2))
    start(crew, first, db)
    client = crew["admin"]
    in_progress = client.get("/inspecciones?status=in_progress").get_data(as_text=True)
    assert f'href="/inspecciones/{first}"' in in_progress and in_progress.count('href="/inspecciones/') == 1
    assert "Navegabilidad" in text(client.get("/inspecciones?kind=navegabilidad&status=scheduled"))
    later = office_today() + timedelta(days=2)
    assert text(client.get(f"/inspecciones?date_from={later.isoformat()}")).count(format_day(later, "es", "medium")) == 1
    paged = text(client.get("/inspecciones?per_page=1"))
    assert "Página 1 de 2" in paged
    response = client.get("/inspecciones?status=nonsense")
    assert response.status_code == 200 and "Debe ser uno de" in text(response)


def test_list_sorts_by_any_column_in_the_database_and_keeps_it_in_the_pager_and_csv(crew, db, make_vessel):
    def listed(query):
        return [int(n) for n in re.findall(r'<a href="/inspecciones/(\d+)">', crew["admin"].get(f"/inspecciones?{query}")
                                          .get_data(as_text=True))]

    zeta, alfa = make_vessel(registration="PY-ZZ 1"), make_vessel(registration="PY-AA 1")
    today = office_today()
    early = schedule(crew, on=today + timedelta(days=1), vessel=zeta)
    late = schedule(crew, on=today + timedelta(days=5), vessel=alfa)
    same_day = schedule(crew, "navegabilidad", on=today + timedelta(days=5), vessel=zeta)
    assert listed("") == [same_day, late, early]  # newest date first, then the newest number
    assert listed("sort=scheduled_on") == [early, late, same_day]
    assert listed("sort=vessel") == [late, early, same_day]  # PY-AA 1 before PY-ZZ 1, ties by number
    assert listed("sort=-kind") == [late, early, same_day]
    assert listed("sort=bogus") == listed("") and "Debe ser uno de" not in text(crew["admin"].get("/inspecciones?sort=x"))
    page = crew["admin"].get("/inspecciones?sort=vessel&kind=seguridad&per_page=1").get_data(as_text=True)
    assert '<th aria-sort="ascending"><a class="sort" href="?sort=-vessel&amp;kind=seguridad&amp;per_page=1">' in page
    assert 'href="?sort=vessel&amp;kind=seguridad&amp;per_page=1&amp;page=2"' in page
    assert 'href="/inspecciones.csv?sort=vessel&amp;kind=seguridad&amp;per_page=1"' in page
    rows = crew["admin"].get("/inspecciones.csv?sort=vessel&kind=seguridad").get_data(as_text=True).splitlines()[1:]
    assert [int(row.split(",")[0]) for row in rows] == [late, early]


def test_list_query_count_does_not_grow_with_rows(crew, db, app, count_queries, make_vessel):
    def load():
        assert crew["admin"].get("/inspecciones").status_code == 200

    schedule(crew)
    one = count_queries(load)
    for n in range(4):
        schedule(crew, on=office_today() + timedelta(days=n + 1), vessel=make_vessel())
    assert count_queries(load) == one


def test_pages_in_english(crew, db):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    answer_all(crew, inspection_id, items[:1])
    page = text(crew["admin"].get("/inspecciones?lang=en"))
    assert "Inspections" in page and "Schedule inspection" in page and "In progress" in page
    page = text(crew["admin"].get(f"/inspecciones/{inspection_id}?lang=en"))
    assert "Safety inspection" in page and "Current answer" in page and "Pass" in page and "read-only" in page


def test_navegabilidad_certificate_can_run_shorter(crew, db):
    from inspection.core.models import Certificate
    inspection_id = schedule(crew, kind="navegabilidad")
    items = start(crew, inspection_id, db)
    answer_all(crew, inspection_id, items)
    shorter = office_today() + timedelta(days=90)
    submit(crew, inspection_id, valid_until=shorter)
    certificate = db.session.scalar(db.select(Certificate).filter_by(inspection_id=inspection_id))
    assert certificate.kind == "navegabilidad" and certificate.valid_until == shorter


@pytest.mark.parametrize("item, short, lang, shown", [
    ({"maximum": 40, "required": None, "unit": "pasajeros"}, False, "es", "Máximo: 40 pasajeros"),
    ({"maximum": 40, "required": None, "unit": "passengers"}, False, "en", "Maximum: 40 passengers"),
    ({"maximum": 40, "required": None, "unit": "pasajeros"}, True, "es", "máx. 40 pasajeros"),
    ({"maximum": 0, "required": None, "unit": "pasajeros"}, True, "es", "máx. 0 pasajeros"),
    ({"required": 4, "unit": "baldes"}, False, "es", "Requerido: 4 baldes"),  # pinned before `maximum` existed
    ({"required": 4, "maximum": None, "unit": "buckets"}, False, "en", "Required: 4 buckets"),
    ({"required": 4, "maximum": None, "unit": "baldes"}, True, "es", "4 baldes"),
    ({"required": None, "maximum": None, "unit": None}, False, "es", ""),
])
def test_an_items_count_is_shown_with_its_bound(app, item, short, lang, shown):
    with app.test_request_context(f"/?lang={lang}"):
        markup = render_template("_quantity.html", item=item, short=short)
    assert re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", markup)).strip() == shown


def test_the_list_filters_by_a_typed_vessel_and_says_when_none_or_several_match(crew, make_vessel):
    other = make_vessel(owner_id=crew["vessel"].owner_id, name="Otro Buque")
    schedule(crew)
    shown = text(crew["admin"].get(f"/inspecciones?vessel={crew['vessel'].registration}"))
    assert crew["vessel"].registration in shown and "Ningún buque" not in shown
    assert crew["vessel"].registration not in text(crew["admin"].get(f"/inspecciones?vessel={other.registration}"))
    assert "Ningún buque coincide con «PY-NADA»" in text(crew["admin"].get("/inspecciones?vessel=PY-NADA"))
    assert "Varios buques coinciden" in text(crew["admin"].get("/inspecciones?vessel=Buque"))


def test_scheduling_a_typed_vessel_that_matches_none_is_refused_at_the_field(crew):
    form = {"vessel": "PY-NADA", "kind": "seguridad", "inspector_id": crew["inspector_user"].id,
            "scheduled_on": office_today().isoformat(), "port": "Asunción"}
    response = crew["admin"].post("/inspecciones", data=form)
    assert response.status_code == 422 and "Ningún buque coincide con «PY-NADA»" in text(response)
    assert 'value="PY-NADA"' in response.get_data(as_text=True)  # what was typed stays in the box


@pytest.mark.parametrize("path", ["/inspecciones", "/solicitudes/nueva"])
def test_the_forms_list_no_vessels_and_take_the_same_queries_for_3_and_30(crew, make_vessel, count_queries, path):
    counts = {}
    for size in (3, 30):
        while _db.session.scalar(_db.select(_db.func.count()).select_from(Vessel)) < size:
            make_vessel(owner_id=crew["vessel"].owner_id)
        response = []
        counts[size] = count_queries(lambda: response.append(crew["admin"].get(path)))
        assert response[0].status_code == 200
        assert "<option value=\"" + str(crew["vessel"].id) not in response[0].get_data(as_text=True)
    assert counts[3] == counts[30]


# --- issue 21: acts that report, ask once where they cannot be undone, and leave no dead end --------

@pytest.fixture
def observed(crew, db):
    """A closed inspection with one minor deficiency: (inspection id, the deficiency, its item)."""
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    minor = next(i for i in items if not i["detainable"] and i["required"] is None)
    answer_all(crew, inspection_id, items, fail={minor["id"]})
    submit(crew, inspection_id)
    return inspection_id, db.session.scalar(db.select(Deficiency).filter_by(inspection_id=inspection_id)), minor


def test_scheduling_from_the_list_says_what_it_did(crew):
    form = {"vessel": crew["vessel"].registration, "kind": "seguridad", "inspector_id": crew["inspector_user"].id,
            "scheduled_on": office_today().isoformat(), "port": "Asunción"}
    response = crew["admin"].post("/inspecciones", data=form)
    inspection_id = int(response.headers["Location"].rsplit("/", 1)[-1])
    shown = text(crew["admin"].get(response.headers["Location"]))
    assert f"Inspección n.º {inspection_id} programada para el {format_day(office_today())}." in shown


def test_a_detained_vessel_shows_its_detention_and_a_page_lifts_it(crew, db, observed):
    """Before: the "Detener buque" form stayed after detaining, and no page lifted a detention (only the API)."""
    inspection_id, _, _ = observed
    report = f"/inspecciones/{inspection_id}/informe"
    done = crew["admin"].post(f"/inspecciones/{inspection_id}/detener", data={"reason": "Sin salvavidas suficientes"})
    assert done.status_code == 302 and done.headers["Location"].endswith("#detencion")
    page = text(crew["admin"].get(done.headers["Location"]))
    registration = crew["vessel"].registration
    assert f"Buque {registration} detenido (art. 208)." in page
    assert "Detener buque" not in page and "Vigente" in page and "Levantar detención" in page
    assert "Levantar detención" not in text(crew["owner"].get(report))  # the owner reads it, staff decide
    detention = db.session.scalar(db.select(Detention).filter_by(inspection_id=inspection_id))
    lift = f"/inspecciones/{inspection_id}/detenciones/{detention.id}/levantar"
    assert crew["owner"].post(lift, data={"reason": "Ya compré"}).status_code == 403
    refused = crew["admin"].post(lift, data={"reason": "no"})
    assert refused.status_code == 422 and "Debe tener entre 3 y 2000 caracteres." in text(refused)
    lifted = crew["inspector"].post(lift, data={"reason": "Salvavidas repuestos y verificados."})
    assert lifted.status_code == 302
    page = text(crew["inspector"].get(lifted.headers["Location"]))
    assert f"Detención del buque {registration} levantada." in page
    assert "Levantada" in page and "Salvavidas repuestos y verificados." in page and "Detener buque" in page
    again = crew["admin"].post(lift, data={"reason": "Otra vez"})  # a stale page: the report, saying why
    assert again.status_code == 409 and "La detención ya fue levantada." in text(again)
    assert "Detener buque" in text(again)


def test_a_detention_decided_elsewhere_shows_on_the_report_and_lifts_there(crew, db, observed, make_vessel):
    inspection_id, _, _ = observed
    detention = detain_vessel(crew["inspector_user"], crew["vessel"], "Orden del juez", office_now())
    elsewhere = detain_vessel(crew["inspector_user"], make_vessel(), "Otro buque", office_now())
    db.session.commit()
    page = text(crew["admin"].get(f"/inspecciones/{inspection_id}/informe"))
    assert "Decidida fuera de esta inspección" in page and "Orden del juez" in page and "Detener buque" not in page
    assert "Otro buque" not in page
    url = f"/inspecciones/{inspection_id}/detenciones/{{}}/levantar"
    assert crew["admin"].post(url.format(elsewhere.id), data={"reason": "xxxx"}).status_code == 404  # not this vessel's
    assert crew["admin"].post(url.format(detention.id), data={"reason": "Orden revocada."}).status_code == 302
    assert "Detener buque" in text(crew["admin"].get(f"/inspecciones/{inspection_id}/informe"))


def test_a_photo_over_the_limit_is_refused_at_its_field_with_the_note_kept(crew, db, observed, app, monkeypatch):
    """Before: a generic "Contenido demasiado grande" page, the limit not named, the typed note lost."""
    inspection_id, deficiency, _ = observed
    monkeypatch.setitem(app.config, "PHOTO_MAX_BYTES", 2 * 1024 * 1024)
    url = f"/deficiencias/{deficiency.id}/subsanada"
    page = crew["owner"].get(f"/inspecciones/{inspection_id}/informe").get_data(as_text=True)
    assert f'data-max-bytes="{2 * 1024 * 1024}"' in page and "hasta 2 MB" in page and "js/photo-check.js" in page
    big = io.BytesIO(b"\xff\xd8\xff" + b"\0" * (2 * 1024 * 1024 + 40 * 1024))  # over the photo, under the body limit
    refused = crew["owner"].post(url, content_type="multipart/form-data",
                                 data={"reason": "Cambié el extintor de la sala de máquinas", "file": (big, "foto.jpg")})
    assert refused.status_code == 413
    markup = refused.get_data(as_text=True)
    field = re.search(rf'<span class="field-error" role="alert" id="photo-error-{deficiency.id}">([^<]*)</span>', markup)
    assert field and "el máximo es 2 MB" in field.group(1)
    assert 'value="Cambié el extintor de la sala de máquinas"' in markup
    db.session.refresh(deficiency)
    assert deficiency.status == "open"
    junk = crew["owner"].post(url + "?lang=en", content_type="multipart/form-data",
                              data={"reason": "Cambié el extintor", "file": (io.BytesIO(b"not a photo"), "foto.jpg")})
    assert junk.status_code == 415
    assert "The file is not an image." in text(junk) and 'value="Cambié el extintor"' in junk.get_data(as_text=True)


def test_a_photo_over_the_body_limit_names_the_photos_limit(crew, observed, app, monkeypatch):
    _, deficiency, _ = observed
    monkeypatch.setitem(app.config, "PHOTO_MAX_BYTES", 1024 * 1024)
    huge = io.BytesIO(b"\xff" * (3 * 1024 * 1024))
    refused = crew["owner"].post(f"/deficiencias/{deficiency.id}/subsanada", content_type="multipart/form-data",
                                 data={"reason": "Cambié el extintor", "file": (huge, "foto.jpg")})
    assert refused.status_code == 413
    assert "La foto supera el máximo admitido de 1 MB." in text(refused)
