"""The law's terms (certificate validity, application lead, fines, re-inspection) and the Prefectura's practice, from legal_terms.toml."""
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path

PATH = Path(__file__).with_name("legal_terms.toml")


@dataclass(frozen=True)
class TermPractice:
    """The navegabilidad term in months: the Prefectura's practice, the one term for every vessel (arts. 201, 203)."""

    months: int

    def __post_init__(self):
        if not isinstance(self.months, int) or isinstance(self.months, bool) or self.months < 1:
            raise ValueError(f"navegabilidad months must be a positive whole number, got {self.months!r}")


TEXT_KEYS = ("article", "unit", "quote", "provisions", "kinds")  # the only words among the figures


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


def navegabilidad_practice(months: int | None = None) -> TermPractice:
    """The Prefectura's navegabilidad term (arts. 201, 203 name no figure), or the installation's override."""
    return TermPractice(legal_terms()["practice"]["navegabilidad_months"] if months is None else months)


@dataclass(frozen=True)
class EarlierTerm:
    """The article that lets the inspector fix an earlier date than a kind's term, never a later one."""

    article: str
    quote: str


def earlier_term(kind: str) -> EarlierTerm:
    """Why the inspector may shorten a kind's term: art. 203 (navegabilidad), art. 211 (seguridad)."""
    return EarlierTerm(**legal_terms()["earlier_term"][kind])


def application_months(kind: str = "seguridad") -> int:
    """Months before expiry the owner applies: art. 222 for seguridad, the Prefectura's practice for the hull."""
    if kind == "navegabilidad":
        return legal_terms()["practice"]["navegabilidad_application_months"]
    return legal_terms()["application"]["months_before_expiry"]


@dataclass(frozen=True)
class FineTerm:
    """A fine under one article: a fixed amount (arts. 225, 232) or a fee multiplier (arts. 200, 204), and the
    articles whose breach it fines when an inspection finds it (`provisions`: arts. 232, 200)."""

    article: str
    quote: str
    amount: Decimal | None = None
    unit: str | None = None
    fee_multiplier: int | None = None
    provisions: tuple[str, ...] = ()


def fine_term(name: str) -> FineTerm:
    """A fine's rule: seguridad art. 225, navegabilidad art. 204 (late applications), plans art. 232, arqueo art. 200."""
    term = legal_terms()["fines"][name]
    return FineTerm(article=term["article"], quote=term["quote"],
                    amount=Decimal(term["amount"]) if "amount" in term else None, unit=term.get("unit"),
                    fee_multiplier=term.get("fee_multiplier"), provisions=tuple(term.get("provisions", ())))


def hull_late_fine(configured: int | None = None) -> Decimal:
    """The art. 204 fine, which the article leaves unnamed: none unless the installation sets its amount."""
    amount = 0 if configured is None else configured
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise ValueError(f"hull_late_fine must be a whole number >= 0, got {amount!r}")
    return Decimal(amount)


def reinspection_days() -> int:
    """Default days to the re-inspection of repairs (art. 206 sets none)."""
    return legal_terms()["reinspection"]["default_days"]


@dataclass(frozen=True)
class Countersignature:
    """Art. 221: the kinds whose certificate the Prefecto countersigns, and the Prefectura's term to do it."""

    article: str
    quote: str
    kinds: tuple[str, ...]
    days: int


def countersignature() -> Countersignature:
    """The countersignature rule of art. 221 and the days the practice allows after the closing."""
    term = legal_terms()["countersignature"]
    return Countersignature(article=term["article"], quote=term["quote"], kinds=tuple(term["kinds"]),
                            days=term["days"])
