"""The load balancer's health check: the database, the photo storage and the signing key set, each named.

Cheap by design (a load balancer asks every few seconds per server): one `SELECT 1`, a look at the
storage root or bucket, the key table's one-row version query and the current key's file.
"""
import logging
from pathlib import Path

from flask import current_app
from sqlalchemy import text

from .extensions import db
from .keys import key_set
from .media import media_storage
from .models import SigningKey
from .signing import load_private_key_pem

log = logging.getLogger("baliza.health")


def check_database() -> None:
    """The database answers a query."""
    db.session.execute(text("SELECT 1"))


def check_storage() -> None:
    """The photo storage can be written (MediaStorage.ping)."""
    media_storage().ping()


def check_signing_keys() -> None:
    """The published keys load, and the office's current private key (if it has one) is readable in KEYS_DIR."""
    key_set()  # re-parsed only when the table changed
    kid = db.session.scalar(db.select(SigningKey.kid)
                            .filter_by(office_code=current_app.config["OFFICE_CODE"], retired_at=None)
                            .order_by(SigningKey.created_at.desc()).limit(1))
    if kid is not None:
        path = Path(current_app.config["KEYS_DIR"]) / f"{kid}.pem"
        load_private_key_pem(path.read_bytes())  # missing, unreadable or damaged: the office cannot sign


CHECKS = {"database": check_database, "storage": check_storage, "signing_keys": check_signing_keys}


def run_checks() -> dict[str, str]:
    """{check name: "ok" or "fail"}; every check runs, and a failure is logged with its reason (never answered)."""
    results = {}
    for name, check in CHECKS.items():
        try:
            check()
            results[name] = "ok"
        except Exception as error:  # any failure at all means "do not send traffic here"
            db.session.rollback()
            log.warning("health check %s failed: %s: %s", name, type(error).__name__, error)
            results[name] = "fail"
    return results
