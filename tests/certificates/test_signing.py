"""Certificate tokens: COSE_Sign1/CWT with ES256, base32 text (pure, no app)."""

import base64
import datetime as dt
import hashlib
import random

import cbor2
import pytest
from cryptography.hazmat.primitives import serialization

from inspection.certificates import signing
from inspection.certificates.signing import (
    CertificateClaims,
    MalformedToken,
    decode_token,
    generate_key,
    key_id,
    load_private_key_pem,
    private_key_to_pem,
    public_jwk,
    public_key_from_jwk,
    sign_certificate,
    verify_token,
)
from tests.fixtures.tokens import b32, cose_of, other_encodings, signature_twin

B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
ACCENTED_40 = "Ñandutí Purahéi María Concepción Güemes Ñ"[:40]


def make_claims(**overrides) -> CertificateClaims:
    """Realistic claims; override what a test cares about."""
    values = dict(
        issuer="PGP-ASU",
        number="SEG-2026-000123-8",
        kind="seguridad",
        revision=2,
        registration="PY-ASU-1234",
        vessel_name="Ñandutí",
        issued_on=dt.date(2026, 3, 15),
        valid_until=dt.date(2026, 9, 15),
        status_index=42,
    )
    values.update(overrides)
    return CertificateClaims(**values)


def sign_raw(key, kid: str, payload, protected=None, *, tag=18, unprotected=None,
             signature=None) -> str:
    """Build a correctly signed COSE_Sign1 around arbitrary content, to test structure checks."""
    protected = cbor2.dumps(protected if protected is not None else {1: -7, 4: bytes.fromhex(kid)})
    payload = payload if isinstance(payload, bytes) else cbor2.dumps(payload)
    sig = signature if signature is not None else signing.sign_es256(
        key, cbor2.dumps(["Signature1", protected, b"", payload])
    )
    body = [protected, unprotected if unprotected is not None else {}, payload, sig]
    return b32(cbor2.dumps(cbor2.CBORTag(tag, body) if tag is not None else body))


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"kind": "navegabilidad", "number": "NAV-2026-000001-5"},
        {"vessel_name": ACCENTED_40},
        {"vessel_name": "ÁÉÍÓÚÑÜáéíóúñü" * 3},
        {"vessel_name": "Yacaré 🐊"},
        {"issued_on": dt.date(1970, 1, 1), "valid_until": dt.date(1970, 1, 1)},
        {"issued_on": dt.date(2028, 2, 29), "valid_until": dt.date(2028, 8, 29)},
        {"valid_until": dt.date(2099, 12, 31)},
        {"revision": 0, "status_index": 0},
        {"revision": 300, "status_index": 4_000_000_000},
    ],
)
def test_sign_verify_round_trip(signer, keys, overrides):
    """Every claim, dates included, comes back exactly."""
    key, kid = signer
    claims = make_claims(**overrides)
    token = sign_certificate(claims, key, kid)
    assert set(token) <= set(B32)
    result = verify_token(token, keys)
    assert (result.outcome, result.kid, result.ok) == ("ok", kid, True)
    assert result.claims == claims
    assert decode_token(token)[:2] == (kid, claims)
    assert verify_token(token.lower(), keys).outcome == "ok"  # scanners that lowercase


def test_dates_use_cwt_numeric_dates(signer):
    """iat is issued_on 00:00 UTC and exp the day after valid_until (whole last day valid)."""
    key, kid = signer
    _, _, sig_structure, _ = decode_token(sign_certificate(make_claims(), key, kid))
    payload = cbor2.loads(cbor2.loads(sig_structure)[3])
    assert payload[6] == int(dt.datetime(2026, 3, 15, tzinfo=dt.timezone.utc).timestamp())
    assert payload[4] == int(dt.datetime(2026, 9, 16, tzinfo=dt.timezone.utc).timestamp())
    assert payload[1] == "PGP-ASU" and payload[-1] == 2026_000123 and payload[-2] == "S"


def test_protected_header_and_kid(signer):
    """Header is {1: -7, 4: kid}; kid = first 8 bytes of SHA-256 of the SPKI DER, lowercase hex."""
    key, kid = signer
    spki = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert kid == hashlib.sha256(spki).digest()[:8].hex()
    assert len(kid) == 16 and kid == kid.lower()
    token = sign_certificate(make_claims(), key, kid)
    cose = cbor2.loads(base64.b32decode(token + "=" * (-len(token) % 8)))
    assert cose.tag == 18
    assert cbor2.loads(cose.value[0]) == {1: -7, 4: bytes.fromhex(kid)}
    assert len(cose.value[3]) == 64


def test_vessel_name_is_stored_nfc(signer, keys):
    """Decomposed accents are normalised, so a name costs the fewest bytes in the QR."""
    key, kid = signer
    token = sign_certificate(make_claims(vessel_name="Nandu\u0301ti\u0301"), key, kid)
    assert verify_token(token, keys).claims.vessel_name == "Nand\u00fat\u00ed"


@pytest.mark.parametrize("name, expected_max", [("Yacaré", 280), (ACCENTED_40, 300)])
def test_token_length(signer, name, expected_max):
    """Token sizes stay small enough for QR version <= 15 (see test_qrcodes for versions)."""
    key, kid = signer
    token = sign_certificate(make_claims(vessel_name=name, status_index=123_456), key, kid)
    assert len(token) <= expected_max


def test_every_flipped_character_is_caught(signer, keys):
    """Changing any one character never verifies; in the signature it is invalid_signature."""
    key, kid = signer
    token = sign_certificate(make_claims(vessel_name=ACCENTED_40), key, kid)
    signature_start = len(token) - (64 * 8) // 5  # the signature's base32 characters
    for i, ch in enumerate(token):
        flipped = token[:i] + B32[(B32.index(ch) + 1) % 32] + token[i + 1:]
        result = verify_token(flipped, keys)
        # A flip inside the kid names another issuer: unknown_issuer. Never "ok".
        assert result.outcome in ("invalid_signature", "malformed", "unknown_issuer"), (i, result)
        if signature_start <= i < len(token) - 1:
            assert result.outcome == "invalid_signature", (i, result)
            assert result.claims == make_claims(vessel_name=ACCENTED_40)


def test_unknown_issuer_still_shows_claims(signer):
    """A kid we do not know is unknown_issuer, with the claims decoded so the page can flag them."""
    key, kid = signer
    claims = make_claims()
    other = generate_key()
    result = verify_token(sign_certificate(claims, key, kid), {key_id(other): other.public_key()})
    assert (result.outcome, result.claims, result.kid) == ("unknown_issuer", claims, kid)


def test_wrong_key_under_known_kid_is_invalid_signature(signer):
    """A key that does not match its kid (forged header) fails the signature check."""
    key, kid = signer
    result = verify_token(sign_certificate(make_claims(), key, kid), {kid: generate_key().public_key()})
    assert result.outcome == "invalid_signature"


def _garbage():
    """Inputs that are not tokens at all, or are subtly wrong."""
    rnd = random.Random(928)
    yield "empty", ""
    yield "space", " "
    yield "one char", "A"
    yield "punctuation", "!!!!"
    yield "base64 chars", "abc+/0189"
    yield "digits 0 1 8 9", "AB01"
    yield "padding", "MZXW6===="
    yield "impossible length", "MZXW6YT"[:3]
    yield "huge", "A" * 1_000_000
    yield "just over the limit", "A" * 2049
    for n in (1, 5, 33, 200):
        yield f"random {n} bytes", b32(rnd.randbytes(n))
    yield "cbor int", b32(cbor2.dumps(7))
    yield "cbor map", b32(cbor2.dumps({1: 2}))
    yield "tag 18 of three", b32(cbor2.dumps(cbor2.CBORTag(18, [b"", {}, b""])))
    yield "tag 98", b32(cbor2.dumps(cbor2.CBORTag(98, [b"", {}, b"", b""])))
    yield "None", None
    yield "bytes", b"ABCD"


@pytest.mark.parametrize("label, token", list(_garbage()), ids=[label for label, _ in _garbage()])
def test_garbage_is_malformed(keys, label, token):
    """Garbage verifies as malformed and decodes as MalformedToken, never another exception."""
    assert verify_token(token, keys).outcome == "malformed"
    with pytest.raises(MalformedToken):
        decode_token(token)


def test_truncated_tokens_are_malformed(signer, keys):
    """Every prefix of a real token is malformed."""
    key, kid = signer
    token = sign_certificate(make_claims(), key, kid)
    for n in range(len(token)):
        assert verify_token(token[:n], keys).outcome == "malformed"


def test_non_canonical_base32_is_malformed(signer, keys):
    """Non-zero padding bits would let two texts carry one token: refused as malformed."""
    key, kid = signer
    for name in ("A", "AB", "ABC", "ABCD", "ABCDE"):
        token = sign_certificate(make_claims(vessel_name=name), key, kid)
        pad_bits = (len(token) * 5) % 8
        last = B32.index(token[-1])
        for bit in range(pad_bits):
            variant = token[:-1] + B32[last ^ (1 << bit)]
            assert verify_token(variant, keys).outcome == "malformed", (name, bit)


def _bad_structures(key, kid):
    """Correctly signed COSE objects whose structure or claims are wrong."""
    good = make_claims().to_cwt()
    yield "alg ES384", sign_raw(key, kid, good, {1: -35, 4: bytes.fromhex(kid)})
    yield "alg missing", sign_raw(key, kid, good, {4: bytes.fromhex(kid)})
    yield "kid missing", sign_raw(key, kid, good, {1: -7})
    yield "kid 7 bytes", sign_raw(key, kid, good, {1: -7, 4: bytes.fromhex(kid)[:7]})
    yield "kid as text", sign_raw(key, kid, good, {1: -7, 4: kid})
    yield "signature 63 bytes", sign_raw(key, kid, good, signature=b"\x01" * 63)
    yield "unprotected not map", sign_raw(key, kid, good, unprotected=[])
    yield "wrong tag", sign_raw(key, kid, good, tag=17)
    yield "payload not map", sign_raw(key, kid, [1, 2])
    yield "payload trailing byte", sign_raw(key, kid, cbor2.dumps(good) + b"\x00")
    yield "payload indefinite map", sign_raw(key, kid, b"\xbf\x01\x02\xff")
    for missing in (1, 4, 6, -1, -2, -3, -4, -5, -6):
        yield f"claim {missing} missing", sign_raw(key, kid, {k: v for k, v in good.items() if k != missing})
    bad_values = {
        1: 5, 6: good[6] + 1, 4: -86400, -1: "SEG-2026-000123-8", -2: "X", -3: True,
        -4: "", -5: b"bytes", -6: -1,
    }
    for claim, value in bad_values.items():
        yield f"claim {claim} = {value!r}", sign_raw(key, kid, {**good, claim: value})
    yield "expires before issue", sign_raw(key, kid, {**good, 4: good[6]})
    yield "serial zero", sign_raw(key, kid, {**good, -1: 2026_000000})
    kid_raw = bytes.fromhex(kid)  # and what only sign_certificate's own form may be: one header, one claims map
    yield "header in another order", sign_raw(key, kid, good, {4: kid_raw, 1: -7})
    yield "header with another entry", sign_raw(key, kid, good, {1: -7, 4: kid_raw, 3: 0})
    yield "claims in another order", sign_raw(key, kid, dict(reversed(good.items())))
    yield "another claim", sign_raw(key, kid, {**good, 7: b"cti"})
    yield "vessel name not NFC", sign_raw(key, kid, {**good, -5: "Nandu\u0301ti\u0301"})
    assert cbor2.dumps(good).endswith(b"\x18\x2a")  # status_index 42, last
    yield "a number in a longer form", sign_raw(key, kid, cbor2.dumps(good)[:-2] + b"\x19\x00\x2a")
    yield "trailing bytes", b32(
        base64.b32decode(sign_raw(key, kid, good) + "=" * (-len(sign_raw(key, kid, good)) % 8))
        + b"\x00"
    )


def test_signed_but_badly_structured_tokens_are_malformed(signer, keys):
    """Even with a valid signature, a token that breaks the format is malformed."""
    key, kid = signer
    for label, token in _bad_structures(key, kid):
        assert verify_token(token, keys).outcome == "malformed", label
        with pytest.raises(MalformedToken):
            decode_token(token)


def test_only_the_encoding_sign_certificate_writes_is_accepted(signer, keys):
    """Untagged, tag 61, a kid or anything in the unprotected header, longer lengths, (r, n - s): all refused."""
    key, kid = signer
    for label, token in other_encodings(sign_certificate(make_claims(), key, kid)):
        # the twin of a low-S signature is high-S: genuine, but not ok (the next test)
        assert verify_token(token, keys).outcome == ("high_s" if "twin" in label else "malformed"), label
        with pytest.raises(MalformedToken):
            decode_token(token)


def test_a_high_s_signature_verifies_as_high_s_never_ok(signer, keys):
    """A genuine high-S signature is told apart: only a certificate's stored token may carry one (operations)."""
    key, kid = signer
    token = signature_twin(sign_certificate(make_claims(), key, kid))
    result = verify_token(token, keys)
    assert (result.outcome, result.ok, result.signed, result.claims) == ("high_s", False, True, make_claims())
    assert decode_token(token, allow_high_s=True)[:2] == (kid, make_claims())
    flipped = token[:-5] + B32[(B32.index(token[-5]) + 1) % 32] + token[-4:]
    assert verify_token(flipped, keys).outcome == "invalid_signature"


def test_signing_always_writes_low_s(signer, keys):
    """Half of raw ECDSA signatures are high-S; every one sign_es256 and sign_certificate write is low-S."""
    key, kid = signer
    half = signing.P256_ORDER // 2
    for n in range(200):
        signature = signing.sign_es256(key, f"mensaje {n}".encode())
        assert int.from_bytes(signature[32:], "big") <= half
        assert signing.verify_es256(key.public_key(), signature, f"mensaje {n}".encode())
    for n in range(50):
        token = sign_certificate(make_claims(status_index=n), key, kid)
        assert verify_token(token, keys).outcome == "ok"
        assert signing.is_low_s(cbor2.loads(cose_of(token)).value[3])


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"valid_until": dt.date(2026, 3, 14)}, "valid_until"),
        ({"kind": "navegabilidad"}, "KIND"),
        ({"number": "SEG-2026-000123-7"}, "check"),
        ({"kind": "otro"}, "kind"),
        ({"revision": -1}, "revision"),
        ({"status_index": True}, "status_index"),
        ({"vessel_name": ""}, "vessel_name"),
        ({"issued_on": dt.datetime(2026, 3, 15)}, "issued_on"),
        ({"issued_on": dt.date(1969, 12, 31)}, "1970"),
    ],
)
def test_claims_are_validated(overrides, message):
    """Claims that could not be encoded or would not round-trip are refused at construction."""
    with pytest.raises(ValueError, match=message):
        make_claims(**overrides)


def test_sign_refuses_a_kid_of_another_key(signer):
    """The kid in the header must be the signing key's own."""
    key, _ = signer
    with pytest.raises(ValueError):
        sign_certificate(make_claims(), key, key_id(generate_key()))


def test_jwk_round_trip(signer):
    """The published JWK loads back to the same key, with kid, alg ES256 and use sig."""
    key, kid = signer
    jwk = public_jwk(key.public_key())
    assert {k: jwk[k] for k in ("kty", "crv", "kid", "alg", "use")} == {
        "kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256", "use": "sig",
    }
    assert "d" not in jwk
    assert key_id(public_key_from_jwk(jwk)) == kid
    with pytest.raises(ValueError):
        public_key_from_jwk({**jwk, "kid": "0" * 16})


def test_pem_round_trip(signer):
    """PEM export/import keeps the key."""
    key, kid = signer
    assert key_id(load_private_key_pem(private_key_to_pem(key))) == kid


# --- restrictions (claim -7): what the vessel sails under instead of a detention (art. 73) -----------------

def test_a_restriction_rides_in_claim_minus_7_and_none_leaves_the_token_as_it_was(signer, keys):
    key, kid = signer
    restricted = make_claims(restrictions=("D",))
    result = verify_token(sign_certificate(restricted, key, kid), keys)
    assert (result.outcome, result.claims) == ("ok", restricted)
    assert cbor2.loads(cbor2.loads(cose_of(sign_certificate(restricted, key, kid))).value[2])[-7] == ["D"]
    plain = make_claims()
    assert plain.restrictions == () and -7 not in plain.to_cwt()  # every token issued before claim -7 existed
    assert list(plain.to_cwt()) == [1, 6, 4, -1, -2, -3, -4, -5, -6]
    assert decode_token(sign_certificate(plain, key, kid))[1].restrictions == ()


@pytest.mark.parametrize("value", [[], "D", ["D", "D"], ["D", "A"], ["d"], [1], ["DAYL"], {"D": 1}])
def test_a_restriction_claim_in_any_other_form_is_malformed(signer, keys, value):
    """Signed, but not what sign_certificate writes: an empty array, a string, repeats, disorder, a bad code."""
    key, kid = signer
    token = sign_raw(key, kid, {**make_claims().to_cwt(), -7: value})
    assert verify_token(token, keys).outcome == "malformed"


@pytest.mark.parametrize("restrictions", [["D"], ("day",), ("D", "D"), ("E", "D"), (1,)])
def test_restriction_claims_are_validated(restrictions):
    with pytest.raises(ValueError, match="restrictions"):
        make_claims(restrictions=restrictions)
