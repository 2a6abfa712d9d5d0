"""Tests for the fee scales of Ley 928/1927, arts. 199, 209 and 233 (inspection.law.fees); pure, no app."""
import copy
import dataclasses
import tomllib
from decimal import Decimal
from pathlib import Path

import pytest

from inspection.law import fees
from inspection.law.fees import (
    SCALES_PATH,
    Fee,
    ScaleError,
    arqueo_fee,
    fee_for,
    fee_statement,
    inspection_fees,
    load_scales,
    not_charged,
    parse_scales,
)
from inspection.law.tonnage import gross_tonnage
from tests.fixtures.checklists import vessel_particulars

LAW = Path(__file__).resolve().parents[2] / "checklists" / "sources" / "ley-928-1927-arts-123-238.txt"
TONNAGE_SERVICES = ["arqueo", "navegabilidad"]

# (gross tonnage, counted tons, row min, row max, amount, amount_cl), art. 199 = art. 209.
# Every printed boundary, a hair either side of it, and the excess above 250 t.
TONNAGE_CASES = [
    ("0.01", 1, 1, 25, "150", "450"),
    ("1", 1, 1, 25, "150", "450"),
    ("24.99", 25, 1, 25, "150", "450"),
    ("25", 25, 1, 25, "150", "450"),
    ("25.00", 25, 1, 25, "150", "450"),
    ("25.01", 26, 26, 50, "200", "600"),
    ("26", 26, 26, 50, "200", "600"),
    ("50", 50, 26, 50, "200", "600"),
    ("50.01", 51, 51, 100, "250", "750"),
    ("51", 51, 51, 100, "250", "750"),
    ("100", 100, 51, 100, "250", "750"),
    ("100.01", 101, 101, 200, "300", "1000"),
    ("101", 101, 101, 200, "300", "1000"),
    ("200", 200, 101, 200, "300", "1000"),
    ("200.01", 201, 201, 250, "350", "1250"),
    ("201", 201, 201, 250, "350", "1250"),
    ("250", 250, 201, 250, "350", "1250"),
    # Above 250 t: last row plus 1 per started ton of excess, in both columns.
    ("250.01", 251, 201, 250, "351", "1251"),
    ("251", 251, 201, 250, "351", "1251"),
    ("300", 300, 201, 250, "400", "1300"),
    ("346.33", 347, 201, 250, "447", "1347"),
    ("1000.5", 1001, 201, 250, "1101", "2001"),
]


@pytest.mark.parametrize("service", TONNAGE_SERVICES)
@pytest.mark.parametrize(("tons", "counted", "low", "high", "amount", "amount_cl"), TONNAGE_CASES)
def test_tonnage_scales_at_every_boundary(service, tons, counted, low, high, amount, amount_cl):
    fee = fee_for(service, Decimal(tons))
    assert (fee.bracket.min_tons, fee.bracket.max_tons) == (low, high)
    assert fee.counted_tons == counted
    assert fee.amount == Decimal(amount)
    assert fee.amount_cl == Decimal(amount_cl)
    assert fee.charged == "amount_cl"
    assert fee.charged_amount == Decimal(amount_cl)


@pytest.mark.parametrize(("service", "article"), [
    ("arqueo", "Ley 928/1927, art. 199"),
    ("navegabilidad", "Ley 928/1927, art. 209"),
    ("seguridad", "Ley 928/1927, art. 233"),
])
def test_fee_cites_its_article(service, article):
    extra = {"boilers": 1} if service == "seguridad" else {}
    assert fee_for(service, Decimal("30"), **extra).article == article


def test_fee_is_frozen():
    fee = fee_for("arqueo", Decimal("30"))
    assert isinstance(fee, Fee)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fee.amount = Decimal(0)  # type: ignore[misc]


def test_breakdown_within_a_row():
    fee = fee_for("arqueo", Decimal("30"))
    (line,) = fee.breakdown
    assert line.text == "De 26 a 50 toneladas $ 200.- c/l. 600"
    assert (line.quantity, line.amount, line.amount_cl) == (1, Decimal(200), Decimal(600))


def test_breakdown_above_250_tons():
    fee = fee_for("navegabilidad", Decimal("346.33"))
    row, excess = fee.breakdown
    assert row.text == "De 201 a 250 toneladas $ 350.- c/l. 1250"
    assert excess.text.startswith("El exceso de doscientos cincuenta toneladas")
    assert (excess.quantity, excess.unit_amount, excess.unit_amount_cl) == (97, Decimal(1), Decimal(1))
    assert fee.amount == sum(line.amount for line in fee.breakdown)
    assert fee.amount_cl == sum(line.amount_cl for line in fee.breakdown)


@pytest.mark.parametrize(("charged", "expected"), [("amount", "447"), ("amount_cl", "1347"), (None, "1347")])
def test_charged_figure_is_a_parameter(charged, expected):
    fee = fee_for("arqueo", Decimal("346.33"), charged=charged)
    assert fee.charged_amount == Decimal(expected)
    # Both figures are always kept, whichever is charged.
    assert (fee.amount, fee.amount_cl) == (Decimal(447), Decimal(1347))


@pytest.mark.parametrize("tons", ["30", 30, 30.0])
def test_tonnage_may_arrive_as_string_int_or_float(tons):
    assert fee_for("arqueo", tons).amount_cl == Decimal(600)


# --- art. 233: per boiler, per report, per resealing ------------------------------------------

@pytest.mark.parametrize(
    ("counts", "amount", "amount_cl"),
    [
        ({"boilers": 1}, "350", "100"),
        ({"boilers": 2}, "700", "200"),
        ({"reports": 1}, "500", "200"),
        ({"valve_reseals": 1}, "150", "350"),
        ({"valve_reseals": 3}, "450", "1050"),
        ({"boilers": 2, "reports": 1, "valve_reseals": 1}, "1350", "750"),
        ({"boilers": 0, "reports": 1}, "500", "200"),
    ],
)
def test_machinery_tariff_is_per_unit(counts, amount, amount_cl):
    fee = fee_for("seguridad", Decimal("120"), **counts)
    assert (fee.amount, fee.amount_cl) == (Decimal(amount), Decimal(amount_cl))
    assert fee.bracket is None and fee.counted_tons is None
    assert [line.quantity for line in fee.breakdown] == [n for n in counts.values() if n]


def test_machinery_tariff_ignores_tonnage():
    small = fee_for("seguridad", Decimal("3"), boilers=1)
    large = fee_for("seguridad", Decimal("3000"), boilers=1)
    assert (small.amount, small.amount_cl) == (large.amount, large.amount_cl)


@pytest.mark.parametrize(
    ("counts", "match"),
    [
        ({}, "at least one"),
        ({"boilers": 0}, "at least one"),
        ({"boilers": -1}, "boilers"),
        ({"boilers": 1.5}, "boilers"),
        ({"boilers": "2"}, "boilers"),
        ({"boilers": True}, "boilers"),
        ({"reports": None}, "reports"),
        ({"horsepower": 300}, "horsepower"),
        ({"boilers": 1, "calderas": 1}, "calderas"),
    ],
)
def test_machinery_tariff_rejects_bad_counts(counts, match):
    with pytest.raises(ValueError, match=match):
        fee_for("seguridad", Decimal("120"), **counts)


# --- invalid input ----------------------------------------------------------------------------

@pytest.mark.parametrize("service", ["arqueo", "navegabilidad", "seguridad"])
@pytest.mark.parametrize("tons", ["0", "-1", "-0.01", 0, "abc", "", None, True, "NaN", "Infinity"])
def test_invalid_tonnage(service, tons):
    with pytest.raises(ValueError, match="gross_tonnage"):
        fee_for(service, tons, **({"boilers": 1} if service == "seguridad" else {}))


@pytest.mark.parametrize("service", ["", "Arqueo", "casco", "maquinas", None])
def test_unknown_service(service):
    with pytest.raises(ValueError, match="service"):
        fee_for(service, Decimal("30"))


@pytest.mark.parametrize("service", TONNAGE_SERVICES)
def test_tonnage_scales_take_no_extra_arguments(service):
    with pytest.raises(ValueError, match="boilers"):
        fee_for(service, Decimal("30"), boilers=1)


@pytest.mark.parametrize("charged", ["oro", "cl", "", "AMOUNT"])
def test_unknown_charged_figure(charged):
    with pytest.raises(ValueError, match="charged"):
        fee_for("arqueo", Decimal("30"), charged=charged)


# --- the data file and its loader -------------------------------------------------------------

def raw_scales() -> dict:
    """Return a fresh copy of the shipped data, for tests that break it."""
    with open(SCALES_PATH, "rb") as file:
        return copy.deepcopy(tomllib.load(file))


def test_loader_is_cached():
    assert load_scales() is load_scales()
    assert load_scales.cache_info().hits >= 1


def test_shipped_scales_are_valid_and_default_to_curso_legal():
    scales = parse_scales(raw_scales())
    assert scales.charged == "amount_cl"
    assert set(scales.by_service) == {"arqueo", "navegabilidad", "seguridad"}
    for service in TONNAGE_SERVICES:
        brackets = scales.by_service[service].brackets
        assert [(b.min_tons, b.max_tons) for b in brackets] == [
            (1, 25), (26, 50), (51, 100), (101, 200), (201, 250)
        ]


def test_arts_199_and_209_print_the_same_rows():
    scales = load_scales()
    assert scales.by_service["arqueo"].brackets == scales.by_service["navegabilidad"].brackets


@pytest.mark.skipif(not LAW.exists(), reason="legal texts not available")
@pytest.mark.parametrize("service", ["arqueo", "navegabilidad", "seguridad"])
def test_quotes_are_verbatim_lines_of_the_law(service):
    law_lines = set(LAW.read_text(encoding="utf-8").splitlines())
    for line in load_scales().by_service[service].quote.splitlines():
        assert line in law_lines, line


def test_loading_from_another_path(tmp_path):
    path = tmp_path / "scales.toml"
    path.write_bytes(SCALES_PATH.read_bytes().replace(b'charged = "amount_cl"', b'charged = "amount"'))
    assert load_scales(path).charged == "amount"


def test_whole_ton_counting_is_available():
    data = raw_scales()
    data["scales"]["arqueo"]["ton_count"] = "whole"
    scale = parse_scales(data).by_service["arqueo"]
    counted, bracket, lines = fees._tonnage_lines(scale, Decimal("25.99"))
    assert (counted, bracket.max_tons) == (25, 25)
    counted, bracket, lines = fees._tonnage_lines(scale, Decimal("250.99"))
    assert (counted, len(lines)) == (250, 1)
    with pytest.raises(ValueError, match="below the first row"):
        fees._tonnage_lines(scale, Decimal("0.5"))


def _set(path: str, value):
    """Return a mutation that sets a dotted path (list indexes as digits) in the raw data."""
    def mutate(data):
        *parents, last = path.split(".")
        node = data
        for key in parents:
            node = node[int(key)] if key.isdigit() else node[key]
        if value is _DELETE:
            del node[int(last) if last.isdigit() else last]
        else:
            node[int(last) if last.isdigit() else last] = value
    return mutate


_DELETE = object()


@pytest.mark.parametrize(
    ("mutate", "match"),
    [
        (_set("scales.arqueo.brackets.1.min_tons", 27), "gap"),
        (_set("scales.arqueo.brackets.1.min_tons", 25), "overlap"),
        (_set("scales.arqueo.brackets.0.min_tons", 2), "gap"),
        (_set("scales.arqueo.brackets.2.max_tons", 50), "min_tons 51 > max_tons 50"),
        (_set("scales.navegabilidad.brackets.4.max_tons", 260), "does not follow the last row"),
        (_set("scales.arqueo.brackets.0.amount", 150.0), "integers or decimal strings"),
        (_set("scales.arqueo.brackets.0.amount_cl", "-450"), "non-negative"),
        (_set("scales.arqueo.brackets.0.amount_cl", "cuatrocientos"), "not a number"),
        (_set("scales.arqueo.brackets.0.min_tons", 0), "whole number of tons"),
        (_set("scales.arqueo.brackets.0.min_tons", "1"), "whole number of tons"),
        (_set("scales.arqueo.brackets.0.text", "De 1 a 30 toneladas $ 150.- c/l. 450"),
         "not a line of the scale's quote"),
        (_set("scales.arqueo.brackets", []), "non-empty"),
        (_set("scales.arqueo.brackets.0.amount_c", 1), "unknown amount_c"),
        (_set("scales.arqueo.ton_count", "nearest"), "ton_count"),
        (_set("scales.arqueo.kind", "flat"), "kind"),
        (_set("scales.arqueo.article", _DELETE), "missing article"),
        (_set("scales.arqueo.ton_count", _DELETE), "missing ton_count"),
        (_set("scales.seguridad.items.1.key", "boilers"), "duplicate"),
        (_set("scales.seguridad.items.1.key", "informes y peritajes"), "identifier"),
        (_set("scales.seguridad.brackets", []), "unknown brackets"),
        (_set("scales.seguridad", _DELETE), "missing seguridad"),
        (_set("scales.patente", {}), "unknown patente"),
        (_set("charged", "oro"), "charged"),
        # What a scale does not charge: a condition in the rule language, a row only of a per-unit scale.
        (_set("scales.navegabilidad.not_charged.0.when", "service ==="), "when"),
        (_set("scales.navegabilidad.not_charged.0.row", "boilers"), "unknown row"),
        (_set("scales.seguridad.not_charged.0.row", "calderas"), "not a row of the scale"),
        (_set("scales.arqueo.not_charged.0.reason_en", ""), "non-empty"),
        (_set("scales.arqueo.not_charged.0.article", _DELETE), "missing article"),
    ],
)
def test_loader_rejects_broken_scales(mutate, match):
    data = raw_scales()
    mutate(data)
    with pytest.raises(ScaleError, match=match):
        parse_scales(data)


def test_scale_error_is_a_value_error():
    assert issubclass(ScaleError, ValueError)


@pytest.mark.parametrize("kind, particulars, expected", [
    ("navegabilidad", {"gross_tonnage": 24.99, "boilers": 0}, [("209", 1, Decimal("450"))]),
    ("navegabilidad", {"gross_tonnage": 25.0, "boilers": 1}, [("209", 1, Decimal("450"))]),  # 25,00 t certified
    # issue 20: 25.004 t is shown and certified 25,004 t, not 25,00 t, so it counts 26 started tons
    ("navegabilidad", {"gross_tonnage": 25.004, "boilers": 1}, [("209", 1, Decimal("600"))]),
    ("navegabilidad", {"gross_tonnage": 25.005, "boilers": 1}, [("209", 1, Decimal("600"))]),  # 25,01 t: 26 started
    ("seguridad", {"gross_tonnage": 80, "boilers": 1}, [("233", 1, Decimal("100"))]),
    ("seguridad", {"gross_tonnage": 80, "boilers": 0}, []),
])
def test_inspection_fees_by_kind(kind, particulars, expected):
    statement = fee_statement(inspection_fees(kind, vessel_particulars(**particulars)))
    assert [(line["article"], line["quantity"], line["amount"]) for line in statement["lines"]] == expected
    assert statement["total"] == sum((amount for *_, amount in expected), Decimal(0))


# --- what the law charges, and what it does not (issue 20) ------------------------------------------

# A raft registered with a "girth" of 20 m: art. 195's formula gives it thousands of tons it was never measured for.
RAFT = vessel_particulars(propulsion="towed", service="raft", hull_material="wood", length_m=100.0, beam_m=20.0,
                          girth_m=20.0, crew=0, holds=0, boats=0, cooking="none",
                          gross_tonnage=float(gross_tonnage("100", "20", "20", "wood")))
STEAMER = vessel_particulars(propulsion="steam", service="passenger", max_passengers=80, boilers=2, gross_tonnage=180.0)
MOTOR = vessel_particulars(boilers=0, gross_tonnage=30.0)


@pytest.mark.parametrize("kind, vessel, services, lines, notes", [
    # Art. 209 by tonnage; a raft is not measured (art. 234): no hull fee, and the statement says why.
    ("navegabilidad", MOTOR, {}, [("209", "De 26 a 50 toneladas $ 200.- c/l. 600", 1, "600")], []),
    ("navegabilidad", RAFT, {}, [], ["234"]),
    # Art. 233: per boiler, per report or damage survey, per valve sealed again, as recorded at closing.
    ("seguridad", STEAMER, {}, [("233", "Por inspección de caldera semestralmente, por cada caldera $ 350.- c/l. 100", 2, "200")],
     []),
    ("seguridad", STEAMER, {"reports": 1, "valve_reseals": 3}, [
        ("233", "Por inspección de caldera semestralmente, por cada caldera $ 350.- c/l. 100", 2, "200"),
        ("233", "Por informes, peritajes de averías, etc. $ 500.- c/l 200", 1, "200"),
        ("233", "Por sellar de nuevo válvulas, cuyo corte ha sido autorizado $ 150.- c/l. 350", 3, "1050")], []),
    # A motor vessel has no boiler to charge "por cada caldera": no boiler row, and the note says so.
    ("seguridad", MOTOR, {}, [], ["233"]),
    ("seguridad", MOTOR, {"reports": 2}, [("233", "Por informes, peritajes de averías, etc. $ 500.- c/l 200", 2, "400")],
     ["233"]),
])
def test_what_an_inspection_charges_and_why_not(kind, vessel, services, lines, notes):
    statement = fee_statement(inspection_fees(kind, vessel, services), not_charged(kind, vessel))
    assert [(line["article"], line["description"], line["quantity"], line["amount"])
            for line in statement["lines"]] == [(a, d, q, Decimal(amount)) for a, d, q, amount in lines]
    assert [note["article"] for note in statement["notes"]] == notes
    assert statement["total"] == sum((Decimal(line[-1]) for line in lines), Decimal(0))


def test_a_raft_is_not_charged_for_the_tonnage_its_girth_invents():
    assert RAFT["gross_tonnage"] > 2000  # what the invented girth gives
    statement = fee_statement(inspection_fees("navegabilidad", RAFT), not_charged("navegabilidad", RAFT), "en")
    assert (statement["lines"], statement["total"]) == ([], Decimal(0))
    assert statement["notes"] == [{"source": "Ley 928/1927", "article": "234", "reason": (
        'Rafts are not measured (art. 234: "en lo que a ellas fueren aplicables"): without a tonnage, the scale '
        'of art. 209, charged by tons, has no row to charge them.')}]


@pytest.mark.parametrize("vessel, expected, note", [
    (MOTOR, ("199", "De 26 a 50 toneladas $ 200.- c/l. 600", Decimal("600")), None),       # art. 199 by tonnage
    (STEAMER, ("199", "De 101 a 200 toneladas $ 300.- c/l. 1000", Decimal("1000")), None),
    (vessel_particulars(gross_tonnage=300.5), ("199", "De 201 a 250 toneladas $ 350.- c/l. 1250", Decimal("1301")),
     None),                                                                                  # 1250 + 51 started tons
    (RAFT, None, "234"),                                                                     # a raft is not measured
    (vessel_particulars(flag="foreign", gross_tonnage=80.0), None, "194"),                  # keeps its flag
])
def test_what_an_arqueo_charges(vessel, expected, note):
    fee = arqueo_fee(vessel)
    assert (None if fee is None else (fee.article.split()[-1], fee.breakdown[0].text, fee.charged_amount)) == expected
    assert [entry.article for entry in not_charged("arqueo", vessel)] == ([note] if note else [])


def test_what_is_not_charged_reads_only_particulars():
    """Every condition names particulars the registry keeps (checklists/particulars.toml), nothing else."""
    from checklists import load_catalog
    known = set(load_catalog().context.particulars)
    conditions = [entry.when for scale in load_scales().by_service.values() for entry in scale.not_charged]
    assert conditions and all(rule.names <= known for rule in conditions)
