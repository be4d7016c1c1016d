"""What a neighbour and the machine's phases do to a variant's samples, on synthetic variants
with known answers (`synthetic.py`): a block after another variant's is preceded by a rewarm,
a neighbour that disturbs the next calls does not move a variant's median, a run says when its
blocks after slower neighbours read slow, and a variant the machine slowed mid-run says so.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from engine.execution.sampling.loop import take_samples
from engine.execution.sampling.policy import TURN_BLOCKS, turn_blocks
from engine.harness.recording import Prepared
from engine.measure.phases import phase_ties
from engine.measure.racing import (
    RacePlan,
    log_median_se,
    race,
    relative_half_width,
)
from engine.measure.timing import REWARM_S, Kernel, Sampler
from engine.results.model import StrategyResult
from tests.engine.execution.synthetic import (
    SyntheticSampler,
    fixed_interleaved,
)
from tests.engine.measure.test_timing import AsyncDevice


def test_a_turn_after_another_variants_block_begins_with_a_rewarm():
    """Every switch of variant (and the first block, after preparation) costs one re-warm;
    a turn's further blocks follow its own and need none."""
    items = []
    for name in ("a", "b"):
        result = StrategyResult(name, name, "single", "ok", 1, 1, 1)
        sampler = SyntheticSampler(0.004, np.random.default_rng(0), 0.05)
        items.append(Prepared(result, sampler))  # type: ignore[arg-type]
    record = fixed_interleaved(items, seed=0)
    blocks = [-1] + [index for round_ in record.rounds for index in round_]  # -1: preparing
    switches = [now for before, now in itertools.pairwise(blocks) if now != before]
    assert [items[i].sampler.rewarms for i in (0, 1)] == [switches.count(0), switches.count(1)]
    assert len(switches) >= 7  # 20 blocks each, in turns of at most TURN_BLOCKS
    runs = [len(list(group)) for _, group in itertools.groupby(blocks[1:])]
    assert max(runs) <= 2 * TURN_BLOCKS  # a turn, perhaps followed by its next round's


def test_a_turn_is_several_blocks_for_a_variant_that_is_rewarmed_and_one_otherwise():
    quick = SyntheticSampler(0.004, np.random.default_rng(0), 0.05)
    assert turn_blocks(quick) == TURN_BLOCKS
    assert turn_blocks(SyntheticSampler(REWARM_S, np.random.default_rng(0), 0.05)) == 1
    quick.fixed_calls = 5  # a multi-worker run: every worker the same calls, no re-warm
    assert turn_blocks(quick) == 1


def test_a_block_after_a_failed_block_is_preceded_by_a_rewarm():
    """A block that raised left the process in a state nobody measured: the next variant's
    block is re-warmed even when the failed one is of its own speed."""

    class Failing(SyntheticSampler):
        def sample(self) -> float:
            raise RuntimeError("out of memory")

    rng = np.random.default_rng(0)
    failing, steady = Failing(0.004, rng, 0.05), SyntheticSampler(0.004, rng, 0.05)
    items = [
        Prepared(StrategyResult(n, n, "single", "ok", 1, 1, 1), sampler)  # type: ignore[arg-type]
        for n, sampler in (("b", failing), ("a", steady))
    ]
    take_samples(
        items,
        plan=RacePlan(adaptive=False, max_samples=4),
        order="sequential",  # b's block fails first, then a's four blocks
        seed=0,
        emit=lambda _e: None,
        on_failure=lambda *_: None,
        load=lambda: 0.0,
    )
    assert len(steady.samples) == 4 and steady.rewarms == 1


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
    # One block a turn, so that every block follows the neighbour's (in a turn of three the
    # disturbance would reach only the first, and the median would hide it).
    monkeypatch.setattr("engine.execution.sampling.policy.TURN_BLOCKS", 1)
    assert median_of_fast(with_neighbour=True) > 1.1 * median_of_fast(with_neighbour=False)


def test_the_race_helpers_on_known_samples():
    assert log_median_se([1.0]) == 0.0
    assert relative_half_width([1.0] * 8) == 0.0
    plan = RacePlan(max_samples=20)
    assert plan.looks == 18 and plan.z(3) > plan.z(1) > 2.5
    found = race({"a": [1.0] * 3, "b": [4.0] * 3, "c": [1.01] * 3}, {"b", "c"}, plan)
    assert set(found) == {"b"} and found["b"].best == "a" and found["b"].ratio == pytest.approx(4.0)
    # Three samples are enough only for a variant shown CLEARLY_SLOWER even after the floor.
    assert race({"a": [1.0] * 3, "b": [2.6] * 3}, {"b"}, plan) == {}
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
    return interleaved(world, kernels, samples=45)  # turns: enough blocks after each kind


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
    # its 9th sample on is slow: the round that holds it, in turns of TURN_BLOCKS blocks
    assert set(found) == {"batched_matvec"} and found["batched_matvec"].round == 8 // TURN_BLOCKS
