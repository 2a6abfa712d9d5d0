"""Chart geometry for the dashboard's server-side SVG: values in, coordinates and ticks out (pure).

templates/_charts.html draws what these return; the numbers themselves go in a table beside each chart.
"""
import math

WIDTH, HEIGHT = 480, 240  # the tablet and desktop drawing, scaled up to 720 px wide
NARROW = 320  # the phone's drawing: about its card's width in CSS px, so 13-unit text reads near 13 px, not 9
LEFT, RIGHT, TOP, BOTTOM = 60, 30, 12, 44
LINE_RIGHT = 35  # the last point carries a centred month ("sept. 2026", "Dec 2026": about 65 units) keeps its half
BAR_TOP = 28  # room above the bars for the category axis' label
ROW = 24  # one horizontal bar and its gap


def _round_step(value: float) -> float:
    """The round number (1, 2, 5 x 10^n) at or above `value`."""
    power = 10 ** math.floor(math.log10(value))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= value)


def nice_max(value: float, ticks: int = 4) -> float:
    """An axis top at or above `value` that `ticks` round steps reach (whole steps for counts); `ticks` if empty."""
    if value <= 0:
        return ticks
    return ticks * max(1, _round_step(value / ticks))


def shown_every(count: int, width: int) -> int:
    """Write every n-th x label so that month names ("sept. 2026", about 65 units) never touch: 1, 2 or 4."""
    room = (width - LEFT - LINE_RIGHT) / max(count - 1, 1)
    return next((n for n in (1, 2) if n * room >= 70), 4)


def line_chart(labels: list[str], series: list[tuple[str, list[float]]], y_max: float | None = None,
               y_format=str, ticks: int = 4, width: int = WIDTH) -> dict:
    """Polylines over evenly spaced x labels; `series` is [(name, values)], one value per label.

    The labels written count back from the last (today's month), every `shown_every` one.
    """
    top = y_max if y_max is not None else nice_max(max((v for _, values in series for v in values), default=0), ticks)
    plot_w, plot_h = width - LEFT - LINE_RIGHT, HEIGHT - TOP - BOTTOM
    every = shown_every(len(labels), width)
    step = plot_w / max(len(labels) - 1, 1)

    def x(n):
        return round(LEFT + n * step, 1)

    def y(value):
        return round(TOP + plot_h - plot_h * (value / top if top else 0), 1)

    lines = []
    for index, (name, values) in enumerate(series):
        dots = [{"x": x(n), "y": y(v), "value": y_format(v), "label": labels[n]} for n, v in enumerate(values)]
        lines.append({"name": name, "tone": index % 6, "points": " ".join(f"{d['x']},{d['y']}" for d in dots),
                      "dots": dots})
    return {"width": width, "height": HEIGHT, "left": LEFT, "right": width - LINE_RIGHT, "top": TOP,
            "bottom": HEIGHT - BOTTOM, "series": lines,
            "x_ticks": [{"x": x(n), "label": label, "shown": (len(labels) - 1 - n) % every == 0}
                        for n, label in enumerate(labels)],
            "y_ticks": [{"y": y(top * n / ticks), "label": y_format(top * n / ticks)} for n in range(ticks + 1)]}


def bar_chart(bars: list[tuple[str, float]], tones: list[int] | None = None, ticks: int = 4,
              label_width: int = 190, width: int = WIDTH) -> dict:
    """Horizontal bars, one per (label, value), on a shared scale from zero; a label too long is cut, whole in its tooltip."""
    top = nice_max(max((value for _, value in bars), default=0), ticks)
    height = BAR_TOP + ROW * max(len(bars), 1) + BOTTOM
    plot_w = width - label_width - RIGHT
    rows = []
    for n, (label, value) in enumerate(bars):
        rows.append({"label": _fitted(label, label_width), "full": label, "value": value, "y": BAR_TOP + n * ROW, "h": ROW - 8, "x": label_width,
                     "w": round(plot_w * value / top, 1), "tone": (tones[n] if tones else 0) % 6})
    return {"width": width, "height": height, "left": label_width, "right": width - RIGHT, "top": BAR_TOP,
            "bottom": height - BOTTOM, "bars": rows,
            "x_ticks": [{"x": round(label_width + plot_w * n / ticks, 1), "label": _count(top * n / ticks)}
                        for n in range(ticks + 1)]}


def _fitted(label: str, width: int) -> str:
    """The label cut with "…" to the characters that fit `width` (about 7 units each at the labels' size)."""
    room = max((width - 8) // 7, 4)
    return label if len(label) <= room else label[:room - 1].rstrip() + "…"


def _count(value: float) -> str:
    """A tick of a count axis: whole numbers without decimals."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def heat_chart(rows: list[str], columns: list[str], values: dict[tuple[int, int], float],
               label_width: int = 150, width: int = WIDTH) -> dict:
    """A grid of cells, one per (row, column), shaded by value with the value written in it.

    Readable where a line per row would not be (twenty inspectors over twelve months). Cells narrower
    than a month's three letters write every other column's name, counting back from the last.
    """
    top = max(values.values(), default=0) or 1
    plot_w = width - label_width - 4
    cell_w = plot_w / max(len(columns), 1)
    height = BAR_TOP + ROW * max(len(rows), 1) + BOTTOM
    cells = [{"x": round(label_width + c * cell_w, 1), "y": BAR_TOP + r * ROW, "w": round(cell_w - 2, 1),
              "h": ROW - 2, "value": values.get((r, c), 0), "level": math.ceil(4 * values.get((r, c), 0) / top),
              "row": row, "column": column}
             for r, row in enumerate(rows) for c, column in enumerate(columns)]
    every = 1 if cell_w >= 26 else 2
    return {"width": width, "height": height, "left": label_width, "right": width - 4, "top": BAR_TOP,
            "bottom": height - BOTTOM, "cells": cells,
            "row_labels": [{"y": BAR_TOP + r * ROW + ROW / 2 + 4, "label": _fitted(row, label_width), "full": row}
                           for r, row in enumerate(rows)],
            "x_ticks": [{"x": round(label_width + (c + 0.5) * cell_w, 1), "label": column,
                         "shown": (len(columns) - 1 - c) % every == 0} for c, column in enumerate(columns)]}
