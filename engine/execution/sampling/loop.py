"""The sampling phase: every prepared variant's timed blocks, interleaved or in sequence, until
each has stopped (`engine.measure.racing`: precise, eliminated, budget or max samples).

Interleaved (the default): round after round, each variant still sampling takes one block, in
an order shuffled by a generator seeded from the config's seed; the executed order is recorded
in the results (`sampling.rounds`, indices into `sampling.variants`), so it can be checked and
reproduced. A slow moment of a shared machine then falls on every variant alike instead of on
whichever happened to be running. Sequential: each variant takes its samples in turn.

Neighbour independence: a variant's turn that follows other work (another variant's block,
the preparation of the others, or a block that failed) begins with untimed calls of its own
variant (`Sampler.rewarm`). A slow neighbour (an eager loop of thousands of small ops) leaves
the process in a state that slows the next calls of a fast kernel by up to 2× for about 0.1 s
of running it; those calls are spent before the clock starts, so a variant's time does not
depend on which others share the run (docs/timing.md). A turn is `TURN_BLOCKS` blocks: the
re-warm (0.12 s before every 20 ms block) was most of the time to an answer, and one re-warm
now serves several blocks.

After each round the race runs: a correct variant confidently slower than the best by more than
the tie margin is eliminated; it keeps its samples and is finished at once. So is one that the
verdict would separate from the best another process of this run measured (`elsewhere`: a
peer's, final) whatever its remaining samples show. One grossly slower than the best
(`racing.grossly_slower`, a rule of single samples) goes at the end of its turn, not of the
round, and takes no later turn (`sampling/race_round.py`: a point of another accuracy class is
raced against the best, never the best itself). A variant whose block raises is marked failed
and leaves the rotation; the others go on. `on_done` is called for each variant as soon as it
has stopped, so its result can be finished and shown while the others are still sampling;
nothing it does runs inside another variant's block.

A variant the history shows far slower than the best takes its turn last in its first round and
one block only, judged against this run's best (`sampling/confirmation.py`); after each round
the run's own process says the answer so far, as provisional (`sampling/provisional.py`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.analysis.history_prior import Prior
from engine.execution.sampling import hang_watch
from engine.execution.sampling.confirmation import Confirmation
from engine.execution.sampling.policy import OTHER_WORK, SamplingPolicy
from engine.execution.sampling.provisional import ProvisionalAnswer
from engine.harness.recording import Prepared
from engine.machine.load import LoadMonitor
from engine.measure.neighbours import neighbour_effect
from engine.measure.phases import phase_shift
from engine.measure.racing import RacePlan
from engine.measure.uncertainty import NoiseFloor
from engine.results.events import Progress, Sample, silent
from engine.run_settings.config import BenchConfig


def race_plan(config: BenchConfig, floor: NoiseFloor | None = None) -> RacePlan:
    """How `config` samples: adaptive (precision and racing) or fixed; the race's ratio floor
    is the machine's within-run ratio noise, the same the ties use."""
    return RacePlan(
        adaptive=config.sampling == "adaptive",
        max_samples=config.repeats,
        precision=config.precision,
        floor_log_sd=(floor or NoiseFloor()).ratio_log_sd,
        between_log_sd=(floor or NoiseFloor()).between_run_log_sd,
    )


def fixed_plan(config: BenchConfig) -> RacePlan:
    """`repeats` samples of every variant, whatever happens: what multi-worker runs need (every
    worker must issue the same collectives, so nothing may depend on local timings)."""
    return RacePlan(adaptive=False, max_samples=config.repeats)


@dataclass
class SamplingRecord:
    order: str
    seed: int
    variants: list[str]
    sampling: str = "fixed"
    precision: float | None = None
    rounds: list[list[int]] = field(default_factory=list)
    # What the history said of each confirming variant, and whether its block confirmed it.
    priors: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def for_plan(cls, order: str, seed: int, variants: list[str], plan: RacePlan) -> SamplingRecord:
        return cls(
            order,
            seed,
            variants,
            sampling="adaptive" if plan.adaptive else "fixed",
            precision=plan.precision if plan.adaptive else None,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "order": self.order,
            "seed": self.seed,
            "sampling": self.sampling,
            "precision": self.precision,
            "variants": self.variants,
            "rounds": self.rounds,
            **({"priors": self.priors} if self.priors else {}),
        }


def note_neighbour_effect(index: int, prepared: list[Prepared], record: SamplingRecord) -> None:
    """A finished variant whose blocks after slower neighbours read differently, in its own
    run's record, says so among its warnings (`engine.measure.neighbours`)."""
    samples = {i: item.sampler.samples for i, item in enumerate(prepared) if item.sampler}
    sequence = [i for round_ in record.rounds for i in round_]
    effect = neighbour_effect(index, sequence, samples)
    if effect is not None:
        prepared[index].result.warnings.append(effect.warning())


def note_phase_shift(index: int, prepared: list[Prepared]) -> None:
    """A finished variant whose time changed during the run says so among its warnings
    (`engine.measure.phases`); the winner's ties take the change into account from the
    run's record."""
    item = prepared[index]
    if item.sampler is None:
        return
    shift = phase_shift(item.result.variant, item.sampler.samples, tested=len(prepared))
    if shift is not None:
        item.result.warnings.append(shift.warning())


def take_samples(
    prepared: list[Prepared],
    *,
    plan: RacePlan,
    order: str,
    seed: int,
    emit: Progress,
    on_failure: Callable[[Prepared, BaseException], None],
    on_done: Callable[[Prepared], None] | None = None,
    load: Callable[[], float] | None = None,
    priors: Mapping[str, Prior] | None = None,
    elsewhere: Mapping[str, Sequence[float]] | None = None,
    announce: bool = False,
) -> SamplingRecord:
    """Sample every variant until it stops; returns what was run, in order. `load`: other
    processes' CPU share so far (default: measured, from the start of sampling). `priors`:
    what the history says of the confirming variants (`analysis/history_prior.py`), whose
    one block is judged against this run's best, `elsewhere`'s samples (other processes')
    among them. `announce`: the answer so far is said after each round
    (`sampling/provisional.py`): the run's own process does, a peer's (which sees only its
    own variants) does not."""
    if load is None:  # a busy machine widens the race's floor, as it widens the ties
        load = LoadMonitor().start().share_so_far
    policy = SamplingPolicy(plan, emit, load, seed, elsewhere)
    record = SamplingRecord.for_plan(order, seed, [p.result.variant for p in prepared], plan)
    loop = SamplingLoop(prepared, policy, record, on_failure, on_done, priors or {}, announce)
    loop.report_finished()  # those that failed before sampling
    if order == "sequential":
        loop.in_sequence()
    else:
        loop.interleaved()
    loop.record.priors = loop.confirm.judged
    return loop.record


class SamplingLoop:
    """The loop itself: blocks, turns and rounds over the prepared variants, asking its
    `SamplingPolicy` at each step; each variant finished (`on_done`) as soon as it stops."""

    def __init__(
        self,
        prepared: list[Prepared],
        policy: SamplingPolicy,
        record: SamplingRecord,
        on_failure: Callable[[Prepared, BaseException], None],
        on_done: Callable[[Prepared], None] | None,
        priors: Mapping[str, Prior],
        announce: bool,
    ) -> None:
        self.prepared, self.policy = prepared, policy
        self.on_failure, self.on_done = on_failure, on_done
        emit, elsewhere = policy.emit, policy.elsewhere
        self.record = record
        self.confirm = Confirmation(prepared, priors, emit, elsewhere)
        self.so_far = ProvisionalAnswer(prepared, emit if announce else silent, elsewhere)
        self.reported: set[int] = set()

    def report_finished(self, stopped_only: bool = False) -> None:
        """Finish the variants that stopped; `stopped_only`: only those already given a
        stop reason (mid-round: whether the rest are precise is asked at the round's end,
        after the race, so a pair the race calls tied says so)."""
        for index, item in enumerate(self.prepared):
            if index in self.reported:
                continue
            if stopped_only and item.sampler is not None and item.result.stop_reason is None:
                continue
            if not self.policy.keeps_sampling(item):
                self.reported.add(index)
                note_neighbour_effect(index, self.prepared, self.record)
                note_phase_shift(index, self.prepared)
                if self.on_done is not None:
                    self.on_done(item)

    def one_block(self, index: int) -> bool:
        """One timed block of a variant (re-warmed first where the policy says); False when
        it could not be taken (it failed, or its deferred preparation found it unusable)."""
        item = self.prepared[index]
        hang_watch.step(item.result.variant)  # whose calls a watch of this process waits on
        if item.deferred is not None:
            item.take(item.deferred())  # its first call and check, now that others sampled
            self.confirm.prepared_now(index)
            self.policy.ran(OTHER_WORK)  # its preparation ran other work: re-warm next
            if item.sampler is None:  # failed, unsupported or wrong: final as it is
                return False
        assert item.sampler is not None
        try:
            with item.guard() if item.guard else contextlib.nullcontext():
                if self.policy.rewarms(index):
                    item.sampler.rewarm()  # untimed: whatever the neighbour left is spent first
                item.sampler.sample()
        except Exception as error:  # noqa: BLE001 - one variant's failure keeps the others
            self.on_failure(item, error)
            self.policy.ran(OTHER_WORK)  # a failed block left a state nobody measured
            return False
        self.policy.ran(index)
        samples = item.sampler.samples
        emit = self.policy.emit
        emit(Sample(item.result.variant, len(samples), self.policy.plan.max_samples, samples[-1]))
        return True

    def one_turn(self, index: int) -> list[int]:
        """Up to the policy's blocks of one variant, back to back after one re-warm; the
        blocks it took, as indices (none when its first failed)."""
        taken: list[int] = []
        item = self.prepared[index]
        while self.one_block(index):
            taken.append(index)
            full = len(taken) >= self.policy.blocks_in_turn(item)
            if full or not self.policy.keeps_sampling(item):
                break
        return taken

    def in_sequence(self) -> None:
        """`order=sequential`: each variant sampled to its stop before the next."""
        for index in sorted(range(len(self.prepared)), key=self.confirm.waits):
            item, taken = self.prepared[index], []
            while self.policy.keeps_sampling(item) and self.one_block(index):
                taken.append(index)
                if not self.confirm.judge(index):
                    taken.pop()
                self.policy.after_round(self.prepared)
            if taken:
                self.record.rounds.append(taken)
            self.report_finished()

    def interleaved(self) -> None:
        """`order=interleaved`: rounds of one turn of each variant still sampling, in the
        policy's order, the race after each turn (gross) and after each round."""
        while True:
            waiting = [
                i for i, item in enumerate(self.prepared) if self.policy.keeps_sampling(item)
            ]
            if not waiting:
                self.report_finished()
                return
            blocks: list[int] = []
            self.record.rounds.append(blocks)  # filled as the turns run: read by each finished
            for index in self.policy.turn_order(waiting, self.confirm.waits):
                if self.prepared[index].result.stop_reason is not None:
                    continue  # grossly slower than a variant that sampled earlier this round
                blocks += self.one_turn(index)
                if not self.confirm.judge(index):
                    blocks.pop()  # its dropped block: the record's blocks are its samples
                self.policy.after_turn(self.prepared)
                self.report_finished(stopped_only=True)
            round_plan = self.policy.after_round(self.prepared)
            self.report_finished()
            self.so_far.update(round_plan)
