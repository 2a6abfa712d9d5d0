"""Inspection pages: list and schedule, the tablet's work page, the report and its follow-up forms."""
import html
import io
import re
import uuid
from datetime import timedelta

import pytest

from inspection.clock import office_today
from inspection.formats import format_day
from inspection.models import Answer, Deficiency, Detention, Inspection, Photo
from tests.conftest import PASSWORD
from tests.media_samples import SIGNATURES, encode, noisy_image


def jpeg(seed: int = 1) -> bytes:
    """A small, distinct JPEG per seed."""
    return encode(noisy_image((64, 48), seed=seed), "JPEG", quality=80)


def text(response) -> str:
    """The visible text of a page, tags removed and spaces collapsed."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))))


@pytest.fixture
def login_as(app):
    """A fresh browser (test client) signed in as `user`."""

    def login(user):
        client = app.test_client()
        response = client.post("/login", data={"username": user.username, "password": PASSWORD})
        assert response.status_code == 302
        return client

    return login


@pytest.fixture
def crew(make_user, make_vessel, login_as):
    """Users of every role, signed in, and a motor cargo vessel of the owner."""
    admin, inspector, owner, police = (make_user(r) for r in ("admin", "inspector", "owner", "police"))
    vessel = make_vessel(owner_id=owner.owner_id, propulsion="motor", service="cargo", crew=6, fire_hydrants=3,
                         holds=1, boilers=0, cooking="galley")
    return {"admin": login_as(admin), "inspector": login_as(inspector), "owner": login_as(owner),
            "police": login_as(police), "inspector_user": inspector, "owner_user": owner, "vessel": vessel}


def schedule(crew, kind="seguridad", on=None, who="admin"):
    """Schedule through the page's form; returns the new inspection's id."""
    form = {"vessel_id": crew["vessel"].id, "kind": kind, "inspector_id": crew["inspector_user"].id,
            "scheduled_on": (on or office_today()).isoformat(), "port": "Asunción"}
    response = crew[who].post("/inspecciones", data=form)
    assert response.status_code == 302, text(response)
    return int(response.headers["Location"].rsplit("/", 1)[-1])


def start(crew, inspection_id, db):
    assert crew["inspector"].post(f"/inspecciones/{inspection_id}/comenzar").status_code == 302
    db.session.expire_all()
    return db.session.get(Inspection, inspection_id).items


def form_client_id(page, action: str) -> str:
    """The client_id the page rendered into the form posting to `action` (as a browser would send it)."""
    form = re.search(r'<form[^>]*action="' + re.escape(action) + r'".*?</form>', page, re.S)
    assert form, action
    return re.search(r'name="client_id" value="([^"]+)"', form.group(0)).group(1)


def answer(client, inspection_id, item, result="pass", **form):
    data = {"client_id": str(uuid.uuid4()), "result": result, **form}
    if result == "pass" and item["required"] is not None and "observed" not in form:
        data["observed"] = str(item["required"])
    return client.post(f"/inspecciones/{inspection_id}/items/{item['id']}", data=data)


def upload(client, inspection_id, item_id, data: bytes, name="foto.jpg"):
    return client.post(f"/inspecciones/{inspection_id}/fotos", content_type="multipart/form-data",
                       data={"item_id": item_id, "client_id": str(uuid.uuid4()), "file": (io.BytesIO(data), name)})


def answer_all(client, inspection_id, items, fail=(), photos=True):
    """Answer every item through its form (pass unless in `fail`), photographing evidence items."""
    for n, item in enumerate(items):
        result = "fail" if item["id"] in fail else "pass"
        extra = {"observed": "0"} if result == "fail" and item["required"] is not None else {}
        response = answer(client, inspection_id, item, result, **extra)
        assert response.status_code == 302, text(response)
        assert response.headers["Location"].endswith(f"#item-{item['id']}")
        if photos and item["evidence_required"]:
            assert upload(client, inspection_id, item["id"], jpeg(2000 + n)).status_code == 302


def submit(client, inspection_id, **form):
    data = {"client_id": str(uuid.uuid4()), "signature": "Insp. Demo", "master_name": "Cap. Benítez",
            **{f"signatures.{role}": url for role, url in SIGNATURES.items()}, **form}
    return client.post(f"/inspecciones/{inspection_id}/cerrar", data=data)


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
    assert crew["owner"].post(f"/inspecciones/{inspection_id}/comenzar").status_code == 403


def test_owner_sees_only_own_inspections(crew, make_vessel, make_user, login_as):
    mine = schedule(crew)
    other_owner = make_user("owner")
    stranger = login_as(other_owner)
    assert stranger.get(f"/inspecciones/{mine}").status_code == 404
    assert stranger.get(f"/inspecciones/{mine}/informe").status_code == 404
    assert crew["vessel"].registration not in text(stranger.get("/inspecciones"))
    assert crew["vessel"].registration in text(crew["owner"].get("/inspecciones"))


# --- the whole flow through the pages --------------------------------------------------------------

def test_full_flow_schedule_start_answer_photos_submit_report(crew, db):
    inspection_id = schedule(crew)
    page = text(crew["inspector"].get(f"/inspecciones/{inspection_id}"))
    assert "Programada" in page and "Comenzar" in page
    assert "Comenzar" not in text(crew["admin"].get(f"/inspecciones/{inspection_id}"))  # only the assigned inspector

    items = start(crew, inspection_id, db)
    response = crew["inspector"].get(f"/inspecciones/{inspection_id}")
    markup, page = response.get_data(as_text=True), text(response)
    assert "Respondidos 0 de" in page
    assert 'capture="environment"' in markup and 'accept="image/*"' in markup
    assert markup.count('class="item card') == len(items)
    buckets = next(i for i in items if i["id"] == "seg.buckets.total")
    assert f"Requerido: {buckets['required']} {buckets['unit']}" in page
    assert "<details class=\"article\">" in markup

    answer_all(crew["inspector"], inspection_id, items)
    page = text(crew["inspector"].get(f"/inspecciones/{inspection_id}"))
    assert f"Respondidos {len(items)} de {len(items)}" in page and "Evidencia completa" in page
    assert "/api/v1/photos/" in crew["inspector"].get(f"/inspecciones/{inspection_id}").get_data(as_text=True)

    response = submit(crew["inspector"], inspection_id)
    assert response.status_code == 302
    inspection = db.session.get(Inspection, inspection_id)
    db.session.refresh(inspection)
    assert inspection.status == "submitted" and inspection.outcome == "passed"

    report = crew["owner"].get(f"/inspecciones/{inspection_id}")
    page = text(report)
    assert "Resultado de la inspección" in page and "Aprobada" in page
    assert "Insp. Demo" in page and "Cap. Benítez" in page
    assert "Registro de auditoría" in page and "Inspección cerrada" in page
    answer_row = db.session.scalar(db.select(Answer).filter_by(inspection_id=inspection_id).limit(1))
    assert answer_row.client_id in page  # the audit trail shows each write's client_id
    assert "Sin deficiencias." in page
    assert "Aranceles" in page and "el art. 233 cobra la inspección semestral por caldera" in page  # no boilers
    assert crew["owner"].get(f"/inspecciones/{inspection_id}/informe").status_code == 200
    assert "@media print" in crew["owner"].get("/static/css/baliza.css").get_data(as_text=True)
    # the thumbnails the report shows are served to the page session
    photo = db.session.scalar(db.select(Photo).filter_by(inspection_id=inspection_id).limit(1))
    assert crew["owner"].get(f"/api/v1/photos/{photo.id}/thumb").status_code == 200


def test_each_form_submission_is_a_new_answer(crew, db):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    item = next(i for i in items if i["required"] is None)
    assert answer(crew["inspector"], inspection_id, item, "fail").status_code == 302
    assert answer(crew["inspector"], inspection_id, item, "pass").status_code == 302
    rows = db.session.scalars(db.select(Answer).filter_by(inspection_id=inspection_id, item_id=item["id"])).all()
    assert len(rows) == 2 and len({r.client_id for r in rows}) == 2
    assert [r.result for r in rows if r.current] == ["pass"]


# --- refusals in the form, in the user's language --------------------------------------------------

def test_answer_validation_errors_are_spanish_422_and_store_nothing(crew, db):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    buckets = next(i for i in items if i["id"] == "seg.buckets.total")
    response = answer(crew["inspector"], inspection_id, buckets, "pass", observed="")
    assert response.status_code == 422
    assert f"Indique la cantidad observada (se requieren {buckets['required']})." in text(response)
    response = crew["inspector"].post(f"/inspecciones/{inspection_id}/items/{buckets['id']}", data={"observed": "2"})
    assert response.status_code == 422 and "Este campo es obligatorio." in text(response)
    assert 'value="2"' in response.get_data(as_text=True)  # what was typed stays in the form
    other = next(i for i in items if i["required"] is None)
    response = answer(crew["inspector"], inspection_id, other, "not_applicable")
    assert response.status_code == 422 and "Explique por qué el ítem no corresponde." in text(response)
    assert db.session.scalar(db.select(db.func.count(Answer.id))) == 0


def test_refused_actions_are_shown_atop_the_page(crew, db, make_user, login_as):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    other = login_as(make_user("inspector"))
    response = answer(other, inspection_id, items[0])
    assert response.status_code == 403
    assert "Solo el inspector asignado puede actuar en esta inspección." in text(response)
    response = crew["inspector"].post(f"/inspecciones/{inspection_id}/items/no.such.item",
                                     data={"client_id": str(uuid.uuid4()), "result": "pass"})
    assert response.status_code == 404 and "no.such.item" in text(response)
    later = schedule(crew, on=office_today() + timedelta(days=1))
    response = answer(crew["inspector"], later, items[0])
    assert response.status_code == 409 and "esta acción no corresponde" in text(response)
    assert db.session.scalar(db.select(db.func.count(Answer.id))) == 0


def test_answer_error_in_english(crew, db):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    item = next(i for i in items if i["required"] is None)
    response = crew["inspector"].post(f"/inspecciones/{inspection_id}/items/{item['id']}?lang=en",
                                      data={"client_id": str(uuid.uuid4()), "result": "pass", "action": "next_port"})
    assert response.status_code == 422 and "Only a failed item takes an action." in text(response)


def test_schedule_errors_are_shown_in_the_form(crew):
    form = {"vessel_id": crew["vessel"].id, "kind": "seguridad", "inspector_id": crew["inspector_user"].id,
            "scheduled_on": (office_today() - timedelta(days=1)).isoformat(), "port": ""}
    response = crew["admin"].post("/inspecciones", data=form)
    assert response.status_code == 422 and "Este campo es obligatorio." in text(response)
    response = crew["admin"].post("/inspecciones", data={**form, "port": "Pilar"})
    assert response.status_code == 422 and "La fecha no puede ser anterior a hoy." in text(response)
    assert "<details class=\"card schedule\" id=\"programar\" open>" in response.get_data(as_text=True)


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


def test_submit_with_missing_photos_is_409_listing_them(crew, db):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    answer_all(crew["inspector"], inspection_id, items, photos=False)
    response = submit(crew["inspector"], inspection_id)
    assert response.status_code == 409
    page = text(response)
    evidence_items = [i for i in items if i["evidence_required"]]
    assert f"Faltan {len(evidence_items)} fotos de evidencia" in page
    assert "Fotos de evidencia que faltan" in page
    for item in evidence_items:
        assert item["title"] in page
    assert db.session.get(Inspection, inspection_id).status == "in_progress"


def test_closing_with_unanswered_items_is_409_listing_them_with_links(crew, db):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    answer_all(crew["inspector"], inspection_id, items[:2])
    response = submit(crew["inspector"], inspection_id)
    assert response.status_code == 409
    page, markup = text(response), response.get_data(as_text=True)
    assert f"Faltan {len(items) - 2} ítems por responder" in page
    assert f"Ítems sin responder: {len(items) - 2}" in page
    for item in items[2:]:
        assert f'<a href="#item-{item["id"]}">{html.escape(item["title"])}</a>' in markup
    assert f'href="#item-{items[0]["id"]}"' not in markup
    inspection = db.session.get(Inspection, inspection_id)
    assert inspection.status == "in_progress" and inspection.outcome is None


def test_an_inspection_is_interrupted_from_its_page(crew, db):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    answer_all(crew["inspector"], inspection_id, items[:1])
    url = f"/inspecciones/{inspection_id}/interrumpir"
    assert "Interrumpir inspección" in text(crew["inspector"].get(f"/inspecciones/{inspection_id}"))
    assert crew["owner"].post(url, data={"reason": "Quiero que pare"}).status_code == 403
    refused = crew["inspector"].post(url, data={"reason": "no"})
    assert refused.status_code == 422 and "Debe tener entre 3 y 2000 caracteres." in text(refused)
    response = crew["inspector"].post(url, data={"reason": "Tormenta: el buque volvió a amarrar."})
    assert response.status_code == 302
    page = text(crew["owner"].get(f"/inspecciones/{inspection_id}"))
    assert "Inspección interrumpida" in page and "Tormenta: el buque volvió a amarrar." in page
    assert "Sin resultado" in page and "Respondidos 1 de" in page and "Guardar respuesta" not in page
    db.session.expire_all()
    inspection = db.session.get(Inspection, inspection_id)
    assert inspection.status == "interrupted" and inspection.outcome is None
    assert "Interrumpida" in text(crew["admin"].get("/inspecciones"))
    assert crew["inspector"].get(f"/inspecciones/{inspection_id}/informe").status_code == 302


def test_a_form_sent_twice_is_one_write(crew, db):
    """The client_id is made when the page is rendered: a double tap or a resent form stores nothing new."""
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    item = next(i for i in items if i["evidence_required"] and i["required"] is None)
    page = crew["inspector"].get(f"/inspecciones/{inspection_id}").get_data(as_text=True)
    answer_id = form_client_id(page, f"/inspecciones/{inspection_id}/items/{item['id']}")
    photo_id = form_client_id(page, f"/inspecciones/{inspection_id}/fotos")
    assert answer_id != photo_id
    for _ in range(2):
        assert answer(crew["inspector"], inspection_id, item, client_id=answer_id).status_code == 302
        response = crew["inspector"].post(f"/inspecciones/{inspection_id}/fotos", content_type="multipart/form-data",
                                          data={"item_id": item["id"], "client_id": photo_id,
                                                "file": (io.BytesIO(jpeg(40)), "foto.jpg")})
        assert response.status_code == 302
    assert db.session.scalar(db.select(db.func.count(Answer.id))) == 1
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 1
    other = answer(crew["inspector"], inspection_id, item, "fail", client_id=answer_id)
    assert other.status_code == 409 and "Este client_id ya se usó con otro contenido" in text(other)
    fresh = crew["inspector"].get(f"/inspecciones/{inspection_id}").get_data(as_text=True)
    assert form_client_id(fresh, f"/inspecciones/{inspection_id}/items/{item['id']}") != answer_id


def test_submit_needs_signatures(crew, db):
    inspection_id = schedule(crew)
    start(crew, inspection_id, db)
    response = submit(crew["inspector"], inspection_id, signature="", master_name="X")
    assert response.status_code == 422
    assert "Este campo es obligatorio." in text(response)  # the empty signature
    assert "Debe tener entre 2 y 200 caracteres." in text(response)  # a one-letter master's name
    assert 'value="X"' in response.get_data(as_text=True)


def test_bad_photos_are_refused_in_the_form(crew, db):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    item = next(i for i in items if i["evidence_required"])
    response = upload(crew["inspector"], inspection_id, item["id"], b"%PDF-1.4 not a photo", "doc.pdf")
    assert response.status_code == 415
    assert 'class="field-error"' in response.get_data(as_text=True)
    response = crew["inspector"].post(f"/inspecciones/{inspection_id}/fotos", data={"item_id": item["id"]})
    assert response.status_code == 422 and "Elija o tome una foto." in text(response)
    assert db.session.scalar(db.select(db.func.count(Photo.id))) == 0


# --- the report: deficiencies and detention ---------------------------------------------------------

def test_deficiency_follow_up_and_detention_from_the_report(crew, db):
    inspection_id = schedule(crew)
    items = start(crew, inspection_id, db)
    minor = next(i for i in items if not i["detainable"] and i["required"] is None)
    answer_all(crew["inspector"], inspection_id, items, fail={minor["id"]})
    assert submit(crew["inspector"], inspection_id).status_code == 302
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
    db.session.refresh(deficiency)
    assert deficiency.status == "reported_fixed" and deficiency.reported_photo_id is not None
    assert crew["owner"].post(f"/deficiencias/{deficiency.id}/cerrar", data={"reason": "Visto"}).status_code == 403

    assert "Cerrar" in text(crew["inspector"].get(f"/inspecciones/{inspection_id}"))
    response = crew["inspector"].post(f"/deficiencias/{deficiency.id}/cerrar", data={"reason": "Verificado a bordo"})
    assert response.status_code == 302
    db.session.refresh(deficiency)
    assert deficiency.status == "closed"
    response = crew["inspector"].post(f"/deficiencias/{deficiency.id}/cerrar", data={"reason": "Otra vez"})
    assert response.status_code == 409 and "La deficiencia ya está cerrada." in text(response)

    response = crew["admin"].post(f"/inspecciones/{inspection_id}/detener", data={"reason": "Sin salvavidas suficientes"})
    assert response.status_code == 302
    detention = db.session.scalar(db.select(Detention).filter_by(inspection_id=inspection_id))
    assert detention.reason == "Sin salvavidas suficientes"
    assert "Sin salvavidas suficientes" in text(crew["owner"].get(f"/inspecciones/{inspection_id}/informe"))
    assert crew["owner"].post(f"/inspecciones/{inspection_id}/detener", data={"reason": "xxxx"}).status_code == 403


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


def test_list_query_count_does_not_grow_with_rows(crew, db, app, count_queries):
    def load():
        assert crew["admin"].get("/inspecciones").status_code == 200

    schedule(crew)
    one = count_queries(load)
    for n in range(4):
        schedule(crew, on=office_today() + timedelta(days=n + 1))
    assert count_queries(load) == one


def test_pages_in_english(crew, db):
    inspection_id = schedule(crew)
    start(crew, inspection_id, db)
    page = text(crew["admin"].get("/inspecciones?lang=en"))
    assert "Inspections" in page and "Schedule inspection" in page and "In progress" in page
    page = text(crew["inspector"].get(f"/inspecciones/{inspection_id}?lang=en"))
    assert "Safety inspection" in page and "Pass" in page and "Not applicable" in page and "Upload photo" in page


def test_navegabilidad_certificate_can_run_shorter(crew, db):
    from inspection.models import Certificate
    inspection_id = schedule(crew, kind="navegabilidad")
    items = start(crew, inspection_id, db)
    answer_all(crew["inspector"], inspection_id, items)
    shorter = office_today() + timedelta(days=90)
    assert submit(crew["inspector"], inspection_id, valid_until=shorter.isoformat()).status_code == 302
    certificate = db.session.scalar(db.select(Certificate).filter_by(inspection_id=inspection_id))
    assert certificate.kind == "navegabilidad" and certificate.valid_until == shorter
