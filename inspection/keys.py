"""Signing keys per issuing office: private halves in KEYS_DIR files only, public halves in the database.

Private keys never enter a table that an endpoint reads, a log line or the repository. A new key
retires the office's current one; retired public keys stay published so older certificates verify.
"""
from dataclasses import replace
from datetime import datetime

from flask import current_app

from .extensions import db
from .models import SigningKey
from .signing import (
    generate_key,
    key_id,
    load_private_keys,
    public_jwk,
    public_key_from_jwk,
    save_private_key,
    verify_token,
)


def create_signing_key(office_code: str, now: datetime) -> SigningKey:
    """Make a new ES256 key for an office, retiring its current one (flushes)."""
    private = generate_key()
    kid = key_id(private.public_key())
    save_private_key(current_app.config["KEYS_DIR"], kid, private)
    for old in db.session.scalars(db.select(SigningKey).filter_by(office_code=office_code, retired_at=None)):
        old.retired_at = now
    record = SigningKey(kid=kid, office_code=office_code, public_jwk=public_jwk(private.public_key()), created_at=now)
    db.session.add(record)
    db.session.flush()
    _forget_cached_keys()
    return record


def current_signing_key(office_code: str):
    """(kid, private key) of the office's current key, or None when it has none usable here."""
    record = db.session.scalar(db.select(SigningKey).filter_by(office_code=office_code, retired_at=None)
                               .order_by(SigningKey.created_at.desc()))
    if record is None:
        return None
    private = _private_keys().get(record.kid)
    return (record.kid, private) if private is not None else None


def _private_keys() -> dict:
    """The private keys in KEYS_DIR, read once per process (the status list signs on every request)."""
    cache = current_app.extensions.setdefault("baliza.public_keys", {})
    if "private" not in cache:
        cache["private"] = load_private_keys(current_app.config["KEYS_DIR"])
    return cache["private"]


def published_keys() -> list[SigningKey]:
    """Every public key, current and retired, newest first."""
    return db.session.scalars(db.select(SigningKey).order_by(SigningKey.created_at.desc())).all()


def public_keys() -> dict:
    """{kid: public key} for verification, cached per process until a key is created."""
    cache = current_app.extensions.setdefault("baliza.public_keys", {})
    if "keys" not in cache:
        cache["keys"] = {k.kid: public_key_from_jwk(k.public_jwk) for k in published_keys()}
        cache["offices"] = {k.kid: k.office_code for k in published_keys()}
    return cache["keys"]


def verify_cached(token: str):
    """verify_token against the published keys, remembering recent results.

    A token's signature check is deterministic for a given key set, and police scan the same
    certificate again and again; the cache is emptied whenever a key is created.
    """
    cache = current_app.extensions.setdefault("baliza.public_keys", {})
    results = cache.setdefault("verified", {})
    size = current_app.config["VERIFY_CACHE_SIZE"]
    result = results.get(token) if size else None
    if result is None:
        result = verify_token(token, public_keys())
        offices = current_app.extensions["baliza.public_keys"]["offices"]
        if result.outcome == "ok" and offices.get(result.kid) != result.claims.issuer:
            # a genuine key claiming another office's certificate is not that office's signature
            result = replace(result, outcome="unknown_issuer", detail="issuer does not match the key's office")
        if size:
            if len(results) >= size:
                results.pop(next(iter(results)))  # forget the oldest
            results[token] = result
    return result


def _forget_cached_keys() -> None:
    current_app.extensions.get("baliza.public_keys", {}).clear()
