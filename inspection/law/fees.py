"""Fees for arqueo (Ley 928/1927, art. 199), hull inspection (art. 209) and machinery inspection (art. 233).

The scales are data in fee_scales.toml (article, verbatim quote, one table per printed row); this
module loads and checks them and computes a fee. Pure: values in, values out, no Flask, no DB.

Readings of the text (each one visible in the data or the result, none applied silently):

- Two figures per row ("$ 150.- c/l. 450"). "c/l." is read as "curso legal" (legal-tender
  pesos): the law spells that unit out wherever it names one (arts. 14, 17, 19, 191, 225, 232 and
  the excess rows of 199 and 209, "$ 1 (un peso de curso legal)"). The unit of the first figure
  is not stated, and the "$" sign does not settle it, since the law also writes "$" before
  curso-legal sums. Neither figure can be derived from the other: the ratio is 3, 3, 3, 3.33,
  3.57 in arts. 199/209 and 0.29, 0.4, 2.33 in art. 233. So every row keeps both figures
  (`amount`, `amount_cl`) and a Fee carries both totals.
- Which figure is charged: `charged="amount_cl"` by default, set in the data file (top-level
  `charged`) and overridable per call. Reason: the only unit the law names for these scales,
  in the per-ton excess, is curso legal, so c/l totals stay in one unit.
- Bracket boundaries: rows are printed in whole tons, inclusive at both ends ("De 26 a 50").
  A fractional tonnage is counted in started tons (rounded up: 25.01 t counts as 26 t), which
  makes the rows contiguous from 1 t with no gap between 25 and 26; every positive tonnage,
  even under 1 t, falls in a row. The other reading, whole tons (rounded down), is available
  per scale as `ton_count = "whole"`; with it a vessel under 1 t is out of range.
- "El exceso de doscientas cincuenta toneladas, abonará a razón de $ 1 ... por tonelada": the
  201–250 row is charged and, on top, 1 per counted ton above 250, using the same counting as
  the brackets (250.01 t started = 251 t, excess 1 t). The law prints one rate, so 1 is used in
  both columns; the data keeps `rate` and `rate_cl` separately so either can be changed.
- Pass the certified tonnage (tonnage.shown_tonnage, the figure the certificate prints) so the fee
  matches the certificate; this module does not round it again.
- Art. 233 does not depend on tonnage: it charges per boiler per semestral inspection
  (`boilers`), per report or damage survey (`reports`, "informes, peritajes de averías, etc.")
  and per resealed safety valve (`valve_reseals`), counts given as keywords; at least one must
  be positive. Its c/l figures are lower than the first ones in two rows: kept as printed.
- What a scale does not charge a vessel, and why, is data too (`not_charged`: a condition over the
  particulars in the checklists' rule language, the article and the reason in both languages): a raft
  is not measured (art. 234, "en lo que a ellas fueren aplicables"), so neither the arqueo (art. 199)
  nor the hull fee by tonnage (art. 209) is charged on it; a foreign vessel is measured only when it
  joins the national register (art. 194); a vessel without boilers pays no boiler row (art. 233). Each
  holding entry is a note on the statement, so a fee that charges nothing says why.
- Not computed here, because they are not scale rows: the doubled fee for late hull inspection
  (arts. 204/205) and the doubled arqueo fee of art. 200 (cycle.py and legal_terms.toml [fines.*]),
  the expenses of inspections outside the capital (arts. 209, 215; charged at cost), and the
  exemptions of art. 210 (rowing boats and sailing vessels under 5 t), which the caller decides
  before asking for a fee.
"""
from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, InvalidOperation
from os import PathLike
from pathlib import Path
from types import MappingProxyType

from checklists.rules import Rule, RuleError, compile_rule
from inspection.law.tonnage import shown_tonnage, to_positive_decimal

SCALES_PATH = Path(__file__).with_name("fee_scales.toml")
SERVICES = ("arqueo", "navegabilidad", "seguridad")
COLUMNS = ("amount", "amount_cl")
# How a fractional tonnage becomes the whole tons the printed rows speak of (see module docstring).
TON_COUNTS = {"started": ROUND_CEILING, "whole": ROUND_FLOOR}


class ScaleError(ValueError):
    """A fee scale file that is malformed or contradicts itself."""


@dataclass(frozen=True)
class Bracket:
    """One printed row of a tonnage scale: whole tons min_tons..max_tons, both inclusive."""

    min_tons: int
    max_tons: int
    amount: Decimal
    amount_cl: Decimal
    text: str


@dataclass(frozen=True)
class Excess:
    """The per-ton charge above the last row (arts. 199 and 209)."""

    above_tons: int
    rate: Decimal
    rate_cl: Decimal
    text: str


@dataclass(frozen=True)
class Item:
    """One row of a per-unit tariff (art. 233), charged per unit counted by the caller."""

    key: str
    amount: Decimal
    amount_cl: Decimal
    text: str


@dataclass(frozen=True)
class NotCharged:
    """A scale (or one row of it, `row`) a vessel is not charged when `when` holds over its particulars, and why."""

    when: Rule
    row: str | None
    source: str
    article: str
    reason_es: str
    reason_en: str

    def reason(self, lang: str) -> str:
        """The reason in `lang` (Spanish unless English is asked for)."""
        return self.reason_en if lang == "en" else self.reason_es


@dataclass(frozen=True)
class Scale:
    """A validated fee scale with its article and the law's text."""

    service: str
    article: str
    title: str
    kind: str
    quote: str
    ton_count: str | None = None
    brackets: tuple[Bracket, ...] = ()
    excess: Excess | None = None
    items: tuple[Item, ...] = ()
    not_charged: tuple[NotCharged, ...] = ()


@dataclass(frozen=True)
class Scales:
    """Every scale by service, and which figure is charged by default."""

    charged: str
    by_service: Mapping[str, Scale]


@dataclass(frozen=True)
class FeeLine:
    """One line of a fee's breakdown: the law's row, a quantity, and both figures."""

    text: str
    quantity: int
    unit_amount: Decimal
    unit_amount_cl: Decimal
    amount: Decimal
    amount_cl: Decimal


@dataclass(frozen=True)
class Fee:
    """A computed fee with both printed figures, the one charged, and how it was reached."""

    service: str
    article: str
    gross_tonnage: Decimal
    amount: Decimal
    amount_cl: Decimal
    charged: str
    counted_tons: int | None
    bracket: Bracket | None
    breakdown: tuple[FeeLine, ...]

    @property
    def charged_amount(self) -> Decimal:
        """Return the figure selected by `charged`."""
        return self.amount_cl if self.charged == "amount_cl" else self.amount


# --- loading -------------------------------------------------------------------------------


def _table(
    value: object, where: str, required: set[str], optional: frozenset[str] | set[str] = frozenset()
) -> dict:
    """Check that value is a table with exactly the expected keys."""
    if not isinstance(value, dict):
        raise ScaleError(f"{where}: expected a table")
    missing = required - value.keys()
    unknown = value.keys() - required - optional
    if missing:
        raise ScaleError(f"{where}: missing {', '.join(sorted(missing))}")
    if unknown:
        raise ScaleError(f"{where}: unknown {', '.join(sorted(unknown))}")
    return value


def _money(value: object, where: str) -> Decimal:
    """Read an amount written as a TOML integer or decimal string (never a float)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ScaleError(f"{where}: amounts are integers or decimal strings, got {value!r}")
    try:
        number = Decimal(value)
    except InvalidOperation:
        raise ScaleError(f"{where}: not a number: {value!r}") from None
    if not number.is_finite() or number < 0:
        raise ScaleError(f"{where}: must be a non-negative number, got {value!r}")
    return number


def _tons(value: object, where: str) -> int:
    """Read a whole number of tons, at least 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ScaleError(f"{where}: must be a whole number of tons >= 1, got {value!r}")
    return value


def _text(value: object, where: str, quote_lines: set[str] | None = None) -> str:
    """Read a non-empty string; if quote_lines is given, it must be one of the quote's lines."""
    if not isinstance(value, str) or not value.strip():
        raise ScaleError(f"{where}: must be non-empty text")
    if quote_lines is not None and value.strip() not in quote_lines:
        raise ScaleError(f"{where}: {value!r} is not a line of the scale's quote")
    return value.strip()


def _parse_brackets(rows: object, where: str, quote_lines: set[str]) -> tuple[Bracket, ...]:
    """Read the rows of a tonnage scale and check they start at 1 t and are contiguous."""
    if not isinstance(rows, list) or not rows:
        raise ScaleError(f"{where}: expected a non-empty array of tables")
    brackets = []
    for i, row in enumerate(rows):
        at = f"{where}[{i}]"
        row = _table(row, at, {"min_tons", "max_tons", "amount", "amount_cl", "text"})
        bracket = Bracket(
            min_tons=_tons(row["min_tons"], f"{at}.min_tons"),
            max_tons=_tons(row["max_tons"], f"{at}.max_tons"),
            amount=_money(row["amount"], f"{at}.amount"),
            amount_cl=_money(row["amount_cl"], f"{at}.amount_cl"),
            text=_text(row["text"], f"{at}.text", quote_lines),
        )
        if bracket.min_tons > bracket.max_tons:
            raise ScaleError(f"{at}: min_tons {bracket.min_tons} > max_tons {bracket.max_tons}")
        expected = brackets[-1].max_tons + 1 if brackets else 1
        if bracket.min_tons > expected:
            raise ScaleError(f"{at}: gap, starts at {bracket.min_tons} t, expected {expected} t")
        if bracket.min_tons < expected:
            raise ScaleError(f"{at}: overlap, starts at {bracket.min_tons} t, expected {expected} t")
        brackets.append(bracket)
    return tuple(brackets)


def _parse_items(rows: object, where: str, quote_lines: set[str]) -> tuple[Item, ...]:
    """Read the rows of a per-unit tariff and check their keys are unique identifiers."""
    if not isinstance(rows, list) or not rows:
        raise ScaleError(f"{where}: expected a non-empty array of tables")
    items: dict[str, Item] = {}
    for i, row in enumerate(rows):
        at = f"{where}[{i}]"
        row = _table(row, at, {"key", "amount", "amount_cl", "text"})
        key = row["key"]
        if not isinstance(key, str) or not key.isidentifier():
            raise ScaleError(f"{at}.key: must be an identifier, got {key!r}")
        if key in items:
            raise ScaleError(f"{at}.key: duplicate {key!r}")
        items[key] = Item(
            key=key,
            amount=_money(row["amount"], f"{at}.amount"),
            amount_cl=_money(row["amount_cl"], f"{at}.amount_cl"),
            text=_text(row["text"], f"{at}.text", quote_lines),
        )
    return tuple(items.values())


def _parse_not_charged(rows: object, where: str, item_keys: set[str]) -> tuple[NotCharged, ...]:
    """Read when a scale, or one of its rows (items scales only), is not charged, with the article and reason."""
    if not isinstance(rows, list):
        raise ScaleError(f"{where}: expected an array of tables")
    entries = []
    for i, row in enumerate(rows):
        at = f"{where}[{i}]"
        row = _table(row, at, {"when", "source", "article", "reason_es", "reason_en"}, {"row"} if item_keys else set())
        try:
            when = compile_rule(_text(row["when"], f"{at}.when"))
        except RuleError as exc:
            raise ScaleError(f"{at}.when: {exc}") from None
        if "row" in row and row["row"] not in item_keys:
            raise ScaleError(f"{at}.row: {row['row']!r} is not a row of the scale")
        entries.append(NotCharged(when, row.get("row"), _text(row["source"], f"{at}.source"),
                                  _text(row["article"], f"{at}.article"), _text(row["reason_es"], f"{at}.reason_es"),
                                  _text(row["reason_en"], f"{at}.reason_en")))
    return tuple(entries)


def _parse_scale(service: str, raw: object) -> Scale:
    """Validate one scale table."""
    where = f"scales.{service}"
    head = _table(raw, where, {"article", "title", "kind", "quote"},
                  {"ton_count", "brackets", "excess", "items", "not_charged"})
    article = _text(head["article"], f"{where}.article")
    title = _text(head["title"], f"{where}.title")
    quote = _text(head["quote"], f"{where}.quote")
    quote_lines = {line.strip() for line in quote.splitlines() if line.strip()}
    if head["kind"] == "tonnage":
        _table(raw, where, {"article", "title", "kind", "quote", "ton_count", "brackets"}, {"excess", "not_charged"})
        if head["ton_count"] not in TON_COUNTS:
            raise ScaleError(f"{where}.ton_count: must be one of {', '.join(TON_COUNTS)}")
        brackets = _parse_brackets(head["brackets"], f"{where}.brackets", quote_lines)
        excess = None
        if "excess" in head:
            at = f"{where}.excess"
            ex = _table(head["excess"], at, {"above_tons", "rate", "rate_cl", "text"})
            excess = Excess(
                above_tons=_tons(ex["above_tons"], f"{at}.above_tons"),
                rate=_money(ex["rate"], f"{at}.rate"),
                rate_cl=_money(ex["rate_cl"], f"{at}.rate_cl"),
                text=_text(ex["text"], f"{at}.text", quote_lines),
            )
            if excess.above_tons != brackets[-1].max_tons:
                raise ScaleError(
                    f"{at}.above_tons: {excess.above_tons} t does not follow the last row "
                    f"({brackets[-1].max_tons} t)"
                )
        not_charged = _parse_not_charged(head.get("not_charged", []), f"{where}.not_charged", set())
        return Scale(service, article, title, "tonnage", quote, head["ton_count"], brackets, excess,
                     not_charged=not_charged)
    if head["kind"] == "items":
        _table(raw, where, {"article", "title", "kind", "quote", "items"}, {"not_charged"})
        items = _parse_items(head["items"], f"{where}.items", quote_lines)
        not_charged = _parse_not_charged(head.get("not_charged", []), f"{where}.not_charged",
                                         {item.key for item in items})
        return Scale(service, article, title, "items", quote, items=items, not_charged=not_charged)
    raise ScaleError(f"{where}.kind: must be tonnage or items, got {head['kind']!r}")


def parse_scales(data: Mapping) -> Scales:
    """Validate fee-scale data (as read from TOML) and return it as frozen objects."""
    top = _table(dict(data), "fee scales", {"charged", "scales"})
    if top["charged"] not in COLUMNS:
        raise ScaleError(f"charged: must be one of {', '.join(COLUMNS)}, got {top['charged']!r}")
    raw = _table(top["scales"], "scales", set(SERVICES))
    by_service = {service: _parse_scale(service, raw[service]) for service in SERVICES}
    return Scales(charged=top["charged"], by_service=MappingProxyType(by_service))


@functools.lru_cache(maxsize=None)
def load_scales(path: str | PathLike | None = None) -> Scales:
    """Read and validate the fee scales once per path (at first use, not at import)."""
    with open(SCALES_PATH if path is None else path, "rb") as file:
        return parse_scales(tomllib.load(file))


# --- computing -----------------------------------------------------------------------------


def _line(text: str, quantity: int, unit_amount: Decimal, unit_amount_cl: Decimal) -> FeeLine:
    """Build a breakdown line, multiplying both figures by the quantity."""
    return FeeLine(text, quantity, unit_amount, unit_amount_cl,
                   unit_amount * quantity, unit_amount_cl * quantity)


def _tonnage_lines(scale: Scale, tons: Decimal) -> tuple[int, Bracket, tuple[FeeLine, ...]]:
    """Match a tonnage to its row (arts. 199, 209) and add the per-ton excess above the last row."""
    counted = int(tons.to_integral_value(rounding=TON_COUNTS[scale.ton_count]))
    first, last = scale.brackets[0], scale.brackets[-1]
    if counted < first.min_tons:
        raise ValueError(
            f"gross_tonnage {tons} counts as {counted} t, below the first row of "
            f"{scale.article} ({first.text!r})"
        )
    for bracket in scale.brackets:
        if bracket.min_tons <= counted <= bracket.max_tons:
            return counted, bracket, (_line(bracket.text, 1, bracket.amount, bracket.amount_cl),)
    if scale.excess is None:
        raise ValueError(f"gross_tonnage {tons} is above the last row of {scale.article}")
    excess = scale.excess
    return counted, last, (
        _line(last.text, 1, last.amount, last.amount_cl),
        _line(excess.text, counted - excess.above_tons, excess.rate, excess.rate_cl),
    )


def _item_lines(scale: Scale, counts: Mapping[str, object]) -> tuple[FeeLine, ...]:
    """Charge each art. 233 row per unit counted by the caller; at least one unit in all."""
    keys = {item.key for item in scale.items}
    unknown = counts.keys() - keys
    if unknown:
        raise ValueError(
            f"unexpected arguments for {scale.service}: {', '.join(sorted(unknown))}; "
            f"expected {', '.join(sorted(keys))}"
        )
    lines = []
    for item in scale.items:
        count = counts.get(item.key, 0)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"{item.key} must be a whole number >= 0, got {count!r}")
        if count:
            lines.append(_line(item.text, count, item.amount, item.amount_cl))
    if not lines:
        raise ValueError(
            f"{scale.article} charges per unit: give at least one of {', '.join(sorted(keys))}"
        )
    return tuple(lines)


def fee_for(service: str, gross_tonnage: Decimal, *, charged: str | None = None, **extra) -> Fee:
    """Compute the fee for a service on a vessel of gross_tonnage, keeping both printed figures."""
    if service not in SERVICES:
        raise ValueError(f"service must be one of {', '.join(SERVICES)}, got {service!r}")
    tons = to_positive_decimal(gross_tonnage, "gross_tonnage")
    scales = load_scales()
    column = scales.charged if charged is None else charged
    if column not in COLUMNS:
        raise ValueError(f"charged must be one of {', '.join(COLUMNS)}, got {charged!r}")
    scale = scales.by_service[service]
    counted = bracket = None
    if scale.kind == "tonnage":
        if extra:
            raise ValueError(
                f"unexpected arguments for {service}: {', '.join(sorted(extra))}"
            )
        counted, bracket, lines = _tonnage_lines(scale, tons)
    else:
        lines = _item_lines(scale, extra)
    return Fee(
        service=service,
        article=scale.article,
        gross_tonnage=tons,
        amount=sum((line.amount for line in lines), Decimal(0)),
        amount_cl=sum((line.amount_cl for line in lines), Decimal(0)),
        charged=column,
        counted_tons=counted,
        bracket=bracket,
        breakdown=lines,
    )


def not_charged(service: str, particulars: Mapping) -> tuple[NotCharged, ...]:
    """What the `service` scale does not charge this vessel, and why: the data's entries whose condition holds."""
    return tuple(entry for entry in load_scales().by_service[service].not_charged if entry.when.evaluate(particulars))


def _lifted(service: str, particulars: Mapping) -> set[str | None]:
    """The rows the data lifts off this vessel (None: the whole scale, as a raft's, art. 234)."""
    return {entry.row for entry in not_charged(service, particulars)}


def inspection_fees(kind: str, particulars: Mapping, services: Mapping[str, int] | None = None) -> tuple[Fee, ...]:
    """What an inspection of `kind` charges: art. 209 by certified tonnage for the hull; art. 233 per boiler and
    per report or resealing the inspector recorded (`services`), for the machinery.

    A scale or row the data lifts off the vessel charges nothing (not_charged says why). Late doubles (art. 204)
    and expenses outside the capital (arts. 209, 215) are not scale rows and are not computed here.
    """
    tons = shown_tonnage(particulars["gross_tonnage"])
    lifted = _lifted(kind, particulars)
    if None in lifted:
        return ()
    if kind == "navegabilidad":
        return (fee_for("navegabilidad", tons),)
    counts = {"boilers": int(particulars.get("boilers") or 0), **(services or {})}
    counts = {key: count for key, count in counts.items() if count and key not in lifted}
    return (fee_for("seguridad", tons, **counts),) if counts else ()


def arqueo_fee(particulars: Mapping) -> Fee | None:
    """What an arqueo of this vessel charges (art. 199, by the tonnage measured), or None when it is not measured."""
    if None in _lifted("arqueo", particulars):
        return None
    return fee_for("arqueo", shown_tonnage(particulars["gross_tonnage"]))


def note_json(entry: NotCharged, lang: str) -> dict:
    """A not_charged entry as a statement shows it: source, article and the reason in `lang`."""
    return {"source": entry.source, "article": entry.article, "reason": entry.reason(lang)}


def fee_statement(fees: tuple[Fee, ...], notes: tuple[NotCharged, ...] = (), lang: str = "es") -> dict:
    """The fee lines of an inspection as people and the API read them: source, article, both figures, and the
    notes that say what is not charged and why."""
    lines = []
    for fee in fees:
        source, _, article = fee.article.partition(", art. ")
        for line in fee.breakdown:
            charged = line.amount_cl if fee.charged == "amount_cl" else line.amount
            lines.append({"source": source, "article": article, "description": line.text,
                          "quantity": line.quantity, "amount": charged,
                          "amount_first": line.amount, "amount_cl": line.amount_cl})
    return {"lines": lines, "total": sum((line["amount"] for line in lines), Decimal(0)),
            "charged": fees[0].charged if fees else load_scales().charged,
            "notes": [note_json(entry, lang) for entry in notes]}
