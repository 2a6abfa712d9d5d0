"""Hostile text refused at the edge (inspection/web/hostile_input.py): a named 4xx, never a 500, on either database.

Before the edge, a NUL reaching a query was a 500 on PostgreSQL (SQLite stored it), and an unpaired
surrogate, 100,000 nested `[` or a 5,000-digit number in a JSON body was a 500 on both.
"""
import io

import pytest

from tests.fixtures.inspections import cid, jpeg, upload

pytestmark = pytest.mark.db

NUL_ES = "Contiene un carácter no admitido (NUL)."
NUL_EN = "Contains a character that is not allowed (NUL)."
SURROGATE_ES = "Contiene un carácter Unicode no válido (un sustituto sin pareja)."
TOO_DEEP_ES = "El JSON está anidado a más de 32 niveles."
TOO_LONG_ES = "El número tiene más de 30 cifras."
NOT_FINITE_ES = "El número no es finito."
ENGLISH = {"Accept-Language": "en"}


def refused(response, status: int, errors: dict):
    """A problem+json of `status` (400 bad-request or 422 validation) naming exactly `errors`."""
    assert response.status_code == status, response.get_data(as_text=True)[:300]
    assert response.mimetype == "application/problem+json"
    assert response.json["type"].endswith({400: "/bad-request", 422: "/validation"}[status])
    assert response.json["errors"] == errors
    return response.json


def post_token(client, raw: bytes, headers=None):
    return client.post("/api/v1/auth/token", data=raw, content_type="application/json", headers=headers or {})


def test_a_nul_in_the_token_endpoints_username_is_a_422_naming_it_in_spanish_and_english(app, client, make_user):
    make_user("admin", username="admin")
    body = {"username": "adm\u0000in", "password": "x"}
    spanish = refused(client.post("/api/v1/auth/token", json=body), 422, {"username": [NUL_ES]})
    assert spanish["title"] == "Datos no válidos" and spanish["detail"] == "Revise estos campos: username."
    english = refused(client.post("/api/v1/auth/token", json=body, headers=ENGLISH), 422, {"username": [NUL_EN]})
    assert english["title"] != spanish["title"]


def test_a_nul_in_the_login_form_is_a_422_page_naming_the_field(app, client, make_user):
    make_user("admin", username="admin")
    page = client.post("/login", data={"username": "adm\x00in", "password": "x"})
    assert page.status_code == 422 and page.mimetype == "text/html"
    assert NUL_ES in page.get_data(as_text=True)
    english = client.post("/login?lang=en", data={"username": "adm\x00in", "password": "x"})
    assert english.status_code == 422 and NUL_EN in english.get_data(as_text=True)


def test_a_nul_in_the_query_is_refused_on_the_api_and_on_a_page(app, client, as_role, login_as, make_vessel):
    user, headers = as_role("admin")
    make_vessel()
    refused(client.get("/api/v1/vessels?q=a%00b", headers=headers), 422, {"q": [NUL_ES]})
    refused(client.get("/api/v1/vessels?q=a%00b", headers={**headers, **ENGLISH}), 422, {"q": [NUL_EN]})
    browser = login_as(user)
    page = browser.get("/buques?q=a%00b")
    assert page.status_code == 422 and page.mimetype == "text/html" and NUL_ES in page.get_data(as_text=True)
    assert NUL_EN in browser.get("/buques?q=a%00b&lang=en").get_data(as_text=True)


def test_a_nul_in_a_query_parameters_name_is_named_escaped(app, client, as_role):
    _, headers = as_role("admin")
    refused(client.get("/api/v1/vessels?a%00b=1", headers=headers), 422, {"a\\u0000b": [NUL_ES]})


def test_a_nul_in_a_path_segment_names_the_argument(app, client, as_role, login_as):
    user, headers = as_role("admin")
    refused(client.get("/api/v1/certificates/PY%00-1", headers=headers), 422, {"number": [NUL_ES]})
    refused(client.get("/api/v1/verify/a%00b"), 422, {"token": [NUL_ES]})
    page = login_as(user).get("/certificados/PY%00-1")
    assert page.status_code == 422 and page.mimetype == "text/html" and NUL_ES in page.get_data(as_text=True)


def test_an_id_of_5000_digits_in_a_path_is_a_404(app, client, as_role):
    _, headers = as_role("admin")
    assert client.get("/api/v1/vessels/" + "9" * 5000, headers=headers).status_code == 404  # int() refuses 4,300+
    assert client.get("/api/v1/vessels/" + "9" * 31, headers=headers).status_code == 404


def test_a_lone_surrogate_in_json_is_a_400_naming_the_field(app, client):
    response = post_token(client, b'{"username": "\\ud800", "password": "x"}')
    refused(response, 400, {"username": [SURROGATE_ES]})
    english = post_token(client, b'{"username": "\\udfff", "password": "x"}', ENGLISH)
    assert english.json["errors"]["username"] == ["Contains an invalid Unicode character (an unpaired surrogate)."]


def test_a_surrogate_pair_and_an_escaped_backslash_are_text_and_pass(app, client):
    response = post_token(client, b'{"username": "\\ud83d\\ude00", "password": "C:\\\\u0000"}')
    assert response.status_code == 401  # an emoji and the six characters \u0000: a wrong sign-in, nothing more


def test_deep_nesting_is_a_400_for_the_whole_body(app, client):
    body = refused(post_token(client, b"[" * 100_000), 400, {"body": [TOO_DEEP_ES]})
    assert body["detail"] == TOO_DEEP_ES
    refused(post_token(client, b'{"username": ' + b"[" * 32 + b"]" * 32 + b"}"), 400, {"body": [TOO_DEEP_ES]})
    within = post_token(client, b'{"username": ' + b"[" * 31 + b"]" * 31 + b"}")  # 32 levels with the object
    assert within.status_code == 422 and within.json["type"].endswith("/validation")
    assert within.json["errors"] != {"body": [TOO_DEEP_ES]}


def test_a_huge_or_infinite_number_is_a_422_naming_the_field(app, client):
    refused(post_token(client, b'{"username": ' + b"9" * 5000 + b', "password": "x"}'), 422,
            {"username": [TOO_LONG_ES]})
    refused(post_token(client, b'{"username": -' + b"1" * 31 + b', "password": 1.' + b"5" * 40 + b"}"), 422,
            {"username": [TOO_LONG_ES], "password": [TOO_LONG_ES]})
    refused(post_token(client, b'{"username": 1e400, "password": NaN, "x": [-Infinity]}'), 422,
            {"username": [NOT_FINITE_ES], "password": [NOT_FINITE_ES], "x.0": [NOT_FINITE_ES]})
    refused(post_token(client, b"9" * 5000, ENGLISH), 422, {"body": ["The number has more than 30 digits."]})


def test_a_nul_in_a_json_key_is_named_escaped(app, client):
    refused(post_token(client, b'{"adm\\u0000in": "x"}'), 422, {"adm\\u0000in": [NUL_ES]})


def test_malformed_and_refused_together_are_a_400_naming_both(app, client):
    refused(post_token(client, b'{"username": "\\u0000", "password": "\\ud800"}'), 400,
            {"username": [NUL_ES], "password": [SURROGATE_ES]})


def test_a_nested_field_is_named_by_its_path_and_nothing_is_stored(app, client, crew, started, db):
    from inspection.core.models import Answer

    inspection_id, items = started
    answers = [{"client_id": cid(), "item_id": items[0]["id"], "result": "pass", "note": "bien"},
               {"client_id": cid(), "item_id": items[1]["id"], "result": "pass", "note": "a\u0000b"}]
    response = client.post(f"/api/v1/inspections/{inspection_id}/sync", json={"answers": answers}, headers=crew["ih"])
    refused(response, 422, {"answers.1.note": [NUL_ES]})
    assert db.session.query(Answer).count() == 0


def test_a_nul_in_a_multipart_field_or_file_name_is_refused_but_file_contents_are_not_read(app, client, crew, started):
    inspection_id, items = started
    item = next(item for item in items if item["evidence_required"])
    assert b"\x00" in jpeg(7)
    assert upload(client, crew, inspection_id, item["id"], jpeg(7)).status_code == 201  # a photo is bytes, not text
    refused(upload(client, crew, inspection_id, item["id"], jpeg(8), client_id="a\x00b"), 422, {"client_id": [NUL_ES]})
    named = client.post(f"/api/v1/inspections/{inspection_id}/photos", headers=crew["ih"],
                        data={"item_id": item["id"], "client_id": cid(), "file": (io.BytesIO(jpeg(9)), "fo\x00to.jpg")})
    refused(named, 422, {"file": [NUL_ES]})


def test_a_caller_refused_anyway_has_no_body_read(app, client):
    response = client.post("/api/v1/owners", json={"name": "a\u0000b"})
    assert response.status_code == 401  # authorization first: the body of a refused caller is never parsed


def test_a_body_that_is_not_json_is_answered_by_the_parser_as_before(app, client):
    response = post_token(client, b'{"username": ')
    assert response.status_code == 400 and "errors" in response.json and "body" in response.json["errors"]
    assert response.json["errors"]["body"] != [TOO_DEEP_ES]


@pytest.mark.parametrize("query", ["q=%ED%A0%80", "q=%ff%fe", "%ED%B0%80=1"])
def test_a_surrogate_or_bad_utf8_in_the_query_reads_as_a_replacement_character_not_a_fault(client, as_role, query):
    """The hook looks for a NUL only where one can come from (%00, a raw NUL): percent-decoding reads bad UTF-8,
    a surrogate's bytes included, as U+FFFD, so no text from the query can hold a surrogate."""
    _, headers = as_role("admin")
    with client.application.test_request_context(f"/api/v1/vessels?{query}"):
        from flask import request

        assert not any("\ud800" <= char <= "\udfff" for pair in request.args.items(multi=True) for char in "".join(pair))
    assert client.get(f"/api/v1/vessels?{query}", headers=headers).status_code == 200
