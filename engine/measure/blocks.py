"""A timed block: a kernel's calls on rotating input sets, ending in one sync, and how many
calls make one (`autorange`), within a variant's own time budget (`Deadline`). The timing
method's building blocks (`timing.py` builds a variant's `Sampler` from them).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

Clock = Callable[[], float]
# A timed block should be far above perf_counter's resolution (well under a microsecond) and
# long enough that the per-block sync cost is amortised.
MIN_BLOCK_S = 0.02
MAX_CALLS_PER_SAMPLE = 100_000


class DeviceTimer(Protocol):
    """The device's own timer around a timed block (CUDA events: `measure/device_timer.py`):
    marks before the block's first call and after its last, read once its sync returned."""

    name: str

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def elapsed_s(self) -> float: ...


@dataclass(frozen=True)
class Kernel:
    """`call(i)` and `sync(output)`; for a kernel the harness does not trust (a user's),
    `before_block(calls)` and `after_block()` run outside the clock around every block (fresh
    inputs in, a sampled output checked), and `max_calls` bounds a block's calls. On a GPU,
    `device_timer` times each sampled block on the device too, and `clocks()` reads the
    clocks it ran at, after it (`machine/gpu_clocks.py`)."""

    call: Callable[[int], Any]
    sync: Callable[[Any], None]
    before_block: Callable[[int], None] | None = None
    after_block: Callable[[], None] | None = None
    max_calls: int = 100_000  # MAX_CALLS_PER_SAMPLE
    device_timer: DeviceTimer | None = None
    clocks: Callable[[], Any] | None = None


class Deadline:
    """A time budget that counts only the time spent on its own variant."""

    def __init__(self, budget_s: float, clock: Clock = time.perf_counter) -> None:
        self.budget_s = budget_s
        self.clock = clock
        self.spent_s = 0.0

    def spend(self, seconds: float) -> None:
        self.spent_s += seconds

    def remaining_s(self) -> float:
        return self.budget_s - self.spent_s

    def allows(self, estimate_s: float) -> bool:
        return self.remaining_s() >= estimate_s


class Counter:
    """Hands out call indices so cold-cache rotation never re-uses the previous input set."""

    def __init__(self) -> None:
        self.next = 0

    def take(self) -> int:
        self.next += 1
        return self.next - 1


@contextlib.contextmanager
def untimed_around(kernel: Kernel, calls: int) -> Iterator[None]:
    """A block's untimed work for a kernel the harness does not trust: before it, and after
    it (only when the block ended normally)."""
    if kernel.before_block is not None:
        kernel.before_block(calls)
    yield
    if kernel.after_block is not None:
        kernel.after_block()


def run_block(
    kernel: Kernel, counter: Counter, calls: int, clock: Clock, timer: DeviceTimer | None = None
) -> float:
    """One block's host seconds; `timer` (a sampled block's) marks it on the device too."""
    with untimed_around(kernel, calls):
        start = clock()
        if timer is not None:
            timer.start()
        out = None
        for _ in range(calls):
            out = kernel.call(counter.take())
        if timer is not None:
            timer.stop()
        kernel.sync(out)
        elapsed = clock() - start
    return elapsed


# Calls per block come from this ladder (1, 2, 3, 4, 5, 7, 10, 15, 20, 30, 40, 50, 70, ...):
# steps of at most 1.5x from 2 on, so a block lasts at most about 1.5x `min_block_s` (the
# 1-2-5 ladder made an 8.5 ms call's blocks 42 ms where 25 ms was the need).
LADDER = (1, 1.5, 2, 3, 4, 5, 7)


def ladder_calls(at_least: float) -> int:
    """The smallest ladder value >= `at_least`."""
    decade = 1
    while True:
        for step in LADDER:
            value = step * decade
            if value == int(value) and value >= at_least:  # 1.5 is a step from 10 on
                return int(value)
        decade *= 10


def autorange(
    kernel: Kernel,
    counter: Counter,
    deadline: Deadline,
    min_block_s: float = MIN_BLOCK_S,
    clock: Clock = time.perf_counter,
) -> int:
    """Calls per block so a block lasts at least `min_block_s`: from one call up the ladder,
    each step to the first value the last block's time per call says could be enough (a
    short block's time per call includes its one sync, so the estimate errs low and the
    climb goes on)."""
    calls = 1
    limit = min(MAX_CALLS_PER_SAMPLE, kernel.max_calls)
    while calls < limit:
        elapsed = run_block(kernel, counter, calls, clock)
        deadline.spend(elapsed)
        if elapsed >= min_block_s or not deadline.allows(elapsed * 5):
            return calls
        wanted = min_block_s / (elapsed / calls) if elapsed > 0 else calls * 10
        calls = min(limit, ladder_calls(max(calls + 1, wanted)))
    return limit
