"""Tonnage measurement (arqueo) by the formula of Ley 928/1927, art. 195; pure functions.

Art. 195 (quoted from checklists/sources/ley-928-1927-arts-123-238.txt):

    "La unidad para efectuar la medida de la capacidad interior de una embarcación es la
    tonelada de arqueo que equivale a cien (100) pies cúbicos ingleses o sean 2.83 metros
    cúbicos. Para determinar el arqueo se procede por el método siguiente: Se mide la eslora
    del buque y la manga en el fuerte, se señalan en los costados en una misma perpendicular,
    al plano diametral que pasa por el sitio de la mayor manga y los cantos superiores de la
    cubierta alta, se hace pasar bajo la quilla una cadena que vaya de una a otra señal y se
    mide su longitud. Obtenidas dichas dimensiones se suman la manga y el contorno exterior
    dado por la cadena; de esta suma se toma la mitad, se eleva al cuadrado y el resultado se
    multiplica por la eslora y después por el factor 0.18, si los buques son de caso de
    hierro, o por 0.17, si son de casco de madera o mixto. En ambos casos el resultado
    obtenido, se divide por 2.83 para obtener el tonelaje."

So: tonnage = ((beam + girth) / 2)² × length × factor / 2.83.

Readings of the text (recorded so they can be challenged):
- Units are metres: the divisor 2.83 is the article's cubic metres per ton of 100 ft³
  (the exact conversion is 2.8317; the law's rounded 2.83 is used, as written).
- length = "eslora" (the text does not say which length; the caller measures it as the
  inspector does, art. 197 records "eslora en la cubierta de arqueo").
- beam = "manga en el fuerte": the greatest breadth, outside the hull.
- girth = neither "manga" nor "puntal" (depth) nor a full "circunferencia": it is the
  "contorno exterior dado por la cadena", the length of a chain passed under the keel from
  the top edge of the upper deck on one side to the same point on the other, in the
  transverse section of greatest beam.
- factor 0.18 "si los buques son de caso de hierro" (so printed: "caso" is a misprint of "casco",
  an iron hull); 0.17 "si son de casco de madera o mixto" (wood or composite), as the text says.
  Steel takes the iron factor 0.18: in 1927 "hierro" named the metal hull, and steel is iron with
  carbon whose hull is built and measured the same way (checklists/INTERPRETATIONS.md, Decisions).
- The result is stored as the vessel's gross ("total", art. 197) tonnage; the article gives
  no deductions, so no net tonnage is computed here.
- Rounding is not in the law: the exact quotient is kept (the register stores 6 decimals, the figure the
  rules and fees read), and shown_tonnage() gives the figure pages, certificates and fees use: 2 decimals,
  rounded half up, except where 2 decimals would make it a whole ton it is not (4.998 t is not 5.00 t: it is
  under art. 210's five tons). Every tonnage the law compares is a whole ton (arts. 153, 210; the rows of
  arts. 199, 209), so the shown figure is always on the same side of them as the figure the rule reads.
"""
from __future__ import annotations

import decimal
from decimal import ROUND_HALF_UP, Decimal

from inspection.i18n.formats import format_number

# Art. 195: "el factor 0.18, si los buques son de caso de hierro, o por 0.17, si son de casco
# de madera o mixto" ("caso" so printed, for "casco"). A steel hull is an iron hull for art. 195: the
# law's factor for the metal hull, not a new one (checklists/INTERPRETATIONS.md, Decisions).
HULL_FACTORS = {"iron": Decimal("0.18"), "steel": Decimal("0.18"), "wood": Decimal("0.17"),
                "mixed": Decimal("0.17")}
# Art. 195: "tonelada de arqueo que equivale a cien (100) pies cúbicos ingleses o sean 2.83
# metros cúbicos".
CUBIC_METRES_PER_TON = Decimal("2.83")
ARTICLE = "Ley 928/1927, art. 195"

# Sums, halves and products of finite decimals are exact; only the final division needs a
# precision, and 40 digits is comfortably more than the 28 promised.
_EXACT = decimal.Context(
    prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN, traps=[decimal.Inexact]
)
_QUOTIENT = decimal.Context(prec=40)
# The register keeps 6 decimals (the vessel's Numeric(16, 6) column): the figure the rules and fees read.
_REGISTER = Decimal("0.000001")

_HULL_NAMES = {
    "es": {"iron": "casco de hierro", "steel": "casco de acero, factor del hierro", "wood": "casco de madera",
           "mixed": "casco mixto"},
    "en": {"iron": "iron hull", "steel": "steel hull, iron's factor", "wood": "wooden hull", "mixed": "mixed hull"},
}
_TEMPLATES = {
    "es": (
        "{article}: ((manga {beam} m + contorno {girth} m) ÷ 2)² × eslora {length} m"
        " × {factor} ({hull}) ÷ {divisor} m³ = {half}² × {length} × {factor} ÷ {divisor}"
        " = {numerator} ÷ {divisor} = {result} t"
    ),
    "en": (
        "{article}: ((beam {beam} m + girth {girth} m) ÷ 2)² × length {length} m"
        " × {factor} ({hull}) ÷ {divisor} m³ = {half}² × {length} × {factor} ÷ {divisor}"
        " = {numerator} ÷ {divisor} = {result} t"
    ),
}


def to_positive_decimal(value: object, field: str) -> Decimal:
    """Read a number via its string form as a finite positive Decimal; ValueError names field."""
    if isinstance(value, bool):
        raise ValueError(f"{field} must be a positive number, got {value!r}")
    try:
        number = value if isinstance(value, Decimal) else Decimal(str(value).strip())
    except (decimal.InvalidOperation, ValueError, TypeError):
        raise ValueError(f"{field} must be a positive number, got {value!r}") from None
    if not number.is_finite() or number <= 0:
        raise ValueError(f"{field} must be a positive number, got {value!r}")
    return number


def _hull_factor(hull_material: object) -> Decimal:
    """Return the art. 195 factor for a hull material, or raise ValueError naming the field."""
    try:
        return HULL_FACTORS[hull_material]  # type: ignore[index]
    except (KeyError, TypeError):
        allowed = ", ".join(HULL_FACTORS)
        raise ValueError(f"hull_material must be one of {allowed}, got {hull_material!r}") from None


def _terms(length, beam, girth, hull_material) -> tuple[Decimal, ...]:
    """Validate the inputs and return (length, beam, girth, factor, half, numerator), all exact."""
    length_d = to_positive_decimal(length, "length_m")
    beam_d = to_positive_decimal(beam, "beam_m")
    girth_d = to_positive_decimal(girth, "girth_m")
    factor = _hull_factor(hull_material)
    # Art. 195: "se suman la manga y el contorno exterior ...; de esta suma se toma la mitad,
    # se eleva al cuadrado y el resultado se multiplica por la eslora y después por el factor".
    half = _EXACT.divide(_EXACT.add(beam_d, girth_d), 2)
    numerator = _EXACT.multiply(_EXACT.multiply(_EXACT.multiply(half, half), length_d), factor)
    return length_d, beam_d, girth_d, factor, half, numerator


def gross_tonnage(length_m, beam_m, girth_m, hull_material: str) -> Decimal:
    """Return the exact art. 195 tonnage (40 significant digits) of a hull measured in metres."""
    *_, numerator = _terms(length_m, beam_m, girth_m, hull_material)
    # Art. 195: "el resultado obtenido, se divide por 2.83 para obtener el tonelaje".
    return _QUOTIENT.divide(numerator, CUBIC_METRES_PER_TON)


def registered_tonnage(length_m, beam_m, girth_m, hull_material: str) -> Decimal:
    """The art. 195 tonnage to the 6 decimals the register keeps, the figure the rules and fees read."""
    return gross_tonnage(length_m, beam_m, girth_m, hull_material).quantize(_REGISTER)


def shown_tonnage(value) -> Decimal:
    """The tonnage as shown and charged: 2 decimals half up, more where 2 would make it a whole ton it is not.

    The law's tonnage limits are whole tons, so a figure rounded to 2 decimals reads on the wrong side of one
    only when the rounding makes it whole (4.998 t shown 5.00 t, under art. 210's five tons all the same); such
    a figure keeps as few more decimals as tell it from the whole ton, up to all it has.
    """
    number = value if isinstance(value, Decimal) else Decimal(str(value))
    if not number.is_finite():
        raise ValueError(f"tonnage must be a finite number, got {value!r}")
    places = 2
    while True:
        shown = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
        if shown == number or shown != shown.to_integral_value():
            return shown
        places += 1


def format_tonnage(value, lang: str = "es") -> str:
    """shown_tonnage() in the language's format, with every decimal it keeps ("4,998", "1.234,57", "5,00")."""
    shown = shown_tonnage(value)
    return format_number(shown, -shown.as_tuple().exponent, lang)


def tonnage_formula(length, beam, girth, hull_material: str, lang: str = "es") -> str:
    """Describe the art. 195 computation with the vessel's numbers, for the vessel page."""
    if lang not in _TEMPLATES:
        raise ValueError(f"lang must be one of {', '.join(_TEMPLATES)}, got {lang!r}")
    length_d, beam_d, girth_d, factor, half, numerator = _terms(length, beam, girth, hull_material)
    result = _QUOTIENT.divide(numerator, CUBIC_METRES_PER_TON).quantize(_REGISTER)
    numbers = {
        name: format_number(value, lang=lang, max_places=6)
        for name, value in {
            "length": length_d, "beam": beam_d, "girth": girth_d, "factor": factor,
            "half": half, "numerator": numerator, "divisor": CUBIC_METRES_PER_TON,
            "result": result,
        }.items()
    }
    numbers["result"] = format_tonnage(result, lang)  # the certified figure, as pages show it
    return _TEMPLATES[lang].format(
        article=ARTICLE, hull=_HULL_NAMES[lang][hull_material], **numbers
    )
