"""Statistics on synthetic data with known answers: intervals, verdicts, ties.

Runs are drawn from a process-level model of this machine: each run has its own offset
(between-run spread, what a fresh process changes) and its samples scatter around it. The
seeds are fixed, so every rate below is an exact, repeatable count, not a flaky estimate.
"""

import math

import numpy as np
import pytest

from engine.measure.power import POWER, detectable_ratio, runs_to_detect
from engine.measure.run_spread import t_stretch
from engine.measure.uncertainty import (
    NoiseFloor,
    RatioEstimate,
    Z,
    median_ci,
    ratio_interval,
    verdict,
    winner_and_ties,
)

BETWEEN_RUN = 0.08  # log sd of a run's level: medians move about ±15% between processes
WITHIN_RUN = 0.05  # log sd of samples within a run


def draw_run(rng, level_s: float, samples: int = 20, between: float = BETWEEN_RUN) -> list[float]:
    offset = rng.normal(0.0, between)
    return list(level_s * np.exp(offset + rng.normal(0.0, WITHIN_RUN, samples)))


def test_median_interval_covers_the_true_median_at_the_stated_rate():
    rng = np.random.default_rng(3)
    hits = 0
    for _ in range(400):
        samples = rng.lognormal(0.0, 0.2, 20)  # true median exactly 1
        low, high = median_ci(samples)
        hits += low <= 1.0 <= high
    assert hits / 400 >= 0.93


def test_median_interval_of_few_samples_is_their_range():
    assert median_ci([3.0, 1.0, 2.0]) == (1.0, 3.0)
    assert median_ci([5.0]) == (5.0, 5.0)


def test_a_a_pairs_are_rarely_called_different():
    rng = np.random.default_rng(11)
    called = 0
    for seed in range(200):
        a, b = draw_run(rng, 0.004), draw_run(rng, 0.004)
        found = verdict(ratio_interval([a], [b], BETWEEN_RUN, seed=seed))
        called += found in ("faster", "slower")
    assert called / 200 <= 0.05


def test_ignoring_the_spread_between_runs_calls_identical_runs_different():
    """Why the floor exists: without it, one run a side is far too confident."""
    rng = np.random.default_rng(11)
    called = sum(
        verdict(ratio_interval([draw_run(rng, 0.004)], [draw_run(rng, 0.004)], 0.0, seed=s))
        in ("faster", "slower")
        for s in range(200)
    )
    assert called / 200 > 0.25


def test_one_and_a_half_times_the_work_is_called_slower_with_a_calibrated_floor():
    """One run a side on a machine whose floor was calibrated at 0.05 (as measured here)."""
    rng = np.random.default_rng(12)
    slower = 0
    for seed in range(200):
        a, b = draw_run(rng, 0.004, between=0.05), draw_run(rng, 0.006, between=0.05)
        slower += verdict(ratio_interval([a], [b], 0.05, seed=seed)) == "slower"
    assert slower / 200 >= 0.95


def test_on_a_noisier_machine_repetitions_restore_the_power():
    rng = np.random.default_rng(13)
    single = repeated = 0
    for seed in range(100):
        a = [draw_run(rng, 0.004) for _ in range(5)]
        b = [draw_run(rng, 0.006) for _ in range(5)]
        single += verdict(ratio_interval(a[:1], b[:1], BETWEEN_RUN, seed=seed)) == "slower"
        repeated += verdict(ratio_interval(a, b, BETWEEN_RUN, seed=seed)) == "slower"
    assert repeated / 100 >= 0.95
    assert single < repeated


@pytest.mark.parametrize("per_side", [2, 3, 5])
def test_few_runs_a_side_call_identical_sides_different_at_most_5_percent(per_side):
    """Sides of a few runs (`compare --rerun K`, two stored groups): their spread is seen, but
    three runs that happen to agree say little, so the interval is Welch's t. A bootstrap over
    the runs (the earlier rule) called A/A pairs of three runs a side different far more often
    than 5% on a spread this size."""
    rng = np.random.default_rng(21 + per_side)
    trials = 400
    called = 0
    for seed in range(trials):
        a = [draw_run(rng, 0.004, between=0.15) for _ in range(per_side)]
        b = [draw_run(rng, 0.004, between=0.15) for _ in range(per_side)]
        called += verdict(ratio_interval(a, b, 0.0, seed=seed)) in ("faster", "slower")
    assert called / trials <= 0.05


def test_runs_that_agree_exactly_still_carry_their_samples_noise():
    """Two runs a side with identical medians: no spread between runs is seen, but each
    median's own sampling noise keeps the interval from collapsing to a point."""
    samples = list(0.004 * np.exp(np.random.default_rng(4).normal(0, 0.05, 20)))
    estimate = ratio_interval([samples, samples], [samples, samples], 0.0)
    assert estimate.low < 1 < estimate.high and estimate.log_se > 0


def test_hierarchical_bootstrap_widens_with_spread_between_runs():
    rng = np.random.default_rng(5)

    def width(between: float) -> float:
        a = [
            list(0.004 * np.exp(rng.normal(0, between) + rng.normal(0, 0.02, 20))) for _ in range(5)
        ]
        b = [
            list(0.004 * np.exp(rng.normal(0, between) + rng.normal(0, 0.02, 20))) for _ in range(5)
        ]
        estimate = ratio_interval(a, b, floor_log_sd=0.5)  # unused: both sides have 5 runs
        return math.log(estimate.high / estimate.low)

    assert width(0.15) > 3 * width(0.0)


def test_a_single_run_side_is_widened_by_the_floor_only_where_it_is_single():
    rng = np.random.default_rng(6)
    a = [draw_run(rng, 0.004) for _ in range(4)]
    b = draw_run(rng, 0.004)
    one_side = ratio_interval(a, [b], 0.1)
    both_many = ratio_interval(a, [draw_run(rng, 0.004) for _ in range(4)], 0.1)
    assert math.log(one_side.high / one_side.low) > math.log(both_many.high / both_many.low)
    assert (one_side.runs_a, one_side.runs_b) == (4, 1)


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (1.2, 1.4, "slower"),
        (0.6, 0.9, "faster"),
        (0.97, 1.03, "same"),
        (0.9, 1.1, "inconclusive"),
        (1.01, 1.3, "inconclusive"),  # slower, but not shown to be beyond the margin
    ],
)
def test_verdicts_need_the_interval_clear_of_the_margin(low, high, expected):
    assert verdict(RatioEstimate(math.sqrt(low * high), low, high, 1, 1), 0.05) == expected


def test_ties_are_the_variants_within_the_noise_of_the_fastest():
    rng = np.random.default_rng(8)
    runs = {
        "batched_matvec": list(0.0040 * np.exp(rng.normal(0, 0.02, 20))),
        "einsum": list(0.0041 * np.exp(rng.normal(0, 0.02, 20))),
        "map_fn": list(0.0300 * np.exp(rng.normal(0, 0.02, 20))),
    }
    found = winner_and_ties(runs, NoiseFloor(ratio_log_sd=0.04))
    assert found.variant == "batched_matvec"
    assert found.tied_with == ("einsum",)
    assert found.ratios["map_fn"].low > 5


def test_a_clear_winner_has_no_ties_and_nothing_timed_has_no_winner():
    runs = {"a": [0.001] * 10, "b": [0.002] * 10}
    found = winner_and_ties(runs, NoiseFloor(ratio_log_sd=0.04))
    assert found.variant == "a" and found.tied_with == ()
    assert winner_and_ties({"a": ()}, NoiseFloor()) is None


@pytest.mark.parametrize("log_se", [0.02, 0.08, 0.2])
def test_the_detectable_ratio_is_called_slower_at_the_stated_power(log_se):
    """A true slowdown of exactly the detectable ratio, seen through an error of `log_se`, is
    called slower by the verdict's own rule in 80% of comparisons."""
    rng = np.random.default_rng(11)
    true = detectable_ratio(log_se)
    points = math.log(true) + rng.normal(0.0, log_se, 20_000)
    calls = [
        verdict(
            RatioEstimate(math.exp(p), math.exp(p - Z * log_se), math.exp(p + Z * log_se), 1, 1)
        )
        for p in points
    ]
    assert calls.count("slower") / len(calls) == pytest.approx(POWER, abs=0.01)
    assert detectable_ratio(0.0) == pytest.approx(1.05)  # a perfect comparison: the margin


def test_the_runs_asked_for_shrink_the_error_enough_to_detect_the_ratio():
    log_se, runs = 0.2, 3
    assert detectable_ratio(log_se) > 1.5  # three runs a side cannot see 1.5x here
    needed = runs_to_detect(log_se, runs, 1.5)
    assert needed > runs

    def seen_with(count: int) -> float:  # sides of `count` runs: Welch's t at 2(count-1)
        return detectable_ratio(log_se * math.sqrt(runs / count) * t_stretch(2 * (count - 1)))

    assert seen_with(needed) <= 1.5
    assert seen_with(needed - 1) > 1.5  # the fewest
    assert runs_to_detect(log_se, runs, 1.04) is None  # inside the 5% margin: never slower
    assert runs_to_detect(0.01, runs, 1.5) == runs  # already enough


def test_a_comparisons_interval_carries_the_error_it_was_drawn_with():
    rng = np.random.default_rng(5)
    a, b = [draw_run(rng, 0.01)], [draw_run(rng, 0.015)]
    estimate = ratio_interval(a, b, floor_log_sd=BETWEEN_RUN)
    assert estimate.low == pytest.approx(estimate.ratio * math.exp(-Z * estimate.log_se))
    assert estimate.log_se > BETWEEN_RUN * math.sqrt(2)  # both sides' floor, in quadrature


def test_a_file_with_an_absurdly_short_sample_gives_a_finite_unbounded_interval():
    """Found by the door's property test: 1e-268 s beside 3e-4 s made exp() overflow."""
    from engine.measure.uncertainty import ratio_interval

    runs = [(1.2086367595621748e-268, 0.0002880115600055433, 0.00028607783002371434)]
    found = ratio_interval(runs, runs, 0.08, seed=1, extra_log_sd=0.27)
    assert found.ratio == pytest.approx(1.0)
    assert 0 < found.low < 1e-300 and 1e300 < found.high < float("inf")
