"""Comparison and sweep charts, tables and reports, from synthetic runs."""

import pytest

from dashboard.figures import compare as compare_figures
from dashboard.figures import sweep as sweep_figures
from dashboard.report import comparison_report, run_report, sweep_report
from dashboard.tables.compare import comparison_table
from engine.analysis.compare import compare_runs
from engine.analysis.scaling import crossover, fit_costs, sweep_frame
from engine.measure.uncertainty import NoiseFloor
from tests.factories import make_run

EVIL = "<script>alert(1)</script><img src=x onerror=alert(2)>"


@pytest.fixture
def sweep_runs():
    runs = []
    for matrices in (10, 100, 1000):
        for dim in (4, 16):
            work = matrices * dim * dim
            runs.append(
                make_run(
                    {
                        "python_loop": [1e-6 * matrices] * 3,
                        "batched_matvec": [40e-6 + 1e-9 * work] * 3,
                    },
                    matrices=matrices,
                    dim=dim,
                    label=EVIL,
                )
            )
    return runs


def test_crossover_map_has_a_cell_per_point(sweep_runs):
    cells = crossover(sweep_runs)
    fig = sweep_figures.crossover_map(cells)
    heat = fig.data[0]
    assert len(heat.z) == 3 and len(heat.z[0]) == 2
    assert "python_loop" in heat.text[0][0] and "batched_matvec" in heat.text[2][1]


def test_scaling_is_log_log_with_the_roofline(sweep_runs):
    points = sweep_frame(sweep_runs)
    fig = sweep_figures.scaling(points, "matrices", "gbytes_per_s", 20.0)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    peak = [t for t in fig.data if t.name.startswith("measured peak")]
    assert peak and list(peak[0].y) == [20.0, 20.0]
    latency = sweep_figures.scaling(points, "cols", "median_s", None)
    assert "ms" in latency.layout.yaxis.title.text


def test_cost_fit_draws_points_and_fitted_lines(sweep_runs):
    points = sweep_frame(sweep_runs)
    fig = sweep_figures.cost_fit(points, fit_costs(points))
    modes = [t.mode for t in fig.data]
    assert modes.count("markers") == 2 and modes.count("lines") == 2


def test_comparison_table_and_chart():
    a = make_run({"einsum": [0.001] * 5}, label="laptop")
    b = make_run({"einsum": [0.002, 0.0021, 0.0019, 0.002, 0.002]}, label="tpu")
    frame = compare_runs([a, b], floor=NoiseFloor())  # a calibrated, quiet machine
    table = comparison_table(frame)
    assert list(table["strategy"]) == ["einsum"]
    assert "2.00x the time [" in table.iloc[0, 2] and table.iloc[0, 2].endswith("slower")
    fig = compare_figures.compare_medians(frame)
    assert len(fig.data) == 2 and fig.layout.yaxis.rangemode == "tozero"


def test_a_label_with_html_stays_inert_in_every_report(sweep_runs):
    a, b = make_run(label=EVIL), make_run(label=EVIL)
    for html in (run_report(a), comparison_report([a, b]), sweep_report(sweep_runs, EVIL)):
        assert "<script>alert(1)" not in html
        assert "<img src=x" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_compare_bars_start_at_zero_and_ratios_carry_intervals():
    from dashboard.figures.compare import compare_medians, ratio_points

    base = make_run({"einsum": [0.0020] * 8, "numpy": [0.003] * 8})
    other = make_run({"einsum": [0.0021] * 8, "numpy": [0.006] * 8})
    frame = compare_runs([base, other])
    bars = compare_medians(frame)
    assert bars.layout.yaxis.rangemode == "tozero" and bars.layout.yaxis.type != "log"
    points = ratio_points(frame, frame.attrs["margin"])
    (trace,) = points.data
    assert trace.type == "scatter" and len(trace.error_y.array) == 2
    empty = ratio_points(
        compare_runs([make_run({"numpy": [0.1] * 3}), make_run({"einsum": [0.1] * 3})]), 0.05
    )
    assert empty.layout.annotations


def test_a_fit_above_the_measured_ceiling_is_flagged():
    from dashboard.tables.sweep import fit_note

    assert "above the measured 27.4 GB/s peak" in fit_note(64.5, 27.4)
    assert fit_note(20.0, 27.4) == "" and fit_note(None, 27.4) == ""


def test_the_sweep_report_draws_every_scaling_view_and_reads_its_margins(sweep_runs):
    html = sweep_report(sweep_runs, "grid")
    for title in (
        "Latency against matrices",
        "Bandwidth against matrices",
        "Latency against cols",
        "Bandwidth against cols",
    ):
        assert title in html
    assert "runner-up takes" in html and "runner_up" not in html


def test_compare_keeps_one_colour_per_run_in_both_charts_and_the_verdict_in_the_shape():
    from dashboard.figures.compare import compare_medians, ratio_points, run_colors

    base = make_run({"einsum": [0.0020] * 8}, label="laptop")
    slower = make_run({"einsum": [0.0040] * 8}, label="old laptop")
    faster = make_run({"einsum": [0.0010] * 8}, label="tpu")
    frame = compare_runs([base, slower, faster], floor=NoiseFloor())
    colors = run_colors(frame)
    assert len(set(colors.values())) == 3
    bars = {trace.name: trace.marker.color for trace in compare_medians(frame).data}
    points = ratio_points(frame, frame.attrs["margin"]).data
    for trace in points:
        assert trace.marker.color == bars[trace.name] == colors[trace.name]
    symbols = {trace.name: tuple(trace.marker.symbol) for trace in points}
    assert {symbols[name][0] for name in symbols} == {"triangle-up", "triangle-down"}


def tied_sweep() -> list:
    """Two points: a clear winner at B=10, a tie (equal medians) at B=1000."""
    clear = make_run({"python_loop": [1e-5] * 5, "batched_matvec": [5e-5] * 5}, matrices=10)
    tie = make_run(
        {
            "python_loop": [1e-3, 1.01e-3, 0.99e-3] * 2,
            "batched_matvec": [1e-3, 0.99e-3, 1.01e-3] * 2,
        },
        matrices=1000,
    )
    return [clear, tie]


def test_a_tied_cell_is_a_tie_on_the_page_the_report_and_its_words():
    """The Sweeps page named a winner in cells its own runs call ties."""
    from engine.analysis.scaling import cell_words

    runs = tied_sweep()
    assert runs[1].winner_dict()["tied_with"]  # the run itself calls it a tie
    cells = crossover(runs).set_index("matrices")
    assert cell_words(cells.loc[10]) == "fastest: python_loop"
    assert cell_words(cells.loc[1000]).startswith("tie: ")
    fig = sweep_figures.crossover_map(crossover(runs))
    texts = [t for row in fig.data[0].text for t in row]
    assert any(t.startswith("tie:") for t in texts) and "python_loop" in texts[0]
    page = sweep_report(runs, "ties")
    assert "tie: " in page
    one_tie = sweep_figures.crossover_map(crossover(runs[1:]))
    assert one_tie.data and "tie:" in one_tie.data[0].text[0][0]  # never "fastest in every cell"
