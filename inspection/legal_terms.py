"""The law's terms (certificate validity, application lead, re-inspection) read from legal_terms.toml."""
import tomllib
from functools import cache
from pathlib import Path

PATH = Path(__file__).with_name("legal_terms.toml")


@cache
def legal_terms() -> dict:
    """The parsed terms, checked once: every figure a positive whole number."""
    terms = tomllib.loads(PATH.read_text(encoding="utf-8"))
    for section in terms.values():
        for name, value in section.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{PATH.name}: {name} must be a positive whole number, got {value!r}")
    return terms


def certificate_months(kind: str) -> int:
    """Months a certificate of `kind` runs (arts. 203, 211, 225)."""
    return legal_terms()["certificate_months"][kind]


def application_months() -> int:
    """Months before expiry the owner must apply (art. 222)."""
    return legal_terms()["application"]["months_before_expiry"]


def reinspection_days() -> int:
    """Default days to the re-inspection of repairs (art. 206 sets none)."""
    return legal_terms()["reinspection"]["default_days"]
