"""The race against a best another process measured (`RacePlan.lowest_reach`,
`separated_from_elsewhere`) against what it predicts: the verdict at `max_samples`.

Each case draws a pair with a known true ratio, each side moved by its own process's offset
(drawn at the default floor between processes, what the verdict's floor models), the best's 20
samples final (a peer's), the other's taken a turn of three at a time from `min_samples` on;
wherever the rule eliminates the other on a prefix, the verdict on all 20 (`winner_and_ties`,
the sides in different processes) must separate the pair too, for all but a few percent of the
seeds; a true tie is eliminated no more often than that verdict itself separates one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.measure.racing import MIN_SAMPLES, RacePlan, separated_from_elsewhere
from engine.measure.uncertainty import DEFAULT_BETWEEN_RUN_LOG_SD, NoiseFloor, winner_and_ties

SEEDS = 300
PLAN = RacePlan(max_samples=20)
LOOKS = range(MIN_SAMPLES, PLAN.max_samples, 3)


def pair(ratio: float, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    best_offset, other_offset = rng.normal(0.0, DEFAULT_BETWEEN_RUN_LOG_SD, 2)
    best = 0.004 * math.exp(best_offset) * np.exp(rng.normal(0.0, noise, PLAN.max_samples))
    other = 0.004 * ratio * math.exp(other_offset) * np.exp(rng.normal(0.0, noise, 20))
    return best, other


def first_eliminating_look(best: np.ndarray, other: np.ndarray) -> int | None:
    return next(
        (
            n
            for n in LOOKS
            if separated_from_elsewhere({"other": other[:n]}, {"other"}, {"peer": best}, PLAN)
        ),
        None,
    )


def separated_at_the_end(best: np.ndarray, other: np.ndarray) -> bool:
    found = winner_and_ties(
        {"best": best, "other": other},
        NoiseFloor(),
        PLAN.margin,
        processes={"best": "peer", "other": "here"},
    )
    assert found is not None
    return found.variant == "best" and "other" not in found.tied_with


@pytest.mark.parametrize("ratio", [1.0, 1.1, 1.2, 1.3, 1.4, 1.6])
@pytest.mark.parametrize("noise", [0.02, 0.08, 0.3])
def test_a_variant_eliminated_early_is_separated_by_the_verdict_it_would_have_reached(ratio, noise):
    """Seen here: at most 7 of 300 wrong (1.4×, 30% noise), none at 2% noise above 1.2×."""
    stopped = wrong = 0
    for seed in range(SEEDS):
        best, other = pair(ratio, noise, seed)
        if first_eliminating_look(best, other) is not None:
            stopped += 1
            wrong += not separated_at_the_end(best, other)
    assert wrong <= 0.05 * SEEDS


@pytest.mark.parametrize("noise", [0.02, 0.08, 0.3])
def test_a_true_tie_is_eliminated_no_more_often_than_the_verdict_separates_one(noise):
    eliminated = sum(
        first_eliminating_look(*pair(1.0, noise, seed)) is not None for seed in range(SEEDS)
    )
    separated = sum(separated_at_the_end(*pair(1.0, noise, seed)) for seed in range(SEEDS))
    assert eliminated <= max(separated, 0.02 * SEEDS)


def test_a_variant_far_beyond_the_floor_goes_at_min_samples():
    """1.6× a peer's best on a quiet machine: the verdict separates it whatever the 14 samples
    still to come show (1.05 · e^(1.96 · √2 · 0.08) = 1.31 is the floors' reach)."""
    at_once = [first_eliminating_look(*pair(1.6, 0.02, seed)) for seed in range(SEEDS)]
    assert sum(n == MIN_SAMPLES for n in at_once) >= 0.9 * SEEDS


def test_nothing_is_eliminated_before_both_sides_have_min_samples_or_in_a_fixed_plan():
    best, other = pair(3.0, 0.02, 0)
    assert separated_from_elsewhere({"o": other[:5]}, {"o"}, {"peer": best}, PLAN) == {}
    assert separated_from_elsewhere({"o": other}, {"o"}, {"peer": best[:5]}, PLAN) == {}
    fixed = RacePlan(adaptive=False, max_samples=20)
    assert separated_from_elsewhere({"o": other}, {"o"}, {"peer": best}, fixed) == {}
    assert separated_from_elsewhere({"o": other}, set(), {"peer": best}, PLAN) == {}  # stopped


def test_the_bound_names_the_fastest_peer_and_a_wider_floor_eliminates_less():
    rng = np.random.default_rng(5)
    fast = 0.004 * np.exp(rng.normal(0.0, 0.02, 20))
    slower_peer = 1.2 * fast
    other = 0.004 * 1.45 * np.exp(rng.normal(0.0, 0.02, 6))
    found = separated_from_elsewhere(
        {"o": other}, {"o"}, {"slow_peer": slower_peer, "fast_peer": fast}, PLAN
    )
    assert found["o"].best == "fast_peer"
    assert found["o"].low > 1 + PLAN.margin and found["o"].ratio == pytest.approx(1.45, rel=0.05)
    busy = PLAN.under_load(0.6)  # a busy machine widens the floor between processes too
    assert busy.between_log_sd > PLAN.between_log_sd
    assert separated_from_elsewhere({"o": other}, {"o"}, {"fast_peer": fast}, busy) == {}
