"""The tied stop's prediction (`RacePlan.cannot_separate`) against what it predicts: the verdict
the run would give at `max_samples`.

Each case draws `max_samples` lognormal samples for a pair with a known true ratio; wherever the
rule stops the pair as tied on a prefix of them (every turn of three from `min_samples` on),
the verdict on all of them (`winner_and_ties`, the default floor) must tie the pair too, for
all but a few percent of the seeds; and a difference the verdict separates is never stopped.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.measure.racing import MIN_SAMPLES, RacePlan, log_median_se
from engine.measure.uncertainty import NoiseFloor, Z, winner_and_ties

SEEDS = 300
PLAN = RacePlan(max_samples=20)
LOOKS = range(MIN_SAMPLES, PLAN.max_samples, 3)


def pair(ratio: float, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    best = 0.004 * np.exp(rng.normal(0.0, noise, PLAN.max_samples))
    other = 0.004 * ratio * np.exp(rng.normal(0.0, noise, PLAN.max_samples))
    return best, other


def first_tied_look(best: np.ndarray, other: np.ndarray) -> int | None:
    """The sample count at which the rule stops the pair as tied, if it does."""
    return next((n for n in LOOKS if PLAN.cannot_separate(best[:n], other[:n])), None)


def tied_at_the_end(best: np.ndarray, other: np.ndarray) -> bool:
    found = winner_and_ties({"best": best, "other": other}, NoiseFloor(), PLAN.margin)
    assert found is not None
    return found.variant == "other" or "other" in found.tied_with


@pytest.mark.parametrize("ratio", [1.0, 1.1, 1.2, 1.25, 1.3])
@pytest.mark.parametrize("noise", [0.02, 0.08, 0.3])
def test_a_pair_stopped_as_tied_is_tied_by_the_verdict_it_would_have_reached(ratio, noise):
    stopped = wrong = 0
    for seed in range(SEEDS):
        best, other = pair(ratio, noise, seed)
        if first_tied_look(best, other) is not None:
            stopped += 1
            wrong += not tied_at_the_end(best, other)
    assert wrong <= 0.05 * SEEDS


def test_pairs_the_verdict_ties_stop_early_and_quiet_ones_at_once():
    """A true tie on a quiet machine stops at `min_samples`; on a noisy one it still stops
    before `max_samples` in most runs (the samples could not separate it by then either)."""
    quiet = [first_tied_look(*pair(1.0, 0.02, seed)) for seed in range(SEEDS)]
    assert sum(n == MIN_SAMPLES for n in quiet) >= 0.95 * SEEDS
    noisy = [first_tied_look(*pair(1.0, 0.3, seed)) for seed in range(SEEDS)]
    assert sum(n is not None for n in noisy) >= 0.9 * SEEDS
    assert sum(n == MIN_SAMPLES for n in noisy) < sum(n == MIN_SAMPLES for n in quiet)


def test_a_difference_beyond_the_floors_reach_is_never_stopped_as_tied():
    """1.5× apart: the verdict separates it at any noise a run here shows, so no look ties it
    (1.05 · e^(1.96 · 0.08) = 1.23 is the floor's reach); nor 1.3× on a quiet machine."""
    for seed in range(SEEDS):
        assert first_tied_look(*pair(1.3, 0.02, seed)) is None
    for noise in (0.02, 0.08, 0.15):
        for seed in range(SEEDS):
            assert first_tied_look(*pair(1.5, noise, seed)) is None


def test_at_max_samples_the_rule_is_the_verdicts_own():
    """With every sample taken, nothing is left to predict: tied exactly when the ratio less
    its 95% reach (samples and floor) is within the margin."""
    rng = np.random.default_rng(1)
    for _ in range(200):
        ratio = math.exp(rng.uniform(0.0, 0.4))
        best, other = pair(ratio, 0.05, int(rng.integers(1 << 30)))
        point = math.log(np.median(other) / np.median(best))
        se = math.hypot(log_median_se(best), log_median_se(other))
        expected = point - Z * math.hypot(se, PLAN.floor_log_sd) <= math.log(1 + PLAN.margin)
        assert PLAN.cannot_separate(best, other) == expected
