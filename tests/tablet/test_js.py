"""The tablet's pure modules (static/js/tablet/rules.js, backoff.js, photos.js) under node 20.

The answer checks must agree with the server's (inspection.inspections.operations.check_answer): the tablet
refuses at once what the server would refuse at sync, and never holds back what it would accept.
"""
from decimal import Decimal

import pytest

from inspection.core.exceptions import Invalid
from inspection.inspections.operations import check_answer
from tests.fixtures.node import NODE, run_cli


pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

BUCKETS = {"id": "buckets", "required": 4}
YES_NO = {"id": "galley", "required": None}
PASSENGERS = {"id": "passengers", "required": None, "maximum": 40}  # Ley 928 art. 184
ANSWERS = [
    (BUCKETS, {"result": "pass", "observed": 4, "note": ""}),
    (BUCKETS, {"result": "pass", "observed": 12, "note": ""}),
    (BUCKETS, {"result": "pass", "observed": 3, "note": ""}),
    (BUCKETS, {"result": "pass", "observed": None, "note": ""}),
    (BUCKETS, {"result": "fail", "observed": 2, "note": "", "action": "before_departure"}),
    (BUCKETS, {"result": "fail", "observed": None, "note": ""}),
    (BUCKETS, {"result": "not_applicable", "observed": None, "note": "  "}),
    (BUCKETS, {"result": "not_applicable", "observed": None, "note": "No lleva"}),
    (YES_NO, {"result": "pass", "observed": None, "note": ""}),
    (YES_NO, {"result": "not_applicable", "observed": None, "note": ""}),
    (YES_NO, {"result": "fail", "observed": None, "note": "roto"}),
    (PASSENGERS, {"result": "pass", "observed": 40, "note": ""}),
    (PASSENGERS, {"result": "pass", "observed": 0, "note": ""}),
    (PASSENGERS, {"result": "pass", "observed": 41, "note": ""}),
    (PASSENGERS, {"result": "pass", "observed": None, "note": ""}),
    (PASSENGERS, {"result": "fail", "observed": 45, "note": ""}),
]


def run_node(cases: dict, tmp_path) -> dict:
    """Run tablet_cli.mjs over the cases, return its report."""
    return run_cli("tablet_cli.mjs", cases, tmp_path)


def server_problems(item, answer) -> list[str]:
    """The Spanish templates of the server's refusal of this answer; empty when it accepts it."""
    data = {**answer, "observed": None if answer["observed"] is None else Decimal(answer["observed"])}
    try:
        check_answer(item, data)
    except Invalid as refused:
        return [message.template for messages in refused.errors.values() for message in messages]
    return []


def test_answer_checks_agree_with_the_server(tmp_path):
    report = run_node({"answers": [{"item": i, "answer": a} for i, a in ANSWERS], "closing": [], "backoff": [],
                       "fitted": []}, tmp_path)
    tablet = [not problems for problems in report["answers"]]
    server = [not server_problems(item, answer) for item, answer in ANSWERS]
    assert tablet == server
    assert tablet.count(True) == 10 and tablet.count(False) == 6  # the table holds both kinds
    for (item, answer), problems in zip(ANSWERS, report["answers"]):
        assert set(server_problems(item, answer)) <= set(problems), (item, answer)  # the same words


def test_the_tablet_shows_a_maximum_as_the_server_does(tmp_path):
    cases = [{"item": PASSENGERS, "answer": {"result": "pass", "observed": 41, "note": ""}},
             {"item": PASSENGERS, "answer": {"result": "pass", "observed": None, "note": ""}},
             {"item": BUCKETS, "answer": {"result": "pass", "observed": None, "note": ""}}]
    report = run_node({"answers": cases, "closing": [], "backoff": [], "fitted": []}, tmp_path)
    assert report["answers"] == [["Se observaron {observed} y el máximo es {maximum}: el ítem no puede aprobarse."],
                                 ["Indique la cantidad observada (el máximo es {maximum})."],
                                 ["Indique la cantidad observada (se requieren {required})."]]
    assert report["bounds"] == [{"name": "maximum", "label": "Máximo", "value": 40},
                                {"name": "maximum", "label": "Máximo", "value": 40},
                                {"name": "required", "label": "Requerido", "value": 4}]


def test_closing_lists_unanswered_incomplete_and_photoless_items(tmp_path):
    items = [{"id": "a", "required": None, "evidence_required": True},
             {"id": "b", "required": 2, "evidence_required": False},
             {"id": "c", "required": None, "evidence_required": True},
             {"id": "d", "required": None, "evidence_required": False}]
    answers = {"a": {"result": "pass", "note": ""}, "b": {"result": "pass", "observed": 1, "note": ""},
               "c": {"result": "not_applicable", "note": "No tiene"}}
    complete = {**answers, "b": {"result": "pass", "observed": 2}, "d": {"result": "fail", "note": ""}}
    report = run_node({"answers": [], "backoff": [], "fitted": [], "closing": [
        {"items": items, "answers": answers, "photos": {}},
        {"items": items, "answers": complete, "photos": {"a": [{"sha256": "x"}]}},
    ]}, tmp_path)
    assert report["closing"][0] == {"unanswered": ["d"], "incomplete": ["b"], "photos": ["a"], "ok": False}
    assert report["closing"][1] == {"unanswered": [], "incomplete": [], "photos": [], "ok": True}


def test_backoff_doubles_with_jitter_up_to_five_minutes(tmp_path):
    cases = [{"n": n, "random": r} for n in (1, 2, 3, 4, 12, 40) for r in (0.0, 0.999)]
    delays = run_node({"answers": [], "closing": [], "fitted": [], "backoff": cases}, tmp_path)["backoff"]
    lows, highs = delays[0::2], delays[1::2]
    assert lows[:4] == [1000, 2000, 4000, 8000]        # half of 2, 4, 8, 16 s: never near zero
    assert highs[:4] == [1999, 3998, 7996, 15992]
    assert lows[-2:] == [150000, 150000] and highs[-1] <= 300000  # capped at five minutes


NOW = "Tue, 01 Dec 2026 18:00:00 GMT"


@pytest.mark.parametrize("value, expected", [
    ("30", 30_000), (" 120 ", 120_000), ("0", 0),
    ("7200", 3_600_000),                                        # a server asking for two hours gets one
    ("Tue, 01 Dec 2026 18:02:00 GMT", 120_000),                 # an HTTP-date, from the tablet's clock
    ("Tue, 01 Dec 2026 17:00:00 GMT", 0),                       # already past: no wait of its own
    ("-5", None), ("1.5", None), ("soon", None), ("2026-12-01", None), ("", None), (None, None),
])
def test_retry_after_is_read_as_seconds_or_an_http_date(tmp_path, value, expected):
    from email.utils import parsedate_to_datetime

    now = parsedate_to_datetime(NOW).timestamp() * 1000
    report = run_node({"answers": [], "closing": [], "backoff": [], "fitted": [],
                       "retry_after": [{"value": value, "now": now}]}, tmp_path)
    assert report["retry_after"] == [expected]


def test_the_outbox_waits_the_longer_of_its_backoff_and_the_server_s_retry_after(tmp_path):
    cases = [{"n": 1, "server": 30_000, "random": 0.0},      # 503 of a stopped photo store: 30 s, not 1 s
             {"n": 1, "server": None, "random": 0.0},        # no Retry-After: the backoff alone
             {"n": 12, "server": 10_000, "random": 0.0},     # the backoff already waits longer
             {"n": 1, "server": 7_200_000, "random": 0.0},   # never more than an hour
             {"n": 1, "server": 0, "random": 0.999}]
    report = run_node({"answers": [], "closing": [], "backoff": [], "fitted": [], "retry_delay": cases}, tmp_path)
    assert report["retry_delay"] == [30_000, 1000, 150_000, 3_600_000, 1999]


def test_photos_are_fitted_to_the_long_side_and_the_pixel_budget(tmp_path):
    cases = [{"width": 4000, "height": 3000, "limits": {"max_pixels": 40_000_000}, "long": 2560},
             {"width": 3000, "height": 4000, "limits": {"max_pixels": 40_000_000}, "long": 2560},
             {"width": 1200, "height": 900, "limits": {"max_pixels": 40_000_000}, "long": 2560},
             {"width": 4000, "height": 3000, "limits": {"max_pixels": 1_000_000}, "long": 2560}]
    fitted = run_node({"answers": [], "closing": [], "backoff": [], "fitted": cases}, tmp_path)["fitted"]
    assert fitted[0] == {"width": 2560, "height": 1920}
    assert fitted[1] == {"width": 1920, "height": 2560}
    assert fitted[2] == {"width": 1200, "height": 900}   # never enlarged
    assert fitted[3]["width"] * fitted[3]["height"] <= 1_000_000 and fitted[3]["width"] == 1154


def test_the_tablet_sends_the_size_and_quality_the_server_publishes(client, tmp_path):
    published = client.get("/api/v1/photos/limits").json
    cases = [{"width": 4000, "height": 3000, "limits": published},
             {"width": 4000, "height": 3000, "limits": {"max_pixels": 40_000_000}}]
    report = run_node({"answers": [], "closing": [], "backoff": [], "fitted": cases,
                       "settings": [published, {"max_bytes": 1}, None]}, tmp_path)
    assert report["fitted"] == [{"width": 2048, "height": 1536}, {"width": 2560, "height": 1920}]
    assert report["settings"] == [{"longSide": 2048, "quality": 0.7},
                                  {"longSide": 2560, "quality": 0.85}, {"longSide": 2560, "quality": 0.85}]


# Items as the package carries them (detainable as pinned) and closings: the outcome the tablet announces on its
# closing screen must be the one the server computes (inspection.inspections.outcomes.compute_outcome).
def _item(item_id, detainable):
    return {"id": item_id, "title": item_id, "source": "Ley 928/1927", "article": "1", "detainable": detainable,
            "required": None}


OUTCOME_ITEMS = [_item("hull", True), _item("lights", True), _item("galley", False), _item("flags", False)]
PASS = {"result": "pass", "note": ""}
CLOSINGS = [
    {"hull": PASS, "lights": PASS, "galley": PASS, "flags": PASS},
    {"hull": PASS, "lights": PASS, "galley": {"result": "fail", "note": "roto"}, "flags": PASS},
    {"hull": {"result": "fail", "note": ""}, "lights": PASS, "galley": PASS, "flags": PASS},
    {"hull": {"result": "fail", "note": "", "action": "rectified"}, "lights": PASS, "galley": PASS, "flags": PASS},
    {"hull": {"result": "fail", "note": "", "action": "rectified"}, "lights": PASS,
     "galley": {"result": "fail", "note": "", "action": "next_port"}, "flags": PASS},
    {"hull": PASS, "lights": {"result": "fail", "note": "", "action": "within_14_days"}, "galley": PASS, "flags": PASS},
    {"hull": PASS, "lights": PASS, "galley": {"result": "fail", "note": "", "action": "rectified"},
     "flags": {"result": "not_applicable", "note": "No lleva"}},
    {"hull": PASS, "lights": PASS, "galley": PASS},
    {"hull": PASS, "lights": PASS, "galley": {"result": "fail", "note": ""}, "flags": {"result": "fail", "note": ""}},
]


def test_the_closing_screen_announces_the_outcome_the_server_computes(tmp_path):
    from datetime import date

    from inspection.inspections.outcomes import compute_outcome

    report = run_node({"answers": [], "closing": [], "backoff": [], "fitted": [], "summaries": [
        {"items": OUTCOME_ITEMS, "answers": answers, "photos": {"hull": [{"sha256": "x"}]}} for answers in CLOSINGS]},
        tmp_path)
    server = [compute_outcome(OUTCOME_ITEMS, answers, date(2026, 3, 2)).outcome for answers in CLOSINGS]
    assert [summary["outcome"] for summary in report["summaries"]] == server
    assert set(server) == {"passed", "passed_with_observations", "failed"}  # the table holds every outcome
    assert report["summaries"][4] == {"answered": 4, "pass": 2, "fail": 2, "not_applicable": 0, "detentions": 0,
                                      "observations": 1, "rectified": 1, "unanswered": 0, "photos": 1, "total": 4,
                                      "outcome": "passed_with_observations"}
    assert report["summaries"][7]["unanswered"] == 1


LIFEBUOYS = {"id": "lifebuoys", "required": 6, "whole": True}
FLAMMABLES_KG = {"id": "flammables", "required": None, "maximum": 360, "whole": False}
PINNED_BEFORE = {"id": "buckets", "required": 4}  # pinned before items said whether a count is whole
WHOLE_ANSWERS = [
    (LIFEBUOYS, {"result": "pass", "observed": 6, "note": ""}),
    (LIFEBUOYS, {"result": "pass", "observed": 6.5, "note": ""}),
    (LIFEBUOYS, {"result": "fail", "observed": 2.5, "note": ""}),
    (FLAMMABLES_KG, {"result": "pass", "observed": 359.5, "note": ""}),
    (PINNED_BEFORE, {"result": "pass", "observed": 4.5, "note": ""}),
]


def test_a_whole_count_refuses_decimals_on_the_tablet_as_on_the_server(tmp_path):
    report = run_node({"answers": [{"item": i, "answer": a} for i, a in WHOLE_ANSWERS], "closing": [], "backoff": [],
                       "fitted": []}, tmp_path)
    server = [server_problems(item, answer) for item, answer in WHOLE_ANSWERS]
    assert [not problems for problems in report["answers"]] == [not problems for problems in server]
    assert server[1] == server[2] == ["La cantidad observada debe ser un número entero: se cuentan unidades."]
    assert report["answers"][2] == server[2] and not server[3] and not server[4]
