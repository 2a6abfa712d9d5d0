"""The review of art. 221 over the API: a closed seguridad inspection waits, the reviewer countersigns or returns it,
the certificate and the police answer say which; a reviewer with an interest in the vessel's owner may not."""
import uuid
from datetime import timedelta

from inspection.core.clock import office_today
from inspection.core.extensions import db
from inspection.core.models import AuditEvent, Certificate, Deficiency, Inspection
from tests.fixtures.inspections import answer_all, submit
from tests.fixtures.pages import login, text
from tests.conftest import PASSWORD
from tests.media_samples import SIGNATURES

SIGNED = SIGNATURES["inspector"]


def cid() -> str:
    return str(uuid.uuid4())


def countersign(client, headers, inspection_id, client_id=None, signature=SIGNED):
    return client.post(f"/api/v1/inspections/{inspection_id}/countersign", headers=headers,
                       json={"client_id": client_id or cid(), "signature": signature})


def send_back(client, headers, inspection_id, note="Falta la foto del manómetro de la caldera 2."):
    return client.post(f"/api/v1/inspections/{inspection_id}/return", headers=headers,
                       json={"client_id": cid(), "note": note})


def test_a_closed_seguridad_inspection_waits_and_its_certificate_says_so(client, crew, issued, as_role):
    _, reviewer = as_role("reviewer", title="Prefecto General de Puertos")
    inspection = client.get(f"/api/v1/inspections/{issued['inspection_id']}", headers=reviewer).json
    assert inspection["review_status"] == "pending" and inspection["countersigned_by"] is None
    due = (office_today() + timedelta(days=15)).isoformat()  # legal_terms.toml [countersignature] days
    assert (issued["countersigned_on"], issued["countersign_due_on"]) == (None, due)
    police = client.get(f"/api/v1/verify/{issued['token']}").json
    assert police["verdict"] == "valid"
    assert (police["certificate"]["countersign"], police["certificate"]["countersign_due_on"]) == ("pending", due)


def test_the_countersignature_confirms_the_certificate_once(client, crew, issued, as_role):
    user, reviewer = as_role("reviewer", title="Delegado del Prefecto (Res. PGP 45/2026)")
    client_id = cid()
    first = countersign(client, reviewer, issued["inspection_id"], client_id)
    assert first.status_code == 200, first.json
    today = office_today().isoformat()
    assert first.json["review_status"] == "countersigned"
    assert first.json["certificate"]["countersigned_on"] == today
    assert first.json["certificate"]["countersign_due_on"] is None
    again = countersign(client, reviewer, issued["inspection_id"], client_id)
    assert again.status_code == 200 and again.json == first.json  # a retry is the first answer
    assert countersign(client, reviewer, issued["inspection_id"]).status_code == 409  # a second act: nothing pends
    police = client.get(f"/api/v1/verify/{issued['token']}").json["certificate"]
    assert (police["countersign"], police["countersigned_on"]) == ("countersigned", today)
    shown = client.get(f"/api/v1/inspections/{issued['inspection_id']}", headers=crew["oh"]).json
    assert shown["countersigned_by"] == {"name": user.full_name or user.username,
                                         "title": "Delegado del Prefecto (Res. PGP 45/2026)"}
    drawn = client.get(shown["signatures"]["reviewer"]["url"], headers=crew["oh"])
    assert drawn.status_code == 200 and drawn.mimetype == "image/png"
    events = db.session.scalars(db.select(AuditEvent).filter_by(action="inspection.countersigned")).all()
    assert len(events) == 1 and events[0].details["certificate"] == issued["number"]
    # the act sealed with the office's key: the public keys the verifier keeps check it
    import base64
    import json

    from inspection.certificates.signing import b64url_decode, verify_es256
    seal = events[0].details["seal"]
    head, body, signature = seal.split(".")
    header = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    keys = {k["kid"]: k for k in client.get("/api/v1/keys").json["keys"]}
    from cryptography.hazmat.primitives.asymmetric import ec
    jwk = keys[header["kid"]]
    public = ec.EllipticCurvePublicNumbers(int.from_bytes(b64url_decode(jwk["x"]), "big"),
                                           int.from_bytes(b64url_decode(jwk["y"]), "big"), ec.SECP256R1()).public_key()
    assert header["typ"] == "countersign+jwt"
    assert verify_es256(public, b64url_decode(signature), f"{head}.{body}".encode())
    sealed = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    assert (sealed["certificate"], sealed["countersigned_on"], sealed["title"]) == (
        issued["number"], today, "Delegado del Prefecto (Res. PGP 45/2026)")
    tampered = f"{head}.{base64.urlsafe_b64encode(body.encode()).decode().rstrip('=')}.{signature}"
    assert not verify_es256(public, b64url_decode(signature), tampered.rsplit(".", 1)[0].encode())


def test_the_countersignatures_seal_is_served_and_checks_with_the_published_keys(client, crew, issued, as_role):
    import hashlib

    from inspection.certificates.countersign import BrokenSeal, open_seal
    from inspection.certificates.signing import public_key_from_jwk

    url = f"/api/v1/inspections/{issued['inspection_id']}/countersignature"
    user, reviewer = as_role("reviewer", title="Prefecto General de Puertos")
    missing = client.get(url, headers=crew["oh"])
    assert missing.status_code == 404 and "no está refrendada" in missing.json["detail"]
    assert countersign(client, reviewer, issued["inspection_id"]).status_code == 200
    served = client.get(url, headers=crew["oh"])  # the owner, who may read the inspection
    assert served.status_code == 200
    keys = {k["kid"]: public_key_from_jwk(k) for k in client.get("/api/v1/keys").json["keys"]}
    facts = open_seal(served.json["seal"], keys)  # anyone holding the published keys
    assert facts == served.json["facts"]
    assert (facts["inspection"], facts["certificate"], facts["reviewer"], facts["article"]) == (
        issued["inspection_id"], issued["number"], user.full_name or user.username, "221")
    shown = client.get(f"/api/v1/inspections/{issued['inspection_id']}", headers=crew["oh"]).json
    drawn = client.get(shown["signatures"]["reviewer"]["url"], headers=crew["oh"]).data
    assert facts["signature_sha256"] == hashlib.sha256(drawn).hexdigest()  # the drawn signature it vouches for
    head, body, signature = served.json["seal"].split(".")
    forged = body[:-2] + ("A" if body[-2] != "A" else "B") + body[-1]
    for broken in (f"{head}.{forged}.{signature}", "not-a-seal", f"{head}.{body}"):
        try:
            open_seal(broken, keys)
        except BrokenSeal:
            continue
        raise AssertionError(f"accepted {broken[:20]}…")
    assert client.get(url.replace(str(issued["inspection_id"]), "999999"), headers=crew["oh"]).status_code == 404


def test_past_the_term_the_review_is_overdue_not_the_certificate(client, issued):
    certificate = db.session.scalar(db.select(Certificate).filter_by(number=issued["number"]))
    certificate.countersign_due_on = office_today() - timedelta(days=1)
    db.session.commit()
    police = client.get(f"/api/v1/verify/{issued['token']}").json
    assert police["verdict"] == "valid"  # the delay is the office's, not the owner's
    assert (police["certificate"]["countersign"], police["certificate"]["countersign_due_on"]) == (
        "pending", certificate.countersign_due_on.isoformat())


def test_only_a_reviewer_without_an_interest_countersigns(client, crew, issued, as_role, make_user):
    for headers in (crew["ih"], crew["admin"], crew["oh"]):
        assert countersign(client, headers, issued["inspection_id"]).status_code == 403
    _, police = as_role("police")
    assert countersign(client, police, issued["inspection_id"]).status_code == 403
    conflicted, headers = as_role("reviewer")
    declared = client.post(f"/api/v1/users/{conflicted.id}/conflicts", headers=crew["admin"],
                           json={"owner_id": crew["vessel"].owner_id, "reason": "Socio del armador"})
    assert declared.status_code in (200, 201), declared.json
    refused = countersign(client, headers, issued["inspection_id"])
    assert refused.status_code == 403 and "art. 214" in refused.json["detail"]
    _, reviewer = as_role("reviewer")
    blank = countersign(client, reviewer, issued["inspection_id"], signature="data:image/png;base64,AAAA")
    assert blank.status_code == 422 and "signature" in str(blank.json["errors"])
    assert send_back(client, headers, issued["inspection_id"]).status_code == 403  # nor returns it


def test_returned_after_the_closing_issued_it_the_certificate_is_revoked_and_the_correction_replaces_it(
        client, crew, started, as_role, token_for):
    import base64
    import json

    import pypdfium2
    import pytest
    from sqlalchemy.exc import IntegrityError

    from inspection.certificates.signing import decode_token, public_key_from_jwk
    from inspection.certificates.status_list import verify_status_list

    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    first = submit(client, crew, inspection_id).json["certificate"]  # "closing" validity, the default
    assert first is not None and first["countersign_due_on"]
    _, reviewer = as_role("reviewer", title="Prefecto General de Puertos")
    note = "Falta la foto del manómetro de la caldera 2."
    returned = send_back(client, reviewer, inspection_id, note)
    assert returned.status_code == 200 and returned.json["review_status"] == "returned", returned.json
    # the old QR says revoked, online and in the status list an offline phone keeps
    assert client.get(f"/api/v1/verify/{first['token']}").json["verdict"] == "revoked"
    assert "REVOCADO" in client.get(f"/v/{first['token']}").get_data(as_text=True)
    old = db.session.scalar(db.select(Certificate).filter_by(number=first["number"]))
    assert old.revoked_reason == f"Inspección devuelta al inspector para su corrección por el revisor (art. 221): {note}"
    jws = client.get("/api/v1/status-list").json["jws"]
    published = {k["kid"]: public_key_from_jwk(k) for k in client.get("/api/v1/keys").json["keys"]}
    index = decode_token(first["token"])[1].status_index
    assert verify_status_list(jws, published).status_at(index) == 1  # revoked
    body = jws.split(".")[1]
    assert str(index) not in json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))["countersign"]["pending"]
    revoked = db.session.scalar(db.select(AuditEvent).filter_by(action="certificate.revoked"))
    assert (revoked.entity_id, revoked.details["reason"], revoked.inspection_id) == (
        first["number"], old.revoked_reason, inspection_id)
    [event] = db.session.scalars(db.select(AuditEvent).filter_by(action="inspection.returned")).all()
    assert event.details["revoked_certificate"] == first["number"]
    shown = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json
    assert (shown["status"], shown["review_note"]) == ("in_progress", note)

    answer_all(client, crew, inspection_id, items)  # corrected, closed again: a new certificate at the closing
    again = submit(client, crew, inspection_id).json["certificate"]
    assert again["number"] != first["number"] and again["replaces"] == first["number"]
    assert (again["status"], again["countersigned_on"]) == ("valid", None)
    assert client.get(f"/api/v1/verify/{again['token']}").json["verdict"] == "valid"
    assert client.get(f"/api/v1/verify/{first['token']}").json["verdict"] == "revoked"  # revoked stays revoked
    listed = client.get(f"/api/v1/certificates/{again['number']}", headers=crew["oh"]).json
    assert listed["replaces"] == first["number"]
    pdf = pypdfium2.PdfDocument(client.get(f"/api/v1/certificates/{again['number']}/pdf", headers=crew["oh"]).data)
    printed = " ".join(" ".join(pdf[i].get_textpage().get_text_range().split()) for i in range(len(pdf)))
    assert f"Reemplaza al certificado N.º {first['number']}" in printed
    login(client, crew["owner"])
    assert f"Reemplaza al certificado N.º {first['number']}" in text(client.get(f"/certificados/{again['number']}"))
    assert f"Replaces certificate no. {first['number']}" in text(client.get(f"/certificados/{again['number']}?lang=en"))
    client.get("/certificados?lang=es")
    # the review, the countersignature and the inspection's pages read the one in force
    signed = countersign(client, reviewer, inspection_id)
    assert signed.status_code == 200 and signed.json["certificate"]["number"] == again["number"], signed.json
    refused = send_back(client, reviewer, inspection_id)
    assert refused.status_code == 409 and "ya fue refrendada" in refused.json["detail"]
    english = send_back(client, {**reviewer, "Accept-Language": "en"}, inspection_id)
    assert english.status_code == 409 and "already been countersigned" in english.json["detail"]
    # one certificate not revoked per inspection: the database itself refuses a second
    old.revoked_at = None
    with pytest.raises(IntegrityError):
        db.session.flush()
    db.session.rollback()


def test_returned_under_one_validity_and_closed_again_under_the_other_the_countersignature_replaces_it(
        app, client, crew, started, as_role, monkeypatch):
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items)
    first = submit(client, crew, inspection_id).json["certificate"]
    _, reviewer = as_role("reviewer")
    assert send_back(client, reviewer, inspection_id).status_code == 200
    monkeypatch.setitem(app.config, "COUNTERSIGN_VALIDITY", "countersignature")
    answer_all(client, crew, inspection_id, items)
    assert submit(client, crew, inspection_id).json["certificate"] is None
    signed = countersign(client, reviewer, inspection_id)
    assert signed.status_code == 200, signed.json
    assert signed.json["certificate"]["replaces"] == first["number"]
    assert signed.json["certificate"]["status"] == "valid"


def test_a_certificate_the_prefectura_revoked_while_pending_is_not_reissued_by_the_countersignature(
        client, crew, issued, as_role):
    revoked = client.post(f"/api/v1/certificates/{issued['number']}/revoke", headers=crew["admin"],
                          json={"reason": "Documentación falsificada"})
    assert revoked.status_code == 200
    _, reviewer = as_role("reviewer")
    signed = countersign(client, reviewer, issued["inspection_id"])
    assert signed.status_code == 200 and signed.json["certificate"]["number"] == issued["number"]
    assert signed.json["certificate"]["status"] == "revoked"
    assert db.session.scalar(db.select(db.func.count()).select_from(Certificate)
                             .filter_by(inspection_id=issued["inspection_id"])) == 1


def test_issued_at_the_countersignature_a_returned_inspection_comes_back_corrected(app, client, crew, started,
                                                                                  as_role, monkeypatch):
    monkeypatch.setitem(app.config, "COUNTERSIGN_VALIDITY", "countersignature")
    inspection_id, items = started
    answer_all(client, crew, inspection_id, items, fail=[items[0]["id"]])
    closed = submit(client, crew, inspection_id).json
    assert closed["certificate"] is None and closed["deficiencies"], closed
    _, reviewer = as_role("reviewer", title="Prefecto General de Puertos")
    returned = send_back(client, reviewer, inspection_id)
    assert returned.status_code == 200 and returned.json["review_status"] == "returned"
    shown = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json
    assert (shown["status"], shown["outcome"], shown["review_note"]) == (
        "in_progress", None, "Falta la foto del manómetro de la caldera 2.")
    assert db.session.scalar(db.select(db.func.count()).select_from(Deficiency)
                             .filter_by(inspection_id=inspection_id)) == 0
    [event] = db.session.scalars(db.select(AuditEvent).filter_by(action="inspection.returned")).all()
    assert event.details["outcome"] == closed["outcome"] and len(event.details["deficiencies"]) == len(
        closed["deficiencies"])  # the earlier version, kept
    assert db.session.scalars(db.select(Inspection.status).filter_by(reinspection_of_id=inspection_id)).all() in (
        [], ["cancelled"])
    answer_all(client, crew, inspection_id, items)  # corrected: every item now passes
    again = submit(client, crew, inspection_id).json
    assert again["outcome"] == "passed" and again["certificate"] is None
    signed = countersign(client, reviewer, inspection_id)
    assert signed.status_code == 200, signed.json
    certificate = signed.json["certificate"]
    assert certificate["countersigned_on"] == office_today().isoformat() and certificate["countersign_due_on"] is None
    assert client.get(f"/api/v1/verify/{certificate['token']}").json["certificate"]["countersign"] == "countersigned"


def test_the_status_list_tells_an_offline_phone_which_are_countersigned(client, crew, issued, as_role):
    import base64
    import json

    def claims():
        jws = client.get("/api/v1/status-list").json["jws"]
        body = jws.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))["countersign"]

    index = str(db.session.scalar(db.select(Certificate.status_index).filter_by(number=issued["number"])))
    assert claims() == {"signed": {}, "pending": {index: issued["countersign_due_on"]}}
    _, reviewer = as_role("reviewer")
    assert countersign(client, reviewer, issued["inspection_id"]).status_code == 200
    assert claims() == {"signed": {index: office_today().isoformat()}, "pending": {}}


def test_the_printed_certificate_carries_both_signatures_once_countersigned(client, crew, issued, make_user, token_for):
    import pypdfium2

    def printed():
        pdf = pypdfium2.PdfDocument(client.get(f"/api/v1/certificates/{issued['number']}/pdf", headers=crew["oh"]).data)
        return " ".join(" ".join(pdf[i].get_textpage().get_text_range().split()) for i in range(len(pdf)))

    assert "Pendiente de refrendo" in printed()
    reviewer = make_user("reviewer", full_name="Cnel. Aurelio Ramírez", title="Delegado del Prefecto")
    assert countersign(client, token_for(reviewer), issued["inspection_id"]).status_code == 200
    text = printed()
    assert "Cnel. Aurelio Ramírez" in text and "Delegado del Prefecto" in text and "Pendiente de refrendo" not in text


def test_the_report_pdf_carries_the_countersignature_or_says_it_waits(client, crew, issued, make_user, token_for):
    import pypdfium2

    def printed():
        data = client.get(f"/inspecciones/{issued['inspection_id']}/informe.pdf")
        pdf = pypdfium2.PdfDocument(data.data)
        return " ".join(" ".join(pdf[i].get_textpage().get_text_range().split()) for i in range(len(pdf)))

    # the report PDF is a page: the owner's own session
    assert client.post("/login", data={"username": crew["owner"].username, "password": PASSWORD}).status_code == 302
    assert "Pendiente de refrendo" in printed()
    reviewer = make_user("reviewer", full_name="Cnel. Aurelio Ramírez", title="Prefecto General de Puertos")
    assert countersign(client, token_for(reviewer), issued["inspection_id"]).status_code == 200
    text = printed()
    assert "Cnel. Aurelio Ramírez" in text and "Prefecto General de Puertos" in text
    assert "Pendiente de refrendo" not in text
