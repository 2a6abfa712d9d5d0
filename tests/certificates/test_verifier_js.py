"""The browser verifier (static/js/verifier.js) agrees with Python, run under node 20."""

import base64
import datetime as dt
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from inspection.certificates.numbering import format_number
from inspection.certificates.qrcodes import make_qr, verify_url
from inspection.certificates.signing import (
    CertificateClaims,
    generate_key,
    key_id,
    public_jwk,
    sign_certificate,
    verify_token,
)
from inspection.certificates.status_list import sign_status_list
from inspection.i18n.formats import format_day
from tests.fixtures.node import NODE, run_cli
from tests.fixtures.pages import DAY_CASES

ROOT = Path(__file__).resolve().parents[2]
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
IAT = 1_773_532_800

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def run_node(cases: dict, tmp_path) -> dict:
    """Run verify_cli.mjs over the cases, return its report."""
    return run_cli("verify_cli.mjs", cases, tmp_path)


@pytest.fixture(scope="module")
def office():
    """The issuing office's key, and a second office the verifier does not know."""
    key, stranger = generate_key(), generate_key()
    return key, key_id(key), stranger


def claims_for(kind="seguridad", **overrides):
    """Realistic claims."""
    values = dict(
        issuer="PGP-ASU", number=format_number(kind, 2026, 4567), kind=kind, revision=1,
        registration="PY-ASU-1234", vessel_name="Ñandutí Purahéi María Concepción Güemes",
        issued_on=dt.date(2026, 3, 15), valid_until=dt.date(2026, 9, 15), status_index=9,
    )
    values.update(overrides)
    return CertificateClaims(**values)


def as_json(claims: CertificateClaims) -> dict:
    """Claims as the JS verifier reports them (ISO dates)."""
    return {
        "issuer": claims.issuer, "number": claims.number, "kind": claims.kind,
        "revision": claims.revision, "registration": claims.registration,
        "vessel_name": claims.vessel_name, "issued_on": claims.issued_on.isoformat(),
        "valid_until": claims.valid_until.isoformat(), "status_index": claims.status_index,
        "restrictions": list(claims.restrictions),
    }


def test_token_outcomes_match_python(office, tmp_path):
    """ok, invalid_signature, unknown_issuer and malformed, with the same claims as Python."""
    key, kid, stranger = office
    jwks = {"keys": [public_jwk(key.public_key())]}
    good = [
        claims_for(),
        claims_for("navegabilidad", issued_on=dt.date(1970, 1, 1), valid_until=dt.date(2099, 12, 31)),
        claims_for(vessel_name="Yacaré 🐊", revision=4_000_000_000, status_index=0),
    ]
    tokens = [sign_certificate(c, key, kid) for c in good]
    token = tokens[0]
    flipped = token[:-10] + B32[(B32.index(token[-10]) + 1) % 32] + token[-9:]
    from_stranger = sign_certificate(good[0], stranger, key_id(stranger))
    garbage = ["", "A", "!!!", "A" * 5000, token[:-30], "MZXW6YTBOI", token + "="]
    cases = tokens + [token.lower(), flipped, from_stranger] + garbage
    report = run_node({"jwks": jwks, "tokens": cases}, tmp_path)["tokens"]

    for claims, result in zip(good, report[:3]):
        assert result == {"outcome": "ok", "claims": as_json(claims), "kid": kid}
    assert report[3]["outcome"] == "ok"
    assert report[4]["outcome"] == "invalid_signature" and report[4]["claims"] == as_json(good[0])
    assert report[5]["outcome"] == "unknown_issuer" and report[5]["kid"] == key_id(stranger)
    assert report[5]["claims"] == as_json(good[0])
    for result in report[6:]:
        assert result["outcome"] == "malformed", result


def test_a_restriction_reads_offline_as_python_signs_it(office, tmp_path):
    """Claim -7 (art. 73: daylight only) comes back from the token in the JS; a token without it reads none."""
    key, kid, _ = office
    restricted = claims_for("navegabilidad", restrictions=("D",))
    tokens = [sign_certificate(restricted, key, kid), sign_certificate(claims_for(), key, kid)]
    report = run_node({"jwks": {"keys": [public_jwk(key.public_key())]}, "tokens": tokens}, tmp_path)["tokens"]
    assert [r["outcome"] for r in report] == ["ok", "ok"]
    assert (report[0]["claims"]["restrictions"], report[1]["claims"]["restrictions"]) == (["D"], [])
    assert report[0]["claims"] == as_json(restricted)


def test_every_flip_agrees_with_python(office, tmp_path):
    """For each position and several flips, JS and Python give the same outcome and claims."""
    key, kid, _ = office
    token = sign_certificate(claims_for(), key, kid)
    flips = [
        token[:i] + B32[(B32.index(c) + offset) % 32] + token[i + 1:]
        for offset in (1, 7, 16)
        for i, c in enumerate(token)
    ]
    report = run_node({"jwks": [public_jwk(key.public_key())], "tokens": flips}, tmp_path)["tokens"]
    python = [verify_token(t, {kid: key.public_key()}) for t in flips]
    assert [r["outcome"] for r in report] == [p.outcome for p in python]
    assert [r["claims"] for r in report] == [p.claims and as_json(p.claims) for p in python]
    assert not any(p.ok for p in python)


def test_status_lists(office, tmp_path):
    """The JS reads the same statuses; tampering, unknown keys and garbage are told apart."""
    key, kid, stranger = office
    statuses = [1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3, 0, 2]
    jws = sign_status_list(statuses, key, kid, issuer="PGP", issued_at=IAT, ttl_seconds=7200)
    head, body, sig = jws.split(".")
    tampered = f"{head}.{body[:-2]}{'A' if body[-2] != 'A' else 'B'}{body[-1]}.{sig}"
    other = sign_status_list(statuses, stranger, key_id(stranger), issuer="X", issued_at=IAT)
    jwks = {kid: public_jwk(key.public_key())}  # a {kid: jwk} map is accepted too
    report = run_node({"jwks": jwks, "status_lists": [jws, tampered, other, "x.y", ""]}, tmp_path)
    first, *failures = report["status_lists"]
    assert first["ok"] and first["iat"] == IAT and first["exp"] == IAT + 7200
    assert first["ttl"] == 7200 and first["iss"] == "PGP" and first["kid"] == kid
    assert first["statuses"][: len(statuses)] == statuses and first["out_of_range_throws"]
    assert [f["reason"] for f in failures] == [
        "invalid_signature", "unknown_issuer", "malformed", "malformed",
    ]


def test_parse_verify_url(tmp_path):
    """Scanned text: a /v/ URL (any case, trailing slash) or a bare token; anything else null."""
    urls = [
        "https://verificacion.prefectura.gov.py/b/v/ABCDEF234",
        "  https://host.py/v/abcdef234/ ",
        "ABCDEF234",
        "https://host.py/w/ABC",
        "javascript:alert(1)",
        "hola mundo",
    ]
    assert run_node({"jwks": {}, "urls": urls}, tmp_path)["urls"] == [
        {"base": "https://verificacion.prefectura.gov.py/b", "token": "ABCDEF234"},
        {"base": "https://host.py", "token": "ABCDEF234"},
        {"base": None, "token": "ABCDEF234"},
        None,
        None,
        None,
    ]


def test_vendored_jsqr_reads_our_qr(office, tmp_path):
    """The fallback decoder for browsers without BarcodeDetector reads the certificate QR."""
    key, kid, _ = office
    token = sign_certificate(claims_for(), key, kid)
    url = "https://verificacion.prefectura.gov.py/b"
    png = make_qr(url, token).png
    with Image.open(io.BytesIO(png)) as img:
        rgba = img.convert("RGBA")
        qr = {"rgba_b64": base64.b64encode(rgba.tobytes()).decode(), "width": rgba.width,
              "height": rgba.height}
    assert run_node({"jwks": {}, "qr": qr}, tmp_path)["qr"] == verify_url(url, token)
    assert (ROOT / "static" / "vendor" / "jsQR.LICENSE").read_text().startswith(" " * 10)


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.mark.browser
def test_same_module_runs_in_chromium(office, tmp_path):
    """The unchanged module verifies tokens and a status list in Debian's Chromium via WebCrypto."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed")
    import functools
    import http.server
    import threading

    key, kid, stranger = office
    token = sign_certificate(claims_for(), key, kid)
    flipped = token[:-10] + B32[(B32.index(token[-10]) + 1) % 32] + token[-9:]
    statuses = [1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3]
    cases = {
        "jwks": {"keys": [public_jwk(key.public_key())]},
        "tokens": [token, flipped, sign_certificate(claims_for(), stranger, key_id(stranger)), "!!"],
        "jws": sign_status_list(statuses, key, kid, issuer="PGP", issued_at=IAT),
    }
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(ROOT))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_port}/static/vendor/README.md")
            result = page.evaluate(
                """async (cases) => {
                    const m = await import('/static/js/verifier.js');
                    const tokens = [];
                    for (const t of cases.tokens) tokens.push(await m.verifyToken(t, cases.jwks));
                    const list = await m.verifyStatusList(cases.jws, cases.jwks);
                    const statuses = [];
                    for (let i = 0; i < 12; i++) statuses.push(m.statusAt(list, i));
                    return {tokens, statuses, iat: list.iat};
                }""",
                cases,
            )
            browser.close()
    finally:
        server.shutdown()
    assert [t["outcome"] for t in result["tokens"]] == [
        "ok", "invalid_signature", "unknown_issuer", "malformed",
    ]
    assert result["tokens"][0]["claims"] == as_json(claims_for())
    assert result["statuses"] == statuses and result["iat"] == IAT


def test_offline_dates_read_as_the_pages_do(tmp_path):
    """static/js/formats.js (Intl) writes every date as Babel's |day filter does, in es_PY and en."""
    path = tmp_path / "days.json"
    path.write_text(json.dumps(DAY_CASES))
    done = subprocess.run([NODE, str(ROOT / "tests" / "js" / "formats_cli.mjs"), str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    offline = json.loads(done.stdout)
    online = [format_day(case["iso"], case["lang"], case["width"]) for case in DAY_CASES]
    assert offline == online
    assert online[:4] == ["1 de enero de 2026", "1 ene. 2026", "January 1, 2026", "Jan 1, 2026"]


def test_the_same_words_online_and_offline(app, client, issued, tmp_path):
    """Finding 8: one input, one verdict word, on /v/<token>, /api/v1/verify and /verificar offline (verdicts.js).

    Garbage, a truncated code, the wrong base, every encoding of a genuine token that sign_certificate never
    writes, claims the office's key signed in another form, and forgeries. The one designed difference: the
    (r, n - s) twin, which the server refuses unless its record stores it (certificates signed before low-S
    signing carry one), is NO CONFIRMADO offline, where no record can be read; never VÁLIDO.
    """
    import urllib.parse

    import cbor2

    from inspection.certificates.keys import current_signing_key
    from inspection.certificates.signing import _sig_structure, decode_token, sign_es256
    from inspection.certificates.views import VERDICT_LABELS
    from inspection.core.clock import office_today, system_now
    from tests.fixtures.tokens import b32, other_encodings

    token = issued["token"]
    kid, private = current_signing_key(app.config["OFFICE_CODE"])
    claims = decode_token(token)[1]
    stranger = generate_key()
    protected = cbor2.dumps({1: -7, 4: bytes.fromhex(kid)})

    def signed(payload: bytes, key=private, header=protected) -> str:
        """Any payload under a COSE_Sign1 as sign_certificate lays it out, signed low-S by `key`."""
        return b32(cbor2.dumps(cbor2.CBORTag(18, [header, {}, payload, sign_es256(key, _sig_structure(header, payload))])))

    cwt = claims.to_cwt()
    stranger_header = cbor2.dumps({1: -7, 4: bytes.fromhex(key_id(stranger))})
    cose = base64.b32decode(token + "=" * (-len(token) % 8))
    cases = [
        ("the issued token", token),
        ("the issued token, lowercase", token.lower()),
        ("a changed character", token[:-10] + B32[(B32.index(token[-10]) + 1) % 32] + token[-9:]),
        ("the same claims signed by a stranger", sign_certificate(claims, stranger, key_id(stranger))),
        ("a kind claim that is a list, by a stranger", signed(cbor2.dumps({**cwt, -2: ["S"]}), stranger, stranger_header)),
        ("garbage", "!!!"), ("one letter", "A"), ("far too long", "A" * 5000), ("base32 of text", "MZXW6YTBOI"),
        ("truncated", token[:-30]), ("padded", token + "="), ("hex", cose.hex()),
        ("base64url", base64.urlsafe_b64encode(cose).decode().rstrip("=")),
        ("the office's key over an extra claim", signed(cbor2.dumps({**cwt, 99: "x"}))),
        ("the office's key over an empty restrictions claim", signed(cbor2.dumps({**cwt, -7: []}))),
        ("the office's key over claims in another order", signed(cbor2.dumps(dict(reversed(list(cwt.items())))))),
        ("the office's key over a decomposed name", signed(cbor2.dumps({**cwt, -5: "Nan\u0303dutí"}))),
        *other_encodings(token),
    ]
    keys = client.get("/api/v1/keys").json
    status = client.get("/api/v1/status-list").json["jws"]
    now_ms = int(system_now().timestamp() * 1000)
    payload = json.loads(base64.urlsafe_b64decode(status.split(".")[1] + "=="))
    lists = {"keys": {"fetched_at": now_ms, "jwks": keys},
             "status": {"jws": status, "iat": payload["iat"], "exp": payload["exp"], "fetched_at": now_ms}}
    links = [f"https://baliza.test/v/{urllib.parse.quote(t, safe='')}" for _, t in cases]
    offline = run_node({"jwks": keys, "offline": {"lists": lists, "today": office_today().isoformat(), "now": now_ms,
                                                   "links": links}}, tmp_path)["verdicts"]
    words = {code: label for code, (label, _) in VERDICT_LABELS.items()}
    table = []
    for (label, case), link, found in zip(cases, links, offline):
        page = client.get(urllib.parse.urlsplit(link).path)
        api = client.get(f"/api/v1/verify/{urllib.parse.quote(case, safe='')}")
        assert page.status_code == api.status_code, label
        api_verdict = "malformed" if api.status_code == 400 else api.json["verdict"]
        shown = re.search(r'<h1 class="verdict-word">([^<]*)</h1>', page.get_data(as_text=True)).group(1)
        table.append((label, shown, str(words[api_verdict]), found and found["word"]))
    twin = next(row for row in table if row[0].startswith("signature twin"))
    assert twin[1:] == ("CÓDIGO ILEGIBLE", "CÓDIGO ILEGIBLE", "NO CONFIRMADO")
    rows = [row for row in table if row is not twin]
    assert [(label, page, api) for label, page, api, _ in rows] == [(label, offline, offline) for label, _, _, offline in rows]
    assert [row[1] for row in rows[:5]] == ["VÁLIDO", "VÁLIDO", "FIRMA INVÁLIDA", "EMISOR DESCONOCIDO", "EMISOR DESCONOCIDO"]
    assert {row[1] for row in rows[5:]} == {"CÓDIGO ILEGIBLE"}


def test_other_encodings_and_the_high_s_twin_read_as_python_reads_them(office, tmp_path):
    """Every encoding sign_certificate never writes is malformed in JS as in Python; the twin is high_s in both."""
    from tests.fixtures.tokens import other_encodings

    key, kid, _ = office
    token = sign_certificate(claims_for(), key, kid)
    tokens = [t for _, t in other_encodings(token)]
    report = run_node({"jwks": [public_jwk(key.public_key())], "tokens": tokens}, tmp_path)["tokens"]
    python = [verify_token(t, {kid: key.public_key()}).outcome for t in tokens]
    assert [r["outcome"] for r in report] == python == ["malformed"] * (len(tokens) - 1) + ["high_s"]
