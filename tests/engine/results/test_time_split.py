"""Where a run's measuring went (`results/time_split.py`): its timed blocks and re-warms, from
its results, stored once in `timings` and said by the took line."""

from __future__ import annotations

import pytest

from engine.results.summary import took_line
from engine.results.time_split import time_split
from tests.factories import make_run


def test_the_timed_blocks_are_every_sample_times_its_calls_and_the_rewarms_are_summed():
    run = make_run({"numpy": [0.01] * 6, "einsum": [0.02] * 4})
    numpy, einsum = run.results
    numpy.calls_per_sample, einsum.calls_per_sample = 3, 2
    numpy.rewarm_s, einsum.rewarm_s = 0.25, None  # a variant with none said
    split = time_split(run.results)
    assert split["timed_s"] == pytest.approx(6 * 0.01 * 3 + 4 * 0.02 * 2)
    assert split["rewarm_s"] == pytest.approx(0.25)
    assert time_split([]) == {"timed_s": 0.0, "rewarm_s": 0.0}


def test_the_took_line_says_the_split_where_the_run_has_one():
    timings = {"peers_s": 4.9, "variants_s": 7.04, "total_s": 12.2}
    plain = took_line(timings)
    assert plain == "This run took 12.2 s: peers 4.9 s · variants 7.0 s"
    split = took_line({**timings, "timed_s": 3.14, "rewarm_s": 3.31})
    assert split == plain + "; its timed calls took 3.1 s of it and its re-warms 3.3 s"


def test_the_split_survives_the_results_file_and_an_older_file_has_none():
    from engine.results.run_result import RunResult

    run = make_run({"numpy": [0.01] * 6, "einsum": [0.02] * 6})
    run.results[0].rewarm_s = 0.36
    run.timings = {"variants_s": 1.0, "total_s": 2.0, "timed_s": 0.4, "rewarm_s": 0.36}
    again = RunResult.from_dict(run.to_dict())
    assert again.results[0].rewarm_s == 0.36 and again.results[1].rewarm_s is None
    assert again.timings["timed_s"] == 0.4 and again.timings["rewarm_s"] == 0.36
    older = run.to_dict()
    older["timings"] = {"variants_s": 1.0, "total_s": 2.0}
    assert "timed_s" not in RunResult.from_dict(older).timings


def test_a_real_runs_split_is_within_its_measuring_and_counts_its_rewarms():
    """Two fast variants interleaved: every turn after the first follows the other variant, so
    re-warms are made, and the timed blocks are a part of the variants' phase."""
    from engine import BenchConfig, run

    config = BenchConfig(
        matrices=40, dim=6, cols=5, repeats=6, time_budget_s=5, strategies=("numpy", "einsum")
    )
    result = run(config)
    timings = result.timings
    assert 0 < timings["timed_s"] < timings["variants_s"]
    assert timings["rewarm_s"] > 0
    assert timings["timed_s"] + timings["rewarm_s"] <= timings["variants_s"]
    assert timings["rewarm_s"] == pytest.approx(sum(r.rewarm_s or 0 for r in result.results))
