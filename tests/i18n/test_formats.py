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
