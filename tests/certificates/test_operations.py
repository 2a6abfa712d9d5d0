"""Certificates: issue on a passed inspection, QR read by a real decoder, verdicts derived from records."""
import io
import re
import threading
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone

import pypdfium2
import pytest
import zxingcpp
from sqlalchemy import update

from inspection.certificates.numbering import format_number, parse_number
from inspection.certificates.operations import (
    StatusFacts,
    add_months,
    application_due_on,
    derive_status,
    differing_claims,
    validity,
    verify_certificate_token,
)
from inspection.certificates.signing import (
    CertificateClaims,
    decode_token,
    generate_key,
    key_id,
    public_key_from_jwk,
    sign_certificate,
)
from inspection.certificates.status_list import verify_status_list
from inspection.core.models import AuditEvent, Certificate, Deficiency
from inspection.law.legal_terms import TermPractice
from tests.fixtures.inspections import answer_all, schedule, submit
from tests.fixtures.pages import text
from tests.fixtures.tokens import other_encodings, signature_twin

TODAY = date(2026, 11, 30)


# Every test here that takes the crew starts from the issued certificate: built once, its rows restored per test.
@pytest.fixture
def crew(issued_once):
    return issued_once[0]


@pytest.fixture
def started(issued_once):
    return issued_once[1]


@pytest.fixture
def issued(issued_once):
    return issued_once[2]


# --- pure ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("day, months, expected", [
    (date(2026, 1, 31), 6, date(2026, 7, 31)),
    (date(2026, 8, 31), 6, date(2027, 2, 28)),
    (date(2027, 8, 31), 6, date(2028, 2, 29)),
    (date(2026, 11, 30), 12, date(2027, 11, 30)),
    (date(2026, 3, 31), -1, date(2026, 2, 28)),
])
def test_add_months(day, months, expected):
    assert add_months(day, months) == expected


NOV_29, DEC_1 = date(2026, 11, 29), date(2026, 12, 1)
YEAR = TermPractice(12)


@pytest.mark.parametrize("kind, inspected_on, issued_on, chosen, practice, expected", [
    ("seguridad", TODAY, TODAY, None, YEAR, date(2027, 5, 30)),            # six months, arts. 211, 225
    ("seguridad", NOV_29, DEC_1, None, YEAR, date(2027, 5, 29)),           # from the inspection, art. 207
    ("seguridad", TODAY, TODAY, date(2027, 3, 1), YEAR, date(2027, 3, 1)),  # "o antes", art. 211
    ("seguridad", TODAY, TODAY, date(2026, 12, 30), YEAR, date(2026, 12, 30)),  # apply by the issue day, art. 222
    ("seguridad", TODAY, TODAY, date(2027, 5, 30), YEAR, date(2027, 5, 30)),  # the whole six months
    ("navegabilidad", TODAY, TODAY, None, YEAR, date(2027, 11, 30)),       # the Prefectura's year
    ("navegabilidad", NOV_29, DEC_1, None, YEAR, date(2027, 11, 29)),      # from the inspection, art. 207
    ("navegabilidad", TODAY, TODAY, None, TermPractice(6), date(2027, 5, 30)),  # the practice is a setting
    ("navegabilidad", TODAY, TODAY, date(2027, 3, 1), YEAR, date(2027, 3, 1)),      # earlier, art. 203
    ("navegabilidad", TODAY, TODAY, date(2026, 12, 1), YEAR, date(2026, 12, 1)),    # lateness runs from expiry, art. 204
    ("navegabilidad", TODAY, TODAY, date(2027, 11, 30), YEAR, date(2027, 11, 30)),  # the whole year
])
def test_terms_by_kind(kind, inspected_on, issued_on, chosen, practice, expected):
    assert validity(kind, inspected_on, issued_on, chosen, practice) == expected


def test_the_default_practice_is_a_year():
    assert validity("navegabilidad", TODAY, TODAY) == date(2027, 11, 30)
    assert application_due_on(date(2027, 5, 30)) == date(2027, 4, 30)  # a month before, art. 222


@pytest.mark.parametrize("kind, chosen, practice, message", [
    ("navegabilidad", date(2027, 12, 1), YEAR, "El término no puede pasar del 2027-11-30, 12 meses desde la inspección: "
                                               "el inspector puede fijar una fecha anterior, no posterior (art. 203)."),
    ("navegabilidad", date(2028, 5, 30), TermPractice(6), "no puede pasar del 2027-05-30, 6 meses"),
    ("seguridad", date(2027, 5, 31), YEAR, "El término no puede pasar del 2027-05-30, 6 meses desde la inspección: "
                                           "el inspector puede fijar una fecha anterior, no posterior (art. 211)."),
    ("navegabilidad", TODAY, YEAR, "El término debe terminar después de la fecha de expedición"),
    ("seguridad", TODAY, YEAR, "El término debe terminar después de la fecha de expedición"),
    ("seguridad", date(2026, 12, 29), YEAR, "Con vencimiento el 2026-12-29, la solicitud de la próxima inspección "
                                            "vencería el 2026-11-29, antes de la expedición del 2026-11-30 (art. 222"),
])
def test_a_term_past_the_laws_or_before_the_issue_is_refused(kind, chosen, practice, message):
    from inspection.core.exceptions import Invalid
    with pytest.raises(Invalid) as refused:
        validity(kind, TODAY, TODAY, chosen, practice)
    assert message in str(refused.value.errors["valid_until"][0])


@pytest.mark.parametrize("facts, today, status", [
    (dict(revoked=False, superseded=False, suspended=False), TODAY, "valid"),
    (dict(revoked=False, superseded=False, suspended=False), date(2027, 6, 1), "expired"),
    (dict(revoked=False, superseded=False, suspended=True), TODAY, "suspended"),
    (dict(revoked=False, superseded=True, suspended=True), TODAY, "superseded"),
    (dict(revoked=True, superseded=True, suspended=True), date(2030, 1, 1), "revoked"),
    (dict(revoked=False, superseded=False, suspended=True), date(2027, 6, 1), "expired"),
])
def test_status_precedence(facts, today, status):
    assert derive_status(StatusFacts(valid_until=date(2027, 5, 30), **facts), today) == status


# The certificate list filters and sorts by status in SQL: each case a certificate whose facts live in its own row,
# its vessel's detentions and deficiencies, with the status derive_status gives it on TODAY.
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
STATUS_CASES = [
    ("plain", {}, {}, "valid"),
    ("last day", {"valid_until": TODAY}, {}, "valid"),
    ("past its date", {"valid_until": TODAY - timedelta(days=1)}, {}, "expired"),
    ("suspended", {"suspended_at": NOW}, {}, "suspended"),
    ("vessel detained", {}, {"detention": None}, "suspended"),
    ("detention lifted", {}, {"detention": NOW}, "valid"),
    ("detainable open", {}, {"deficiency": ("open", True)}, "suspended"),
    ("detainable reported fixed", {}, {"deficiency": ("reported_fixed", True)}, "suspended"),
    ("detainable closed", {}, {"deficiency": ("closed", True)}, "valid"),
    ("observation open", {}, {"deficiency": ("open", False)}, "valid"),
    ("expired while suspended", {"valid_until": TODAY - timedelta(days=1), "suspended_at": NOW}, {}, "expired"),
    ("expired and detained", {"valid_until": TODAY - timedelta(days=1)}, {"detention": None}, "expired"),
    ("revoked", {"revoked_at": NOW}, {}, "revoked"),
    ("revoked, expired", {"revoked_at": NOW, "valid_until": TODAY - timedelta(days=9)}, {}, "revoked"),
    ("superseded while detained", {"superseded": True}, {"detention": None}, "superseded"),
    ("revoked and superseded", {"revoked_at": NOW, "superseded": True}, {}, "revoked"),
]


@pytest.mark.db
def test_the_status_filter_and_order_in_sql_agree_with_derive_status(app, records, make_vessel, make_user):
    from inspection.certificates.operations import (
        STATUSES,
        facts_of,
        status_facts_query,
        status_is,
        status_rank,
    )
    from inspection.core.extensions import db
    from inspection.core.models import Deficiency, Detention

    inspector, number_of = make_user("inspector"), {}
    for name, columns, vessel_facts, _ in STATUS_CASES:
        vessel, columns = make_vessel(), dict(columns)
        superseded = columns.pop("superseded", False)
        row = records["certificate"](vessel, inspector, "seguridad", TODAY - timedelta(days=30),
                                     columns.pop("valid_until", TODAY + timedelta(days=150)), **columns)
        if superseded:
            row.superseded_by_id = records["certificate"](vessel, inspector, "seguridad", TODAY,
                                                          TODAY + timedelta(days=180), revoked_at=NOW).id
        if "detention" in vessel_facts:
            db.session.add(Detention(vessel_id=vessel.id, reason="Casco", decided_by_id=inspector.id,
                                     lifted_at=vessel_facts["detention"]))
        if "deficiency" in vessel_facts:
            status, detainable = vessel_facts["deficiency"]
            db.session.add(Deficiency(inspection_id=row.inspection_id, vessel_id=vessel.id, item_id="seg.x",
                                      source="Ley 928/1927", article="143", description="Bombas",
                                      action="detained" if detainable else "next_port", detainable=detainable,
                                      status=status))
        number_of[name] = row.number
    db.session.flush()

    expected = {number_of[name]: status for name, _, _, status in STATUS_CASES}
    derived = {row.number: derive_status(facts_of(row), TODAY) for row in db.session.execute(
        status_facts_query().where(Certificate.number.in_(expected)))}
    assert derived == expected
    for status in STATUSES:
        found = set(db.session.scalars(db.select(Certificate.number).where(status_is(status, TODAY))))
        assert found & set(expected) == {n for n, s in expected.items() if s == status}, status
    ranked = db.session.execute(db.select(Certificate.number, status_rank(TODAY).label("rank"))
                                .where(Certificate.number.in_(expected))).all()
    assert {number: STATUSES[rank] for number, rank in ranked} == expected


RECORDED = CertificateClaims(issuer="PGP-ASU", number=format_number("seguridad", 2026, 123), kind="seguridad",
                             revision=2, registration="PY-ASU-1234", vessel_name="Ñandutí", issued_on=date(2026, 3, 15),
                             valid_until=date(2026, 9, 15), status_index=42)


@pytest.mark.parametrize("changes, kid, differing", [
    ({}, "k1", []),
    ({"valid_until": date(2037, 12, 31)}, "k1", ["valid_until"]),
    ({"issued_on": date(2025, 1, 1), "valid_until": date(2025, 7, 1)}, "k1", ["issued_on", "valid_until"]),
    ({"registration": "PY-FALSO-1"}, "k1", ["registration"]),
    ({"vessel_name": "Buque Falso"}, "k1", ["vessel_name"]),
    ({"revision": 3}, "k1", ["revision"]),
    ({"kind": "navegabilidad", "number": format_number("navegabilidad", 2026, 123)}, "k1", ["number", "kind"]),
    ({"issuer": "PGP-CDE"}, "k1", ["office_code"]),
    ({"status_index": 7}, "k1", ["status_index"]),
    ({}, "k2", ["kid"]),
    ({"vessel_name": "Otro", "revision": 9}, "k2", ["revision", "vessel_name", "kid"]),
])
def test_every_claim_and_the_key_are_compared_with_the_record(changes, kid, differing):
    assert differing_claims(replace(RECORDED, **changes), kid, RECORDED, "k1") == differing


# --- issuing through a passed inspection -----------------------------------------------------------



def test_submit_returns_the_certificate_fields(issued):
    for field in ("number", "kind", "vessel_id", "revision", "issued_on", "valid_until", "status", "token",
                  "verify_url", "qr_url", "pdf_url"):
        assert field in issued
    assert re.fullmatch(r"SEG-\d{4}-\d{6}-\d", issued["number"])
    assert issued["status"] == "valid" and issued["revision"] == 1
    assert issued["verify_url"] == f"https://baliza.test/v/{issued['token']}"
    assert issued["qr_version"] <= 15


def decode_pdf_qr(pdf: bytes) -> str:
    """Rasterise page 1 at 200 dpi and read the QR with zxing-cpp."""
    page = pypdfium2.PdfDocument(pdf)[0]
    image = page.render(scale=200 / 72).to_pil()
    [barcode] = [b for b in zxingcpp.read_barcodes(image) if b.format == zxingcpp.BarcodeFormat.QRCode]
    return barcode.text


def test_pdf_qr_decodes_and_verifies_valid(client, crew, issued):
    pdf = client.get(issued["pdf_url"], headers=crew["oh"])
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    url = decode_pdf_qr(pdf.data)
    assert url == issued["verify_url"]
    token = url.rsplit("/v/", 1)[1]
    verdict = client.get(f"/api/v1/verify/{token}").json
    assert verdict["verdict"] == "valid"
    assert verdict["certificate"]["number"] == issued["number"]
    assert verdict["certificate"]["registration"] == crew["vessel"].registration
    page = client.get(f"/v/{token}").get_data(as_text=True)
    assert "VÁLIDO" in page and crew["vessel"].name in page


def test_qr_png_decodes_to_the_verify_url(client, crew, issued):
    from PIL import Image
    png = client.get(issued["qr_url"], headers=crew["oh"]).data
    [barcode] = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)), formats=zxingcpp.BarcodeFormat.QRCode)
    assert barcode.text == issued["verify_url"]


def flip(token: str, position: int) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
    char = token[position]
    return token[:position] + alphabet[(alphabet.index(char) + 1) % 32] + token[position + 1:]


def test_one_flipped_byte_is_invalid_signature(client, issued):
    token = flip(issued["token"], len(issued["token"]) // 2)
    response = client.get(f"/api/v1/verify/{token}")
    assert response.status_code in (200, 400)
    if response.status_code == 200:
        assert response.json["verdict"] == "invalid_signature"
    page = client.get(f"/v/{token}").get_data(as_text=True)
    assert "FIRMA INVÁLIDA" in page or "CÓDIGO ILEGIBLE" in page
    # a flip inside the signature always decodes, and must fail the signature
    sig_flip = flip(issued["token"], len(issued["token"]) - 10)
    assert client.get(f"/api/v1/verify/{sig_flip}").json["verdict"] == "invalid_signature"
    assert "FIRMA INVÁLIDA" in client.get(f"/v/{sig_flip}").get_data(as_text=True)


def test_unknown_key_is_unknown_issuer(client, issued):
    stranger = generate_key()
    claims = CertificateClaims(issuer="PGP-ASU", number=issued["number"], kind="seguridad", revision=1,
                               registration="PY-1", vessel_name="Falso", issued_on=TODAY,
                               valid_until=TODAY + timedelta(days=100), status_index=0)
    token = sign_certificate(claims, stranger, key_id(stranger.public_key()))
    assert client.get(f"/api/v1/verify/{token}").json["verdict"] == "unknown_issuer"
    assert "EMISOR DESCONOCIDO" in client.get(f"/v/{token}").get_data(as_text=True)


def test_later_date_is_expired(app, issued):
    later = date.fromisoformat(issued["valid_until"]) + timedelta(days=1)
    answer = verify_certificate_token(issued["token"], later, app.config["OFFICE_NAME"])
    assert answer["verdict"] == "expired" and answer["certificate"]["days_left"] == -1 and answer["mismatched"] == []


def signed_by_the_office(app, token, **changes):
    """The office's own key signing the claims of `token` with `changes`: what a leaked key could make."""
    from inspection.certificates.keys import current_signing_key
    kid, private = current_signing_key(app.config["OFFICE_CODE"])
    return sign_certificate(replace(decode_token(token)[1], **changes), private, kid)


@pytest.mark.parametrize("changes, mismatched, false_text", [
    ({"valid_until": date(2037, 12, 31)}, ["valid_until"], "2037"),
    ({"issued_on": date(2025, 1, 1), "valid_until": date(2025, 7, 1)}, ["issued_on", "valid_until"], "2025"),
    ({"registration": "PY-FALSO-1"}, ["registration"], "PY-FALSO-1"),
    ({"vessel_name": "Buque Falso"}, ["vessel_name"], "Buque Falso"),
    ({"revision": 7}, ["revision"], "revisión 7"),
    ({"status_index": 999}, ["status_index"], None),
])
def test_a_token_of_the_office_key_that_is_not_the_record_is_a_mismatch(app, client, crew, issued, changes,
                                                                         mismatched, false_text):
    """A leaked key cannot vouch for other dates, a vessel, a revision: the answer and page show the record's facts."""
    genuine = client.get(f"/api/v1/verify/{issued['token']}").json
    forged = signed_by_the_office(app, issued["token"], **changes)
    assert client.get(f"/api/v1/verify/{forged}").json == {
        "verdict": "mismatch", "certificate": genuine["certificate"], "mismatched": mismatched}
    page = client.get(f"/v/{forged}")
    shown = text(page)
    assert page.status_code == 200 and "NO COINCIDE CON EL REGISTRO" in shown and "VÁLIDO" not in shown
    assert "datos del certificado registrado con ese número, no los del código" in shown
    assert crew["vessel"].registration in shown and crew["vessel"].name in shown and issued["number"] in shown
    assert false_text is None or false_text not in shown
    english = text(client.get(f"/v/{forged}?lang=en"))
    assert "DOES NOT MATCH THE RECORD" in english and "not the code's" in english


def test_a_token_of_the_office_key_for_a_number_not_on_record_is_a_mismatch_showing_nothing(app, client, crew, issued):
    """Another kind (NAV under the same serial) or another serial: no such certificate, so nothing is shown."""
    parsed = parse_number(issued["number"])
    for changes in ({"kind": "navegabilidad", "number": format_number("navegabilidad", parsed.year, parsed.serial)},
                    {"number": format_number("seguridad", parsed.year, parsed.serial + 1)}):
        forged = signed_by_the_office(app, issued["token"], **changes)
        assert client.get(f"/api/v1/verify/{forged}").json == {
            "verdict": "mismatch", "certificate": None, "mismatched": ["number"]}
        shown = text(client.get(f"/v/{forged}"))
        assert "NO COINCIDE CON EL REGISTRO" in shown
        assert crew["vessel"].registration not in shown and changes["number"] not in shown


def test_a_mismatch_comes_before_the_records_status(app, client, crew, issued):
    """A forged token of a revoked certificate says it does not match, not merely that the certificate is revoked."""
    forged = signed_by_the_office(app, issued["token"], valid_until=date(2037, 12, 31))
    client.post(f"/api/v1/certificates/{issued['number']}/revoke", json={"reason": "Prueba"}, headers=crew["admin"])
    assert client.get(f"/api/v1/verify/{issued['token']}").json["verdict"] == "revoked"
    assert client.get(f"/api/v1/verify/{forged}").json["verdict"] == "mismatch"


def test_a_renamed_vessels_certificate_stays_what_it_was_issued_as(app, client, crew, issued):
    """The token says what was certified: the record compares with it, not with the vessel's new name."""
    vessel = crew["vessel"]
    renamed = client.patch(f"/api/v1/vessels/{vessel.id}", json={"name": "Nuevo Nombre", "registration": "PY-NUEVA-9"},
                           headers=crew["admin"])
    assert renamed.status_code == 200, renamed.json
    answer = client.get(f"/api/v1/verify/{issued['token']}").json
    assert answer["verdict"] == "valid" and answer["certificate"]["vessel_name"] != "Nuevo Nombre"
    forged = signed_by_the_office(app, issued["token"], vessel_name="Nuevo Nombre", registration="PY-NUEVA-9")
    assert client.get(f"/api/v1/verify/{forged}").json["mismatched"] == ["registration", "vessel_name"]


def test_other_encodings_of_an_issued_token_are_refused_as_unreadable(client, issued):
    """Untagged, tag 61, a kid in the unprotected header, longer lengths, the (r, n - s) twin: 400, as garbage is."""
    assert client.get(f"/api/v1/verify/{issued['token']}").json["verdict"] == "valid"
    for label, token in other_encodings(issued["token"]):
        response = client.get(f"/api/v1/verify/{token}")
        assert response.status_code == 400 and response.mimetype == "application/problem+json", label
        page = client.get(f"/v/{token}")
        assert page.status_code == 400 and "CÓDIGO ILEGIBLE" in page.get_data(as_text=True), label


def test_a_certificate_signed_high_s_before_the_rule_verifies_as_issued_and_only_so(client, issued, db):
    """Paper aboard carries high-S tokens: the stored one is genuine; its low-S twin is a new encoding, refused."""
    legacy = signature_twin(issued["token"])  # issued now low-S; its twin is what the old signing wrote half the time
    db.session.execute(db.update(Certificate).where(Certificate.number == issued["number"]).values(token=legacy))
    db.session.commit()
    assert client.get(f"/api/v1/verify/{legacy}").json["verdict"] == "valid"
    assert client.get(f"/api/v1/verify/{legacy.lower()}").json["verdict"] == "valid"  # scanners that lowercase
    assert "VÁLIDO" in text(client.get(f"/v/{legacy}"))
    assert client.get(f"/api/v1/verify/{issued['token']}").status_code == 400
    assert client.get(f"/v/{issued['token']}").status_code == 400


def test_expired_page_says_vencido(client, issued, set_clock):
    from datetime import datetime, timezone

    later = datetime.combine(date.fromisoformat(issued["valid_until"]) + timedelta(days=3), datetime.min.time(),
                             timezone.utc)
    set_clock(later)
    assert "VENCIDO" in client.get(f"/v/{issued['token']}").get_data(as_text=True)


def test_detention_suspends_and_lifting_restores(client, crew, issued):
    token = issued["token"]
    detention = client.post(f"/api/v1/vessels/{crew['vessel'].id}/detentions",
                            json={"reason": "Filtración en el casco"}, headers=crew["ih"]).json
    assert client.get(f"/api/v1/verify/{token}").json["verdict"] == "suspended"
    assert "SUSPENDIDO" in client.get(f"/v/{token}").get_data(as_text=True)
    client.post(f"/api/v1/detentions/{detention['id']}/lift", json={"reason": "Reparado"}, headers=crew["admin"])
    assert client.get(f"/api/v1/verify/{token}").json["verdict"] == "valid"


def test_lifting_follows_the_rules_of_detaining(client, crew, issued, as_role):
    """An inspector linked to the owner (art. 214) may not detain, so may not lift either; nor may an owner."""
    token = issued["token"]
    detention = client.post(f"/api/v1/vessels/{crew['vessel'].id}/detentions",
                            json={"reason": "Filtración en el casco"}, headers=crew["admin"]).json
    linked, linked_h = as_role("inspector")
    client.post(f"/api/v1/users/{linked.id}/conflicts", headers=crew["admin"],
                json={"owner_id": crew["vessel"].owner_id, "reason": "Socio del armador"})
    lift = f"/api/v1/detentions/{detention['id']}/lift"
    assert client.post(f"/api/v1/vessels/{crew['vessel'].id}/detentions", json={"reason": "Otra"},
                       headers=linked_h).status_code == 403
    assert client.post(lift, json={"reason": "Reparado"}, headers=linked_h).status_code == 403
    assert client.post(lift, json={"reason": "Reparado"}, headers=crew["oh"]).status_code == 403
    assert client.get(f"/api/v1/verify/{token}").json["verdict"] == "suspended"
    assert client.post(lift, json={"reason": "Reparado"}, headers=crew["ih"]).status_code == 200
    assert client.get(f"/api/v1/verify/{token}").json["verdict"] == "valid"


def test_revocation_is_admin_only_audited_and_revoked(client, crew, issued, db):
    url = f"/api/v1/certificates/{issued['number']}/revoke"
    assert client.post(url, json={"reason": "Datos falsos"}, headers=crew["oh"]).status_code == 403
    assert client.post(url, json={"reason": "Datos falsos"}, headers=crew["ih"]).status_code == 403
    response = client.post(url, json={"reason": "Documentación falsificada"}, headers=crew["admin"])
    assert response.status_code == 200 and response.json["status"] == "revoked"
    assert client.get(f"/api/v1/verify/{issued['token']}").json["verdict"] == "revoked"
    assert "REVOCADO" in client.get(f"/v/{issued['token']}").get_data(as_text=True)
    event = db.session.scalar(db.select(AuditEvent).filter_by(action="certificate.revoked"))
    assert event.details["reason"] == "Documentación falsificada"


def test_suspend_and_reinstate_by_decision(client, crew, issued):
    base = f"/api/v1/certificates/{issued['number']}"
    assert client.post(f"{base}/suspend", json={"reason": "Prohibición de zarpe"}, headers=crew["admin"]).json["status"] == "suspended"
    assert client.post(f"{base}/suspend", json={"reason": "Otra vez"}, headers=crew["admin"]).status_code == 409
    assert client.post(f"{base}/reinstate", json={"reason": "Levantada"}, headers=crew["admin"]).json["status"] == "valid"


def test_new_certificate_supersedes_the_old(client, crew, issued):
    second_id = schedule(client, crew)
    client.post(f"/api/v1/inspections/{second_id}/start", headers=crew["ih"])
    items = client.get(f"/api/v1/inspections/{second_id}", headers=crew["ih"]).json["items"]
    answer_all(client, crew, second_id, items)
    newer = submit(client, crew, second_id).json["certificate"]
    assert newer["revision"] == 2 and newer["number"] != issued["number"]
    assert client.get(f"/api/v1/verify/{issued['token']}").json["verdict"] == "superseded"
    assert "REEMPLAZADO" in client.get(f"/v/{issued['token']}").get_data(as_text=True)
    assert client.get(f"/api/v1/verify/{newer['token']}").json["verdict"] == "valid"


def test_public_answers_carry_no_owner_or_inspector_data(client, crew, issued, db):
    from inspection.core.models import Owner
    owner = db.session.get(Owner, crew["vessel"].owner_id)
    inspector = crew["inspector"]
    public = [client.get(f"/api/v1/verify/{issued['token']}").get_data(as_text=True),
              client.get(f"/v/{issued['token']}").get_data(as_text=True)]
    for shown in public:
        for secret in (owner.name, owner.tax_id, owner.email, inspector.username, "Cap. Benítez", "Insp. Demo"):
            assert secret not in shown
    assert set(client.get(f"/api/v1/verify/{issued['token']}").json["certificate"]) == {
        "number", "kind", "revision", "registration", "vessel_name", "issued_on", "valid_until", "days_left",
        "office_code", "office_name", "restrictions", "countersign", "countersigned_on", "countersign_due_on"}
    # a restriction is the law's (art. 73), nobody's data; the countersignature is a date, not who signed


@pytest.mark.parametrize("garbage", ["x", "A" * 5000, "!!!!", "AAAAAAAA", "MFRGGZDFMZTWQ2LK"])
def test_malformed_tokens_are_400_never_500(client, garbage):
    response = client.get(f"/api/v1/verify/{garbage}")
    assert response.status_code == 400 and response.mimetype == "application/problem+json"
    assert client.get(f"/v/{garbage}").status_code == 400


def test_status_list_and_keys_let_a_verifier_work_offline(client, crew, issued):
    keys = client.get("/api/v1/keys").json["keys"]
    assert keys and all("d" not in k for k in keys)  # never the private part
    published = {k["kid"]: public_key_from_jwk(k) for k in keys}
    client.post(f"/api/v1/certificates/{issued['number']}/revoke", json={"reason": "Prueba"}, headers=crew["admin"])
    body = client.get("/api/v1/status-list").json
    status_list = verify_status_list(body["jws"], published)
    _, claims, _, _ = decode_token(issued["token"])  # the index lives in the signed token
    assert status_list.status_at(claims.status_index) == 1  # revoked
    assert client.get(f"/api/v1/verify/{issued['token']}").json["verdict"] == "revoked"


def test_a_signed_status_list_is_served_again_for_a_minute_until_a_certificate_changes(client, crew, issued, set_clock):
    """Issue 22: the list is signed once a minute at most while nothing it says changes; a revocation is in the next."""
    from datetime import datetime, timedelta, timezone

    from inspection.certificates.api import STATUS_LIST_REUSE

    start = datetime.now(timezone.utc).replace(second=0, microsecond=0) + timedelta(minutes=1)  # a minute's start
    set_clock(start)
    first = client.get("/api/v1/status-list").json
    set_clock(start + timedelta(seconds=STATUS_LIST_REUSE - 1))
    assert client.get("/api/v1/status-list").json == first  # the same signed list, its issued_at its own age
    revoke = client.post(f"/api/v1/certificates/{issued['number']}/revoke", json={"reason": "Prueba"},
                         headers=crew["admin"])
    assert revoke.status_code == 200, revoke.json
    revoked = client.get("/api/v1/status-list").json
    assert revoked["jws"] != first["jws"] and revoked["issued_at"] == (start + timedelta(seconds=59)).isoformat()
    set_clock(start + timedelta(seconds=STATUS_LIST_REUSE))
    assert client.get("/api/v1/status-list").json["issued_at"] == (start + timedelta(seconds=60)).isoformat()


def test_owner_sees_own_certificates_only(client, crew, issued, as_role):
    assert client.get("/api/v1/certificates", headers=crew["oh"]).json["total"] == 1
    _, stranger = as_role("owner")
    assert client.get("/api/v1/certificates", headers=stranger).json["total"] == 0
    assert client.get(f"/api/v1/certificates/{issued['number']}", headers=stranger).status_code == 404
    assert client.get(issued["pdf_url"], headers=stranger).status_code == 404
    _, police = as_role("police")
    assert client.get("/api/v1/certificates", headers=police).status_code == 403


def test_keys_new_retires_but_keeps_publishing(runner, client, issued):
    before = {k["kid"] for k in client.get("/api/v1/keys").json["keys"]}
    result = runner.invoke(args=["keys", "new"])
    assert result.exit_code == 0, result.output
    keys = client.get("/api/v1/keys").json["keys"]
    assert before < {k["kid"] for k in keys}
    assert sorted(k["status"] for k in keys) == ["current", "retired"]
    assert client.get(f"/api/v1/verify/{issued['token']}").json["verdict"] == "valid"


def test_private_keys_stay_out_of_the_database(app, issued, db):
    import json

    from inspection.core.models import SigningKey
    for key in db.session.scalars(db.select(SigningKey)):
        assert "d" not in key.public_jwk and "PRIVATE" not in json.dumps(key.public_jwk)


def test_serials_are_unique_under_concurrent_issuing(app):
    """Eight threads with their own connections take serials at once: all distinct (PostgreSQL row lock)."""
    from inspection.certificates.operations import _next_counter
    from inspection.core.extensions import db as database

    taken, errors = [], []

    def take():
        with app.app_context():
            try:
                for _ in range(5):
                    taken.append(_next_counter("seguridad", 2031))
                    database.session.commit()
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(error)
            finally:
                database.session.remove()

    threads = [threading.Thread(target=take) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert sorted(taken) == list(range(1, 41))


def test_certificate_pages(client, crew, issued, make_user):
    from tests.conftest import PASSWORD
    client.post("/login", data={"username": crew["owner"].username, "password": PASSWORD})
    page = client.get(f"/certificados/{issued['number']}").get_data(as_text=True)
    assert issued["number"] in page and "art. 222" in page
    assert issued["number"] in client.get("/certificados").get_data(as_text=True)
    admin = make_user("admin")
    client.post("/logout")
    client.post("/login", data={"username": admin.username, "password": PASSWORD})
    response = client.post(f"/certificados/{issued['number']}/suspender", data={"reason": "Prohibición de zarpe"})
    assert response.status_code == 302
    assert client.get(f"/api/v1/verify/{issued['token']}").json["verdict"] == "suspended"


def test_a_key_of_one_office_cannot_vouch_for_another(client, issued, app):
    from inspection.certificates.keys import current_signing_key
    kid, private = current_signing_key(app.config["OFFICE_CODE"])
    claims = CertificateClaims(issuer="PGP-OTRA", number=issued["number"], kind="seguridad", revision=1,
                               registration="PY-1", vessel_name="Falso", issued_on=TODAY,
                               valid_until=TODAY + timedelta(days=100), status_index=0)
    token = sign_certificate(claims, private, kid)
    assert client.get(f"/api/v1/verify/{token}").json["verdict"] == "unknown_issuer"


def test_status_list_is_trusted_offline_for_seven_days(client, issued):
    import base64
    import json
    body = client.get("/api/v1/status-list").json
    payload = json.loads(base64.urlsafe_b64decode(body["jws"].split(".")[1] + "=="))
    assert payload["exp"] - payload["iat"] == 7 * 86400 and payload["ttl"] == 86400


def test_certificate_lists_do_not_query_per_row(client, crew, issued, count_queries):
    def load():
        assert client.get("/api/v1/certificates", headers=crew["oh"]).json["total"] >= 1

    load()  # warm: the first request also loads what later ones find in the session
    one = count_queries(load)
    for _ in range(3):  # three more certificates for the same vessel
        inspection_id = schedule(client, crew)
        client.post(f"/api/v1/inspections/{inspection_id}/start", headers=crew["ih"])
        items = client.get(f"/api/v1/inspections/{inspection_id}", headers=crew["ih"]).json["items"]
        answer_all(client, crew, inspection_id, items)
        assert submit(client, crew, inspection_id).json["certificate"]
    assert client.get("/api/v1/certificates", headers=crew["oh"]).json["total"] == 4
    assert count_queries(load) == one


# --- kept verdicts: a scan's answer is kept per process, and every record it is derived from tells ------------

def test_a_kept_valid_verdict_changes_at_the_next_scan_whatever_wrote_the_change(client, crew, started, issued, db):
    """Each write below goes around the API, as another server or a shell would: the kept 'valid' never outlives it."""
    url = f"/api/v1/verify/{issued['token']}"
    assert client.get(url).json["verdict"] == "valid"  # kept from here on
    deficiency = Deficiency(inspection_id=started[0], vessel_id=crew["vessel"].id, item_id="x",
                            source="Ley", article="208", description="Vía de agua", action="detained",
                            detainable=True)
    db.session.add(deficiency)
    db.session.commit()
    assert client.get(url).json["verdict"] == "suspended"
    deficiency.status = "closed"
    db.session.commit()
    assert client.get(url).json["verdict"] == "valid"
    db.session.execute(update(Certificate).where(Certificate.number == issued["number"])
                       .values(revoked_at=datetime.now(timezone.utc)))  # a bulk write, no object flushed
    db.session.commit()
    assert client.get(url).json["verdict"] == "revoked"


def test_a_kept_verdict_is_the_day_s(client, issued, set_clock):
    url = f"/api/v1/verify/{issued['token']}"
    assert client.get(url).json["verdict"] == "valid"
    after = date.fromisoformat(issued["valid_until"]) + timedelta(days=1)
    set_clock(datetime.combine(after, datetime.min.time(), timezone.utc) + timedelta(hours=12))
    assert client.get(url).json["verdict"] == "expired"
