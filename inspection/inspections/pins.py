"""The fingerprint of what an inspection pins at its start, so a tablet that downloaded it can prove it still holds; pure."""
import hashlib
import json


def checklist_pin(versions: dict, items: list[dict], particulars: dict) -> str:
    """SHA-256 (hex) of the canonical JSON of checklist versions, pinned items (stored form) and particulars.

    Keys are sorted and separators fixed, so the same pinning gives the same digest on every
    server and after a round trip through a JSON column.
    """
    canonical = json.dumps({"checklist_versions": versions, "items": items, "particulars": particulars},
                           sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(canonical.encode()).hexdigest()
