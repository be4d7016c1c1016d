"""A run's bootstrap variance of its log median: resampled for the runs a tool makes, exact
(the value the resampling converges to) for the long runs a file may hold, and bounded in
memory whatever the count."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from engine.measure.run_spread import (
    RESAMPLED_UP_TO,
    bootstrap_log_medians,
    exact_log_median_variance,
    log_median_variance,
)
from engine.measure.uncertainty import ratio_interval


@pytest.mark.parametrize("size", [101, 501, 1001])
def test_the_exact_variance_is_what_the_bootstrap_converges_to(size):
    rng = np.random.default_rng(size)
    samples = 1e-3 * np.exp(rng.normal(0, 0.1, size)) * (1 + rng.exponential(0.05, size))
    resampled = float(np.var(bootstrap_log_medians([samples], rng, 20_000), ddof=1))
    # 20,000 resamples: the variance's own relative error is about 1%
    assert exact_log_median_variance(samples) == pytest.approx(resampled, rel=0.05)


def test_a_constant_run_has_no_spread_and_the_exact_form_takes_over_past_the_bound():
    assert exact_log_median_variance(np.full(5001, 2e-3)) == 0.0
    rng = np.random.default_rng(0)
    long = 1e-3 * np.exp(rng.normal(0, 0.05, RESAMPLED_UP_TO + 1))
    assert log_median_variance(long, rng, 2000) == exact_log_median_variance(long)


def test_a_ratio_of_two_million_sample_runs_costs_memory_in_proportion_to_them():
    """A file may hold a million samples a result: the interval of their ratio is computed
    without resamples x samples in memory (2000 x 20,000 took 1 GB)."""
    rng = np.random.default_rng(1)
    a = 1e-3 * np.exp(rng.normal(0, 0.05, 1_000_000))
    b = 1.1e-3 * np.exp(rng.normal(0, 0.05, 1_000_000))
    tracemalloc.start()
    try:
        found = ratio_interval([a], [b], floor_log_sd=0.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found.low < 1.1 < found.high and found.high / found.low < 1.01
    assert peak < 6 * (a.nbytes + b.nbytes)  # a sorted copy of each side, and a window
