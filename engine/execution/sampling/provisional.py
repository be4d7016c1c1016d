"""The answer so far, said after each round of the sampling while variants still sample.

The same winner rule as the run's answer (`uncertainty.winner_and_ties`, with the race's
floor and margin) over the samples so far of the correct variants of the run's accuracy,
those measured in other processes (a peer's) among them. It is said only when it changed, and
only as provisional (`events.Provisional`): a leader and the variants tied with it so far, no
ratio (the numbers a reader keeps are the record's). The run's answer, from the whole record,
may differ: a provisional answer is what the samples so far support, not a forecast.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.execution.sampling.confirmation import samples_so_far
from engine.harness.recording import Prepared
from engine.measure.racing import RacePlan
from engine.measure.uncertainty import NoiseFloor, winner_and_ties
from engine.results.events import Progress, Provisional


class ProvisionalAnswer:
    """Says the answer so far when it changed."""

    def __init__(
        self,
        prepared: list[Prepared],
        emit: Progress,
        elsewhere: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        self.prepared, self.emit = prepared, emit
        self.elsewhere = dict(elsewhere or {})
        self.said: Provisional | None = None

    def update(self, plan: RacePlan) -> None:
        running = tuple(
            item.result.variant
            for item in self.prepared
            if item.deferred is not None
            or (item.sampler is not None and item.result.stop_reason is None)
        )
        if not running:
            return  # the run's own answer comes next
        here = samples_so_far(self.prepared)
        candidates = {**self.elsewhere, **here}
        if len(candidates) < 2:
            return
        processes = {name: "elsewhere" for name in self.elsewhere if name not in here}
        floor = NoiseFloor(plan.between_log_sd, plan.floor_log_sd)
        found = winner_and_ties(candidates, floor, plan.margin, processes=processes)
        if found is None:
            return
        said = Provisional(found.variant, tuple(sorted(found.tied_with)), running)
        if said != self.said:
            self.said = said
            self.emit(said)
