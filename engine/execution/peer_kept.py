"""What a kept framework process holds between its requests (`peer_worker.py --keep`, started
by `peer_pool.py` for a warm worker or a sweep): each framework's runtime, and each built-in
variant's built (traced, compiled) function by problem shape and dtype, so a second run of the
same problem neither imports its framework nor compiles again. A process that serves one
request keeps nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.harness.runtime import Runtime

# A kept function's first call is a warm call; its result says so.
KEPT_FUNCTION = (
    "first call: its function was built and compiled by an earlier run of the same problem "
    "in this kept process (a warm worker's or a sweep's), so this run's first call is a warm "
    "call"
)


class Kept:
    """A kept process's runtimes and functions (`keeping`: it serves more than one request)."""

    def __init__(self) -> None:
        self.keeping = False
        self.served = 0  # requests this process has answered or is answering
        self.runtimes: dict[tuple[str, str, int], Runtime] = {}
        self.builds: dict[tuple[Any, ...], Callable[..., Any]] = {}

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


KEPT = Kept()
