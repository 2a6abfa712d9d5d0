"""The authority's dashboard: its four read models on a fleet built with fixed dates, the page, its CSVs.

The certificates, inspections and answers are written as records (conftest `records`: the dashboard
reads records; how they came to be is the operations' tests' business), vessels and users with the builders.
"""
import csv
import io
from datetime import date, datetime, timedelta, timezone

import pytest

from inspection.core.extensions import db
from inspection.core.models import Certificate
from inspection.dashboard.board import (
    DueCount,
    FailedArticle,
    due_counts,
    failed_articles,
    fleet_validity,
    inspections_per_inspector,
    month_ends,
    month_starts,
)
from tests.web.test_pages import login

TODAY = date(2026, 11, 20)
ZONE = timezone(timedelta(hours=-3))
ENDS = [date(2025, 12, 31), date(2026, 1, 31), date(2026, 2, 28), date(2026, 3, 31), date(2026, 4, 30),
        date(2026, 5, 31), date(2026, 6, 30), date(2026, 7, 31), date(2026, 8, 31), date(2026, 9, 30),
        date(2026, 10, 31), TODAY]
# Two items citing art. 63 (they add up) and one citing art. 73.
ART63_A, ART63_B, ART73 = "nav.hull.condition", "seg.machinery.condition", "seg.machinery.running"


@pytest.mark.parametrize("today, first, last", [
    (date(2026, 11, 20), date(2025, 12, 31), date(2026, 11, 20)),
    (date(2026, 3, 1), date(2025, 4, 30), date(2026, 3, 1)),   # a month's first day is its own point
    (date(2024, 3, 31), date(2023, 4, 30), date(2024, 3, 31)),  # 29 Feb 2024 ends February
])
def test_month_ends_are_eleven_month_ends_and_today(today, first, last):
    ends = month_ends(today)
    assert len(ends) == 12 and ends[0] == first and ends[-1] == last
    assert all((end + timedelta(days=1)).day == 1 for end in ends[:-1])
    assert month_starts(today)[-1] == today.replace(day=1) and len(month_starts(today)) == 12


@pytest.fixture
def fleet(records, make_vessel, make_user):
    """Three motor vessels needing both kinds and a rowing boat needing neither (arts. 210, 211)."""
    r = records
    x, y = make_user("inspector", full_name="Ana Xara"), make_user("inspector", full_name="Blas Yegros")
    a, b, d = make_vessel(), make_vessel(), make_vessel()
    c = make_vessel(propulsion="rowing", fire_hydrants=0, boats=0, cooking="none")
    new = r["certificate"](a, x, "seguridad", date(2026, 6, 1), date(2026, 12, 1))
    r["certificate"](a, x, "seguridad", date(2025, 12, 1), date(2026, 6, 1), superseded_by_id=new.id)
    r["certificate"](a, x, "navegabilidad", date(2025, 10, 15), date(2026, 10, 15))
    r["certificate"](b, x, "seguridad", date(2026, 1, 10), date(2026, 7, 10),
                     revoked_at=datetime(2026, 3, 15, 18, 0, tzinfo=timezone.utc))
    r["certificate"](c, x, "seguridad", date(2026, 6, 1), date(2026, 12, 1))  # exempt: not in the share
    r["certificate"](d, x, "seguridad", date(2026, 7, 10), date(2027, 1, 10))
    r["certificate"](d, x, "navegabilidad", date(2026, 2, 10), date(2027, 2, 10))
    september, november = r["inspection"](a, y, date(2026, 9, 3)), r["inspection"](b, y, date(2026, 11, 2))
    for item in (ART63_A, ART63_B, ART73):
        r["answer"](september, item)
    r["answer"](november, ART63_A)
    r["answer"](november, ART73, "pass")
    r["answer"](november, ART73, current=False)  # a revision since replaced
    r["answer"](r["inspection"](a, y, date(2026, 11, 15), status="in_progress"), ART73)  # not submitted
    r["answer"](r["inspection"](a, y, date(2025, 11, 10)), ART73)  # before the twelve months
    db.session.commit()
    return {"x": x, "y": y}


def test_the_share_of_the_fleet_counts_certificates_in_force_at_each_month_end(fleet):
    points = fleet_validity(TODAY, ZONE)
    seguridad = [(p.on, p.needing, p.certified) for p in points if p.kind == "seguridad"]
    navegabilidad = [(p.on, p.needing, p.certified) for p in points if p.kind == "navegabilidad"]
    # seguridad: A's old one to 1 Jun, B's from 10 Jan revoked 15 Mar, A's new from 1 Jun, D's from 10 Jul
    assert seguridad == list(zip(ENDS, [3] * 12, [1, 2, 2, 1, 1, 1, 1, 2, 2, 2, 2, 2]))
    # navegabilidad: A's to 15 Oct 2026, D's from 10 Feb 2026
    assert navegabilidad == list(zip(ENDS, [3] * 12, [1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1]))
    assert points[-1].share == pytest.approx(2 / 3)  # seguridad today


def test_a_suspension_counts_only_today(fleet, records, make_vessel):
    vessel = make_vessel()
    records["certificate"](vessel, fleet["x"], "seguridad", date(2026, 8, 1), date(2027, 2, 1),
                           suspended_at=datetime(2026, 11, 1, tzinfo=timezone.utc))
    db.session.commit()
    counts = [p.certified for p in fleet_validity(TODAY, ZONE) if p.kind == "seguridad"]
    assert counts[-4:] == [3, 3, 3, 2]  # Aug, Sep, Oct held it; today it is suspended


def test_due_and_overdue_counts_leave_out_superseded_and_revoked(fleet):
    assert due_counts(TODAY) == [
        DueCount("navegabilidad", 30, 0), DueCount("navegabilidad", 60, 0), DueCount("navegabilidad", 90, 1),
        DueCount("navegabilidad", None, 1),
        DueCount("seguridad", 30, 2), DueCount("seguridad", 60, 3), DueCount("seguridad", 90, 3),
        DueCount("seguridad", None, 0),
    ]


def test_articles_most_often_failed_add_the_items_of_an_article(fleet):
    assert failed_articles(TODAY) == [FailedArticle("Ley 928/1927", "63", 3), FailedArticle("Ley 928/1927", "73", 1)]
    assert len(failed_articles(TODAY, limit=1)) == 1


def test_inspections_per_inspector_per_month(fleet):
    got = [(m.inspector, m.month, m.count) for m in inspections_per_inspector(TODAY)]
    assert got == [
        ("Ana Xara", date(2025, 12, 1), 1), ("Ana Xara", date(2026, 1, 1), 1), ("Ana Xara", date(2026, 2, 1), 1),
        ("Ana Xara", date(2026, 6, 1), 2), ("Ana Xara", date(2026, 7, 1), 1),
        ("Blas Yegros", date(2026, 9, 1), 1), ("Blas Yegros", date(2026, 11, 1), 1),
    ]


# --- the page and its CSVs ---------------------------------------------------------------------------

@pytest.fixture
def office_day(set_clock):
    set_clock(datetime(2026, 11, 20, 15, 0, tzinfo=timezone.utc))  # 12:00 in Asunción


def test_the_page_draws_four_charts_with_their_numbers(client, fleet, records, office_day):
    login(client, records["admin"])
    html = client.get("/tablero").get_data(as_text=True)
    # each chart twice: the tablet's drawing and the phone's (the CSS shows one), each with its own title ids; with
    # no patrol check yet, the patrols' months are drawn (all zero) and their three bar charts have no bar to draw
    assert html.count('<svg class="chart chart-wide"') == 5 and html.count('<svg class="chart chart-narrow"') == 5
    assert html.count("Descargar CSV") == 8 and 'id="vigencia-narrow-title"' in html
    for title in ("Flota con certificado vigente", "Vencimientos próximos y vencidos",
                  "Los diez artículos más incumplidos", "Inspecciones por inspector y mes"):
        assert "<title id=" in html and title in html
    assert "Ley 928/1927 art. 63" in html and "Blas Yegros" in html and "33 %" in html
    assert "Seguridad · 60 días" in html


def test_the_page_in_english(client, fleet, records, office_day):
    login(client, records["admin"])
    html = client.get("/tablero?lang=en").get_data(as_text=True)
    assert "Fleet with a certificate in force" in html and "Download CSV" in html and "Safety · 60 days" in html


@pytest.mark.parametrize("role", ["inspector", "owner", "police"])
def test_only_admins_see_the_dashboard(client, make_user, role):
    login(client, make_user(role))
    assert client.get("/tablero").status_code == 403
    assert client.get("/tablero/vigencia.csv").status_code == 403


def _csv(response) -> list[list[str]]:
    text = response.get_data(as_text=True)
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:])))


@pytest.mark.parametrize("lang, header", [
    ("es", ["Fuente", "Artículo", "Respuestas no conformes"]),
    ("en", ["Source", "Article", "Failed answers"]),
])
def test_a_chart_csv_streams_its_numbers(client, fleet, records, office_day, lang, header):
    login(client, records["admin"])
    response = client.get(f"/tablero/articulos.csv?lang={lang}")
    assert response.status_code == 200 and response.is_streamed
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == 'attachment; filename="tablero-articulos-2026-11-20.csv"'
    assert _csv(response) == [header, ["Ley 928/1927", "63", "3"], ["Ley 928/1927", "73", "1"]]


def test_the_validity_csv_has_a_row_per_month_end_and_kind(client, fleet, records, office_day):
    login(client, records["admin"])
    rows = _csv(client.get("/tablero/vigencia.csv"))
    assert rows[0] == ["Fecha", "Tipo", "Buques que lo necesitan", "Con certificado vigente", "Proporción"]
    assert rows[1] == ["2025-12-31", "navegabilidad", "3", "1", "0.3333"]
    assert len(rows) == 1 + 24
    assert client.get("/tablero/nada.csv").status_code == 404


def test_the_dashboard_takes_the_same_queries_for_3_and_30_vessels(client, records, make_vessel, make_user,
                                                                    count_queries, office_day):
    login(client, records["admin"])
    inspector, counts = make_user("inspector"), {}
    for size in (3, 30):
        while len(made := db.session.scalars(db.select(Certificate.id)).all()) < size:
            vessel = make_vessel(length_m=20 + len(made))  # a different tonnage each: another group
            records["certificate"](vessel, inspector, "seguridad", date(2026, 6, 1), date(2026, 12, 1))
            records["answer"](records["inspection"](vessel, inspector, date(2026, 10, 1)), ART73)
        db.session.commit()
        counts[size] = count_queries(lambda: client.get("/tablero"))
    assert counts[3] == counts[30]


def _seguridad(points) -> list[tuple]:
    return [(p.needing, p.certified) for p in points if p.kind == "seguridad"]


def test_the_share_is_read_from_the_cache_in_one_query_while_nothing_changes(app, fleet, count_queries):
    from inspection.dashboard.board import share_points

    first = fleet_validity(TODAY, ZONE)
    assert count_queries(lambda: fleet_validity(TODAY, ZONE)) == 1  # the data version only
    assert fleet_validity(TODAY, ZONE) == first == share_points(ENDS, TODAY, ZONE)  # as counted afresh


def _certificate(issued_on: date) -> Certificate:
    return db.session.scalar(db.select(Certificate).filter_by(kind="seguridad", issued_on=issued_on))


def _revoke_b(fleet, records, make_vessel):  # a revocation dated back to 1 Feb: January's end still held it
    from inspection.certificates.operations import revoke_certificate
    revoked = _certificate(date(2026, 1, 10))
    revoked.revoked_at = None
    db.session.flush()
    revoke_certificate(records["admin"], revoked, "Error", datetime(2026, 2, 1, 12, tzinfo=timezone.utc))


def _suspend_d(fleet, records, make_vessel):
    from inspection.certificates.operations import suspend_certificate
    held = _certificate(date(2026, 7, 10))
    suspend_certificate(records["admin"], held, "Casco", datetime(2026, 11, 19, 12, tzinfo=timezone.utc))


def _reinstate(fleet, records, make_vessel):
    from inspection.certificates.operations import reinstate_certificate
    _suspend_d(fleet, records, make_vessel)
    db.session.commit()
    fleet_validity(TODAY, ZONE)  # cached while suspended
    held = _certificate(date(2026, 7, 10))
    reinstate_certificate(records["admin"], held, "Reparado", datetime(2026, 11, 20, 12, tzinfo=timezone.utc))


def _new_certificate(fleet, records, make_vessel):
    vessel = _certificate(date(2026, 1, 10)).vessel
    records["certificate"](vessel, fleet["x"], "seguridad", date(2026, 3, 20), date(2026, 9, 20))


def _new_vessel(fleet, records, make_vessel):
    make_vessel()


def _to_sail(fleet, records, make_vessel):  # no machinery any more: needs no seguridad (art. 211)
    from inspection.registry.vessels import update_vessel
    vessel = _certificate(date(2026, 7, 10)).vessel
    update_vessel(vessel, {"propulsion": "sail"})


@pytest.mark.parametrize("change, moved", [(_revoke_b, True), (_suspend_d, True), (_reinstate, False),
                                           (_new_certificate, True), (_new_vessel, True), (_to_sail, True)])
def test_every_write_the_share_reads_moves_its_cache(app, fleet, records, make_vessel, change, moved):
    """Cached, changed, read again: the points equal those counted afresh (a reinstatement: back to the first)."""
    from inspection.dashboard.board import share_points

    before = fleet_validity(TODAY, ZONE)
    change(fleet, records, make_vessel)
    db.session.commit()
    after = fleet_validity(TODAY, ZONE)
    assert after == share_points(ENDS, TODAY, ZONE)
    assert (_seguridad(after) != _seguridad(before)) is moved


def test_the_failed_articles_and_inspector_counts_are_cached_until_an_inspection_is_submitted(
        app, fleet, records, make_vessel, count_queries):
    """Submitted inspections are final, so their count in the window is the charts' data version."""
    articles, months = failed_articles(TODAY), inspections_per_inspector(TODAY)
    assert count_queries(lambda: failed_articles(TODAY)) == 1  # the data version only
    assert count_queries(lambda: inspections_per_inspector(TODAY)) == 2  # the data version and the names
    assert (failed_articles(TODAY), inspections_per_inspector(TODAY)) == (articles, months)
    fleet["y"].full_name = "Blas Yegros Ortiz"  # a name is read fresh, not from the cache
    db.session.commit()
    assert {m.inspector for m in inspections_per_inspector(TODAY)} == {"Ana Xara", "Blas Yegros Ortiz"}
    later = records["inspection"](make_vessel(), fleet["y"], date(2026, 11, 18))
    records["answer"](later, ART73)
    db.session.commit()
    assert failed_articles(TODAY) == [FailedArticle("Ley 928/1927", "63", 3), FailedArticle("Ley 928/1927", "73", 2)]
    november = [m.count for m in inspections_per_inspector(TODAY) if m.month == date(2026, 11, 1)]
    assert november == [2]
