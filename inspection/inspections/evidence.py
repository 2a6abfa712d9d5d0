"""Which photos an inspection expects, by content hash, and which have arrived; pure."""


def evidence_status(items: list[dict], answers: dict[str, dict], photos: list[dict]) -> dict:
    """Expected photos are the hashes the tablet declared with its answers, plus at least one photo for
    every answered item whose law requires evidence; nothing counts until its bytes have arrived."""
    arrived_by_item: dict[str, set[str]] = {}
    arrived = set()
    for photo in photos:
        arrived.add(photo["sha256"])
        arrived_by_item.setdefault(photo["item_id"], set()).add(photo["sha256"])
    expected, missing = [], []
    by_id = {item["id"]: item for item in items}
    for item_id, answer in sorted(answers.items()):
        declared = list(dict.fromkeys(answer.get("photos") or []))
        for sha in declared:
            expected.append({"item_id": item_id, "sha256": sha})
            if sha not in arrived:
                missing.append({"item_id": item_id, "sha256": sha})
        item = by_id.get(item_id)
        needs_photo = item and item.get("evidence_required") and answer["result"] != "not_applicable"
        if needs_photo and not declared:
            expected.append({"item_id": item_id, "sha256": None})
            if not arrived_by_item.get(item_id):
                missing.append({"item_id": item_id, "sha256": None})
    return {
        "expected": expected,
        "arrived": sorted(arrived),
        "missing": missing,
        "complete": not missing,
    }
