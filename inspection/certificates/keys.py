"""Signing keys per issuing office: private halves in KEYS_DIR files only, public halves in the database.

Private keys never enter a table that an endpoint reads, a log line or the repository. A new key
retires the office's current one; retired public keys stay published so older certificates verify.

Several worker processes serve one database, and `flask keys new` runs in yet another: the key
set is the database's, and a process's cache of it is checked against the keys' stamp on every use.
"""
import os
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric import ec
from flask import current_app

from inspection.certificates.signing import (
    generate_key,
    key_id,
    load_private_key_pem,
    private_key_to_pem,
    public_jwk,
    public_key_from_jwk,
    verify_token,
)
from inspection.core.exceptions import Conflict
from inspection.core.extensions import db
from inspection.core.readcache import cached, data_stamp
from inspection.core.models import SigningKey
from inspection.core.office import Office
from inspection.i18n.messages import Msg


def save_private_key(directory, kid: str, key) -> Path:
    """Write ``{kid}.pem`` with mode 0600, refusing to overwrite an existing key file."""
    if kid != key_id(key):
        raise ValueError("kid does not match the key")
    directory = Path(directory)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = directory / f"{kid}.pem"
    # O_EXCL: never overwrite a key; 0600 from creation, so it is never briefly world-readable.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(private_key_to_pem(key))
    return path


def load_private_keys(directory) -> dict[str, ec.EllipticCurvePrivateKey]:
    """Load every ``*.pem`` signing key in a directory as {kid: key}; missing dir gives {}."""
    directory = Path(directory)
    keys: dict[str, ec.EllipticCurvePrivateKey] = {}
    if not directory.is_dir():
        return keys
    for path in sorted(directory.glob("*.pem")):
        if path.stat().st_mode & 0o077:
            # Like ssh: a key others can read is treated as leaked, not silently used.
            raise PermissionError(f"{path.name} is readable by group/others; chmod 600 it")
        key = load_private_key_pem(path.read_bytes())
        kid = key_id(key)
        if path.stem != kid:
            raise ValueError(f"{path.name} holds the key with kid {kid}")
        keys[kid] = key
    return keys


def create_signing_key(office_code: str, now: datetime) -> SigningKey:
    """Make a new ES256 key for an office, retiring its current one (flushes).

    The private file is written before the row is committed, so any process that sees the row
    finds the file.
    """
    private = generate_key()
    kid = key_id(private.public_key())
    save_private_key(current_app.config["KEYS_DIR"], kid, private)
    for old in db.session.scalars(db.select(SigningKey).filter_by(office_code=office_code, retired_at=None)):
        old.retired_at = now
    record = SigningKey(kid=kid, office_code=office_code, public_jwk=public_jwk(private.public_key()), created_at=now)
    db.session.add(record)
    db.session.flush()
    return record


def create_first_signing_key(office_code: str, now: datetime) -> SigningKey | None:
    """The demo's key made on first issue, only for an office that has never had one (flushes).

    It never retires anything: an office with any key, even one whose private half is not on
    this server, is the operator's to rotate with `flask keys new`.
    """
    if db.session.scalar(db.select(SigningKey.kid).filter_by(office_code=office_code).limit(1)) is not None:
        return None
    return create_signing_key(office_code, now)


def current_key_record(office_code: str) -> SigningKey | None:
    """The office's current (newest unretired) published key, whether or not its private half is here."""
    return db.session.scalar(db.select(SigningKey).filter_by(office_code=office_code, retired_at=None)
                             .order_by(SigningKey.created_at.desc()).limit(1))


def current_signing_key(office_code: str):
    """(kid, private key) of the office's current key, or None when it has none usable here."""
    record = current_key_record(office_code)
    if record is None:
        return None
    private = _private_key(record.kid)
    return (record.kid, private) if private is not None else None


def office_signing_key(office: Office, now: datetime):
    """(kid, private key) the office signs with; its first key is made here only when the office allows (the demo)."""
    found = current_signing_key(office.code)
    if found is None and office.auto_signing_key and create_first_signing_key(office.code, now):
        found = current_signing_key(office.code)
    if found is None:
        raise Conflict(Msg("No hay clave de firma para esta oficina: ejecute «flask --app app keys new»."))
    return found


def signer(office: Office, now: datetime):
    """The office's signing key as issue_certificate asks for it: read from KEYS_DIR only when a certificate is issued."""
    return partial(office_signing_key, office, now)


def _private_key(kid: str):
    """The private key `kid` from KEYS_DIR; the folder is read again when a key is not yet known here.

    The status list signs on every request, so the keys are kept per process; a key made by
    `flask keys new` in another process is a kid this one has not seen, and is found on its first use.
    """
    keys = current_app.extensions.get("baliza.private_keys")
    if keys is None or kid not in keys:
        keys = current_app.extensions["baliza.private_keys"] = load_private_keys(current_app.config["KEYS_DIR"])
    return keys.get(kid)


def published_keys() -> list[SigningKey]:
    """Every public key, current and retired, newest first."""
    return db.session.scalars(db.select(SigningKey).order_by(SigningKey.created_at.desc())).all()


@dataclass
class KeySet:
    """One process's copy of the published keys and the checks made with it."""

    keys: dict  # {kid: public key}
    offices: dict  # {kid: office code}
    verified: dict = field(default_factory=dict)  # {token: Verification}, valid for this key set only


def key_set() -> KeySet:
    """The published keys, re-read whenever a write of them redrew the keys' stamp (readcache) since this process
    last read them: the stamps' one read a request tells, and the copy is replaced whole, so threads of a worker
    never see half of one."""
    return cached("key_set", data_stamp("keys"), _read_key_set, size=1)


def _read_key_set() -> KeySet:
    """Every published key parsed, with its office."""
    rows = published_keys()
    return KeySet({k.kid: public_key_from_jwk(k.public_jwk) for k in rows}, {k.kid: k.office_code for k in rows})


def verify_cached(token: str):
    """verify_token against the published keys, remembering recent results for the current key set.

    A token's signature check is deterministic for a given key set, and police scan the same
    certificate again and again; a new key set starts with no remembered results.
    """
    keys = key_set()
    size = current_app.config["VERIFY_CACHE_SIZE"]
    result = keys.verified.get(token) if size else None
    if result is None:
        result = verify_token(token, keys.keys)
        if result.signed and keys.offices.get(result.kid) != result.claims.issuer:
            # a genuine key claiming another office's certificate is not that office's signature
            result = replace(result, outcome="unknown_issuer", detail="issuer does not match the key's office")
        if size:
            if len(keys.verified) >= size:
                keys.verified.pop(next(iter(keys.verified)), None)  # forget the oldest
            keys.verified[token] = result
    return result
