"""One voice: every ratio and interval a reader sees for a run — the Run page and the report
(one `RunView`), the speedup chart, the CLI's table, the History list — is the run's one
winner record's. Property-based, over generated runs: fast and slow, tight and spread, quiet
and busy, peers in their own processes."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from dashboard.report import run_report
from dashboard.report.html import escape
from dashboard.run_view import build
from engine.machine.load import MachineLoad
from engine.measure.uncertainty import NoiseFloor
from engine.results.formatting import speed_words, times
from engine.results.summary import summary_table
from engine.storage.history import History
from tests.factories import make_run

# numpy is a baseline (the speedup chart reads it); jax_vmap runs in its own process.
NAMES = ("numpy", "einsum", "batched_matvec", "jax_vmap")


@st.composite
def runs(draw):
    names = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=4, unique=True))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    samples = {}
    for name in names:
        median = draw(st.floats(1e-3, 3e-3))
        spread = draw(st.sampled_from((0.002, 0.02, 0.2)))
        count = draw(st.integers(5, 25))
        samples[name] = (median * np.exp(rng.normal(0, spread, count))).tolist()
    result = make_run(samples)
    busy = draw(st.sampled_from((0.0, 0.3, 0.6)))
    return dataclasses.replace(
        result,
        noise_floor=NoiseFloor(ratio_log_sd=draw(st.sampled_from((0.0, 0.02, 0.1)))),
        machine_load=MachineLoad(None, other_cpu_s=busy * 20.0, wall_s=10.0, cores=2),
    )


def tie_numbers(ratio: dict) -> str:
    low, high = ratio["ratio_ci"]
    return f"{ratio['ratio']:.2f}x the winner's time, {low:.2f}–{high:.2f}"


# No shrinking: each example builds a whole view (about 0.5 s), and a shrink of one failure took
# over five minutes; the failing example is printed as drawn.
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(result=runs())
def test_every_surface_prints_the_runs_one_ratio_and_interval(result, tmp_path_factory):
    record = result.winner_dict()
    view = build(result)
    cli = summary_table(result)
    report = run_report(result)
    assert view.winner == record

    for name in record["tied_with"]:  # a tie's numbers, the same on every surface
        words = tie_numbers(record["ratios"][name])
        assert words in view.answer
        assert words in cli
        assert escape(words) in report
    if not record["tied_with"] and record["ratios"]:  # a clean win names its nearest
        nearest = min(record["ratios"], key=lambda n: record["ratios"][n]["ratio"])
        low, high = record["ratios"][nearest]["ratio_ci"]
        ratio = record["ratios"][nearest]["ratio"]
        words = f"takes {ratio:.2f}× as long (95% interval {low:.2f}–{high:.2f})"
        assert words in view.answer
        assert escape(words) in report

    # The speedups chart and its sentence: a pair with the winner is the record's ratio.
    frame = view.summary.set_index("variant")
    winner = record["variant"]
    for name, ratio in record["ratios"].items():
        if name == "numpy":  # numpy's time over the winner's
            assert frame.loc[winner, "speedup_vs_numpy"] == ratio["ratio"]
            assert [
                frame.loc[winner, "speedup_vs_numpy_low"],
                frame.loc[winner, "speedup_vs_numpy_high"],
            ] == ratio["ratio_ci"]
            low, high = ratio["ratio_ci"]
            assert speed_words(ratio["ratio"], low, high, "`numpy`") in view.answer
            assert f"({times(low)}–{times(high)}x" in view.answer
        if winner == "numpy":  # the winner's time over each other's: the inverse
            assert math.isclose(frame.loc[name, "speedup_vs_numpy"], 1 / ratio["ratio"])
            assert math.isclose(frame.loc[name, "speedup_vs_numpy_low"], 1 / ratio["ratio_ci"][1])
    chart = view.figures["speedup"]
    if chart.data:
        points = dict(zip(chart.data[0].x, chart.data[0].y))
        for variant, y in points.items():
            shown = frame.loc[variant, "speedup_vs_numpy"]
            assert y == shown or (math.isnan(y) and math.isnan(shown))
    if "numpy" in frame.index:  # a variant against itself is not a measurement
        assert math.isnan(frame.loc["numpy", "speedup_vs_numpy"])

    history = History(tmp_path_factory.mktemp("history") / "history.sqlite3")
    history.add_run(result)
    listed = history.list_runs()
    assert listed["best_variant"].tolist() == [winner]
