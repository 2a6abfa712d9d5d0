"""Per-process caches of read models, each entry keyed on a fingerprint of everything the model reads.

A reader computes a cheap fingerprint (a few counts and maxima, or the raw values themselves) on every
request and reuses a result only under the same fingerprint, so a cached answer is never stale: any
write that could change it changes the key. The cache lives on the Flask app (one per process and app),
so several app servers each keep their own and agree through the fingerprint; a few entries per name,
the oldest dropped first.
"""
from collections import OrderedDict
from threading import Lock

from flask import current_app

from inspection.core.extensions import db

SIZE = 16  # entries kept per name: a few fingerprints (languages, feeds, office days) at a time
_lock = Lock()


def _store(name: str) -> OrderedDict:
    caches = current_app.extensions.setdefault("baliza_readcache", {})
    return caches.setdefault(name, OrderedDict())


def cached(name: str, key, compute, size: int = SIZE):
    """compute() once per `key` under `name` in this process; the newest `size` keys are kept."""
    with _lock:
        store = _store(name)
        if key in store:
            store.move_to_end(key)
            return store[key]
    value = compute()
    with _lock:
        store[key] = value
        while len(store) > size:
            store.popitem(last=False)
    return value


def raw_row(sql: str, args=()) -> tuple | None:
    """One row of a read below the ORM on a pooled connection, outside any transaction; None when there is none.

    For the police scan's lookups (~16 µs where the ORM took ~0.9 ms). On PostgreSQL the read runs in
    autocommit, so no transaction is opened and returning the connection costs no ROLLBACK round trip;
    SQLite's connections are in autocommit already (extensions.configure_sqlite).
    """
    connection = db.engine.raw_connection()
    try:
        driver = connection.driver_connection
        autocommit = getattr(driver, "autocommit", None)
        if autocommit is False:
            driver.autocommit = True
        try:
            cursor = connection.cursor()
            cursor.execute(sql, args)
            row = cursor.fetchone()
            cursor.close()
        finally:
            if autocommit is False:
                driver.autocommit = False
    finally:
        connection.close()
    return None if row is None else tuple(row)
