"""Certificate numbers that people read aloud and type: ``{KIND}-{YEAR}-{SERIAL:06d}-{CHECK}``.

Example: ``SEG-2026-000123-7``. KIND is ``NAV`` (navegabilidad, Ley 928 arts. 201-210) or
``SEG`` (seguridad, arts. 168, 211-226).

Check character: the Damm algorithm (H. M. Damm, 2004) over the ten digits YEAR+SERIAL.
Chosen over ISO 7064 MOD 11,10 and MOD 37,36 because Damm's weakly totally anti-symmetric
quasigroup of order 10 detects *every* single-digit substitution and *every* adjacent
transposition (including one involving the check digit itself) while keeping the check a plain
digit (MOD 11,10 misses some transpositions; MOD 37,36 yields letters that are read aloud badly).
The letters need no check: the only kinds are NAV and SEG, which differ in all three letters,
so a single substitution or a transposition of letters gives an unknown kind and is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "CertificateNumber",
    "KIND_PREFIXES",
    "damm_check_digit",
    "format_number",
    "parse_number",
]

KIND_PREFIXES = {"navegabilidad": "NAV", "seguridad": "SEG"}
_KINDS_BY_PREFIX = {prefix: kind for kind, prefix in KIND_PREFIXES.items()}

# Damm's published quasigroup table of order 10 (weakly totally anti-symmetric, zero diagonal).
_DAMM = (
    (0, 3, 1, 7, 5, 9, 8, 6, 4, 2),
    (7, 0, 9, 2, 1, 5, 4, 8, 6, 3),
    (4, 2, 0, 6, 8, 7, 1, 3, 5, 9),
    (1, 7, 5, 0, 9, 8, 3, 4, 2, 6),
    (6, 1, 2, 3, 0, 4, 5, 9, 7, 8),
    (3, 6, 7, 4, 2, 0, 9, 5, 8, 1),
    (5, 8, 6, 9, 7, 2, 0, 1, 3, 4),
    (8, 9, 4, 5, 3, 6, 2, 0, 1, 7),
    (9, 4, 3, 8, 6, 1, 7, 2, 0, 5),
    (2, 5, 8, 1, 4, 3, 6, 7, 9, 0),
)

_NORMALIZED = re.compile(r"([A-Z]{3})(\d{4})(\d{6})([0-9])")
_SEPARATORS = re.compile(r"[\s\-‐‑–—_./]+")


def damm_check_digit(digits: str) -> str:
    """Return the Damm check digit for a string of decimal digits."""
    interim = 0
    for ch in digits:
        interim = _DAMM[interim][int(ch)]
    return str(interim)


@dataclass(frozen=True, order=True)
class CertificateNumber:
    """A parsed certificate number; ``str()`` gives the canonical printed form."""

    kind: str  # "navegabilidad" or "seguridad"
    year: int
    serial: int

    @property
    def check(self) -> str:
        """The Damm check digit over YEAR and SERIAL."""
        return damm_check_digit(f"{self.year:04d}{self.serial:06d}")

    def __str__(self) -> str:
        """Canonical form, e.g. SEG-2026-000123-7."""
        return f"{KIND_PREFIXES[self.kind]}-{self.year:04d}-{self.serial:06d}-{self.check}"


def format_number(kind: str, year: int, serial: int) -> str:
    """Format a new certificate number; kind is "navegabilidad"/"seguridad" or "NAV"/"SEG"."""
    kind = _KINDS_BY_PREFIX.get(kind, kind)
    if kind not in KIND_PREFIXES:
        raise ValueError(f"unknown certificate kind {kind!r}")
    if not 1000 <= year <= 9999:
        raise ValueError("year must have four digits")
    if not 1 <= serial <= 999_999:
        raise ValueError("serial must be between 1 and 999999")
    return str(CertificateNumber(kind, year, serial))


def parse_number(text: str) -> CertificateNumber:
    """Parse a typed number, tolerant of case, spaces and missing dashes; ValueError if wrong."""
    if not isinstance(text, str):
        raise ValueError("certificate number must be text")
    compact = _SEPARATORS.sub("", text.strip().upper())
    match = _NORMALIZED.fullmatch(compact)
    if not match:
        raise ValueError(
            f"{text!r} is not a certificate number: expected KIND-YEAR-SERIAL-CHECK, "
            "e.g. SEG-2026-000123-7"
        )
    prefix, year, serial, check = match.groups()
    if prefix not in _KINDS_BY_PREFIX:
        raise ValueError(f"unknown certificate kind {prefix!r}: expected NAV or SEG")
    if int(serial) == 0 or year.startswith("0"):
        raise ValueError(f"{text!r} has an impossible year or serial")
    number = CertificateNumber(_KINDS_BY_PREFIX[prefix], int(year), int(serial))
    if check != number.check:
        raise ValueError(
            f"bad check character {check!r} in {text!r}: the number was mistyped or is not genuine"
        )
    return number
