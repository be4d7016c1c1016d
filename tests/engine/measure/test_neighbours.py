"""The run's own check of what its neighbours did to a variant, on synthetic blocks with known
answers: a shift after slower neighbours is found and sized, no shift is not reported beyond the
stated rate, too few blocks or a shift within the margin say nothing."""

import math

import numpy as np
import pytest

from engine.measure.neighbours import (
    ALPHA,
    MIN_EACH,
    blocks_by_neighbour,
    neighbour_effect,
)

FAST, ALSO_FAST, SLOW = 0, 1, 2
TRUE_S = {FAST: 0.004, ALSO_FAST: 0.0042, SLOW: 0.5}


def synthetic_run(
    seed: int, rounds: int = 20, shift: float = 1.0, noise: float = 0.05
) -> tuple[list[int], dict[int, list[float]]]:
    """Shuffled rounds of three variants; FAST reads `shift`× after SLOW, lognormal noise."""
    rng = np.random.default_rng(seed)
    sequence: list[int] = []
    samples: dict[int, list[float]] = {i: [] for i in TRUE_S}
    for _ in range(rounds):
        for index in rng.permutation(list(TRUE_S)).tolist():
            after_slow = bool(sequence) and sequence[-1] == SLOW
            factor = shift if index == FAST and after_slow else 1.0
            samples[index].append(TRUE_S[index] * factor * math.exp(rng.normal(0.0, noise)))
            sequence.append(index)
    return sequence, samples


def test_blocks_are_split_by_the_neighbour_that_ran_just_before():
    sequence = [FAST, SLOW, FAST, ALSO_FAST, FAST, FAST]
    samples = {FAST: [1.0, 2.0, 3.0, 4.0], ALSO_FAST: [5.0], SLOW: [9.0]}
    # the first block follows preparation; the last follows itself: in neither group
    assert blocks_by_neighbour(FAST, sequence, samples) == ([2.0], [3.0])


def test_a_shift_after_slower_neighbours_is_found_and_sized():
    sequence, samples = synthetic_run(seed=1, shift=1.3)
    effect = neighbour_effect(FAST, sequence, samples)
    assert effect is not None
    assert effect.ratio == pytest.approx(1.3, rel=0.08)
    assert effect.p_value < ALPHA / 3
    assert effect.after_slower + effect.after_others <= 19
    assert f"{effect.ratio:.2f}×" in effect.warning() and "--order sequential" in effect.warning()
    assert neighbour_effect(ALSO_FAST, sequence, samples) is None  # it was not moved


def test_no_shift_is_reported_at_most_at_the_stated_rate():
    flagged = sum(
        any(neighbour_effect(i, *synthetic_run(seed)) for i in TRUE_S) for seed in range(300)
    )
    assert flagged / 300 <= ALPHA + 0.02  # a whole run, every variant tested


def test_too_few_blocks_of_a_kind_or_a_shift_within_the_margin_say_nothing():
    sequence, samples = synthetic_run(seed=2, shift=1.5, rounds=4)
    assert min(map(len, blocks_by_neighbour(FAST, sequence, samples))) < MIN_EACH
    assert neighbour_effect(FAST, sequence, samples) is None
    sequence, samples = synthetic_run(seed=3, shift=1.03, rounds=400, noise=0.01)
    assert neighbour_effect(FAST, sequence, samples) is None  # real, but within 5%
