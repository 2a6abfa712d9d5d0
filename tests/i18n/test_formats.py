"""Numbers and dates in each language's own format (Babel's es_PY and en)."""
from datetime import date
from decimal import Decimal

import pytest

from inspection.i18n.formats import format_day, format_number


@pytest.mark.parametrize("value, places, lang, expected", [
    (Decimal("346.33"), 2, "es", "346,33"),
    (Decimal("346.33"), 2, "en", "346.33"),
    (1234.5, 2, "es", "1.234,50"),
    (1234.5, 2, "en", "1,234.50"),
    (3, None, "es", "3"),               # counts are integers, never "3,00"
    (Decimal("3.000"), None, "es", "3"),
    (Decimal("650.227500"), None, "es", "650,228"),  # at most three decimals by default
    (0, 2, "en", "0.00"),
    (None, 2, "es", ""),
])
def test_format_number(value, places, lang, expected):
    assert format_number(value, places, lang) == expected


def test_format_number_keeps_more_places_when_asked():
    assert format_number(Decimal("650.227500"), lang="es", max_places=6) == "650,2275"


@pytest.mark.parametrize("value, lang, width, expected", [
    (date(2026, 12, 1), "es", "long", "1 de diciembre de 2026"),
    ("2026-12-01", "en", "long", "December 1, 2026"),
    ("2026-03-15T10:00:00+00:00", "es", "long", "15 de marzo de 2026"),
    (date(2026, 12, 1), "es", "short", "1/12/26"),
    (None, "es", "long", ""),
])
def test_format_day(value, lang, width, expected):
    assert format_day(value, lang, width) == expected


@pytest.mark.parametrize("monday, es, en", [
    (date(2026, 11, 30), "30 de nov. – 6 de dic.", "Nov 30 – Dec 6"),
    (date(2026, 12, 7), "7 – 13 de dic.", "Dec 7 – 13"),
    (date(2026, 12, 28), "28 de dic. – 3 de ene.", "Dec 28 – Jan 3"),
])
def test_a_week_reads_as_its_days(monday, es, en):
    from inspection.i18n.formats import format_week

    assert (format_week(monday, "es").replace("\u2009", " "), format_week(monday, "en").replace("\u2009", " ")) == (es, en)


@pytest.mark.parametrize("value, es, en", [("1000", "$ 1.000,00", "$1,000.00"), ("97.5", "$ 97,50", "$97.50"),
                                           (None, "", "")])
def test_money_carries_the_laws_unit_in_the_locales_pattern(value, es, en):
    from inspection.i18n.formats import format_money

    assert (format_money(value, "es").replace("\xa0", " "), format_money(value, "en")) == (es, en)
