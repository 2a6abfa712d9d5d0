"""Chart geometry (pure): round axis tops, points inside the plot, bars to scale, a cell per value."""
import pytest

from inspection.dashboard.charts import bar_chart, heat_chart, line_chart, nice_max


@pytest.mark.parametrize("value, top", [(0, 4), (3, 4), (4, 4), (5, 8), (20, 20), (23, 40), (117, 200), (0.6, 4)])
def test_axis_tops_are_whole_round_steps(value, top):
    assert nice_max(value) == top and top >= value


def test_line_points_stay_in_the_plot_and_the_top_is_the_given_maximum():
    g = line_chart(["a", "b", "c"], [("s", [0, 0.5, 1])], y_max=1)
    xs, ys = zip(*[(d["x"], d["y"]) for d in g["series"][0]["dots"]])
    assert xs[0] == g["left"] and xs[-1] == g["right"]
    assert ys == (g["bottom"], (g["top"] + g["bottom"]) / 2, g["top"])
    assert [t["label"] for t in g["y_ticks"]] == ["0.0", "0.25", "0.5", "0.75", "1.0"]


def test_bars_are_to_scale_and_one_per_value():
    g = bar_chart([("a", 10), ("b", 5), ("c", 0)])
    widths = [b["w"] for b in g["bars"]]
    assert widths[0] == pytest.approx(2 * widths[1]) and widths[2] == 0
    assert [t["label"] for t in g["x_ticks"]] == ["0", "5", "10", "15", "20"]


def test_a_heat_grid_has_a_cell_per_row_and_column_shaded_by_value():
    g = heat_chart(["x", "y"], ["ene", "feb", "mar"], {(0, 0): 4, (1, 2): 1})
    assert len(g["cells"]) == 6
    levels = {(c["row"], c["column"]): c["level"] for c in g["cells"]}
    assert levels[("x", "ene")] == 4 and levels[("y", "mar")] == 1 and levels[("x", "feb")] == 0


def test_a_long_row_label_is_cut_to_its_room_and_kept_whole_for_the_tooltip():
    g = heat_chart(["Inspector de Máquinas Demo", "Ana"], ["ene"], {(0, 0): 1})
    long, short = g["row_labels"]
    assert long["full"] == "Inspector de Máquinas Demo" and long["label"].endswith("…")
    assert len(long["label"]) <= (150 - 8) // 7 and long["label"].startswith("Inspector de")
    assert (short["label"], short["full"]) == ("Ana", "Ana")


@pytest.mark.parametrize("width, every", [(480, 2), (320, 4)])
def test_twelve_month_labels_are_thinned_to_fit_and_the_last_month_is_always_written(width, every):
    labels = [f"m{n}" for n in range(12)]
    g = line_chart(labels, [("s", [0.5] * 12)], y_max=1, width=width)
    shown = [t for t in g["x_ticks"] if t["shown"]]
    assert shown[-1]["label"] == "m11" and len(shown) == 12 // every
    assert min(b["x"] - a["x"] for a, b in zip(shown, shown[1:])) >= 70  # room for "sept. 2026"
    assert g["width"] == width and g["right"] == width - 35 and g["series"][0]["dots"][-1]["x"] == g["right"]


def test_few_line_labels_are_all_written():
    g = line_chart(["a", "b", "c"], [("s", [1, 2, 3])])
    assert all(t["shown"] for t in g["x_ticks"])


def test_a_narrow_heat_grid_writes_every_other_month_and_keeps_its_cells_inside():
    g = heat_chart(["Ana"], [f"m{n}" for n in range(12)], {(0, 11): 3}, label_width=100, width=320)
    assert [t["label"] for t in g["x_ticks"] if t["shown"]] == [f"m{n}" for n in range(1, 12, 2)]
    assert max(c["x"] + c["w"] for c in g["cells"]) <= g["right"]
    wide = heat_chart(["Ana"], [f"m{n}" for n in range(12)], {(0, 11): 3})
    assert all(t["shown"] for t in wide["x_ticks"])


def test_a_bar_label_too_long_for_its_room_is_cut_and_kept_whole():
    g = bar_chart([("Navegabilidad · 90 días", 3), ("Reglamento de Seguridad Fluvial art. 123", 1)],
                  label_width=170, width=320)
    short, long = g["bars"]
    assert short["label"] == short["full"] == "Navegabilidad · 90 días"
    assert long["label"].endswith("…") and long["full"].startswith(long["label"][:-1])
    assert max(b["x"] + b["w"] for b in g["bars"]) <= g["right"]
