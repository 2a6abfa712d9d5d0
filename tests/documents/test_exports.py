"""Streamed CSV exports: the chunking itself, and the certificate and inspection lists with their filters and scope."""
import csv
import io
from datetime import date, datetime, timezone
from decimal import Decimal

import pytest

from inspection.core.extensions import db
from inspection.documents import exports
from inspection.documents.exports import csv_chunks, safe_cell
from tests.web.test_pages import login


@pytest.mark.parametrize("rows, chunks", [(0, 1), (3, 1), (4, 2), (9, 3)])
def test_rows_go_out_in_chunks(monkeypatch, rows, chunks):
    monkeypatch.setattr(exports, "CHUNK_ROWS", 4)
    parts = list(csv_chunks(["a", "b"], ((n, None) for n in range(rows))))
    assert len(parts) == chunks
    text = "".join(parts)
    assert text.startswith("\ufeffa,b\r\n") and text.count("\r\n") == rows + 1
    assert list(csv.reader(io.StringIO(text[1:])))[1:] == [[str(n), ""] for n in range(rows)]


def _rows(response):
    assert response.status_code == 200 and response.is_streamed and response.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(response.get_data(as_text=True)[1:])))


@pytest.fixture
def office_day(set_clock):
    set_clock(datetime(2026, 11, 20, 15, 0, tzinfo=timezone.utc))  # 12:00 in Asunción


@pytest.fixture
def two_fleets(records, make_user, make_vessel):
    """An owner user with one certified vessel, a stranger's vessel certified too, an inspection of each."""
    owner = make_user("owner")
    inspector = make_user("inspector", full_name="Ana Xara")
    mine, theirs = make_vessel(owner_id=owner.owner_id, name="Mío"), make_vessel(name="Ajeno")
    records["certificate"](mine, inspector, "seguridad", date(2026, 6, 1), date(2026, 12, 1))
    records["certificate"](theirs, inspector, "navegabilidad", date(2025, 6, 1), date(2026, 6, 1))
    records["inspection"](theirs, inspector, date(2026, 11, 25), "seguridad", "scheduled")
    db.session.commit()
    return {"owner": owner, "mine": mine, "theirs": theirs}


def test_the_certificate_list_exports_with_statuses(client, two_fleets, records, office_day):
    login(client, records["admin"])
    response = client.get("/certificados.csv")
    assert response.headers["Content-Disposition"] == 'attachment; filename="certificados-2026-11-20.csv"'
    rows = _rows(response)
    assert rows[0] == ["Número", "Matrícula", "Buque", "Tipo", "Inspeccionado", "Expedido", "Válido hasta", "Estado"]
    # in the page's default order, the latest issued first
    assert [(r[2], r[3], r[6], r[7]) for r in rows[1:]] == [("Mío", "seguridad", "2026-12-01", "valid"),
                                                           ("Ajeno", "navegabilidad", "2026-06-01", "expired")]


def test_an_owner_exports_only_its_fleet_in_english(client, two_fleets, office_day):
    login(client, two_fleets["owner"])
    rows = _rows(client.get("/certificados.csv?lang=en"))
    assert rows[0][:3] == ["Number", "Registration", "Vessel"] and [r[2] for r in rows[1:]] == ["Mío"]
    assert [r[3] for r in _rows(client.get("/inspecciones.csv"))[1:]] == ["Mío"]


def test_the_inspection_list_exports_with_the_page_filters(client, two_fleets, records, office_day):
    login(client, records["admin"])
    rows = _rows(client.get("/inspecciones.csv"))
    assert rows[0] == ["Número", "Fecha", "Matrícula", "Buque", "Tipo", "Inspector", "Puerto", "Estado", "Resultado"]
    assert [(r[1], r[3], r[7]) for r in rows[1:]] == [("2026-11-25", "Ajeno", "scheduled"),
                                                      ("2026-06-01", "Mío", "submitted"),
                                                      ("2025-06-01", "Ajeno", "submitted")]
    filtered = _rows(client.get(f"/inspecciones.csv?vessel_id={two_fleets['theirs'].id}&status=submitted"))
    assert [(r[1], r[3]) for r in filtered[1:]] == [("2025-06-01", "Ajeno")]
    page = client.get("/inspecciones?kind=seguridad").get_data(as_text=True)
    assert "/inspecciones.csv?kind=seguridad" in page


def test_police_export_nothing(client, make_user):
    login(client, make_user("police"))
    assert client.get("/inspecciones.csv").status_code == 403
    assert client.get("/certificados.csv").status_code == 403


@pytest.mark.parametrize("value, written", [
    ('=HYPERLINK("http://evil.example","owner")', '\'=HYPERLINK("http://evil.example","owner")'),
    ("@SUM(A1)", "'@SUM(A1)"), ("-2+3", "'-2+3"), ("+54 21", "'+54 21"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("-12.5", "-12.5"), ("+3", "+3"), ("-7,25", "-7,25"), (-4, -4), (Decimal("-1.50"), Decimal("-1.50")),
    ("Río Paraguay", "Río Paraguay"), ("a=b", "a=b"), (None, ""), (date(2026, 1, 2), date(2026, 1, 2)),
])
def test_cells_a_spreadsheet_would_run_are_written_as_text(value, written):
    assert safe_cell(value) == written


def test_user_typed_formulas_reach_the_spreadsheet_as_text(client, records, make_user, make_vessel, office_day):
    """OWASP's CSV injection: a port, a vessel name and an inspector's name typed as formulas stay text in both lists."""
    inspector = make_user("inspector", full_name="@SUM(1+1)*cmd|' /C calc'!A0")
    vessel = make_vessel(name="-2+3")
    row = records["inspection"](vessel, inspector, date(2026, 11, 25), "seguridad", "scheduled")
    row.port = '=HYPERLINK("http://evil.example","owner")'
    records["certificate"](vessel, inspector, "seguridad", date(2026, 6, 1), date(2026, 12, 1))
    db.session.commit()
    login(client, records["admin"])
    inspections = _rows(client.get("/inspecciones.csv"))[1:]
    assert inspections[0][3:7] == ["'-2+3", "seguridad", "'@SUM(1+1)*cmd|' /C calc'!A0",
                                   '\'=HYPERLINK("http://evil.example","owner")']
    assert [r[2] for r in _rows(client.get("/certificados.csv"))[1:]] == ["'-2+3"]
