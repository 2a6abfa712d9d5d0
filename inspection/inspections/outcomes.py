"""The outcome of an inspection, computed from the law's items and the answers; pure, `today` given.

Readings (port-state practice, certificates.md):
- `failed`: a required answer is missing, or a detainable item failed and was not rectified on board.
- `passed_with_observations`: only non-detainable failures remain, each with an action and a deadline.
  A practice item (a foreign instrument, or a steamer's duty on a motor vessel, not declared binding) is
  pinned non-detainable, so its failure is always an observation; an item whose article orders a
  restriction instead (art. 73: daylight only) passes too, and the certificate carries the restriction
  while its deficiency is open (checklists/INTERPRETATIONS.md).
- `passed`: every applicable item passes (items rectified on board in the inspector's presence count
  as passed; their deficiency is recorded and closed at once).
Default actions: a detainable failure must be put right before departure; any other within 14 days.
`next_port` gives 7 days, the longest leg between Paraguayan river ports in the demo's practice.
"""
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

from inspection.i18n.labels import standing_of
from inspection.i18n.messages import N_

ACTION_DAYS = {"rectified": 0, "before_departure": 0, "within_14_days": 14, "next_port": 7, "detained": 0}


@dataclass(frozen=True)
class Finding:
    """A failed item that becomes a deficiency."""

    item_id: str
    source: str
    article: str
    description: str
    detainable: bool
    action: str
    due_on: date
    practice: bool = False  # from the authority's practice not declared binding, as pinned
    standing: str = "law"  # "law", or the practice it rests on: "foreign" or "extension" (checklists' builder)
    restriction: str | None = None  # the restriction its article orders instead of a detention (restrictions.toml)


@dataclass(frozen=True)
class Outcome:
    """What the inspection concluded and why."""

    outcome: str
    findings: list[Finding] = field(default_factory=list)
    missing_answers: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Bound:
    """A limit an item sets on the count the inspector observes (checklists: `required` or `maximum`)."""

    name: str
    within: Callable[[float, int], bool]
    missing: str  # Spanish templates; the tablet mirrors them (static/js/tablet/rules.js BOUNDS)
    outside: str
    shown: str  # how a finding writes the bound after the observed count


BOUNDS = (
    Bound("required", operator.ge, N_("Indique la cantidad observada (se requieren {required})."),
          N_("Se observaron {observed} y se requieren {required}: el ítem no puede aprobarse."), "{}"),
    # Ley 928 art. 184: at most the passengers the Prefectura allows.
    Bound("maximum", operator.le, N_("Indique la cantidad observada (el máximo es {maximum})."),
          N_("Se observaron {observed} y el máximo es {maximum}: el ítem no puede aprobarse."), "máx. {}"),
)


# An item whose count is of whole units (checklists: `whole`, true unless the bound is a measure such as kg).
WHOLE = N_("La cantidad observada debe ser un número entero: se cuentan unidades.")


def item_bound(item: dict) -> tuple[Bound, int] | None:
    """The limit an item sets on the observed count and its value; None for a yes/no item."""
    for bound in BOUNDS:
        if item.get(bound.name) is not None:  # pinned before `maximum` existed: no key at all
            return bound, item[bound.name]
    return None


def default_action(detainable: bool) -> str:
    """The action a failure gets unless the inspector chose another."""
    return "before_departure" if detainable else "within_14_days"


def due_date(action: str, today: date) -> date:
    """The deadline of an action, counted from the inspection day."""
    return today + timedelta(days=ACTION_DAYS[action])


def unanswered_items(items: list[dict], answers: dict[str, dict]) -> list[dict]:
    """The pinned items without an answer, in checklist order: an inspection is not closed while any remain."""
    return [item for item in items if item["id"] not in answers]


def compute_outcome(items: list[dict], answers: dict[str, dict], today: date) -> Outcome:
    """Classify an inspection from its pinned items and the current answer per item.

    Closing refuses while items are unanswered (inspections.submit_inspection); should one be missing
    all the same, the inspection cannot pass.
    """
    findings = []
    missing = [item["id"] for item in unanswered_items(items, answers)]
    for item in items:
        answer = answers.get(item["id"])
        if answer is None:
            continue
        if answer["result"] != "fail":
            continue
        action = answer.get("action") or default_action(item["detainable"])
        description = item["title"] + (f": {answer['note']}" if answer.get("note") else "")
        found = item_bound(item)
        if found and answer.get("observed") is not None:
            bound, value = found
            quantity = " ".join(filter(None, (bound.shown.format(value), item.get("unit"))))
            description += f" ({answer['observed']:g} / {quantity})"
        findings.append(Finding(item["id"], item["source"], item["article"], description, item["detainable"],
                                action, due_date(action, today), item.get("practice", False), standing_of(item),
                                item.get("restriction")))
    open_findings = [f for f in findings if f.action != "rectified"]
    if missing or any(f.detainable for f in open_findings):
        outcome = "failed"
    elif open_findings:
        outcome = "passed_with_observations"
    else:
        outcome = "passed"
    return Outcome(outcome, findings, missing)
