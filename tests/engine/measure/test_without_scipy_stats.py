"""What a run computes while it samples, without importing SciPy's stats (0.7 s of every
command): the median's interval ranks, the race's critical values and the change-point ranks
agree with SciPy's own, and computing them leaves `scipy.stats` unimported."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from engine.measure.phases import average_ranks
from engine.measure.racing import RacePlan
from engine.measure.uncertainty import CONFIDENCE, _order_statistic_ranks


def quantile_test_ranks(size: int) -> tuple[int, int] | None:
    """The ranks SciPy's two-sided order-statistic interval picks, read off ranks as data."""
    ranks = np.arange(size, dtype=np.float64)
    found = stats.quantile_test(ranks, q=float(np.median(ranks)), p=0.5)
    interval = found.confidence_interval(confidence_level=CONFIDENCE)
    low, high = float(interval.low), float(interval.high)
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    return int(low), int(high)


def test_the_median_interval_ranks_are_scipys_for_every_count_a_run_takes():
    for size in range(1, 501):
        assert _order_statistic_ranks(size) == quantile_test_ranks(size), size


@pytest.mark.parametrize("size", [999, 1000, 2000])
def test_the_median_interval_ranks_are_scipys_for_long_runs(size):
    assert _order_statistic_ranks(size) == quantile_test_ranks(size)


@pytest.mark.parametrize("comparisons", [1, 2, 6, 30])
@pytest.mark.parametrize("max_samples", [6, 20, 200])
def test_the_race_critical_value_is_scipys(comparisons, max_samples):
    plan = RacePlan(adaptive=True, max_samples=max_samples)
    expected = float(stats.norm.isf(plan.alpha / (plan.looks * comparisons)))
    assert plan.z(comparisons) == pytest.approx(expected, rel=1e-12)


def test_average_ranks_are_scipys_rankdata_with_and_without_ties():
    rng = np.random.default_rng(7)
    for size in range(1, 80):
        for values in (rng.random(size), rng.integers(0, 4, size).astype(np.float64)):
            assert np.array_equal(average_ranks(values), stats.rankdata(values))


def test_sampling_statistics_do_not_import_scipy_stats():
    code = (
        "import sys\n"
        "from engine.measure.phases import pettitt\n"
        "from engine.measure.racing import RacePlan, relative_half_width\n"
        "samples = [1.0 + 0.01 * (i % 7) for i in range(40)]\n"
        "relative_half_width(samples)\n"
        "RacePlan(adaptive=True, max_samples=40).z(3)\n"
        "pettitt(samples)\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
