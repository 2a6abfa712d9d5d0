"""The law's terms (certificate validity, application lead, fines, re-inspection) and the Prefectura's practice, from legal_terms.toml."""
import tomllib
from dataclasses import dataclass
from decimal import Decimal
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


TEXT_KEYS = ("article", "unit", "quote")  # the only words among the figures


def figures(table: dict, prefix: str = ""):
    """(dotted name, value) of every figure in a table of the terms, nested tables included."""
    for name, value in table.items():
        if isinstance(value, dict):
            yield from figures(value, f"{prefix}{name}.")
        elif name not in TEXT_KEYS:
            yield prefix + name, value


@cache
def legal_terms() -> dict:
    """The parsed terms, checked once: every figure a positive whole number, the texts strings."""
    terms = tomllib.loads(PATH.read_text(encoding="utf-8"))
    for name, value in figures(terms):
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


def application_months(kind: str = "seguridad") -> int:
    """Months before expiry the owner applies: art. 222 for seguridad, the Prefectura's practice for the hull."""
    if kind == "navegabilidad":
        return legal_terms()["practice"]["navegabilidad_application_months"]
    return legal_terms()["application"]["months_before_expiry"]


@dataclass(frozen=True)
class FineTerm:
    """What a late application costs under one article: a fixed fine (art. 225) or a fee multiplier (art. 204)."""

    article: str
    quote: str
    amount: Decimal | None = None
    unit: str | None = None
    fee_multiplier: int | None = None


def fine_term(kind: str) -> FineTerm:
    """The late-application rule of a certificate kind: seguridad art. 225, navegabilidad art. 204."""
    term = legal_terms()["fines"][kind]
    return FineTerm(article=term["article"], quote=term["quote"],
                    amount=Decimal(term["amount"]) if "amount" in term else None, unit=term.get("unit"),
                    fee_multiplier=term.get("fee_multiplier"))


def hull_late_fine(configured: int | None = None) -> Decimal:
    """The art. 204 fine, which the article leaves unnamed: none unless the installation sets its amount."""
    amount = 0 if configured is None else configured
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise ValueError(f"hull_late_fine must be a whole number >= 0, got {amount!r}")
    return Decimal(amount)


def reinspection_days() -> int:
    """Default days to the re-inspection of repairs (art. 206 sets none)."""
    return legal_terms()["reinspection"]["default_days"]
