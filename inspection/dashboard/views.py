"""The authority's dashboard (/tablero): four charts drawn as SVG on the server, each with its CSV."""
from babel.dates import format_date
from flask import Blueprint, abort, render_template, url_for

from inspection.accounts.auth import require_page
from inspection.core.clock import office_today, office_zone
from inspection.dashboard.board import (
    HORIZONS,
    due_counts,
    failed_articles,
    fleet_validity,
    inspections_per_inspector,
    month_starts,
    patrol_window,
)
from inspection.dashboard.charts import NARROW, WIDTH, bar_chart, heat_chart, line_chart
from inspection.documents.exports import csv_response
from inspection.i18n.formats import format_number
from inspection.i18n.language import current_language, gettext, term
from inspection.patrol.figures import checks_per_month, checks_per_place, infringed_articles, repeat_offenders

bp = Blueprint("dashboard", __name__)


def _locale(lang: str) -> str:
    return "es_PY" if lang == "es" else "en"


def _month(day, lang: str) -> str:
    """'nov. 2026' / 'Nov 2026': a month on an axis."""
    return format_date(day, "MMM y", locale=_locale(lang))


def _percent(value: float, lang: str) -> str:
    return f"{format_number(round(value * 100), 0, lang)} %"


def _horizon(days: int | None) -> str:
    return gettext("{days} días", days=days) if days is not None else gettext("Vencidos")


# --- the four datasets as CSV rows ---------------------------------------------------------------

def _validity_table(today, lang):
    points = fleet_validity(today, office_zone())
    header = [gettext("Fecha"), gettext("Tipo"), gettext("Buques que lo necesitan"), gettext("Con certificado vigente"),
              gettext("Proporción")]
    rows = [(p.on.isoformat(), p.kind, p.needing, p.certified, round(p.share, 4)) for p in points]
    return header, rows, points


def _due_table(today, lang):
    counts = due_counts(today)
    header = [gettext("Tipo"), gettext("Plazo"), gettext("Certificados")]
    rows = [(c.kind, c.days if c.days is not None else "overdue", c.count) for c in counts]
    return header, rows, counts


def _articles_table(today, lang):
    articles = failed_articles(today)
    header = [gettext("Fuente"), gettext("Artículo"), gettext("Respuestas no conformes")]
    return header, [(a.source, a.article, a.count) for a in articles], articles


def _inspectors_table(today, lang):
    months = inspections_per_inspector(today)
    header = [gettext("Inspector"), gettext("Mes"), gettext("Inspecciones")]
    return header, [(m.inspector, m.month.strftime("%Y-%m"), m.count) for m in months], months


def _patrol_months_table(today, lang):
    starts, opening, end = patrol_window(today, office_zone())
    months = [(start, checks, bad) for start, (_, checks, bad) in zip(starts, checks_per_month(opening, end))]
    header = [gettext("Mes"), gettext("Controles"), gettext("Con infracción o retención")]
    return header, [(start.strftime("%Y-%m"), checks, bad) for start, checks, bad in months], months


def _patrol_places_table(today, lang):
    _, opening, end = patrol_window(today, office_zone())
    places = [(place or gettext("Posición del teléfono"), n) for place, n in checks_per_place(opening[0], end)]
    return [gettext("Lugar o kilómetro"), gettext("Controles")], places, places


def _patrol_articles_table(today, lang):
    _, opening, end = patrol_window(today, office_zone())
    articles = infringed_articles(opening[0], end)
    return [gettext("Fuente"), gettext("Artículo"), gettext("Ítems infringidos")], articles, articles


def _repeat_table(today, lang):
    _, opening, end = patrol_window(today, office_zone())
    vessels = repeat_offenders(opening[0], end)
    header = [gettext("Matrícula"), gettext("Buque"), gettext("Controles con infracción")]
    return header, [(registration, name, n) for _, registration, name, n in vessels], vessels


TABLES = {"vigencia": _validity_table, "vencimientos": _due_table, "articulos": _articles_table,
          "inspectores": _inspectors_table, "patrullas": _patrol_months_table,
          "patrullas-lugares": _patrol_places_table, "patrullas-articulos": _patrol_articles_table,
          "reincidentes": _repeat_table}


# --- charts --------------------------------------------------------------------------------------
# Each chart is drawn twice: "geometry" for tablets and desktops, "narrow" for phones (the CSS shows one).
NARROW_LABELS = 180  # a bar's label room on a phone: "Navegabilidad · Vencidos" still whole


def _validity_chart(points, today, lang) -> dict:
    starts = month_starts(today)
    labels = [_month(day, lang) for day in starts]
    series = [(term("kind", kind), [p.share for p in points if p.kind == kind]) for kind in ("navegabilidad", "seguridad")]

    def geometry(width):
        return line_chart(labels, series, y_max=1, y_format=lambda v: _percent(v, lang), width=width)

    return {"id": "vigencia", "type": "line", "geometry": geometry(WIDTH), "narrow": geometry(NARROW),
            "title": gettext("Flota con certificado vigente"),
            "desc": gettext("Proporción de los buques que necesitan cada certificado que lo tenían vigente al fin de "
                            "cada mes de los últimos doce (el último punto es hoy)."),
            "x_label": gettext("Fin de mes"), "y_label": gettext("Proporción"),
            "columns": [gettext("Fin de mes"), gettext("Tipo"), gettext("Vigentes"), gettext("Lo necesitan"),
                        gettext("Proporción")],
            "rows": [(p.on, term("kind", p.kind), p.certified, p.needing, _percent(p.share, lang)) for p in points]}


def _due_chart(counts, today, lang) -> dict:
    bars = [(f"{term('kind', c.kind)} · {_horizon(c.days)}", c.count) for c in counts]
    tones = [0 if c.days is not None else 3 for c in counts]
    return {"id": "vencimientos", "type": "bar", "geometry": bar_chart(bars, tones),
            "narrow": bar_chart(bars, tones, label_width=NARROW_LABELS, width=NARROW),
            "title": gettext("Vencimientos próximos y vencidos"),
            "desc": gettext("Certificados vigentes que vencen en los próximos 30, 60 y 90 días, y los ya vencidos "
                            "sin renovar, por tipo."),
            "x_label": gettext("Certificados"), "y_label": gettext("Tipo y plazo"),
            "columns": [gettext("Tipo"), gettext("Plazo"), gettext("Certificados")],
            "rows": [(term("kind", c.kind), _horizon(c.days), c.count) for c in counts]}


def _articles_chart(articles, today, lang) -> dict:
    bars = [(f"{a.source} art. {a.article}", a.count) for a in articles]
    return {"id": "articulos", "type": "bar", "geometry": bar_chart(bars, [1] * len(bars)),
            "narrow": bar_chart(bars, [1] * len(bars), label_width=NARROW_LABELS, width=NARROW),
            "title": gettext("Los diez artículos más incumplidos"),
            "desc": gettext("Respuestas no conformes en inspecciones cerradas de los últimos doce meses, por "
                            "fuente y artículo."),
            "x_label": gettext("Respuestas no conformes"), "y_label": gettext("Fuente y artículo"),
            "columns": [gettext("Fuente"), gettext("Artículo"), gettext("Respuestas no conformes")],
            "rows": [(a.source, a.article, a.count) for a in articles]}


def _inspectors_chart(months, today, lang) -> dict:
    starts = month_starts(today)
    names = sorted({m.inspector for m in months})
    row_of, column_of = {name: n for n, name in enumerate(names)}, {start: n for n, start in enumerate(starts)}
    values = {(row_of[m.inspector], column_of[m.month]): m.count for m in months}
    columns = [format_date(day, "MMM", locale=_locale(lang)).rstrip(".")[:3] for day in starts]
    return {"id": "inspectores", "type": "heat", "geometry": heat_chart(names, columns, values),
            "narrow": heat_chart(names, columns, values, label_width=100, width=NARROW),
            "title": gettext("Inspecciones por inspector y mes"),
            "desc": gettext("Inspecciones cerradas por cada inspector en cada uno de los últimos doce meses."),
            "x_label": gettext("Mes"), "y_label": gettext("Inspector"),
            "columns": [gettext("Inspector"), gettext("Mes"), gettext("Inspecciones")],
            "rows": [(m.inspector, _month(m.month, lang), m.count) for m in months]}


def _patrol_months_chart(months, today, lang) -> dict:
    labels = [_month(start, lang) for start, _, _ in months]
    series = [(gettext("Controles"), [checks for _, checks, _ in months]),
              (gettext("Con infracción o retención"), [bad for _, _, bad in months])]
    top = max([checks for _, checks, _ in months] + [1])

    def geometry(width):
        return line_chart(labels, series, y_max=top, y_format=lambda v: format_number(v, 0, lang), width=width)

    return {"id": "patrullas", "type": "line", "geometry": geometry(WIDTH), "narrow": geometry(NARROW),
            "title": gettext("Controles de patrulla por mes"),
            "desc": gettext("Controles de patrulla cerrados en cada uno de los últimos doce meses, y cuántos "
                            "hallaron una infracción o una retención."),
            "x_label": gettext("Mes"), "y_label": gettext("Controles"),
            "columns": [gettext("Mes"), gettext("Controles"), gettext("Con infracción o retención")],
            "rows": [(_month(start, lang), checks, bad) for start, checks, bad in months]}


def _bars_card(chart_id, bars, rows, texts: dict) -> dict:
    """A bar chart card of (label, count) bars, with its table's rows and its words."""
    return {"id": chart_id, "type": "bar", "geometry": bar_chart(bars, [1] * len(bars)),
            "narrow": bar_chart(bars, [1] * len(bars), label_width=NARROW_LABELS, width=NARROW), "rows": rows, **texts}


def _patrol_places_chart(places, today, lang) -> dict:
    return _bars_card("patrullas-lugares", places, places, {
        "title": gettext("Controles de patrulla por lugar"),
        "desc": gettext("Los lugares o kilómetros del río con más controles cerrados en los últimos doce meses."),
        "x_label": gettext("Controles"), "y_label": gettext("Lugar o kilómetro"),
        "columns": [gettext("Lugar o kilómetro"), gettext("Controles")]})


def _patrol_articles_chart(articles, today, lang) -> dict:
    return _bars_card("patrullas-articulos", [(f"{s} art. {a}", n) for s, a, n in articles], articles, {
        "title": gettext("Artículos más infringidos en controles de patrulla"),
        "desc": gettext("Ítems que fallaron en controles cerrados con infracción o retención en los últimos doce "
                        "meses, por fuente y artículo."),
        "x_label": gettext("Ítems infringidos"), "y_label": gettext("Fuente y artículo"),
        "columns": [gettext("Fuente"), gettext("Artículo"), gettext("Ítems infringidos")]})


def _repeat_chart(vessels, today, lang) -> dict:
    return _bars_card("reincidentes", [(registration, n) for _, registration, _, n in vessels],
                      [(registration, name, n) for _, registration, name, n in vessels], {
        "title": gettext("Buques con infracciones repetidas"),
        "desc": gettext("Buques que las patrullas hallaron en infracción más de una vez en los últimos doce meses."),
        "x_label": gettext("Controles con infracción"), "y_label": gettext("Matrícula"),
        "columns": [gettext("Matrícula"), gettext("Buque"), gettext("Controles con infracción")]})


CHARTS = {"vigencia": _validity_chart, "vencimientos": _due_chart, "articulos": _articles_chart,
          "inspectores": _inspectors_chart, "patrullas": _patrol_months_chart,
          "patrullas-lugares": _patrol_places_chart, "patrullas-articulos": _patrol_articles_chart,
          "reincidentes": _repeat_chart}


@bp.route("/tablero")
@require_page("admin")
def dashboard_page():
    """The dashboard: certificates in force, what falls due, what fails, who inspects, what patrols find (one
    query per chart)."""
    today, lang = office_today(), current_language()
    charts = []
    for name, table in TABLES.items():
        _, _, data = table(today, lang)
        chart = CHARTS[name](data, today, lang)
        chart["csv_url"] = url_for(".dashboard_csv", chart=name)
        charts.append(chart)
    return render_template("dashboard/page.html", charts=charts, today=today, horizons=HORIZONS)


@bp.route("/tablero/<chart>.csv")
@require_page("admin")
def dashboard_csv(chart):
    """The numbers behind one chart, streamed as CSV (headers in the page language)."""
    if chart not in TABLES:
        abort(404)
    today = office_today()
    header, rows, _ = TABLES[chart](today, current_language())
    return csv_response(f"tablero-{chart}-{today.isoformat()}.csv", header, rows)
