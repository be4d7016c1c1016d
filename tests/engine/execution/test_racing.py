"""Adaptive sampling and racing on synthetic variants with known answers (`synthetic.py`).

Over many seeds: A/A stays within the stated false-elimination rate, a 1.5× slower variant is
eliminated with the stated power, a tie is never broken beyond that rate, stop reasons are
right, and a budget still ends a run that never gets precise. `test_neighbours_in_sampling.py`
holds what a neighbour and the machine's phases do to a variant's samples.
"""

from __future__ import annotations

import numpy as np

from engine.measure.racing import (
    GROSSLY_SLOWER,
    MIN_SAMPLES,
    RacePlan,
)
from engine.results.events import Eliminated, Sample
from tests.engine.execution.synthetic import (
    stop,
    synthetic_run,
)

SEEDS = 400


def test_a_and_a_stays_within_the_stated_false_elimination_rate():
    plan = RacePlan(max_samples=20)
    false = sum(
        any(
            i.result.stop_reason == "eliminated"
            for i in synthetic_run({"a": 0.004, "b": 0.004, "c": 0.004}, seed, plan=plan)[0]
        )
        for seed in range(SEEDS)
    )
    assert false / SEEDS <= plan.alpha  # stated: at most alpha over the whole run


def test_a_variant_one_and_a_half_times_slower_is_eliminated_with_high_power():
    eliminated = sum(
        stop(synthetic_run({"fast": 0.004, "slow": 0.006}, seed)[0], "slow") == "eliminated"
        for seed in range(SEEDS)
    )
    assert eliminated / SEEDS >= 0.95


def test_a_tie_inside_the_margin_is_not_broken_by_the_race():
    broken = sum(
        stop(synthetic_run({"a": 0.004, "b": 0.004 * 1.03}, seed)[0], "b") == "eliminated"
        for seed in range(SEEDS)
    )
    assert broken / SEEDS <= RacePlan().alpha


def test_a_busy_machine_widens_the_race_so_a_close_loser_is_not_eliminated():
    """1.4x apart: beyond the default floor's reach on a quiet machine, within a busy one's."""
    quiet = sum(
        stop(synthetic_run({"fast": 0.004, "slow": 0.0056}, seed)[0], "slow") == "eliminated"
        for seed in range(100)
    )
    busy = sum(
        stop(synthetic_run({"fast": 0.004, "slow": 0.0056}, seed, load=0.7)[0], "slow")
        == "eliminated"
        for seed in range(100)
    )
    assert quiet > 50 and busy < quiet / 4


def test_stop_reasons_precise_eliminated_and_max_samples():
    items, events = synthetic_run({"fast": 0.004, "slow": 0.02}, seed=1, noise=0.01)
    assert stop(items, "fast") == "precise" and stop(items, "slow") == "eliminated"
    slow = next(i for i in items if i.result.variant == "slow")
    assert len(slow.sampler.samples) == RacePlan().race_after  # eliminated at the first look
    assert "eliminated after 3 samples" in slow.result.notes[0]
    (event,) = [e for e in events if isinstance(e, Eliminated)]
    assert (event.variant, event.best) == ("slow", "fast") and event.low > 1.05
    fixed, _ = synthetic_run(
        {"fast": 0.004, "slow": 0.08}, seed=1, plan=RacePlan(adaptive=False, max_samples=7)
    )
    assert [i.result.stop_reason for i in fixed] == ["max_samples", "max_samples"]
    assert [len(i.sampler.samples) for i in fixed] == [7, 7]


def test_a_variant_many_times_slower_is_eliminated_after_one_sample():
    """An eager loop at 300× the best's time costs seconds per call: its one sample, above
    `GROSSLY_SLOWER` times every sample of the best, is enough."""
    items, events = synthetic_run({"fast": 0.004, "loop": 0.004 * 300}, seed=1, noise=0.2)
    loop = next(i for i in items if i.result.variant == "loop")
    assert loop.result.stop_reason == "eliminated" and len(loop.sampler.samples) == 1
    (event,) = [e for e in events if isinstance(e, Eliminated)]
    assert event.low > GROSSLY_SLOWER
    # Under the rule: the ordinary race decides, from its third sample.
    items, _ = synthetic_run({"fast": 0.004, "slow": 0.004 * 5}, seed=1, noise=0.01)
    assert len(next(i for i in items if i.result.variant == "slow").sampler.samples) == 3


def test_a_grossly_slower_variant_goes_at_its_turns_end_not_the_rounds():
    """Eager loops among fast variants: a loop whose one block follows a fast variant's turn
    is eliminated right after that block, before the round's later turns run (its result is
    on the page that much sooner), and no loop ever takes a second turn."""
    times = {"fast": 0.004, "near": 0.0042, "loop": 1.2, "other": 0.0045, "slow_loop": 0.9}
    checked = 0
    for seed in range(12):
        items, events = synthetic_run(times, seed, noise=0.05)
        for name in ("loop", "slow_loop"):
            item = next(i for i in items if i.result.variant == name)
            assert item.result.stop_reason == "eliminated"
            assert len(item.sampler.samples) == 1
            (block,) = [
                k for k, e in enumerate(events) if isinstance(e, Sample) and e.variant == name
            ]
            fast_before = any(
                isinstance(e, Sample) and times[e.variant] < 0.01 for e in events[:block]
            )
            if fast_before:
                after = events[block + 1]
                assert isinstance(after, Eliminated) and after.variant == name
                checked += 1
    assert checked >= 12  # a fast turn came first in most of the 24 cases


def test_a_pair_more_samples_could_not_separate_stops_as_tied():
    """Two variants 2% apart on a machine whose ratios move ±8% between runs: the verdict
    will tie them whatever more samples show, so sampling stops at `min_samples`, said."""
    items, _ = synthetic_run({"a": 0.004, "b": 0.004 * 1.02}, seed=4, noise=0.01)
    tied = [i for i in items if i.result.stop_reason == "tied"]
    assert len(tied) == 1 and len(tied[0].sampler.samples) == MIN_SAMPLES
    other = "a" if tied[0].result.variant == "b" else "b"
    assert tied[0].result.notes == [
        f"stopped after 6 samples: more could not separate it from {other} (the spread of "
        "ratios between runs, not its samples, decides this pair)"
    ]
    # A spread that leaves the pair open at 6 samples keeps sampling: a noisy pair is tied
    # only once the samples still to come could not separate it either, later.
    items, _ = synthetic_run({"a": 0.004, "b": 0.004 * 1.02}, seed=4, noise=0.3)
    assert all(len(i.sampler.samples) > MIN_SAMPLES for i in items)


def test_a_tied_stop_never_takes_a_real_difference_from_the_race():
    """1.5× apart, beyond the default floor's reach (1.05 · e^(1.96 · 0.08) = 1.23, and the
    runs' own offsets): eliminated (or precise), never stopped as tied."""
    stops = [
        stop(synthetic_run({"fast": 0.004, "slow": 0.004 * 1.5}, seed)[0], "slow")
        for seed in range(100)
    ]
    assert "tied" not in stops


def test_a_budget_ends_a_variant_that_never_gets_precise():
    items, _ = synthetic_run({"noisy": 0.004}, seed=3, noise=0.6, budget_blocks=9)
    assert stop(items, "noisy") == "budget" and len(items[0].sampler.samples) == 9


def test_max_samples_ends_a_noisy_variant_without_a_budget():
    items, _ = synthetic_run({"noisy": 0.004}, seed=3, noise=0.6, plan=RacePlan(max_samples=12))
    assert stop(items, "noisy") == "max_samples" and len(items[0].sampler.samples) == 12


def test_precise_at_its_last_allowed_sample_is_precise():
    """Reaching ±3% exactly at `max_samples` (or at the budget's last block) is precise."""
    plan = RacePlan(max_samples=MIN_SAMPLES)
    items, _ = synthetic_run({"steady": 0.004}, seed=3, noise=0.001, plan=plan)
    assert stop(items, "steady") == "precise" and len(items[0].sampler.samples) == MIN_SAMPLES
    items, _ = synthetic_run({"steady": 0.004}, seed=3, noise=0.001, budget_blocks=MIN_SAMPLES)
    assert stop(items, "steady") == "precise"


def test_a_wrong_variant_is_neither_a_reference_nor_raced():
    items, _ = synthetic_run(
        {"wrong_but_fast": 0.001, "right": 0.004}, seed=2, correct={"wrong_but_fast": False}
    )
    assert stop(items, "right") in ("precise", "max_samples")  # never eliminated by it
    assert stop(items, "wrong_but_fast") in ("precise", "max_samples")


def test_a_reduced_precision_point_never_eliminates_the_requested_dtypes_points():
    """Twice as fast in bfloat16 is another answer, not a better one: it is not the best the
    race measures the others against."""
    items, _ = synthetic_run({"bf16_fast": 0.002, "right": 0.004}, seed=2, reduced=("bf16_fast",))
    assert stop(items, "right") in ("precise", "max_samples")
    assert stop(items, "bf16_fast") in ("precise", "max_samples")


def test_a_reduced_precision_point_slower_than_the_best_is_eliminated_by_the_same_rule():
    """Five times the best's time in bfloat16 answers the trade's question (it is not
    faster): it goes at the race's first look, its note naming the best, as any variant's."""
    items, events = synthetic_run(
        {"right": 0.004, "bf16_slow": 0.02}, seed=1, noise=0.01, reduced=("bf16_slow",)
    )
    assert stop(items, "right") == "precise" and stop(items, "bf16_slow") == "eliminated"
    slow = next(i for i in items if i.result.variant == "bf16_slow")
    assert len(slow.sampler.samples) == RacePlan().race_after
    assert slow.result.notes[0].startswith("eliminated after 3 samples: slower than right")
    (event,) = [e for e in events if isinstance(e, Eliminated)]
    assert (event.variant, event.best) == ("bf16_slow", "right")


def test_a_reduced_precision_point_inside_the_margin_is_raced_as_a_tie_would_be():
    """1.03× the best: the race's false-elimination rate holds for it as for any pair."""
    broken = sum(
        stop(synthetic_run({"a": 0.004, "b16": 0.004 * 1.03}, s, reduced=("b16",))[0], "b16")
        == "eliminated"
        for s in range(SEEDS)
    )
    assert broken / SEEDS <= RacePlan().alpha


def test_a_reduced_precision_point_far_slower_than_a_peers_best_goes_at_min_samples():
    rng = np.random.default_rng(0)
    peer = {"jax_einsum": list(0.0025 * np.exp(rng.normal(0.0, 0.02, 20)))}
    items, _ = synthetic_run({"b16": 0.0045}, seed=1, noise=0.02, elsewhere=peer, reduced=("b16",))
    assert stop(items, "b16") == "eliminated" and len(items[0].sampler.samples) == MIN_SAMPLES
    assert "slower than jax_einsum (measured in its own process)" in items[0].result.notes[0]


def test_a_variant_far_slower_than_a_peers_best_is_eliminated_at_min_samples():
    """A peer process measured 2.5 ms (final); this process's two kernels at 4 ms, 1.6×: the
    verdict separates them from it whatever more samples show, so both go at `min_samples`,
    each note naming the peer's best and why; without the peer's samples they sample on."""
    rng = np.random.default_rng(0)
    peer = {"jax_einsum": list(0.0025 * np.exp(rng.normal(0.0, 0.02, 20)))}
    times = {"a": 0.004, "b": 0.004 * 1.03}
    items, events = synthetic_run(times, seed=1, noise=0.02, elsewhere=peer)
    for item in items:
        assert item.result.stop_reason == "eliminated"
        assert len(item.sampler.samples) == MIN_SAMPLES
        assert item.result.notes == [
            "eliminated after 6 samples: slower than jax_einsum (measured in its own process) "
            "beyond the 5% margin, by more than the spread between processes, which more "
            "samples here would not shrink"
        ]
    gone = [e for e in events if isinstance(e, Eliminated)]
    assert {e.variant for e in gone} == {"a", "b"} and {e.best for e in gone} == {"jax_einsum"}
    alone, _ = synthetic_run(times, seed=1, noise=0.02)
    assert all(i.result.stop_reason != "eliminated" for i in alone)


def test_a_peers_best_within_the_floors_reach_eliminates_nothing():
    """1.15× a peer's best: the spread between processes could cover it, so the run's own
    samples decide, as before."""
    rng = np.random.default_rng(0)
    peer = {"jax_einsum": list(0.004 / 1.15 * np.exp(rng.normal(0.0, 0.02, 20)))}
    items, _ = synthetic_run({"a": 0.004}, seed=1, noise=0.02, elsewhere=peer)
    assert items[0].result.stop_reason == "precise"
