"""The law's terms (certificate validity, application lead, re-inspection) and the Prefectura's practice, from legal_terms.toml."""
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PATH = Path(__file__).with_name("legal_terms.toml")


@dataclass(frozen=True)
class TermPractice:
    """The navegabilidad term in months: the Prefectura's usual one and the longest an inspector may fix."""

    months: int
    max_months: int

    def __post_init__(self):
        for name in ("months", "max_months"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"navegabilidad {name} must be a positive whole number, got {value!r}")
        if self.max_months < self.months:
            raise ValueError(f"navegabilidad max_months ({self.max_months}) is below the usual term ({self.months})")


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
    """Months a certificate of a kind whose term the law sets runs: seguridad (arts. 211, 225)."""
    return legal_terms()["certificate_months"][kind]


def navegabilidad_practice(months: int | None = None, max_months: int | None = None) -> TermPractice:
    """The Prefectura's navegabilidad term (no legal term, arts. 201, 203), with the installation's overrides.

    A usual term raised above the file's maximum raises the maximum with it, unless one is given.
    """
    practice = legal_terms()["practice"]
    months = practice["navegabilidad_months"] if months is None else months
    if max_months is None:
        max_months = max(practice["navegabilidad_max_months"], months) if isinstance(months, int) else months
    return TermPractice(months, max_months)


def application_months() -> int:
    """Months before expiry the owner must apply (art. 222)."""
    return legal_terms()["application"]["months_before_expiry"]


def reinspection_days() -> int:
    """Default days to the re-inspection of repairs (art. 206 sets none)."""
    return legal_terms()["reinspection"]["default_days"]
