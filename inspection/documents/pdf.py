"""Drawing helpers every printed document shares (certificate, inspection report, fee statement), on fpdf2.

Pure: values in, an FPDF out. Text uses the PDF core fonts (Times, Courier) with the windows-1252
encoding, which covers Spanish accents, ñ, º, « » and the em dash; any other character prints "?".
"""
from __future__ import annotations

import datetime as dt
import io

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from inspection.i18n.formats import format_day, format_number
from inspection.i18n.labels import label
from inspection.law.tonnage import format_tonnage

NAVY = (18, 42, 84)
GOLD = (150, 120, 50)
INK = (25, 25, 25)
GREY = (70, 70, 70)
SHADE = (236, 239, 245)
DASH = "—"

PAGE_W, PAGE_H = 210, 297
LEFT, RIGHT = 18, 192


def as_date(value) -> dt.date | None:
    """Accept a date, a datetime, an ISO date string or None."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])


def long_date(value, lang: str = "es") -> str:
    """'15 de marzo de 2026' (or 'March 15, 2026'); an em dash when missing."""
    day = as_date(value)
    return DASH if day is None else format_day(day, lang)


def decimal_text(value, places: int, unit: str = "", lang: str = "es") -> str:
    """A number in the language's format ('1.234,50 m' in Spanish); an em dash when missing."""
    if value is None or value == "":
        return DASH
    return f"{format_number(value, places, lang)} {unit}".strip()


def tonnage_text(value, lang: str = "es") -> str:
    """A tonnage as shown (law.tonnage.shown_tonnage: '4,998 t', '1.234,57 t'); an em dash when missing."""
    return DASH if value is None or value == "" else f"{format_tonnage(value, lang)} t"


def plain(value) -> str:
    """A value as text, or an em dash for a missing one."""
    return DASH if value is None or value == "" else str(value)


def coded(field: str, value, lang: str = "es") -> str:
    """An api.md enum value as people read it in `lang`, or an em dash."""
    return label(field, value, lang) if value not in (None, "") else DASH


class DocumentPDF(FPDF):
    """An A4 portrait FPDF on core fonts with the authority's headings, rules and signature slots."""

    left, right = LEFT, RIGHT

    def __init__(self, title: str, created_on: dt.date | None, zone: dt.tzinfo | None = None) -> None:
        super().__init__(orientation="P", unit="mm", format="A4")
        self.core_fonts_encoding = "windows-1252"  # accents, ñ, º and the em dash in core fonts
        self.set_margins(self.left, 16, PAGE_W - self.right)
        self.set_title(title)
        self.set_author("Prefectura General de Puertos")
        self.set_creator("Baliza")
        day = created_on or dt.date(1970, 1, 1)
        # Deterministic output: the document's date is the day it records, at midnight on the office's
        # clock, not the rendering time (a reader's viewer would otherwise show the day before).
        self.set_creation_date(dt.datetime(day.year, day.month, day.day, tzinfo=zone or dt.timezone.utc))

    @property
    def width(self) -> float:
        """The content width between the margins."""
        return self.right - self.left

    def normalize_text(self, text: str) -> str:
        """Replace characters windows-1252 lacks by '?' instead of failing the whole PDF."""
        if not self.is_ttf_font and self.core_fonts_encoding:
            text = text.encode(self.core_fonts_encoding, "replace").decode(self.core_fonts_encoding)
        return super().normalize_text(text)

    def centered(self, text: str, size: float, style: str = "", h: float | None = None,
                 color=INK, family: str = "Times", spacing: float = 0):
        """One centred line across the content width."""
        self.set_font(family, style, size)
        self.set_text_color(*color)
        self.set_char_spacing(spacing)
        self.set_x(self.left)
        self.cell(self.width, h or size * 0.45, text, align="C", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.set_char_spacing(0)

    def rule(self, y: float, x1: float | None = None, x2: float | None = None, color=GOLD, width: float = 0.3):
        """Horizontal rule (the content width unless told)."""
        self.set_draw_color(*color)
        self.set_line_width(width)
        self.line(self.left if x1 is None else x1, y, self.right if x2 is None else x2, y)

    def heading(self, text: str, x: float | None = None, w: float | None = None):
        """Small-caps style section heading with a rule under it."""
        x = self.left if x is None else x
        w = self.width if w is None else w
        self.set_font("Times", "B", 9.5)
        self.set_text_color(*NAVY)
        self.set_char_spacing(0.6)
        self.set_x(x)
        self.cell(w, 5, text.upper(), new_x=XPos.LEFT, new_y=YPos.NEXT)
        self.set_char_spacing(0)
        self.rule(self.get_y(), x, x + w, NAVY, 0.25)
        self.set_y(self.get_y() + 1.2)

    def letterhead(self, office_name: str | None, authority: str):
        """The authority and the issuing office, centred, with a double gold rule under them."""
        self.centered("REPÚBLICA DEL PARAGUAY", 15, "B", 7, NAVY, spacing=1.5)
        self.centered(authority, 13, "B", 6.5, NAVY)
        if office_name:
            self.centered(office_name, 10.5, "I", 5.5)
        y = self.get_y() + 2
        self.rule(y, 60, 150, GOLD, 0.5)
        self.rule(y + 1, 75, 135, GOLD, 0.2)
        self.set_y(y + 4)

    def signatures(self, signers: list[dict], y: float):
        """Signature slots side by side: the drawn signature (PNG bytes, optional) above its line, name, role."""
        slot = self.width / max(len(signers), 1)
        half = min(30, slot / 2 - 3)
        line_y = y + 21
        for i, signer in enumerate(signers):
            cx = self.left + slot * i + slot / 2
            if signer.get("image"):  # fitted into the box above its line
                self.image(io.BytesIO(signer["image"]), x=cx - half, y=line_y - 15.5, w=2 * half, h=15,
                           keep_aspect_ratio=True)
            self.rule(line_y, cx - half, cx + half, INK, 0.3)
            self.set_xy(cx - slot / 2, line_y + 1.2)
            self.set_font("Times", "B", 10.5)
            self.set_text_color(*INK)
            self.cell(slot, 5, signer.get("name") or "", align="C")
            self.set_xy(cx - slot / 2, line_y + 6)
            self.set_font("Times", "", 9.5)
            self.set_text_color(*NAVY)
            self.cell(slot, 4.5, signer.get("role", ""), align="C")
        self.set_text_color(*INK)
        self.set_xy(self.left, line_y + 12)
