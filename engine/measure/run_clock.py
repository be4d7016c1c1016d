"""Where a run's wall time goes (`timings` in the results: starting, peak bandwidth, inputs,
variants, profiles), lap by lap."""

from __future__ import annotations

import time

from engine.measure.timing import Clock


class PhaseClock:
    """Where a run's wall time goes: each `lap(phase)` adds the time since the last lap to
    that phase (a phase may be lapped more than once: the peak is probed before and after)."""

    def __init__(self, clock: Clock = time.perf_counter) -> None:
        self.clock = clock
        self.start = self.last = clock()
        self.spent: dict[str, float] = {}

    def lap(self, phase: str) -> None:
        now = self.clock()
        self.spent[phase] = self.spent.get(phase, 0.0) + now - self.last
        self.last = now

    def timings(self) -> dict[str, float]:
        return {**self.spent, "total_s": self.clock() - self.start}
