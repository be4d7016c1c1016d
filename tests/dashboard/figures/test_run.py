import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dashboard.figures import run as charts
from dashboard.tables import run as data


def test_every_chart_builds_from_a_real_run(real_result):
    figures = charts.all_figures(
        data.summary(real_result),
        data.samples(real_result),
        data.replicas(real_result),
        real_result.peak_bytes_per_s,
        levels=data.levels(real_result),
    )
    assert list(figures) == [
        "latency",
        "throughput",
        "ceilings",
        "speedup",
        "first_call",
        "dispatch",
        "replicas",
    ]
    assert all(isinstance(f, go.Figure) for f in figures.values())
    stairs = figures["ceilings"].data[0]  # a real run: at least memory's ceiling, measured
    assert stairs.name == "measured ceilings" and stairs.y[-1] == pytest.approx(
        real_result.peak_bytes_per_s / 1e9
    )


def test_latency_is_every_raw_sample_on_a_log_axis(real_result):
    samples = data.samples(real_result)
    fig = charts.latency_distribution(samples)
    assert fig.layout.yaxis.type == "log"
    assert "ms" in fig.layout.yaxis.title.text
    assert len(fig.data) == samples["variant"].nunique()
    assert sum(len(t.y) for t in fig.data) == len(samples)
    assert all(t.boxpoints == "all" for t in fig.data)


def test_throughput_has_gb_and_gflops_and_the_measured_roofline(real_result):
    summary = data.summary(real_result)
    fig = charts.throughput(summary, real_result.peak_bytes_per_s)
    names = {t.name for t in fig.data}
    assert names == {"GB/s", "GFLOP/s"}
    lines = [s for s in fig.layout.shapes if s.type == "line"]
    assert lines[0].y0 == real_result.peak_bytes_per_s / 1e9
    assert "measured peak" in fig.layout.annotations[-2].text


def test_speedup_against_both_baselines(real_result):
    fig = charts.speedups(data.summary(real_result))
    assert [t.name for t in fig.data] == ["vs python_loop", "vs numpy"]
    assert fig.layout.yaxis.type == "log"
    python_loop = list(fig.data[0].x).index("python_loop")
    assert math.isnan(fig.data[0].y[python_loop])  # against itself: not a measurement
    numpy = list(fig.data[0].x).index("numpy")
    assert fig.data[0].y[numpy] > 1.0


def test_wrong_results_are_red_not_dropped():
    summary = pd.DataFrame(
        {
            "variant": ["a", "b", "c"],
            "verdict": ["ok", "WRONG", "failed"],
            "median_s": [0.001, 0.002, None],
            "gbytes_per_s": [1.0, 2.0, None],
            "gflops_per_s": [0.5, 1.0, None],
            "flops": [10, 10, 10],
            "bytes": [20, 20, 20],
        }
    )
    fig = charts.throughput(summary, 2e9)
    bar = fig.data[0]
    assert list(bar.x) == ["a", "b"]
    assert list(bar.marker.color) == [charts.variant_color("a"), charts.WRONG_COLOR]


def test_a_reduced_precision_variant_is_marked_wherever_it_is_drawn():
    """Faster in bfloat16 is another answer: its bars are hatched and its name says so."""
    from tests.engine.results.test_reduced_precision import REDUCED, run_with_a_fast_reduced_point

    run = run_with_a_fast_reduced_point()
    summary = data.summary(run)
    bars = charts.throughput(summary, run.peak_bytes_per_s).data
    patterns = dict(zip(bars[0].x, bars[0].marker.pattern.shape))
    assert patterns[REDUCED] == "/" and patterns["einsum"] == ""
    assert list(bars[1].marker.pattern.shape) == list(bars[0].marker.pattern.shape)
    names = {trace.name for trace in charts.latency_distribution(data.samples(run)).data}
    assert f"{REDUCED} (bfloat16 storage)" in names and "einsum" in names


def test_dispatch_and_first_call_pair_with_the_synchronised_median(real_result):
    summary = data.summary(real_result)
    for builder in (charts.dispatch_vs_synchronised, charts.first_call_vs_steady):
        fig = builder(summary)
        assert len(fig.data) == 2 and fig.layout.yaxis.type == "log"
        assert list(fig.data[1].y) == list(summary["median_s"] * 1e3)


def test_replica_breakdown_groups_by_mode():
    replicas = pd.DataFrame(
        {
            "variant": ["einsum"] * 4,
            "mode": ["replicated"] * 2 + ["sharded"] * 2,
            "replica": [0, 1, 0, 1],
            "device": ["cpu:0", "cpu:1"] * 2,
            "matrices": [10, 10, 5, 5],
            "median_s": [0.002, 0.002, 0.001, 0.0011],
            "bytes_per_s": [1.0] * 4,
        }
    )
    fig = charts.replica_breakdown(replicas)
    assert [t.name for t in fig.data[::2]] == ["einsum · replicated", "einsum · sharded"]
    assert list(fig.data[3].y) == [5, 5]
    # one colour per variant in both panels, never plotly's cycle; the baseline hatched
    from dashboard.figures.style import variant_color

    assert {t.marker.color for t in fig.data} == {variant_color("einsum")}
    assert [t.marker.pattern.shape for t in fig.data] == ["/", "/", "", ""]


def test_replica_colours_never_repeat_across_variants():
    from dashboard.figures.style import variant_color

    names = ["einsum", "batched_matvec", "batched_matmul", "vectorized_map", "map_fn"]
    replicas = pd.DataFrame(
        {
            "variant": [n for n in names for _ in range(2)],
            "mode": ["sharded"] * 10,
            "replica": [0, 1] * 5,
            "device": ["cpu:0", "cpu:1"] * 5,
            "matrices": [5] * 10,
            "median_s": [0.001] * 10,
            "bytes_per_s": [1.0] * 10,
        }
    )
    colours = [t.marker.color for t in charts.replica_breakdown(replicas).data[::2]]
    assert colours == [variant_color(n) for n in names] and len(set(colours)) == 5


def test_empty_inputs_give_an_explanatory_figure():
    fig = charts.replica_breakdown(pd.DataFrame())
    assert "replicated or sharded" in fig.layout.annotations[0].text


def test_bars_start_at_zero_and_ratios_are_points(real_result):
    summary = data.summary(real_result)
    throughput = charts.throughput(summary, real_result.peak_bytes_per_s)
    assert all(axis.type in (None, "linear", "-") for axis in (throughput.layout.yaxis,))
    assert throughput.data[0].error_y.array is not None
    speed = charts.speedups(summary)
    assert {trace.type for trace in speed.data} == {"scatter"}
    for builder in (charts.dispatch_vs_synchronised, charts.first_call_vs_steady):
        assert {trace.type for trace in builder(summary).data} == {"scatter"}


def test_a_variant_has_one_colour_in_every_figure_and_log_axes_label_decades(real_result):
    from dashboard.figures.style import variant_color
    from dashboard.tables import run as data

    summary = data.summary(real_result)
    figures = charts.all_figures(
        summary, data.samples(real_result), data.replicas(real_result), 20e9
    )
    latency = {t.name: t.marker.color for t in figures["latency"].data}
    bars = figures["throughput"].data[0]
    for variant, color in zip(bars.x, bars.marker.color):
        assert latency.get(variant, color) == color == variant_color(variant)
    assert len({variant_color(v) for v in bars.x}) == len(bars.x)  # distinct colours
    for name in ("latency", "first_call", "dispatch"):
        axis = figures[name].layout.yaxis
        assert axis.type == "log" and axis.dtick == 1 and axis.tickformat == "~g"


def test_a_figure_with_nothing_to_say_is_one_line_saying_why():
    from dashboard.tables import run as data
    from tests.factories import make_run

    single = make_run({"einsum": [0.002] * 4})
    figure = charts.speedups(data.summary(single))
    assert not figure.data and figure.layout.annotations[0].text.startswith(
        "include python_loop or numpy"
    )


def test_every_catalogue_strategy_has_its_own_colour_and_none_is_the_wrong_red():
    from dashboard.figures.style import WRONG_COLOR, variant_color
    from engine.catalogue.catalog import strategy_names

    names = strategy_names()
    colours = {variant_color(name) for name in names}
    assert len(colours) == len(names) and WRONG_COLOR not in colours
    assert variant_color("einsum+xla") not in colours  # an option is told apart...
    assert variant_color("my_kernel") == variant_color("my_kernel")  # ...a name from elsewhere
    assert variant_color("my_kernel").startswith("#")  # stable, drawn from the palette


@pytest.mark.parametrize(
    ("value", "label"),
    [(2245.2, "2,245x"), (1.9, "1.90x"), (0.052, "19.2x slower"), (float("nan"), "")],
)
def test_speedup_labels_read_as_numbers(value, label):
    from dashboard.figures.run import ratio_label

    assert ratio_label(value) == label


def test_a_log_axis_spans_whole_decades_around_every_point_and_its_error_bar():
    import plotly.graph_objects as go

    from dashboard.figures.style import decade_log_axis

    fig = go.Figure(
        go.Scatter(x=["a", "b"], y=[0.045, 45.0], error_y={"type": "data", "array": [0, 80]})
    )
    decade_log_axis(fig)
    assert tuple(fig.layout.yaxis.range) == (-2, 3)  # 0.01 below 0.045; 1000 above 45 + 80
    counts = go.Figure(go.Scatter(x=np.array([4, 16]), y=[1.0, 2.0]))  # NumPy integers too
    decade_log_axis(counts, "x")
    assert tuple(counts.layout.xaxis.range) == (0, 2)
    single = go.Figure(go.Scatter(x=["a"], y=[10.0]))
    decade_log_axis(single)
    assert tuple(single.layout.yaxis.range) == (1, 2)  # never a zero-width range


def test_a_tied_speedup_is_labelled_as_fast_not_slower():
    from dashboard.figures.run import ratio_label

    assert ratio_label(1 / 1.81, 0.4, 1.2) == "about as fast (1.81x slower)"  # holds 1: a tie
    assert ratio_label(1 / 1.81, 0.4, 0.9) == "1.81x slower"
    # the verdict's rule: an interval reaching within the 5% margin of 1 does not separate them
    assert ratio_label(1 / 1.53, 0.3, 0.96) == "about as fast (1.53x slower)"
    assert ratio_label(1.52, 1.04, 2.2) == "about as fast (1.52x)"
    assert ratio_label(1.52, 1.06, 2.2) == "1.52x"
