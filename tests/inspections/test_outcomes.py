"""The outcome of an inspection, computed from items and answers (pure)."""
from datetime import date

import pytest

from inspection.inspections.outcomes import compute_outcome, default_action, due_date

TODAY = date(2026, 11, 30)
ITEMS = [
    {"id": "a", "title": "Salvavidas", "source": "Ley 928/1927", "article": "141", "required": 10, "unit": "salvavidas",
     "detainable": True},
    {"id": "b", "title": "Mangueras numeradas", "source": "Ley 928/1927", "article": "150", "required": None,
     "unit": None, "detainable": False},
]


def answers(**results):
    return {k: {"result": v, "observed": None, "note": "", "action": None} for k, v in results.items()}


@pytest.mark.parametrize("given, outcome, deficiencies", [
    (answers(a="pass", b="pass"), "passed", []),
    (answers(a="pass", b="not_applicable"), "passed", []),
    (answers(a="pass", b="fail"), "passed_with_observations", ["b"]),
    (answers(a="fail", b="pass"), "failed", ["a"]),
    (answers(a="pass"), "failed", []),  # a required answer is missing
    ({**answers(b="pass"), "a": {"result": "fail", "observed": 8, "note": "", "action": "rectified"}}, "passed", ["a"]),
])
def test_outcomes(given, outcome, deficiencies):
    result = compute_outcome(ITEMS, given, TODAY)
    assert result.outcome == outcome
    assert [f.item_id for f in result.findings] == deficiencies


def test_a_failure_carries_article_quantity_and_deadline():
    given = {"a": {"result": "fail", "observed": 8, "note": "dos sin luz", "action": None}, "b": {"result": "pass"}}
    [finding] = compute_outcome(ITEMS, given, TODAY).findings
    assert finding.article == "141" and finding.detainable
    assert finding.description == "Salvavidas: dos sin luz (8 / 10 salvavidas)"
    assert finding.action == "before_departure" and finding.due_on == TODAY


PASSENGERS = {"id": "nav.passengers.within_maximum", "title": "Pasajeros a bordo dentro del máximo",
              "source": "Ley 928/1927", "article": "184", "required": None, "maximum": 40, "unit": "pasajeros",
              "detainable": True}


@pytest.mark.parametrize("item, observed, note, description", [
    (PASSENGERS, 45, "", "Pasajeros a bordo dentro del máximo (45 / máx. 40 pasajeros)"),
    (PASSENGERS, 41, "sin lista", "Pasajeros a bordo dentro del máximo: sin lista (41 / máx. 40 pasajeros)"),
    (PASSENGERS, None, "", "Pasajeros a bordo dentro del máximo"),
    ({**PASSENGERS, "unit": None}, 45, "", "Pasajeros a bordo dentro del máximo (45 / máx. 40)"),
    (ITEMS[0], 8, "", "Salvavidas (8 / 10 salvavidas)"),
    ({**ITEMS[0], "maximum": None}, 8, "", "Salvavidas (8 / 10 salvavidas)"),
])
def test_a_finding_writes_the_count_against_its_bound(item, observed, note, description):
    given = {item["id"]: {"result": "fail", "observed": observed, "note": note, "action": None}}
    result = compute_outcome([item], given, TODAY)
    [finding] = result.findings
    assert finding.description == description
    assert result.outcome == "failed" and finding.action == "before_departure"  # overloading detains (art. 184)


@pytest.mark.parametrize("action, days", [("rectified", 0), ("before_departure", 0), ("within_14_days", 14),
                                          ("next_port", 7), ("detained", 0)])
def test_deadlines(action, days):
    assert (due_date(action, TODAY) - TODAY).days == days


def test_default_actions():
    assert default_action(True) == "before_departure" and default_action(False) == "within_14_days"
