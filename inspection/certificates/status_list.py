"""Signed status list (IETF OAuth Token Status List draft style), 2 bits per certificate.

Each certificate token carries ``status_index``; the list holds its status at that index:

    value  draft name         Baliza meaning
      0    VALID              valid (expiry is NOT stored: it follows from valid_until)
      1    INVALID            revoked (or otherwise permanently invalid)
      2    SUSPENDED          suspended: detention, prohibición de zarpe, open detainable deficiency
      3    application (0x03) superseded: a newer revision of the certificate exists

Packing follows the draft: index i lives in byte ``i*bits // 8`` at bit offset
``(i*bits) % 8`` counted from the least significant bit, so [1,2,0,3,0,1,0,1,1,2,3,3]
packs to C9 44 F9. The bytes are zlib (DEFLATE, RFC 1950/1951) compressed and base64url
encoded into ``lst``.

The list travels as a compact JWS (ES256) with header
``{"alg": "ES256", "kid": ..., "typ": "statuslist+jwt"}`` and payload
``{"iss", "iat", "exp", "ttl", "status_list": {"bits": 2, "lst": ...}}`` (+ "sub" if given).
No clock is read here: the caller passes ``issued_at`` and compares ``exp``/``iat`` with now
(a list older than 7 days turns an offline verdict amber, "NO CONFIRMADO").
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from inspection.certificates.signing import InvalidJws, b64url_decode, b64url_encode, key_id, sign_jws, verify_jws

__all__ = [
    "VALID",
    "REVOKED",
    "SUSPENDED",
    "SUPERSEDED",
    "STATUS_NAMES",
    "InvalidStatusList",
    "StatusList",
    "pack_statuses",
    "encode_status_list",
    "decode_status_list",
    "status_at",
    "unpack_statuses",
    "sign_status_list",
    "verify_status_list",
]

VALID, REVOKED, SUSPENDED, SUPERSEDED = 0, 1, 2, 3
STATUS_NAMES = {VALID: "valid", REVOKED: "revoked", SUSPENDED: "suspended", SUPERSEDED: "superseded"}
BITS = 2
JWS_TYP = "statuslist+jwt"
# 4 statuses per byte: 16 MiB decompressed is 67 million certificates, far beyond any need,
# and bounds the memory a hostile list could make us allocate.
MAX_LIST_BYTES = 16 * 1024 * 1024
MAX_JWS_CHARS = 8 * 1024 * 1024


class InvalidStatusList(InvalidJws):
    """Raised when a status list JWS is garbled, from an unknown key, or badly signed (its `reason`)."""


@dataclass(frozen=True)
class StatusList:
    """A verified status list: who issued it, when, and the packed 2-bit statuses."""

    issuer: str
    kid: str
    iat: int
    exp: int
    ttl: int | None
    bits: int
    packed: bytes

    def status_at(self, index: int) -> int:
        """Return the status at index (see the module docstring for the values)."""
        return status_at(self.packed, index, self.bits)

    def __len__(self) -> int:
        """Number of status slots the packed bytes hold."""
        return len(self.packed) * 8 // self.bits


def pack_statuses(statuses: list[int], bits: int = BITS) -> bytes:
    """Pack statuses LSB-first into bytes as the Token Status List draft specifies."""
    if bits not in (1, 2, 4, 8):
        raise ValueError("bits must be 1, 2, 4 or 8")
    per_byte = 8 // bits
    out = bytearray((len(statuses) + per_byte - 1) // per_byte)
    for index, status in enumerate(statuses):
        if not isinstance(status, int) or not 0 <= status < (1 << bits):
            raise ValueError(f"status {status!r} at index {index} does not fit in {bits} bits")
        out[index // per_byte] |= status << ((index % per_byte) * bits)
    return bytes(out)


def encode_status_list(statuses: list[int], bits: int = BITS) -> str:
    """Pack, zlib-compress (level 9) and base64url-encode statuses: the ``lst`` value."""
    return b64url_encode(zlib.compress(pack_statuses(statuses, bits), 9))


def decode_status_list(lst: str) -> bytes:
    """Return the packed status bytes from an ``lst`` value, bounded against zlib bombs."""
    try:
        compressed = b64url_decode(lst)
        inflater = zlib.decompressobj()
        packed = inflater.decompress(compressed, MAX_LIST_BYTES)
    except (ValueError, zlib.error) as exc:
        raise ValueError(f"lst is not base64url zlib data: {exc}") from None
    if inflater.unconsumed_tail:
        raise ValueError("status list too large")
    if not inflater.eof or inflater.unused_data:
        raise ValueError("lst is not one complete zlib stream")
    return packed


def unpack_statuses(packed: bytes, bits: int = BITS) -> list[int]:
    """Expand packed bytes to one status per slot (trailing padding slots included)."""
    return [status_at(packed, i, bits) for i in range(len(packed) * 8 // bits)]


def status_at(packed: bytes, index: int, bits: int = BITS) -> int:
    """Read the status at index from packed bytes; IndexError outside the list."""
    if index < 0 or index * bits >= len(packed) * 8:
        raise IndexError(f"status index {index} is outside the list")
    bit = index * bits
    return (packed[bit // 8] >> (bit % 8)) & ((1 << bits) - 1)


def sign_status_list(
    statuses: list[int],
    private_key,
    kid: str,
    *,
    issuer: str,
    issued_at: int,
    ttl_seconds: int = 86400,
    subject: str | None = None,
    valid_seconds: int | None = None,
    countersign: dict | None = None,
) -> str:
    """Sign the statuses as a compact JWS (ES256, typ statuslist+jwt).

    `countersign` (art. 221) carries, for the certificates still in force, the day each was countersigned and the
    last day each pending one is due, by status index, so an offline verifier says which. `ttl` tells a verifier when to refresh; `exp` (iat + valid_seconds, default the ttl) is when an
    offline copy stops being trusted: Baliza signs lists valid for seven days (certificates.md).
    """
    if kid != key_id(private_key):
        raise ValueError("kid does not match the signing key")
    iat = int(issued_at)
    valid = int(valid_seconds if valid_seconds is not None else ttl_seconds)
    payload = {"iss": issuer, "iat": iat, "exp": iat + valid, "ttl": int(ttl_seconds)}
    if subject:
        payload["sub"] = subject  # the draft's "sub": the URI the list is served from
    payload["status_list"] = {"bits": BITS, "lst": encode_status_list(statuses)}
    if countersign is not None:  # art. 221, beside the draft's claims: {"signed": {index: day}, "pending": {index: day}}
        payload["countersign"] = countersign
    return sign_jws(JWS_TYP, payload, kid, private_key)


def verify_status_list(jws: str, public_keys: dict) -> StatusList:
    """Verify a status list JWS against {kid: public_key}; time checks are the caller's."""
    try:
        kid, payload = verify_jws(jws, JWS_TYP, public_keys, MAX_JWS_CHARS)
    except InvalidJws as error:
        raise InvalidStatusList(error.reason, str(error)) from None
    status_list = payload.get("status_list")
    try:
        iat, exp = payload["iat"], payload["exp"]
        if not all(type(v) is int for v in (iat, exp)) or not isinstance(status_list, dict):
            raise ValueError("iat/exp must be integers and status_list an object")
        if status_list.get("bits") != BITS:
            raise ValueError("only 2-bit status lists are supported")
        packed = decode_status_list(status_list["lst"])
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidStatusList("malformed", f"bad status list payload: {exc}") from None
    ttl = payload.get("ttl")
    return StatusList(
        issuer=str(payload.get("iss", "")),
        kid=kid,
        iat=iat,
        exp=exp,
        ttl=ttl if type(ttl) is int else None,
        bits=BITS,
        packed=packed,
    )
