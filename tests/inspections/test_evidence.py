"""Which photos an inspection expects, by hash, and which have arrived (pure)."""
from inspection.inspections.evidence import evidence_status

ITEMS = [{"id": "hull", "evidence_required": True}, {"id": "books", "evidence_required": False}]
SHA = "a" * 64


def test_declared_photos_are_expected_by_hash():
    status = evidence_status(ITEMS, {"books": {"result": "pass", "photos": [SHA]}}, [])
    assert status["missing"] == [{"item_id": "books", "sha256": SHA}] and not status["complete"]
    arrived = evidence_status(ITEMS, {"books": {"result": "pass", "photos": [SHA]}}, [{"sha256": SHA, "item_id": "books"}])
    assert arrived["complete"] and arrived["arrived"] == [SHA]


def test_evidence_items_need_at_least_one_photo_unless_not_applicable():
    assert evidence_status(ITEMS, {"hull": {"result": "pass"}}, [])["missing"] == [{"item_id": "hull", "sha256": None}]
    assert evidence_status(ITEMS, {"hull": {"result": "not_applicable"}}, [])["complete"]
    assert evidence_status(ITEMS, {"hull": {"result": "fail"}}, [{"sha256": SHA, "item_id": "hull"}])["complete"]


def test_unanswered_items_expect_nothing_yet():
    assert evidence_status(ITEMS, {}, []) == {"expected": [], "arrived": [], "missing": [], "complete": True}


def test_a_photo_filed_under_another_item_does_not_count_for_an_evidence_item():
    status = evidence_status(ITEMS, {"hull": {"result": "pass"}}, [{"sha256": SHA, "item_id": "books"}])
    assert not status["complete"]
