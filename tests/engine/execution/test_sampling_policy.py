"""The sampling's rules, each asked alone (`sampling/policy.py`), on synthetic samplers."""

from __future__ import annotations

import numpy as np

from engine.execution.sampling.policy import OTHER_WORK, SamplingPolicy, still_sampling
from engine.harness.recording import Prepared
from engine.measure.racing import RacePlan
from engine.measure.timing import REWARM_S
from engine.results.events import silent
from engine.results.model import StrategyResult
from tests.engine.execution.synthetic import SyntheticSampler


def prepared(median_s: float, samples: int = 0, seed: int = 0) -> Prepared:
    sampler = SyntheticSampler(median_s, np.random.default_rng(seed), 0.01)
    for _ in range(samples):
        sampler.sample()
    return Prepared(StrategyResult("einsum", "einsum", "single", "ok", 1, 1, 1), sampler=sampler)


def policy(plan: RacePlan | None = None, seed: int = 0) -> SamplingPolicy:
    return SamplingPolicy(
        plan or RacePlan(adaptive=True, max_samples=20), silent, lambda: 0.0, seed
    )


def test_a_variant_stops_when_precise_or_at_its_most_samples_and_says_why():
    tight = prepared(2e-3, samples=12)
    assert not still_sampling(tight, RacePlan(adaptive=True, max_samples=50, precision=0.05))
    assert tight.result.stop_reason == "precise"
    capped = prepared(2e-3, samples=5)
    assert not still_sampling(capped, RacePlan(adaptive=False, max_samples=5))
    assert capped.result.stop_reason == "max_samples"
    assert still_sampling(prepared(2e-3, samples=1), RacePlan(adaptive=False, max_samples=5))


def test_a_turn_is_three_blocks_unless_one_call_outlasts_the_rewarm():
    rules = policy()
    assert rules.blocks_in_turn(prepared(2e-3)) == 3
    assert rules.blocks_in_turn(prepared(REWARM_S)) == 1


def test_a_block_after_another_variant_or_other_work_is_rewarmed():
    rules = policy()
    assert rules.rewarms(0)  # nothing of its own ran yet
    rules.ran(0)
    assert not rules.rewarms(0) and rules.rewarms(1)
    rules.ran(OTHER_WORK)
    assert rules.rewarms(0)


def test_a_rounds_order_is_seeded_and_puts_the_confirming_last():
    first = policy(seed=7).turn_order(list(range(6)), waits=lambda i: i == 2)
    again = policy(seed=7).turn_order(list(range(6)), waits=lambda i: i == 2)
    assert first == again and first[-1] == 2 and sorted(first) == list(range(6))
