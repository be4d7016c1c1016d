"""The rules the sampling loop asks (`loop.py`), each one answerable alone: when a variant
stops (`keeps_sampling`), how many blocks a turn takes (`blocks_in_turn`), whether a block is
re-warmed first (`rewarms`), in what order a round's turns go (`turn_order`), and what the
race eliminates after a turn and after a round (`after_turn`, `after_round`). The numbers
behind them are `measure/`'s: the precision and the race's bounds (`racing.RacePlan`), the
re-warm's length (`timing.REWARM_S`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.execution.sampling.race_round import race_round
from engine.harness.recording import Prepared
from engine.measure.racing import RacePlan
from engine.measure.timing import REWARM_S
from engine.results.events import Progress

# The blocks one turn of a variant takes: enough that one re-warm serves several (a block lasts
# 20 ms or more, the re-warm 0.12 s), few enough that a variant's samples still come from
# several turns spread over the run.
TURN_BLOCKS = 3
OTHER_WORK = -1  # what ran last when it was no variant's block (preparation, a failure)


def turn_blocks(sampler: Any) -> int:
    """Blocks in a turn of this variant: `TURN_BLOCKS` when it is re-warmed before a turn; one
    when it is not (a call that outlasts the re-warm, or a multi-worker run, whose workers
    must all make the same calls). The same rule as the re-warm's, not a count fitted to this
    run's times, so a seed gives the same rounds unless a variant's call sits at `REWARM_S`."""
    if sampler.confirming or getattr(sampler, "fixed_calls", None):
        return 1  # a confirming variant's one block; a multi-worker run's same calls
    if sampler.per_call_s() >= REWARM_S:
        return 1
    return TURN_BLOCKS


def still_sampling(item: Prepared, plan: RacePlan) -> bool:
    """Whether the variant takes another block; when it stops, its `stop_reason` says why."""
    if item.deferred is not None:
        return True  # prepared at its first turn
    sampler, result = item.sampler, item.result
    if sampler is None or result.stop_reason is not None:
        return False
    samples = sampler.samples
    if plan.is_precise(samples):  # first: precise at its last allowed sample is still precise
        result.stop_reason = "precise"
    elif len(samples) >= plan.max_samples:
        result.stop_reason = "max_samples"
    elif not sampler.can_sample():
        result.stop_reason = "budget"
    return result.stop_reason is None


@dataclass
class SamplingPolicy:
    """One run's rules, over its plan: `load` is other processes' CPU share so far (a busy
    machine widens the race's floor, as it widens the ties); `elsewhere`, the samples other
    processes of the run took, whose best a variant here is raced against too."""

    plan: RacePlan
    emit: Progress
    load: Callable[[], float]
    seed: int
    elsewhere: Mapping[str, Sequence[float]] | None = None
    last: int = OTHER_WORK  # whose block ran last in this process
    shuffle: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.shuffle = random.Random(self.seed)

    def keeps_sampling(self, item: Prepared) -> bool:
        return still_sampling(item, self.plan)

    def blocks_in_turn(self, item: Prepared) -> int:
        return turn_blocks(item.sampler)

    def rewarms(self, index: int) -> bool:
        """A block after another variant's (or other work) is re-warmed first: whatever the
        neighbour left in the caches and clocks is spent, untimed."""
        return self.last != index

    def ran(self, index: int) -> None:
        """`index`'s block ran last (`OTHER_WORK`: something else did)."""
        self.last = index

    def turn_order(self, waiting: list[int], waits: Callable[[int], Any]) -> list[int]:
        """A round's turns: in a seeded shuffle, the confirming variants last (their one block
        is judged against this run's best)."""
        self.shuffle.shuffle(waiting)
        return sorted(waiting, key=waits)

    def after_turn(self, prepared: list[Prepared]) -> None:
        """An eager loop far slower than the best is gone at its turn's end, not the round's:
        its result is on the page sooner, and no later turn of it is taken."""
        race_round(prepared, self.plan, self.emit, gross_only=True)

    def after_round(self, prepared: list[Prepared]) -> RacePlan:
        """The race over the round, its floor widened by the load so far; the plan it used."""
        used = self.plan.under_load(self.load())
        race_round(prepared, used, self.emit, elsewhere=self.elsewhere)
        return used
