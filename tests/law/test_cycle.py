"""The semestral cycle's pure rules with fixed dates: when to apply, lateness and fines, a vessel's state."""
from datetime import date
from decimal import Decimal
from types import SimpleNamespace

import pytest

from inspection.law.cycle import (
    CertificateFacts,
    add_months,
    apply_by,
    assess_application,
    needed_kinds,
    next_inspection_window,
    vessel_state,
)
from inspection.law.legal_terms import PATH, fine_term, hull_late_fine

LAW = "checklists/sources/ley-928-1927-arts-123-238.txt"
UNTIL = date(2027, 5, 31)  # a safety certificate valid until 31 May 2027: apply by 30 April (art. 222)


@pytest.mark.parametrize("valid_until, expected", [
    (date(2027, 5, 31), date(2027, 4, 30)),   # 31 April does not exist: the month's end
    (date(2027, 3, 31), date(2027, 2, 28)),
    (date(2028, 3, 31), date(2028, 2, 29)),   # leap year
    (date(2027, 1, 15), date(2026, 12, 15)),  # across the year
])
def test_apply_by_is_a_month_before_expiry(valid_until, expected):
    assert apply_by(valid_until) == expected
    assert apply_by(valid_until, "navegabilidad") == expected  # the hull window, by practice
    assert apply_by(valid_until) == add_months(valid_until, -1)


@pytest.mark.parametrize("applied_on, late", [
    (date(2027, 4, 1), False),
    (date(2027, 4, 30), False),   # apply_by itself is in time
    (date(2027, 5, 1), True),     # the day after
    (date(2027, 5, 31), True),    # expiry day
    (date(2027, 6, 1), True),     # after expiry: "no presente a su debido tiempo"
])
def test_seguridad_late_after_apply_by_fined_by_art_225(applied_on, late):
    got_late, fines = assess_application("seguridad", applied_on, UNTIL, fee=Decimal(700), hull_fine=Decimal(5))
    assert got_late is late
    if late:
        [fine] = fines
        assert (fine.code, fine.source, fine.article, fine.amount) == ("late_application", "Ley 928/1927", "225",
                                                                       Decimal(1000))
        assert "30 de abril de 2027" in fine.reason_es and "April 30, 2027" in fine.reason_en  # dates in words
    else:
        assert fines == []


@pytest.mark.parametrize("applied_on, hull_fine, expected", [
    (date(2027, 5, 1), Decimal(1000), []),             # inside the window, before expiry: in time
    (date(2027, 5, 31), Decimal(1000), []),            # expiry day: still in time (art. 204 read as before expiry)
    (date(2027, 6, 1), Decimal(1000), [("double_fee", Decimal(700)), ("late_hull", Decimal(1000))]),
    (date(2027, 6, 1), Decimal(0), [("double_fee", Decimal(700))]),  # no configured fine: only the double fee
])
def test_navegabilidad_late_after_expiry_pays_double_fee_and_the_configured_fine(applied_on, hull_fine, expected):
    late, fines = assess_application("navegabilidad", applied_on, UNTIL, fee=Decimal(700), hull_fine=hull_fine)
    assert late is bool(expected)
    assert [(f.code, f.amount) for f in fines] == expected
    assert all(f.article == "204" for f in fines)


@pytest.mark.parametrize("kind", ["seguridad", "navegabilidad"])
def test_a_first_certificate_is_never_late(kind):
    assert assess_application(kind, date(2027, 6, 1), None, fee=Decimal(700)) == (False, [])


def test_the_fines_quote_the_law_and_live_in_the_data():
    law = open(LAW, encoding="utf-8").read()
    for kind in ("seguridad", "navegabilidad"):
        term = fine_term(kind)
        article = law[law.index(f"Art. {term.article}º"):]
        assert term.quote in article.split("\n")[0]
    assert fine_term("seguridad").unit == "pesos moneda nacional de curso legal"
    assert "1000" not in open("inspection/law/cycle.py", encoding="utf-8").read()
    assert "hull_late_fine" not in PATH.read_text(encoding="utf-8")  # art. 204 names no amount: no figure stands in


@pytest.mark.parametrize("configured, amount, fines", [
    (None, 0, [("double_fee", Decimal(700))]),  # the default: only what art. 204 sets
    (0, 0, [("double_fee", Decimal(700))]),
    (750, 750, [("double_fee", Decimal(700)), ("late_hull", Decimal(750))]),  # the Prefectura fixed one
])
def test_the_art_204_fine_is_not_charged_unless_the_installation_sets_it(configured, amount, fines):
    assert hull_late_fine(configured) == Decimal(amount)
    late, found = assess_application("navegabilidad", date(2027, 6, 1), UNTIL, fee=Decimal(700),
                                     hull_fine=hull_late_fine(configured))
    assert late and [(f.code, f.amount) for f in found] == fines
    for fine in found[1:]:  # its standing said: a figure the law leaves open, the Prefectura's practice
        assert "que no fija el monto: práctica de la Prefectura" in fine.reason_es
        assert "which sets no amount: the Prefectura's practice" in fine.reason_en


def cert(status, until):
    return CertificateFacts(status, until)


BOTH = ("navegabilidad", "seguridad")


@pytest.mark.parametrize("needs, certificates, today, expected", [
    (BOTH, {"navegabilidad": cert("valid", date(2027, 12, 31)), "seguridad": cert("valid", UNTIL)},
     date(2027, 4, 29), "ok"),
    (BOTH, {"navegabilidad": cert("valid", date(2027, 12, 31)), "seguridad": cert("valid", UNTIL)},
     date(2027, 4, 30), "due_soon"),          # apply_by opens the window
    (BOTH, {"navegabilidad": cert("valid", date(2027, 12, 31)), "seguridad": cert("valid", UNTIL)},
     date(2027, 5, 31), "due_soon"),          # expiry day: still valid
    (BOTH, {"navegabilidad": cert("valid", date(2027, 12, 31)), "seguridad": cert("expired", UNTIL)},
     date(2027, 6, 1), "overdue"),
    (BOTH, {"navegabilidad": cert("valid", date(2027, 12, 31)), "seguridad": None}, date(2027, 1, 1), "missing"),
    (BOTH, {"navegabilidad": cert("suspended", date(2027, 12, 31)), "seguridad": cert("expired", UNTIL)},
     date(2027, 6, 1), "suspended"),          # the worst kind wins
    (BOTH, {"navegabilidad": cert("revoked", date(2027, 12, 31)), "seguridad": cert("valid", UNTIL)},
     date(2027, 1, 1), "suspended"),
    (("navegabilidad",), {"navegabilidad": cert("valid", date(2027, 12, 31)), "seguridad": None},
     date(2027, 1, 1), "ok"),                 # no machinery (art. 211): no seguridad needed
    ((), {}, date(2027, 1, 1), "ok"),         # a rowing boat (art. 210) with no machinery needs nothing
])
def test_vessel_state(needs, certificates, today, expected):
    assert vessel_state(needs, certificates, today) == expected


@pytest.mark.parametrize("exempt, expected", [
    ({"navegabilidad": False, "seguridad": False}, BOTH),
    ({"navegabilidad": True, "seguridad": False}, ("seguridad",)),
    ({"navegabilidad": False, "seguridad": True}, ("navegabilidad",)),
])
def test_needed_kinds_follow_the_checklists_exemptions(exempt, expected):
    assert needed_kinds(exempt) == expected


def test_the_next_inspection_window_runs_from_apply_by_to_expiry():
    window = next_inspection_window(SimpleNamespace(kind="seguridad", valid_until=date(2027, 3, 31)))
    assert (window.kind, window.opens_on, window.due_on) == ("seguridad", date(2027, 2, 28), date(2027, 3, 31))
