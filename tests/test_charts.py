"""Chart geometry (pure): round axis tops, points inside the plot, bars to scale, a cell per value."""
import pytest

from inspection.charts import bar_chart, heat_chart, line_chart, nice_max


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
