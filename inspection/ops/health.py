"""The load balancer's health check: the database, the photo storage and the signing key set, each named.

Cheap by design (a load balancer asks every few seconds per server): one `SELECT 1`, a look at the
storage root or bucket, the key table's one-row version query and the current key as signing loads it.
"""
import logging

from flask import current_app
from sqlalchemy import text

from inspection.certificates.keys import current_key_record, current_signing_key, key_set
from inspection.core.extensions import db
from inspection.media.configured import media_storage

log = logging.getLogger("baliza.health")


def check_database() -> None:
    """The database answers a query."""
    db.session.execute(text("SELECT 1"))


def check_storage() -> None:
    """The photo storage can be written (MediaStorage.ping)."""
    media_storage().ping()


def check_signing_keys() -> None:
    """The published keys load, and the office's current key (if it has one) can sign here, as issuing would load it."""
    key_set()  # re-parsed only when the table changed
    office_code = current_app.config["OFFICE_CODE"]
    if current_signing_key(office_code) is None and current_key_record(office_code) is not None:
        raise LookupError("the office's current private key is not in KEYS_DIR")  # the office cannot sign


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
