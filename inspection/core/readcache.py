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
