"""What a kept framework process holds between its requests (`peers/worker.py --keep`, started
by `peers/pool.py` for a warm worker or a sweep): each framework's runtime, and each built-in
variant's built (traced, compiled) function by problem shape and dtype, and the last problem's
placed inputs with their float64 reference, so a second run of the same problem neither imports
its framework, nor compiles, nor draws its inputs again. A process that serves one request
keeps nothing.

Inputs are kept only while they are small beside the memory free after they were made (at most
`KEEP_INPUTS_SHARE` of it): each peer framework's process keeps its own set while the next
framework's process and the run's own measure, which the run's memory preflight does not count.
One set at a time: another problem's replaces it, the old set freed before the new is drawn."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from engine.harness.runtime import Runtime
from engine.harness.variant import PlacedInputs

# A kept function's first call is a warm call; its result says so.
KEPT_FUNCTION = (
    "first call: its function was built and compiled by an earlier run of the same problem "
    "in this kept process (a warm worker's or a sweep's), so this run's first call is a warm "
    "call"
)
# Kept inputs at most this share of the host memory free once they were made (see above).
KEEP_INPUTS_SHARE = 0.25


class Kept:
    """A kept process's runtimes and functions (`keeping`: it serves more than one request)."""

    def __init__(self) -> None:
        self.keeping = False
        self.served = 0  # requests this process has answered or is answering
        self.runtimes: dict[tuple[str, str, int], Runtime] = {}
        self.builds: dict[tuple[Any, ...], Callable[..., Any]] = {}
        self.inputs: PlacedInputs | None = None
        self.inputs_key: Hashable | None = None

    def runtime(self, key: tuple[str, str, int], make: Callable[[], Runtime]) -> Runtime:
        """The runtime for (framework, dtype, threads), loaded now or kept."""
        if key not in self.runtimes:
            made = make()
            if not self.keeping:
                return made
            self.runtimes[key] = made
        return self.runtimes[key]

    def build(
        self, key: tuple[Any, ...], make: Callable[[], Callable[..., Any]]
    ) -> tuple[Callable[..., Any], bool]:
        """The function for `key`, made now or kept from an earlier request (then True)."""
        if key in self.builds:
            return self.builds[key], True
        built = make()
        if self.keeping:
            self.builds[key] = built
        return built, False

    def placed(
        self, key: Hashable, make: Callable[[], PlacedInputs], fits: Callable[[], bool]
    ) -> tuple[PlacedInputs, bool]:
        """The inputs for `key`: kept from the last request (then True), or made now (the kept
        set freed first) and kept when this process keeps and `fits()` says they are small."""
        if self.keeping and self.inputs is not None and self.inputs_key == key:
            return self.inputs, True
        self.inputs = self.inputs_key = None
        made = make()
        if self.keeping and fits():
            self.inputs, self.inputs_key = made, key
        return made, False


KEPT = Kept()
