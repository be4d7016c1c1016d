"""Adaptive sampling and racing on synthetic samplers with known answers.

Each synthetic variant has a true time per call; its samples are lognormal around it, and every
run draws a run-level offset per variant (what `NoiseFloor.ratio_log_sd` models: the part of a
ratio that one run cannot see). Over many seeds: A/A stays within the stated false-elimination
rate, a 1.5× slower variant is eliminated with the stated power, a tie is never broken beyond
that rate, stop reasons are right, and a budget still ends a run that never gets precise. A
neighbour that disturbs the next calls does not move a variant's median.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from engine.execution.base import Prepared
from engine.execution.sampling import take_samples
from engine.measure.phases import phase_ties
from engine.measure.racing import (
    MIN_SAMPLES,
    RacePlan,
    log_median_se,
    race,
    relative_half_width,
)
from engine.measure.timing import REWARM_S, Kernel, Sampler
from engine.results.events import Eliminated
from engine.results.model import StrategyResult
from tests.engine.measure.test_timing import AsyncDevice

SEEDS = 400


class SyntheticSampler:
    """What the sampling phase needs of a Sampler, with samples drawn from a known law."""

    def __init__(
        self, true_s: float, rng: np.random.Generator, noise: float, budget_blocks: int = 10**6
    ):
        self.true_s, self.rng, self.noise = true_s, rng, noise
        self.samples: list[float] = []
        self.budget_blocks = budget_blocks
        self.rewarms = 0

    def can_sample(self) -> bool:
        return not self.samples or len(self.samples) < self.budget_blocks

    def rewarm(self) -> None:
        self.rewarms += 1

    def sample(self) -> float:
        self.samples.append(self.true_s * math.exp(self.rng.normal(0.0, self.noise)))
        return self.samples[-1]


def synthetic_run(
    times: dict[str, float],
    seed: int,
    *,
    noise: float = 0.05,
    run_offset: float = 0.04 / math.sqrt(2),
    plan: RacePlan | None = None,
    budget_blocks: int = 10**6,
    correct: dict[str, bool] | None = None,
    load: float = 0.0,
    reduced: tuple[str, ...] = (),
) -> tuple[list[Prepared], list[object]]:
    rng = np.random.default_rng(seed)
    items = []
    for name, true_s in times.items():
        shifted = true_s * math.exp(rng.normal(0.0, run_offset))  # this run's own offset
        result = StrategyResult(name, name, "single", "ok", 1, 1, 1)
        result.correct = (correct or {}).get(name, True)
        if name in reduced:
            result.accuracy_class = "bfloat16 storage, float32 accumulation"
        sampler = SyntheticSampler(shifted, rng, noise, budget_blocks)
        items.append(Prepared(result, sampler))  # type: ignore[arg-type]
    events: list[object] = []
    take_samples(
        items,
        plan=plan or RacePlan(max_samples=20),
        order="interleaved",
        seed=seed,
        emit=events.append,
        on_failure=lambda *_: None,
        load=lambda: load,  # the machine this test runs on is not the one it models
    )
    return items, events


def fixed_interleaved(items: list[Prepared], seed: int):
    """Twenty interleaved samples of each of `items`, on a quiet machine; the run's record."""
    return take_samples(
        items,
        plan=RacePlan(adaptive=False, max_samples=20),
        order="interleaved",
        seed=seed,
        emit=lambda _e: None,
        on_failure=lambda *_: None,
        load=lambda: 0.0,
    )


def stop(items: list[Prepared], name: str) -> str | None:
    return next(i.result.stop_reason for i in items if i.result.variant == name)


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
    quiet = sum(
        stop(synthetic_run({"fast": 0.004, "slow": 0.0052}, seed)[0], "slow") == "eliminated"
        for seed in range(100)
    )
    busy = sum(
        stop(synthetic_run({"fast": 0.004, "slow": 0.0052}, seed, load=0.7)[0], "slow")
        == "eliminated"
        for seed in range(100)
    )
    assert quiet > 50 and busy < quiet / 4


def test_stop_reasons_precise_eliminated_and_max_samples():
    items, events = synthetic_run({"fast": 0.004, "slow": 0.08}, seed=1, noise=0.01)
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


def test_a_block_after_another_variants_block_is_preceded_by_a_rewarm():
    items = []
    for name in ("a", "b"):
        result = StrategyResult(name, name, "single", "ok", 1, 1, 1)
        sampler = SyntheticSampler(0.004, np.random.default_rng(0), 0.05)
        items.append(Prepared(result, sampler))  # type: ignore[arg-type]
    record = fixed_interleaved(items, seed=0)
    blocks = [-1] + [index for round_ in record.rounds for index in round_]  # -1: preparing
    switches = [now for before, now in itertools.pairwise(blocks) if now != before]
    assert [items[i].sampler.rewarms for i in (0, 1)] == [switches.count(0), switches.count(1)]
    assert len(switches) >= 20  # most blocks follow the other variant's


class Disturbed:
    """A device where a slow neighbour's call leaves the next `lasting` calls of anyone 1.5×
    slower (the allocator, caches, thread pools a real eager loop disturbs)."""

    def __init__(self, lasting: int = 3) -> None:
        self.device = AsyncDevice(work_s=0.0)
        self.lasting, self.left = lasting, 0

    def kernel(self, work_s: float, disturbs: bool) -> Kernel:
        def call(i: int) -> int:
            slow = 1.5 if self.left > 0 else 1.0
            self.left = self.lasting if disturbs else max(0, self.left - 1)
            self.device.work_s = work_s * slow
            return self.device.call(i)

        return Kernel(call=call, sync=self.device.sync)


def interleaved(world: Disturbed, kernels: dict[str, Kernel], samples: int) -> list[Prepared]:
    """Real samplers on the virtual clock, `samples` each, interleaved (fixed sampling)."""
    items = []
    for name, kernel in kernels.items():
        sampler = Sampler(kernel, warmup=0, budget_s=1000, clock=world.device.clock)
        result = StrategyResult(name, name, "single", "ok", 1, 1, 1)
        result.correct = True
        items.append(Prepared(result, sampler))
    take_samples(
        items,
        plan=RacePlan(adaptive=False, max_samples=samples),
        order="interleaved",
        seed=0,
        emit=lambda _e: None,
        on_failure=lambda *_: None,
        load=lambda: 0.0,
    )
    return items


def median_of_fast(with_neighbour: bool) -> float:
    world = Disturbed()
    kernels = {"fast": world.kernel(0.004, disturbs=False)}
    if with_neighbour:
        kernels["python_loop"] = world.kernel(0.2, disturbs=True)
    items = interleaved(world, kernels, samples=10)
    return float(np.median(items[0].sampler.samples))


def test_a_neighbour_that_disturbs_the_next_calls_does_not_move_a_variants_median():
    world = Disturbed()
    fast, slow = world.kernel(0.004, disturbs=False), world.kernel(0.2, disturbs=True)
    slow.sync(slow.call(0))
    before = world.device.now
    fast.sync(fast.call(1))
    assert world.device.now - before == pytest.approx(0.006, rel=1e-3)  # the disturbance is real
    assert median_of_fast(with_neighbour=True) == pytest.approx(median_of_fast(False))
    assert median_of_fast(with_neighbour=False) == pytest.approx(0.004, rel=1e-3)


def test_without_the_rewarm_the_same_neighbour_would_move_the_median(monkeypatch):
    monkeypatch.setattr(Sampler, "rewarm", lambda self: None)
    assert median_of_fast(with_neighbour=True) > 1.1 * median_of_fast(with_neighbour=False)


def test_the_race_helpers_on_known_samples():
    assert log_median_se([1.0]) == 0.0
    assert relative_half_width([1.0] * 8) == 0.0
    plan = RacePlan(max_samples=20)
    assert plan.looks == 18 and plan.z(3) > plan.z(1) > 2.5
    found = race({"a": [1.0] * 3, "b": [3.0] * 3, "c": [1.01] * 3}, {"b", "c"}, plan)
    assert set(found) == {"b"} and found["b"].best == "a" and found["b"].ratio == pytest.approx(3.0)
    assert race({"a": [1.0] * 2, "b": [9.0] * 2}, {"b"}, plan) == {}  # too few samples yet
    assert race({"a": [1.0] * 3, "b": [9.0] * 3}, {"b"}, RacePlan(adaptive=False)) == {}


def test_a_rewarm_makes_its_calls_whatever_they_read():
    """Rules that stopped once the calls looked settled were measured biased beside
    python_loop (docs/timing.md): the re-warm makes REWARM_S worth of the variant's calls,
    disturbed or not."""
    for lasting in (0, 10**6):
        world = Disturbed(lasting=lasting)
        fast, slow = world.kernel(0.004, disturbs=False), world.kernel(0.2, disturbs=True)
        sampler = Sampler(fast, warmup=0, budget_s=1000, clock=world.device.clock)
        sampler.sample()
        slow.sync(slow.call(10**6))
        before = len(world.device.calls)
        sampler.rewarm()
        assert len(world.device.calls) - before == math.ceil(REWARM_S / sampler.samples[-1])


def test_one_sample_in_a_fast_mode_keeps_three_slow_looking_samples_in_the_race():
    """A shared machine's bimodal noise: two of three samples in its 2× slow mode. The MAD of
    three samples would ignore the fast one and eliminate; the spread keeps it running."""
    best = [4.0e-3, 4.05e-3, 4.1e-3]
    plan = RacePlan(max_samples=20)
    assert race({"a": best, "b": [4.3e-3, 8.4e-3, 8.6e-3]}, {"b"}, plan) == {}
    steady = [8.2e-3, 8.4e-3, 8.6e-3, 8.3e-3, 8.5e-3, 8.4e-3]
    assert set(race({"a": best * 2, "b": steady}, {"b"}, plan)) == {"b"}


def test_three_samples_in_a_hosts_slow_phase_do_not_eliminate_a_variant_near_the_best():
    """A shared VM's host can halve a two-thread kernel's speed for seconds: three samples at
    about 2× are not enough (it takes `min_samples`); three at 10× are."""
    best = [4.0e-3, 4.05e-3, 4.1e-3]
    plan = RacePlan(max_samples=20)
    assert race({"a": best, "b": [8.8e-3, 8.9e-3, 8.7e-3]}, {"b"}, plan) == {}
    assert set(race({"a": best * 2, "b": [8.8e-3, 8.9e-3, 8.7e-3] * 2}, {"b"}, plan)) == {"b"}
    assert set(race({"a": best, "b": [40e-3, 41e-3, 42e-3]}, {"b"}, plan)) == {"b"}


def test_a_rewarm_is_not_fooled_by_a_preparation_the_neighbour_slowed_too():
    """The synced dispatch block was taken while a neighbour's disturbance lasted, so it reads
    slow; the re-warm still spends the disturbance, and the first sample is the undisturbed
    time."""
    world = Disturbed(lasting=10**6)
    fast, slow = world.kernel(0.004, disturbs=False), world.kernel(0.2, disturbs=True)
    slow.sync(slow.call(10**6))
    sampler = Sampler(fast, warmup=0, budget_s=1000, clock=world.device.clock)
    assert sampler.dispatch_block_s == pytest.approx(0.006, rel=1e-3)  # disturbed reference
    world.lasting, world.left = 8, 8  # the disturbance now wears off after 8 more calls
    sampler.rewarm()
    sampler.sample()
    assert sampler.samples[-1] == pytest.approx(0.004, rel=1e-3)


def run_beside_a_disturbing_neighbour() -> list[Prepared]:
    """Two fast variants and a slow one that slows the next calls, interleaved."""
    world = Disturbed(lasting=3)
    kernels = {
        "fast": world.kernel(0.004, disturbs=False),
        "also_fast": world.kernel(0.0041, disturbs=False),
        "python_loop": world.kernel(0.2, disturbs=True),
    }
    return interleaved(world, kernels, samples=20)


def neighbour_notes(items: list[Prepared]) -> dict[str, list[str]]:
    return {
        item.result.variant: [n for n in item.result.warnings if "slower neighbours" in n]
        for item in items
    }


def test_a_run_says_when_its_blocks_after_slower_neighbours_read_slow(monkeypatch):
    """What the re-warm does not clear, the run sees in its own record and says."""
    assert neighbour_notes(run_beside_a_disturbing_neighbour()) == {
        "fast": [],
        "also_fast": [],
        "python_loop": [],
    }
    monkeypatch.setattr(Sampler, "rewarm", lambda self: None)
    notes = neighbour_notes(run_beside_a_disturbing_neighbour())
    assert len(notes["fast"]) == len(notes["also_fast"]) == 1
    assert "read 1.3" in notes["fast"][0] and notes["python_loop"] == []


class PhasedSampler(SyntheticSampler):
    """A variant the host slows `slowed`× from its `from_sample`-th sample on (a slow phase)."""

    def __init__(self, true_s: float, rng: np.random.Generator, from_sample: int, slowed: float):
        super().__init__(true_s, rng, noise=0.03)
        self.from_sample, self.slowed = from_sample, slowed

    def sample(self) -> float:
        value = super().sample()
        if len(self.samples) > self.from_sample:
            self.samples[-1] = value * self.slowed
        return self.samples[-1]


def test_a_variant_the_machine_slowed_mid_run_says_so_and_is_tied_by_the_record():
    rng = np.random.default_rng(7)
    names = {"batched_matvec": 0.0037, "numpy": 0.0044, "python_loop": 0.45}
    items = []
    for name, true_s in names.items():
        if name == "batched_matvec":
            sampler = PhasedSampler(true_s, rng, from_sample=8, slowed=2.2)
        else:
            sampler = SyntheticSampler(true_s, rng, noise=0.03)
        items.append(Prepared(StrategyResult(name, name, "single", "ok", 1, 1, 1), sampler))
        items[-1].result.correct = True
    record = fixed_interleaved(items, seed=3)
    warned = {
        i.result.variant for i in items if any("time changed" in w for w in i.result.warnings)
    }
    assert warned == {"batched_matvec"}
    samples = {i.result.variant: i.sampler.samples for i in items}
    found = phase_ties("numpy", ["batched_matvec", "python_loop"], samples, record.to_dict())
    assert set(found) == {"batched_matvec"} and found["batched_matvec"].round == 8
