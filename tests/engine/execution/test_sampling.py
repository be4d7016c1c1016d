"""The sampling phase with fake samplers: interleaved order seeded, recorded, reproducible
(fixed sampling; racing and adaptive stops are in test_racing.py)."""

import itertools

from engine.execution.sampling.loop import take_samples
from engine.harness.recording import Prepared
from engine.measure.racing import RacePlan
from engine.measure.timing import Kernel, Sampler
from engine.results.model import StrategyResult
from tests.engine.measure.test_timing import AsyncDevice


def prepared(names, fail_at=None):
    items = []
    device = AsyncDevice(work_s=0.03)
    for name in names:

        def call(i, name=name):
            if name == fail_at and i > 6:
                raise RuntimeError("device lost")
            return device.call(i)

        sampler = Sampler(
            Kernel(call=call, sync=device.sync), warmup=0, budget_s=100, clock=device.clock
        )
        result = StrategyResult(name, name, "single", "ok", 1, 1, 1)
        items.append(Prepared(result, sampler, lambda _t: None))
    return items


def run(order="interleaved", seed=0, fail_at=None, names=("a", "b", "c", "d"), done=None):
    items = prepared(names, fail_at)
    failed = []
    record = take_samples(
        items,
        plan=RacePlan(adaptive=False, max_samples=5),
        order=order,
        seed=seed,
        emit=lambda _e: None,
        on_failure=lambda item, error: (
            failed.append(item.result.variant),
            setattr(item, "sampler", None),
        ),
        on_done=None if done is None else done.append,
    )
    return items, record, failed


def test_interleaved_rounds_are_shuffled_permutations_reproducible_from_the_seed():
    _, first, _ = run(seed=7)
    _, again, _ = run(seed=7)
    _, other, _ = run(seed=8)
    assert first.rounds == again.rounds
    assert first.rounds != other.rounds
    assert len(first.rounds) == 2  # five samples each, in turns of three blocks, then two
    turns = [[i for i, _ in itertools.groupby(r)] for r in first.rounds]
    assert all(sorted(t) == [0, 1, 2, 3] for t in turns)  # each variant's turn in one piece
    assert [len(list(g)) for _, g in itertools.groupby(first.rounds[0])] == [3, 3, 3, 3]
    assert len({tuple(t) for t in turns}) > 1  # the order changes between rounds
    assert first.to_dict()["variants"] == ["a", "b", "c", "d"]


def test_every_variant_gets_its_samples():
    items, _, _ = run()
    assert [len(i.sampler.samples) for i in items] == [5, 5, 5, 5]


def test_sequential_takes_each_variants_samples_in_turn():
    _, record, _ = run(order="sequential")
    assert record.rounds == [[0] * 5, [1] * 5, [2] * 5, [3] * 5]


def test_a_failing_variant_leaves_the_rotation_and_the_others_go_on():
    items, record, failed = run(fail_at="b")
    assert failed == ["b"]
    assert [len(i.sampler.samples) for i in items if i.sampler] == [5, 5, 5]
    appearances = [sum(r.count(index) for r in record.rounds) for index in range(4)]
    assert appearances[0] == appearances[2] == appearances[3] == 5
    assert appearances[1] < 5  # b's failed block is not recorded, and it takes no more


def test_each_variant_is_reported_done_once_as_soon_as_it_has_its_last_sample():
    done = []
    run(order="sequential", done=done)
    assert [i.result.variant for i in done] == ["a", "b", "c", "d"]
    done = []
    run(fail_at="b", done=done)
    assert sorted(i.result.variant for i in done) == ["a", "b", "c", "d"]


def test_a_variant_that_failed_before_sampling_is_reported_first():
    items = prepared(("a", "b"))
    items[1].sampler = None  # failed while being prepared
    done = []
    take_samples(
        items,
        plan=RacePlan(adaptive=False, max_samples=3),
        order="interleaved",
        seed=0,
        emit=lambda _e: None,
        on_failure=lambda *_: None,
        on_done=lambda item: done.append((item.result.variant, len(items[0].sampler.samples))),
    )
    assert done == [("b", 0), ("a", 3)]
