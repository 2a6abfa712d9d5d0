"""Numbers and dates as people read them, in the page's language (Babel's es_PY and en locales).

Spanish pages read "346,33 t" and "1 de diciembre de 2026"; English ones "346.33 t" and
"December 1, 2026"; times "30 nov. 2026, 22:30" on the office's wall clock. Counts are integers ("3", never "3.00"). Pure: the language is a parameter.
"""
from datetime import date, datetime, timedelta
from decimal import Decimal

from babel import Locale
from babel.dates import format_date, format_datetime, format_interval
from babel.numbers import format_currency, format_decimal

from inspection.i18n.messages import LOCALES


def format_number(value, places: int | None = None, lang: str = "es", max_places: int = 3) -> str:
    """A number with the locale's separators; `places` fixes the decimals, else up to `max_places`."""
    if value is None or value == "":
        return ""
    number = Decimal(str(value))
    if places is None:
        pattern = "#,##0" if number == number.to_integral_value() else "#,##0." + "#" * max_places
    else:
        pattern = "#,##0." + "0" * places if places else "#,##0"
    return format_decimal(number, pattern, locale=LOCALES[lang], decimal_quantization=True)


# The law's unit: pesos de curso legal ("c/l.", Ley 928/1927 arts. 199, 209, 225), which it prints with "$".
# No ISO 4217 code names that peso (the guaraní replaced it in 1943), so Babel is given the sign itself
# and places it by the locale's pattern: "$ 1.000,00" in Paraguay (a no-break space), "$1,000.00" in English.
MONEY_SIGN = "$"


def format_money(value, lang: str = "es") -> str:
    """An amount of the law's fees and fines with its unit and two decimals, as the locale writes money."""
    if value is None or value == "":
        return ""
    return format_currency(Decimal(str(value)), MONEY_SIGN, locale=LOCALES[lang])


MIB = 1024 * 1024


def format_megabytes(size: int, lang: str = "es") -> str:
    """A byte count as people read a limit: "15 MB", "15,1 MB" (MB meaning MiB, as the photo limits do)."""
    return format_number(round(size / MIB, 1), lang=lang, max_places=1) + " MB"


def format_day(value, lang: str = "es", width: str = "long") -> str:
    """A date in words ("1 de diciembre de 2026"); ISO strings are accepted."""
    if value in (None, ""):
        return ""
    day = value if isinstance(value, date) else date.fromisoformat(str(value)[:10])
    return format_date(day, width, locale=LOCALES[lang])


def format_week(monday: date, lang: str = "es") -> str:
    """A week as its days ("30 de nov. – 6 de dic.", "Dec 7 – 13"), not an ISO week number people cannot read."""
    return format_interval(monday, monday + timedelta(days=6), "MMMd", locale=LOCALES[lang])


def format_moment(moment: datetime, zone, lang: str = "es") -> str:
    """A UTC timestamp on the zone's wall clock, the day as `format_day(..., "medium")` and 24 h time."""
    locale = Locale.parse(LOCALES[lang])
    pattern = f"{locale.date_formats['medium'].pattern}, HH:mm"  # the day as |day("medium") writes it
    return format_datetime(moment.astimezone(zone), pattern, locale=locale)
