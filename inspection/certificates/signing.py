"""Signed certificate tokens: COSE_Sign1 over CWT claims, ES256, base32 text.

The token inside the QR (``{public_url}/v/{token}``) is a COSE_Sign1 structure (RFC 9052),
CBOR tag 18, as in the EU Digital COVID Certificate (HCERT), carrying CWT claims (RFC 8392):

    18([ protected: bstr .cbor {1: -7 (ES256), 4: kid (8 bytes)},
         unprotected: {},
         payload: bstr .cbor claims,
         signature: bstr (64 bytes, raw r || s) ])

Claims map (only these; nothing personal ever goes in a token):

    key  name           CBOR type   meaning
      1  iss            tstr        issuing office code (CWT standard)
      6  iat            uint        issued_on 00:00 UTC as NumericDate (CWT standard)
      4  exp            uint        day after valid_until, 00:00 UTC, as NumericDate (CWT standard)
     -1  number         uint        YEAR * 1_000_000 + SERIAL of the certificate number
     -2  kind           tstr        "N" navegabilidad (NAV) / "S" seguridad (SEG)
     -3  revision       uint        revision of the certificate (a newer one supersedes it)
     -4  registration   tstr        matrícula, to compare with the hull markings (art. 66)
     -5  vessel_name    tstr        vessel name as registered (UTF-8, NFC)
     -6  status_index   uint        index into the signed status list (2 bits per certificate)
     -7  restrictions   [+ tstr]    what the vessel sails under instead of a detention, by code (checklists/
                                    restrictions.toml: "D", daylight only, art. 73), sorted; absent when none

Claim -7 is written only when the certificate carries a restriction, so every token issued before it
existed, and every one without a restriction, is byte for byte what it was; a verifier that does not know
it (an offline page cached before) still verifies the token and shows the rest.

The printed number ``SEG-2026-000123-7`` is rebuilt from kind + number (the check digit is
recomputed, see numbering.py): 5 bytes instead of 18, which with NFC names keeps a 40-character
accented vessel name and a 40-character public URL at QR version 14 (15 at worst).

Dates round-trip exactly: both NumericDates are whole UTC days, so
``issued_on = date(iat / 86400)`` and ``valid_until = date(exp / 86400) - 1 day``; a
generic CWT verifier thus sees the certificate expire after the whole of its last day.
A token whose iat/exp is not a whole day is rejected as malformed.

Text form: RFC 4648 base32, uppercase, no padding (A-Z, 2-7), so the token fits the QR's
alphanumeric mode.

Decoding accepts exactly the encoding ``sign_certificate`` writes, so a certificate has one token
and any changed character changes the signed bytes or fails to decode: canonical base32 (lowercase
is read as uppercase, for scanners that fold case; no padding, zero trailing bits); tag 18 around
the array (no CWT tag 61, no untagged array); definite, shortest lengths (the bytes must re-encode
to themselves); the protected header exactly ``{1: -7, 4: kid}``; an empty unprotected header (a kid
there is refused); the claims exactly as ``to_cwt`` writes them (no others, same order, NFC); and a
low-S signature. ECDSA accepts (r, n - s) wherever it accepts (r, s); ``sign_es256`` always writes
s <= n/2, and a token with s > n/2 whose signature checks out verifies as ``high_s``, never ``ok``:
certificates signed before that rule carry one, and the online check accepts such a token only
when it is byte for byte the token its record stores (operations.verify_certificate_token), so
no new encoding of a certificate is ever accepted. Anything else is ``malformed``.

Key id (kid): the first 8 bytes of SHA-256 over the public key's DER SubjectPublicKeyInfo
(as HCERT does over the signer certificate), written as 16 lowercase hex characters.
Private keys are values here; their files are ``keys.py``'s, and they are never logged.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import io
import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

import cbor2
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

from inspection.certificates.numbering import CertificateNumber, parse_number

__all__ = [
    "CertificateClaims",
    "MalformedToken",
    "Verification",
    "generate_key",
    "key_id",
    "public_jwk",
    "public_key_from_jwk",
    "private_key_to_pem",
    "load_private_key_pem",
    "sign_certificate",
    "decode_token",
    "verify_token",
    "b64url_encode",
    "b64url_decode",
    "sign_es256",
    "verify_es256",
    "is_low_s",
]

COSE_ALG_ES256 = -7
COSE_HDR_ALG = 1
COSE_HDR_KID = 4
COSE_SIGN1_TAG = 18
KID_BYTES = 8
SIGNATURE_BYTES = 64
# The order n of P-256's base point (SEC 2, secp256r1): a signature is low-S when s <= n // 2.
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551

# CWT claim keys: standard ones (RFC 8392) and our private negative keys.
CLAIM_ISS, CLAIM_EXP, CLAIM_IAT = 1, 4, 6
CLAIM_NUMBER, CLAIM_KIND, CLAIM_REVISION = -1, -2, -3
CLAIM_REGISTRATION, CLAIM_VESSEL_NAME, CLAIM_STATUS_INDEX = -4, -5, -6
CLAIM_RESTRICTIONS = -7
RESTRICTION_CODE = re.compile(r"^[A-Z]{1,3}$")  # as checklists/loader.py admits them

KIND_CODES = {"navegabilidad": "N", "seguridad": "S"}
KIND_NAMES = {code: name for name, code in KIND_CODES.items()}

# A realistic token is ~330 characters; anything far longer is garbage, refused before decoding.
MAX_TOKEN_CHARS = 2048
_B32_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
_EPOCH = dt.date(1970, 1, 1)
_DAY = 86400


class MalformedToken(ValueError):
    """Raised when a token is not a well-formed Baliza COSE_Sign1/CWT token."""


@dataclass(frozen=True)
class CertificateClaims:
    """What a certificate token asserts; the only data that goes into the QR."""

    issuer: str
    number: str
    kind: str  # "navegabilidad" or "seguridad"
    revision: int
    registration: str
    vessel_name: str
    issued_on: dt.date
    valid_until: dt.date
    status_index: int
    restrictions: tuple[str, ...] = ()  # restriction codes, sorted (claim -7)

    def __post_init__(self):
        """Reject claims that could not be encoded or would not round-trip."""
        for name in ("issuer", "number", "registration", "vessel_name"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise ValueError(f"{name} must be a non-empty string")
        if self.kind not in KIND_CODES:
            raise ValueError(f"kind must be one of {sorted(KIND_CODES)}, not {self.kind!r}")
        for name in ("revision", "status_index"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a non-negative int")
        for name in ("issued_on", "valid_until"):
            value = getattr(self, name)
            if not isinstance(value, dt.date) or isinstance(value, dt.datetime):
                raise ValueError(f"{name} must be a datetime.date")
            if value < _EPOCH:
                raise ValueError(f"{name} must not be before 1970-01-01")
        if self.valid_until < self.issued_on:
            raise ValueError("valid_until must not be before issued_on")
        if parse_number(self.number).kind != self.kind:
            raise ValueError("the number's KIND prefix does not match kind")
        if not isinstance(self.restrictions, tuple) or not all(
                isinstance(code, str) and RESTRICTION_CODE.match(code) for code in self.restrictions):
            raise ValueError("restrictions must be a tuple of codes of one to three capital letters")
        if list(self.restrictions) != sorted(set(self.restrictions)):
            raise ValueError("restrictions must be sorted and distinct")

    def to_cwt(self) -> dict:
        """Return the CWT claims map (see the module docstring for the keys); claim -7 only with a restriction."""
        claims = {
            CLAIM_ISS: self.issuer,
            CLAIM_IAT: _date_to_numeric(self.issued_on),
            CLAIM_EXP: _date_to_numeric(self.valid_until + dt.timedelta(days=1)),
            CLAIM_NUMBER: _number_to_int(self.number),
            CLAIM_KIND: KIND_CODES[self.kind],
            CLAIM_REVISION: self.revision,
            CLAIM_REGISTRATION: self.registration,
            CLAIM_VESSEL_NAME: unicodedata.normalize("NFC", self.vessel_name),
            CLAIM_STATUS_INDEX: self.status_index,
        }
        if self.restrictions:
            claims[CLAIM_RESTRICTIONS] = list(self.restrictions)
        return claims

    @classmethod
    def from_cwt(cls, cwt) -> "CertificateClaims":
        """Build claims from a decoded CWT map, raising MalformedToken on any mismatch."""
        if not isinstance(cwt, Mapping):
            raise MalformedToken("payload is not a CBOR map")
        cwt = _plain_keys(cwt)
        expected = {
            CLAIM_ISS, CLAIM_IAT, CLAIM_EXP, CLAIM_NUMBER, CLAIM_KIND, CLAIM_REVISION,
            CLAIM_REGISTRATION, CLAIM_VESSEL_NAME, CLAIM_STATUS_INDEX,
        }
        missing = expected - set(cwt)
        if missing:
            raise MalformedToken(f"missing claims {sorted(missing)}")
        # a list or map is unhashable: looking it up would raise TypeError (a 500) before the signature is checked
        kind = KIND_NAMES.get(cwt[CLAIM_KIND]) if type(cwt[CLAIM_KIND]) is str else None
        if kind is None:
            raise MalformedToken("unknown certificate kind")
        try:
            return cls(
                issuer=_expect(cwt[CLAIM_ISS], str, "iss"),
                number=_int_to_number(kind, cwt[CLAIM_NUMBER]),
                kind=kind,
                revision=_expect(cwt[CLAIM_REVISION], int, "revision"),
                registration=_expect(cwt[CLAIM_REGISTRATION], str, "registration"),
                vessel_name=_expect(cwt[CLAIM_VESSEL_NAME], str, "vessel_name"),
                issued_on=_numeric_to_date(cwt[CLAIM_IAT], "iat"),
                valid_until=_numeric_to_date(cwt[CLAIM_EXP], "exp") - dt.timedelta(days=1),
                status_index=_expect(cwt[CLAIM_STATUS_INDEX], int, "status_index"),
                restrictions=_restrictions(cwt.get(CLAIM_RESTRICTIONS, [])),
            )
        except MalformedToken:
            raise
        except (ValueError, OverflowError) as exc:
            raise MalformedToken(str(exc)) from None


@dataclass(frozen=True)
class Verification:
    """Outcome of verifying a token; claims are filled whenever they could be decoded."""

    outcome: str  # "ok", "high_s", "invalid_signature", "unknown_issuer" or "malformed"
    claims: CertificateClaims | None = None
    kid: str | None = None
    detail: str = ""

    @property
    def ok(self) -> bool:
        """True only when a low-S signature checked out against a known issuer key."""
        return self.outcome == "ok"

    @property
    def signed(self) -> bool:
        """True when the signature checked out, high-S or not (a high-S one only vouches for a stored token)."""
        return self.outcome in ("ok", "high_s")


# --- keys -----------------------------------------------------------------------------------

def generate_key() -> ec.EllipticCurvePrivateKey:
    """Generate a new ES256 (P-256) signing key for an issuing office."""
    return ec.generate_private_key(ec.SECP256R1())


def _public(key) -> ec.EllipticCurvePublicKey:
    """Accept a private or public key and return the public half."""
    if isinstance(key, ec.EllipticCurvePrivateKey):
        key = key.public_key()
    if not isinstance(key, ec.EllipticCurvePublicKey) or not isinstance(key.curve, ec.SECP256R1):
        raise TypeError("expected a P-256 (ES256) key")
    return key


def _kid_bytes(key) -> bytes:
    """First 8 bytes of SHA-256 over the DER SubjectPublicKeyInfo (HCERT style)."""
    spki = _public(key).public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return hashlib.sha256(spki).digest()[:KID_BYTES]


def key_id(public_key) -> str:
    """Return the key id (16 lowercase hex characters) of a public (or private) key."""
    return _kid_bytes(public_key).hex()


def public_jwk(public_key) -> dict:
    """Return the public key as a JWK (RFC 7517) for /api/v1/keys and offline verifiers."""
    numbers = _public(public_key).public_numbers()
    return {
        "kty": "EC",
        "crv": "P-256",
        "x": b64url_encode(numbers.x.to_bytes(32, "big")),
        "y": b64url_encode(numbers.y.to_bytes(32, "big")),
        "kid": key_id(public_key),
        "alg": "ES256",
        "use": "sig",
    }


def public_key_from_jwk(jwk: dict) -> ec.EllipticCurvePublicKey:
    """Load a P-256 public key from a JWK, checking its kid if one is given."""
    if jwk.get("kty") != "EC" or jwk.get("crv") != "P-256":
        raise ValueError("only EC P-256 JWKs are supported")
    x = int.from_bytes(b64url_decode(jwk["x"]), "big")
    y = int.from_bytes(b64url_decode(jwk["y"]), "big")
    key = ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()
    if "kid" in jwk and jwk["kid"] != key_id(key):
        raise ValueError("JWK kid does not match its key")
    return key


def private_key_to_pem(private_key) -> bytes:
    """Serialize a private key as unencrypted PKCS#8 PEM (store it with mode 0600 only)."""
    return private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def load_private_key_pem(pem: bytes) -> ec.EllipticCurvePrivateKey:
    """Load a PKCS#8/SEC1 PEM private key and check that it is a P-256 key."""
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
        raise ValueError("signing keys must be EC P-256 (ES256)")
    return key


# --- primitives -----------------------------------------------------------------------------

def b64url_encode(data: bytes) -> str:
    """Base64url without padding (RFC 7515 §2)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Decode unpadded base64url strictly, raising ValueError on bad input."""
    if not isinstance(text, str) or "=" in text or len(text) % 4 == 1:
        raise ValueError("not unpadded base64url")
    try:
        data = base64.b64decode(
            text.replace("-", "+").replace("_", "/") + "=" * (-len(text) % 4), validate=True
        )
    except (binascii.Error, ValueError):
        raise ValueError("not unpadded base64url") from None
    if b64url_encode(data) != text:
        raise ValueError("non-canonical base64url")
    return data


def sign_es256(private_key, message: bytes) -> bytes:
    """ES256 signature as raw r || s (64 bytes), the form COSE, JWS and WebCrypto use, always low-S.

    (r, n - s) verifies wherever (r, s) does; writing only s <= n/2 leaves one signature per signing.
    """
    r, s = decode_dss_signature(private_key.sign(message, ec.ECDSA(hashes.SHA256())))
    if s > P256_ORDER // 2:
        s = P256_ORDER - s
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def is_low_s(signature: bytes) -> bool:
    """True when a raw r || s signature's s is at most n/2, the one form sign_es256 writes."""
    return int.from_bytes(signature[32:], "big") <= P256_ORDER // 2


def verify_es256(public_key, signature: bytes, message: bytes) -> bool:
    """Check a raw r || s ES256 signature; False for any mismatch, never an exception."""
    if len(signature) != SIGNATURE_BYTES:
        return False
    der = encode_dss_signature(
        int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    )
    try:
        public_key.verify(der, message, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return False
    return True


# --- compact JWS (ES256): the status list and the countersignature's seal --------------------------------------------


class InvalidJws(ValueError):
    """A compact JWS that is garbled ("malformed"), from a key the verifier lacks ("unknown_issuer"), or badly signed
    ("invalid_signature")."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def _jws_segment(obj) -> str:
    """Compact JSON, base64url encoded: one JWS segment."""
    return b64url_encode(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode())


def sign_jws(typ: str, payload: dict, kid: str, private_key) -> str:
    """`payload` signed as a compact JWS (ES256) of type `typ` under the key `kid`."""
    signing_input = f"{_jws_segment({'alg': 'ES256', 'kid': kid, 'typ': typ})}.{_jws_segment(payload)}"
    return f"{signing_input}.{b64url_encode(sign_es256(private_key, signing_input.encode()))}"


def _jws_object(segment: str) -> dict:
    """One JWS JSON segment as a dict, or InvalidJws."""
    try:
        obj = json.loads(b64url_decode(segment))
    except ValueError:
        raise InvalidJws("malformed", "JWS segment is not base64url JSON") from None
    if not isinstance(obj, dict):
        raise InvalidJws("malformed", "JWS segment is not a JSON object")
    return obj


def verify_jws(jws, typ: str, public_keys: dict, max_chars: int = 64 * 1024) -> tuple[str, dict]:
    """(kid, payload) of a compact JWS of type `typ` signed ES256 by one of {kid: public key}; InvalidJws otherwise."""
    if not isinstance(jws, str) or len(jws) > max_chars or jws.count(".") != 2:
        raise InvalidJws("malformed", "not a compact JWS")
    head, body, signature = jws.split(".")
    header = _jws_object(head)
    if header.get("alg") != "ES256" or header.get("typ") != typ:
        raise InvalidJws("malformed", f"expected alg ES256 and typ {typ}")
    kid = header.get("kid")
    key = public_keys.get(kid) if isinstance(kid, str) else None
    if key is None:
        raise InvalidJws("unknown_issuer", "no public key for this kid")
    try:
        raw = b64url_decode(signature)
    except ValueError:
        raise InvalidJws("malformed", "signature is not base64url") from None
    if not verify_es256(_public(key), raw, f"{head}.{body}".encode()):
        raise InvalidJws("invalid_signature", "the signature does not match")
    return kid, _jws_object(body)


def _b32encode(data: bytes) -> str:
    """RFC 4648 base32, uppercase, padding stripped."""
    return base64.b32encode(data).rstrip(b"=").decode("ascii")


def _b32decode(token: str) -> bytes:
    """Decode canonical unpadded base32 (case-insensitive), raising MalformedToken."""
    if not isinstance(token, str) or not token:
        raise MalformedToken("empty token")
    if len(token) > MAX_TOKEN_CHARS:
        raise MalformedToken("token too long")
    text = token.upper()
    if not set(text) <= _B32_ALPHABET:
        raise MalformedToken("token is not base32 (A-Z, 2-7)")
    if len(text) % 8 in (1, 3, 6):
        raise MalformedToken("token has an impossible base32 length")
    data = base64.b32decode(text + "=" * (-len(text) % 8))
    if _b32encode(data) != text:  # non-zero trailing bits: not what we would have written
        raise MalformedToken("token is not canonical base32")
    return data


def _cbor_loads(data: bytes):
    """Decode exactly one CBOR item (no trailing bytes), mapping any failure to MalformedToken."""
    fp = io.BytesIO(data)
    try:
        item = cbor2.CBORDecoder(
            fp, allow_indefinite=False, allow_duplicate_keys=False, max_depth=8
        ).decode()
    except Exception:  # cbor2 raises many types on hostile input; all mean "garbled"
        raise MalformedToken("not valid CBOR") from None
    if fp.tell() != len(data):
        raise MalformedToken("trailing bytes after CBOR item")
    return item


def _plain_keys(mapping) -> dict:
    """Keep only int/str keys: True, 1.0 or simple(1) must not stand in for label 1."""
    return {k: v for k, v in mapping.items() if type(k) in (int, str)}


def _expect(value, typ, name):
    """Return value if it has the exact type (bool is not an int), else raise MalformedToken."""
    if type(value) is not typ:
        raise MalformedToken(f"{name} has the wrong type")
    return value


def _restrictions(value) -> tuple[str, ...]:
    """Claim -7 as a tuple of codes; an empty array is not how it is written (to_cwt leaves it out)."""
    if type(value) is not list or not all(type(code) is str for code in value):
        raise MalformedToken("restrictions must be an array of text codes")
    return tuple(value)


def _number_to_int(number: str) -> int:
    """Compact claim form of a certificate number: YEAR * 1_000_000 + SERIAL."""
    parsed = parse_number(number)
    return parsed.year * 1_000_000 + parsed.serial


def _int_to_number(kind: str, value) -> str:
    """Rebuild the printed number (with its check digit) from kind and the compact claim."""
    year, serial = divmod(_expect(value, int, "number"), 1_000_000)
    if not 1000 <= year <= 9999 or serial == 0:
        raise MalformedToken("number claim out of range")
    return str(CertificateNumber(kind, year, serial))


def _date_to_numeric(day: dt.date) -> int:
    """Midnight UTC of a date as a NumericDate (seconds since the epoch)."""
    return (day - _EPOCH).days * _DAY


def _numeric_to_date(value, name) -> dt.date:
    """Invert _date_to_numeric, accepting only whole-day NumericDates."""
    value = _expect(value, int, name)
    if value < 0 or value % _DAY:
        raise MalformedToken(f"{name} is not a whole UTC day")
    return _EPOCH + dt.timedelta(days=value // _DAY)


def _sig_structure(protected: bytes, payload: bytes) -> bytes:
    """COSE Sig_structure for COSE_Sign1 (RFC 9052 §4.4), empty external_aad."""
    return cbor2.dumps(["Signature1", protected, b"", payload])


# --- tokens ---------------------------------------------------------------------------------

def sign_certificate(claims: CertificateClaims, private_key, kid: str) -> str:
    """Sign the claims as a COSE_Sign1/CWT with ES256 and return the base32 token."""
    kid_raw = bytes.fromhex(kid)
    if kid_raw != _kid_bytes(private_key):
        raise ValueError("kid does not match the signing key")
    protected = cbor2.dumps({COSE_HDR_ALG: COSE_ALG_ES256, COSE_HDR_KID: kid_raw})
    payload = cbor2.dumps(claims.to_cwt())
    signature = sign_es256(private_key, _sig_structure(protected, payload))
    cose = cbor2.dumps(cbor2.CBORTag(COSE_SIGN1_TAG, [protected, {}, payload, signature]))
    return _b32encode(cose)


def _decode_cose(token: str) -> tuple[str, bytes, bytes, bytes]:
    """Unwrap base32 and COSE_Sign1, as sign_certificate writes them only: (kid, payload, sig_structure, signature)."""
    data = _b32decode(token)
    item = _cbor_loads(data)
    if not isinstance(item, cbor2.CBORTag) or item.tag != COSE_SIGN1_TAG:
        raise MalformedToken("not a COSE_Sign1 (tag 18), nor wrapped in another tag")
    if not isinstance(item.value, (list, tuple)) or len(item.value) != 4:
        raise MalformedToken("COSE_Sign1 must be an array of four items")
    protected, unprotected, payload, signature = item.value
    if not isinstance(protected, bytes) or not isinstance(payload, bytes):
        raise MalformedToken("protected header and payload must be byte strings")
    if not isinstance(unprotected, Mapping) or not isinstance(signature, bytes):
        raise MalformedToken("bad unprotected header or signature")
    if unprotected:
        raise MalformedToken("the unprotected header must be empty")
    if len(signature) != SIGNATURE_BYTES:
        raise MalformedToken("ES256 signature must be 64 bytes")
    header = _cbor_loads(protected)
    if not isinstance(header, Mapping):
        raise MalformedToken("protected header is not a map")
    header = _plain_keys(header)
    alg = header.get(COSE_HDR_ALG)
    if type(alg) is not int or alg != COSE_ALG_ES256:
        raise MalformedToken("algorithm must be ES256 (-7) in the protected header")
    kid_raw = header.get(COSE_HDR_KID)
    if not isinstance(kid_raw, bytes) or len(kid_raw) != KID_BYTES:
        raise MalformedToken("protected header lacks an 8-byte kid")
    if protected != cbor2.dumps({COSE_HDR_ALG: COSE_ALG_ES256, COSE_HDR_KID: kid_raw}):
        raise MalformedToken("protected header must be exactly {1: -7, 4: kid}")
    if cbor2.dumps(item) != data:
        raise MalformedToken("COSE_Sign1 is not in its shortest, definite encoding")
    return kid_raw.hex(), payload, _sig_structure(protected, payload), signature


def _claims_of(payload: bytes) -> CertificateClaims:
    """The claims of a payload that is exactly what to_cwt writes for them (no other claims, order or form)."""
    claims = CertificateClaims.from_cwt(_cbor_loads(payload))
    if cbor2.dumps(claims.to_cwt()) != payload:
        raise MalformedToken("claims are not in the encoding sign_certificate writes")
    return claims


def decode_token(token: str, *, allow_high_s: bool = False) -> tuple[str, CertificateClaims, bytes, bytes]:
    """Decode without verifying: (kid, claims, sig_structure, signature) or MalformedToken.

    `allow_high_s` is for a token read from the certificate's own record, which may predate low-S signing.
    """
    kid, payload, sig_structure, signature = _decode_cose(token)
    claims = _claims_of(payload)
    if not allow_high_s and not is_low_s(signature):
        raise MalformedToken("signature is not low-S (s > n/2)")
    return kid, claims, sig_structure, signature


def verify_token(token: str, public_keys: dict) -> Verification:
    """Verify a token against {kid: public_key}; never raises, the outcome says what failed."""
    try:
        kid, payload, sig_structure, signature = _decode_cose(token)
    except MalformedToken as exc:
        return Verification("malformed", detail=str(exc))
    try:
        claims, claims_error = _claims_of(payload), ""
    except MalformedToken as exc:
        claims, claims_error = None, str(exc)
    key = public_keys.get(kid)
    if key is None:
        # Show what the token claims, flagged: the page must say EMISOR DESCONOCIDO.
        return Verification("unknown_issuer", claims, kid, "no public key for this kid")
    if not verify_es256(_public(key), signature, sig_structure):
        return Verification("invalid_signature", claims, kid, "signature does not match")
    if claims is None:
        return Verification("malformed", None, kid, claims_error)
    if not is_low_s(signature):
        return Verification("high_s", claims, kid, "signature is high-S: only the record's own token may carry one")
    return Verification("ok", claims, kid)
