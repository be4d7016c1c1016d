"""Variants the history shows far slower than the best, confirmed by one block
(`execution/sampling/confirmation.py`), on synthetic variants with known answers: a confirmed
one goes after its one block, judged against this run's best; one the block does not confirm
is measured in full, its block dropped from its samples and from the record."""

from __future__ import annotations

import itertools

import numpy as np

from engine.analysis.history_prior import Prior
from engine.execution.sampling.loop import take_samples
from engine.harness.recording import Prepared
from engine.measure.racing import RacePlan
from engine.results.events import Eliminated
from engine.results.model import StrategyResult
from tests.engine.execution.synthetic import SyntheticSampler


class ConfirmingSampler(SyntheticSampler):
    """Prepared with one checked call and no warm-up; `measure_in_full` as the real one."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.confirming = True
        self.in_full = 0

    def measure_in_full(self) -> None:
        self.confirming = False
        self.samples.clear()
        self.in_full += 1


def prior(variant: str, ratio: float = 100.0) -> Prior:
    return Prior(variant, ratio, "fast", 3, "2026-12-04T12:00:00+00:00", 1.0)


def items(times: dict[str, float], confirming: set[str], seed: int = 0) -> list[Prepared]:
    rng = np.random.default_rng(seed)
    made = []
    for name, true_s in times.items():
        kind = ConfirmingSampler if name in confirming else SyntheticSampler
        result = StrategyResult(name, name, "single", "ok", 1, 1, 1)
        result.correct = True  # checked against float64 as it was prepared
        made.append(Prepared(result, kind(true_s, rng, 0.03)))  # type: ignore[arg-type]
    return made


def sample(prepared, priors, order="interleaved", seed=0, elsewhere=None):
    events: list[object] = []
    record = take_samples(
        prepared,
        plan=RacePlan(max_samples=20),
        order=order,
        seed=seed,
        emit=events.append,
        on_failure=lambda item, _e: setattr(item, "sampler", None),
        load=lambda: 0.0,
        priors=priors,
        elsewhere=elsewhere,
    )
    return record, events


def by_name(prepared, name):
    return next(item for item in prepared if item.result.variant == name)


def test_a_confirmed_variant_goes_after_one_block_judged_against_this_runs_best():
    for seed in range(10):
        prepared = items({"fast": 0.01, "mid": 0.012, "loop": 1.0}, {"loop"}, seed)
        record, events = sample(prepared, {"loop": prior("loop")}, seed=seed)
        loop = by_name(prepared, "loop")
        assert loop.result.stop_reason == "eliminated"
        assert len(loop.sampler.samples) == 1
        first_round = record.rounds[0]
        assert first_round[-1] == 2 and first_round.count(2) == 1  # after every other turn
        assert sum(r.count(2) for r in record.rounds) == 1
        assert any("from history" in note for note in loop.result.notes)
        assert record.priors["loop"]["confirmed"] is True
        assert record.to_dict()["priors"]["loop"]["ratio"] == 100.0
        assert any(isinstance(e, Eliminated) and e.variant == "loop" for e in events)


def test_a_block_that_does_not_confirm_the_history_sends_the_variant_to_full_measurement():
    """The history said 100×; this run reads it as fast as the best (the code changed): its
    block is dropped, it is warmed up and sampled like the others, and says why."""
    prepared = items({"fast": 0.01, "was_slow": 0.0101}, {"was_slow"})
    record, _ = sample(prepared, {"was_slow": prior("was_slow")})
    item = by_name(prepared, "was_slow")
    assert item.sampler.in_full == 1 and not item.sampler.confirming
    assert item.result.stop_reason != "eliminated"
    assert len(item.sampler.samples) >= 6
    assert sum(r.count(1) for r in record.rounds) == len(item.sampler.samples)
    assert any("measured in full" in note for note in item.result.notes)
    assert record.priors["was_slow"]["confirmed"] is False


def test_with_nothing_to_judge_against_a_confirming_variant_is_measured_in_full():
    prepared = items({"loop": 1.0}, {"loop"})
    sample(prepared, {"loop": prior("loop")})
    item = by_name(prepared, "loop")
    assert item.sampler.in_full == 1
    assert any("no correct variant had samples" in note for note in item.result.notes)


def test_a_variant_measured_in_another_process_is_a_best_to_judge_against():
    """The run's best may be a peer's (JAX in its own process): the eager loop here, alone
    in this process, is confirmed against that process's samples."""
    prepared = items({"loop": 1.0}, {"loop"})
    sample(prepared, {"loop": prior("loop")}, elsewhere={"jax_einsum": [0.01, 0.011, 0.0105]})
    item = by_name(prepared, "loop")
    assert item.result.stop_reason == "eliminated" and item.sampler.in_full == 0
    assert any("slower than jax_einsum" in note for note in item.result.notes)


def test_a_slowdown_of_the_machine_alone_does_not_confirm():
    """A variant truly 1.5× the best, read in a slow phase at 2× that: 3× the best's time
    would clear the factor; at 2× (the most a slow phase was seen to add) it does not."""
    prepared = items({"fast": 0.01, "other": 0.02}, {"other"})
    sample(prepared, {"other": prior("other", 3.0)})
    assert by_name(prepared, "other").sampler.in_full == 1


def test_in_sequence_the_confirming_variant_goes_last():
    prepared = items({"loop": 1.0, "fast": 0.01, "mid": 0.02}, {"loop"})
    record, _ = sample(prepared, {"loop": prior("loop")}, order="sequential")
    assert record.rounds[-1] == [0]
    assert by_name(prepared, "loop").result.stop_reason == "eliminated"


def test_the_answer_so_far_is_said_after_rounds_when_it_changes_and_only_when_asked():
    """The winner rule over the samples so far, said as provisional while variants sample;
    never twice the same; a peer's process (which sees only its own variants) says nothing."""
    from engine.results.events import Provisional

    prepared = items({"fast": 0.01, "same": 0.0101, "slow": 0.02}, set())
    events: list[object] = []
    take_samples(
        prepared,
        plan=RacePlan(max_samples=20),
        order="interleaved",
        seed=0,
        emit=events.append,
        on_failure=lambda *_: None,
        load=lambda: 0.0,
        announce=True,
    )
    said = [e for e in events if isinstance(e, Provisional)]
    assert said and all(a != b for a, b in itertools.pairwise(said))
    assert said[0].leader in {"fast", "same"} and said[0].running
    assert {said[-1].leader, *said[-1].tied_with} >= {"fast", "same"}
    quiet = items({"fast": 0.01, "slow": 0.02}, set())
    _, events = sample(quiet, {})
    assert not any(isinstance(e, Provisional) for e in events)


def test_a_deferred_variant_is_prepared_at_its_turn_after_the_others_first_samples():
    """The run's own process defers a confirming variant's preparation (its check call, an
    eager loop's seconds) to its turn: the others' first samples come first; a preparation
    that fails is final and says why; an interrupt before its turn marks it skipped."""
    from engine.harness.recording import stop_unfinished

    prepared = items({"fast": 0.01, "mid": 0.012}, set())
    seen_before: list[int] = []

    def prepare_loop() -> Prepared:
        seen_before.extend(len(item.sampler.samples) for item in prepared[:2])
        ready = items({"loop": 1.0}, {"loop"})[0]
        return ready

    placeholder = StrategyResult("loop", "loop", "single", "ok", 1, 1, 1)
    prepared.append(Prepared(placeholder, deferred=prepare_loop))
    record, _ = sample(prepared, {"loop": prior("loop")})
    loop = prepared[2]
    assert seen_before and all(count >= 1 for count in seen_before)
    assert loop.deferred is None and loop.result.stop_reason == "eliminated"
    assert record.priors["loop"]["confirmed"] is True

    failing = items({"fast": 0.01}, set())
    wrong = StrategyResult("loop", "loop", "single", "failed", 1, 1, 1)
    wrong.error = "its first call raised"
    failing.append(Prepared(placeholder, deferred=lambda: Prepared(wrong)))
    sample(failing, {"loop": prior("loop")})
    assert failing[1].result.status == "failed" and failing[1].sampler is None

    never = Prepared(StrategyResult("loop", "loop", "single", "ok", 1, 1, 1), deferred=lambda: 1)
    stop_unfinished(never)
    assert never.result.status == "skipped" and "interrupted" in never.result.error


def test_a_process_of_confirming_variants_alone_runs_after_the_others():
    """On a GPU machine NumPy's process came first and its prior, with nothing measured yet to
    judge it against, was measured in full: such a process now goes after the rest."""
    from engine.execution.peers.parent import confirming_last

    groups = {"numpy": [("numpy", "")], "jax": [("jax_vmap", "")], "torch": [("torch_bmm", "")]}
    prior = Prior("numpy", 140.0, "torch_bmm", 1, "2026-12-04T17:46:41+00:00", 9e-3)
    assert list(confirming_last(groups, {"numpy": prior})) == ["jax", "torch", "numpy"]
    assert list(confirming_last(groups, {})) == ["numpy", "jax", "torch"]
    mixed = {"numpy": [("numpy", ""), ("numpy_einsum", "")], "jax": [("jax_vmap", "")]}
    assert list(confirming_last(mixed, {"numpy": prior})) == ["numpy", "jax"]  # one to measure
