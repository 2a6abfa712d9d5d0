"""The law's checks on one answer (inspection.inspections.operations.check_answer): pure, no app."""
from decimal import Decimal

import pytest

from inspection.core.exceptions import Invalid
from inspection.inspections.operations import check_answer

BUCKETS = {"id": "seg.buckets.total", "required": 4, "unit": "baldes"}
PASSENGERS = {"id": "nav.passengers.within_maximum", "required": None, "maximum": 40, "unit": "pasajeros"}
NO_PASSENGERS = {**PASSENGERS, "maximum": 0}
PINNED_BEFORE_MAXIMUM = {"id": "seg.fire.alarm_bell", "required": None}  # no `maximum` key at all


def answer(result, observed=None, note=""):
    return {"result": result, "observed": None if observed is None else Decimal(observed), "note": note}


@pytest.mark.parametrize("item, given, error", [
    (PASSENGERS, answer("pass", 40), None),  # the maximum itself is within it
    (PASSENGERS, answer("pass", 0), None),
    (PASSENGERS, answer("pass", 41), "Se observaron 41 y el máximo es 40: el ítem no puede aprobarse."),
    (PASSENGERS, answer("pass"), "Indique la cantidad observada (el máximo es 40)."),
    (PASSENGERS, answer("fail", 45), None),  # failing above the maximum is the point
    (PASSENGERS, answer("fail"), None),
    (PASSENGERS, answer("not_applicable", note="Amarrado sin servicio"), None),
    (NO_PASSENGERS, answer("pass", 0), None),
    (NO_PASSENGERS, answer("pass", 1), "Se observaron 1 y el máximo es 0: el ítem no puede aprobarse."),
    (BUCKETS, answer("pass", 4), None),
    (BUCKETS, answer("pass", 12), None),
    (BUCKETS, answer("pass", 3), "Se observaron 3 y se requieren 4: el ítem no puede aprobarse."),
    (BUCKETS, answer("pass"), "Indique la cantidad observada (se requieren 4)."),
    (BUCKETS, answer("fail", 2), None),
    (PINNED_BEFORE_MAXIMUM, answer("pass"), None),
])
def test_a_count_must_be_within_the_items_bound_to_pass(item, given, error):
    if error is None:
        check_answer(item, given)
        return
    with pytest.raises(Invalid) as caught:
        check_answer(item, given)
    [message] = caught.value.errors["observed"]
    assert message == error


def test_the_maximum_messages_are_translated():
    with pytest.raises(Invalid) as caught:
        check_answer(PASSENGERS, answer("pass", 45))
    [message] = caught.value.errors["observed"]
    assert message.in_language("en") == "45 observed and the maximum is 40: the item cannot pass."
    with pytest.raises(Invalid) as caught:
        check_answer(PASSENGERS, answer("pass"))
    assert caught.value.errors["observed"][0].in_language("en") == "Give the observed quantity (the maximum is 40)."
