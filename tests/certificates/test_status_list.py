"""Signed 2-bit status list (IETF Token Status List style) for offline revocation checks."""

import base64
import json
import random
import zlib

import pytest

from inspection.certificates.signing import b64url_encode, sign_es256
from inspection.certificates.status_list import (
    REVOKED,
    SUPERSEDED,
    SUSPENDED,
    VALID,
    InvalidStatusList,
    decode_status_list,
    encode_status_list,
    pack_statuses,
    sign_status_list,
    status_at,
    unpack_statuses,
    verify_status_list,
)

IAT = 1_773_532_800  # 2026-03-15T00:00:00Z


def test_status_values_follow_the_draft():
    """0 valid, 1 invalid (revoked), 2 suspended, 3 application-specific (superseded)."""
    assert (VALID, REVOKED, SUSPENDED, SUPERSEDED) == (0, 1, 2, 3)


def test_packing_matches_the_ietf_draft_2_bit_example():
    """The draft's 2-bit example packs LSB first to C9 44 F9."""
    statuses = [1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3]
    packed = pack_statuses(statuses)
    assert packed == bytes([0xC9, 0x44, 0xF9])
    assert decode_status_list(encode_status_list(statuses)) == packed
    assert [status_at(packed, i) for i in range(12)] == statuses


def test_packing_matches_the_ietf_draft_1_bit_example():
    """The draft's 1-bit example packs to B9 A3."""
    statuses = [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1]
    assert pack_statuses(statuses, bits=1) == bytes([0xB9, 0xA3])


@pytest.mark.parametrize("size", [0, 1, 3, 4, 5, 1000, 100_003])
def test_encode_decode_round_trip(size):
    """Any list comes back exactly (padding slots read as valid)."""
    rnd = random.Random(size)
    statuses = [rnd.choice([0, 0, 0, 1, 2, 3]) for _ in range(size)]
    lst = encode_status_list(statuses)
    assert "=" not in lst and "+" not in lst and "/" not in lst
    unpacked = unpack_statuses(decode_status_list(lst))
    assert unpacked[:size] == statuses
    assert set(unpacked[size:]) <= {0} and len(unpacked) - size < 4


def test_compression_keeps_a_mostly_valid_list_small():
    """100,000 certificates, a few hundred not valid: a few kilobytes."""
    rnd = random.Random(1)
    statuses = [0] * 100_000
    for i in rnd.sample(range(100_000), 300):
        statuses[i] = rnd.choice([1, 2, 3])
    assert len(encode_status_list(statuses)) < 4000


@pytest.mark.parametrize("bad", [[4], [-1], ["1"], [None]])
def test_statuses_must_fit_two_bits(bad):
    """Values outside 0-3 are refused."""
    with pytest.raises(ValueError):
        encode_status_list(bad)


@pytest.mark.parametrize(
    "lst",
    [
        "",
        "!!!",
        "AAAA=",
        b64url_encode(b"not zlib"),
        b64url_encode(zlib.compress(b"\x00" * 100)[:-3]),  # truncated stream
        b64url_encode(zlib.compress(b"\x00") + b"extra"),
        b64url_encode(zlib.compress(b"\x00" * (17 * 1024 * 1024))),  # zlib bomb
    ],
)
def test_decode_refuses_garbage_and_bombs(lst):
    """Garbage, truncated streams and oversized lists raise ValueError."""
    with pytest.raises(ValueError):
        decode_status_list(lst)


def test_status_at_outside_the_list():
    """An index past the end is an IndexError, not a silent 'valid'."""
    packed = pack_statuses([1, 2, 3])
    with pytest.raises(IndexError):
        status_at(packed, 4)
    with pytest.raises(IndexError):
        status_at(packed, -1)


def test_sign_and_verify(signer, keys):
    """The JWS carries alg/kid/typ, iss/iat/exp/ttl and the list; verification returns them."""
    key, kid = signer
    statuses = [0, 1, 2, 3, 0, 0, 3]
    jws = sign_status_list(statuses, key, kid, issuer="PGP", issued_at=IAT, ttl_seconds=3600,
                           subject="https://baliza.example/api/v1/status-list")
    head, body, sig = jws.split(".")
    pad = lambda s: s + "=" * (-len(s) % 4)  # noqa: E731
    assert json.loads(base64.urlsafe_b64decode(pad(head))) == {
        "alg": "ES256", "kid": kid, "typ": "statuslist+jwt",
    }
    payload = json.loads(base64.urlsafe_b64decode(pad(body)))
    assert payload["iat"] == IAT and payload["exp"] == IAT + 3600 and payload["ttl"] == 3600
    assert payload["iss"] == "PGP" and payload["status_list"]["bits"] == 2
    assert len(base64.urlsafe_b64decode(pad(sig))) == 64
    result = verify_status_list(jws, keys)
    assert (result.issuer, result.kid, result.iat, result.exp) == ("PGP", kid, IAT, IAT + 3600)
    assert [result.status_at(i) for i in range(len(statuses))] == statuses
    assert len(result) == 8


def test_tampered_list_is_an_invalid_signature(signer, keys):
    """Changing the payload (say, un-revoking) breaks the signature."""
    key, kid = signer
    jws = sign_status_list([1, 1, 1], key, kid, issuer="PGP", issued_at=IAT)
    head, _, sig = jws.split(".")
    forged = {"iss": "PGP", "iat": IAT, "exp": IAT + 86400,
              "status_list": {"bits": 2, "lst": encode_status_list([0, 0, 0])}}
    forged_body = b64url_encode(json.dumps(forged, separators=(",", ":")).encode())
    with pytest.raises(InvalidStatusList) as info:
        verify_status_list(f"{head}.{forged_body}.{sig}", keys)
    assert info.value.reason == "invalid_signature"


def test_unknown_key_is_unknown_issuer(signer):
    """A list signed by a key the verifier does not have."""
    key, kid = signer
    jws = sign_status_list([0], key, kid, issuer="PGP", issued_at=IAT)
    with pytest.raises(InvalidStatusList) as info:
        verify_status_list(jws, {})
    assert info.value.reason == "unknown_issuer"


def _signed(key, kid, header, payload):
    """A correctly signed JWS with arbitrary header and payload."""
    h = b64url_encode(json.dumps(header).encode())
    p = b64url_encode(json.dumps(payload).encode())
    return f"{h}.{p}.{b64url_encode(sign_es256(key, f'{h}.{p}'.encode()))}"


def test_garbled_lists_are_malformed(signer, keys):
    """Wrong typ/alg, bad JSON, wrong bits or a bad lst are malformed, never another error."""
    key, kid = signer
    good_header = {"alg": "ES256", "kid": kid, "typ": "statuslist+jwt"}
    good_payload = {"iss": "PGP", "iat": IAT, "exp": IAT + 60,
                    "status_list": {"bits": 2, "lst": encode_status_list([0])}}
    cases = [
        "",
        "a.b",
        "a.b.c.d",
        "!!.!!.!!",
        _signed(key, kid, {**good_header, "typ": "JWT"}, good_payload),
        _signed(key, kid, {**good_header, "alg": "HS256"}, good_payload),
        _signed(key, kid, good_header, {**good_payload, "status_list": {"bits": 1, "lst": "eJwDAAAAAAE"}}),
        _signed(key, kid, good_header, {**good_payload, "status_list": {"bits": 2, "lst": "!!"}}),
        _signed(key, kid, good_header, {**good_payload, "iat": "yesterday"}),
        _signed(key, kid, good_header, {k: v for k, v in good_payload.items() if k != "status_list"}),
        _signed(key, kid, good_header, [1, 2]),
    ]
    for jws in cases:
        with pytest.raises(InvalidStatusList) as info:
            verify_status_list(jws, keys)
        assert info.value.reason == "malformed", jws
    assert verify_status_list(_signed(key, kid, good_header, good_payload), keys).iat == IAT
