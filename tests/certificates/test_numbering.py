"""Certificate numbers: format, tolerant parsing, and a check digit that catches typos."""

import random
import string

import pytest

from inspection.certificates.numbering import CertificateNumber, damm_check_digit, format_number, parse_number

ALPHABET = string.ascii_uppercase + string.digits


@pytest.mark.parametrize(
    "digits, check",
    [("572", "4"), ("5724", "0"), ("0000000000", "0"), ("2026000123", "8")],
)
def test_damm_known_values(digits, check):
    """Damm's published example (572 -> 4) and a number whose full codeword checks to 0."""
    assert damm_check_digit(digits) == check


@pytest.mark.parametrize(
    "kind, year, serial, expected",
    [
        ("seguridad", 2026, 123, "SEG-2026-000123-8"),
        ("SEG", 2026, 123, "SEG-2026-000123-8"),
        ("navegabilidad", 2026, 1, "NAV-2026-000001-5"),
        ("navegabilidad", 2031, 999_999, None),
    ],
)
def test_format_number(kind, year, serial, expected):
    """KIND-YEAR-SERIAL(6)-CHECK, and parse gives the parts back."""
    text = format_number(kind, year, serial)
    if expected:
        assert text == expected
    parsed = parse_number(text)
    assert (parsed.year, parsed.serial, str(parsed)) == (year, serial, text)


@pytest.mark.parametrize(
    "kind, year, serial",
    [("otro", 2026, 1), ("seguridad", 26, 1), ("seguridad", 2026, 0), ("seguridad", 2026, 10**6)],
)
def test_format_number_refuses_bad_parts(kind, year, serial):
    """Unknown kinds, short years and out-of-range serials are refused."""
    with pytest.raises(ValueError):
        format_number(kind, year, serial)


@pytest.mark.parametrize(
    "typed",
    [
        "SEG-2026-000123-8",
        "seg-2026-000123-8",
        "SEG 2026 000123 8",
        "SEG20260001238",
        "  seg 2026-000123 8 ",
        "SEG–2026–000123–8",  # en dashes from a word processor
        "SEG/2026/000123/8",
    ],
)
def test_parse_is_tolerant_of_case_spaces_and_dashes(typed):
    """What a person types or copies is accepted when the digits check."""
    assert parse_number(typed) == CertificateNumber("seguridad", 2026, 123)


@pytest.mark.parametrize(
    "typed, reason",
    [
        ("SEG-2026-000123-7", "check character"),
        ("XYZ-2026-000123-8", "unknown certificate kind"),
        ("SEG-2026-00123-8", "not a certificate number"),
        ("SEG-2026-000123", "not a certificate number"),
        ("", "not a certificate number"),
        ("SEG-0026-000123-3", "impossible"),
    ],
)
def test_parse_explains_what_is_wrong(typed, reason):
    """A bad number raises ValueError with a clear reason."""
    with pytest.raises(ValueError, match=reason):
        parse_number(typed)


def _sample_numbers():
    """Edge serials plus a seeded random sample of both kinds."""
    rnd = random.Random(2026)
    sample = [("seguridad", 2026, 1), ("navegabilidad", 2026, 999_999), ("seguridad", 1999, 100_000)]
    sample += [
        (rnd.choice(["seguridad", "navegabilidad"]), rnd.randint(2000, 2099), rnd.randint(1, 999_999))
        for _ in range(40)
    ]
    return [format_number(*parts) for parts in sample]


@pytest.mark.parametrize("number", _sample_numbers())
def test_every_single_substitution_is_detected(number):
    """Replacing any one character by any other letter or digit never parses."""
    for i, original in enumerate(number):
        for ch in ALPHABET:
            if ch == original:
                continue
            typo = number[:i] + ch + number[i + 1:]
            with pytest.raises(ValueError):
                parse_number(typo)


@pytest.mark.parametrize("number", _sample_numbers())
def test_every_adjacent_transposition_is_detected(number):
    """Swapping two neighbours never parses as another number (a dash moving is harmless)."""
    expected = parse_number(number)
    for i in range(len(number) - 1):
        a, b = number[i], number[i + 1]
        if a == b:
            continue
        typo = number[:i] + b + a + number[i + 2:]
        if typo.replace("-", "") == number.replace("-", ""):
            assert parse_number(typo) == expected  # only a separator moved
            continue
        with pytest.raises(ValueError):
            parse_number(typo)


def test_damm_catches_all_single_errors_and_transpositions_exhaustively_for_three_digits():
    """Over all 3-digit bodies: every substitution and adjacent swap changes the codeword check."""
    for n in range(1000):
        body = f"{n:03d}"
        word = body + damm_check_digit(body)
        for i in range(4):
            for d in string.digits:
                if d != word[i]:
                    changed = word[:i] + d + word[i + 1:]
                    assert damm_check_digit(changed) != "0", changed
        for i in range(3):
            if word[i] != word[i + 1]:
                swapped = word[:i] + word[i + 1] + word[i] + word[i + 2:]
                assert damm_check_digit(swapped) != "0", swapped
