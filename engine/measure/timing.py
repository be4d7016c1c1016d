"""The timing method (docs/timing.md), independent of any framework.

A kernel is anything with `call(i)` (run once on input set i, maybe asynchronously) and
`sync(output)` (block until that output and everything before it has been computed). Every
timed region ends in `sync`, so asynchronous dispatch is never mistaken for work; the time to
return *without* syncing is measured separately as `dispatch_s` because the gap is instructive.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.measure.stats import Measurement

Clock = Callable[[], float]
# A timed block should be far above perf_counter's resolution (well under a microsecond) and
# long enough that the per-block sync cost is amortised.
MIN_BLOCK_S = 0.02
MAX_CALLS_PER_SAMPLE = 100_000


@dataclass(frozen=True)
class Kernel:
    call: Callable[[int], Any]
    sync: Callable[[Any], None]


@dataclass
class Deadline:
    budget_s: float
    clock: Clock = time.perf_counter
    start: float = field(init=False)

    def __post_init__(self) -> None:
        self.start = self.clock()

    def remaining_s(self) -> float:
        return self.budget_s - (self.clock() - self.start)

    def allows(self, estimate_s: float) -> bool:
        return self.remaining_s() >= estimate_s


@dataclass(frozen=True)
class Timing:
    first_call_s: float
    dispatch_s: float
    measurement: Measurement
    warnings: tuple[str, ...]
    budget_exhausted: bool


class _Counter:
    """Hands out call indices so cold-cache rotation never re-uses the previous input set."""

    def __init__(self) -> None:
        self.next = 0

    def take(self) -> int:
        self.next += 1
        return self.next - 1


def _run_block(kernel: Kernel, counter: _Counter, calls: int, clock: Clock) -> float:
    start = clock()
    out = None
    for _ in range(calls):
        out = kernel.call(counter.take())
    kernel.sync(out)
    return clock() - start


def autorange(
    kernel: Kernel,
    counter: _Counter,
    deadline: Deadline,
    min_block_s: float = MIN_BLOCK_S,
    clock: Clock = time.perf_counter,
) -> int:
    """Calls per block so a block lasts at least `min_block_s` (1, 2, 5, 10, 20, 50, ...)."""
    calls = 1
    step = 0
    while calls < MAX_CALLS_PER_SAMPLE:
        elapsed = _run_block(kernel, counter, calls, clock)
        if elapsed >= min_block_s or not deadline.allows(elapsed * 5):
            return calls
        step += 1
        calls = (1, 2, 5)[step % 3] * 10 ** (step // 3)
    return MAX_CALLS_PER_SAMPLE


def time_kernel(
    kernel: Kernel,
    *,
    warmup: int,
    repeats: int,
    budget_s: float,
    min_block_s: float = MIN_BLOCK_S,
    clock: Clock = time.perf_counter,
    on_sample: Callable[[int, int], None] | None = None,
    fixed_calls: int | None = None,
) -> Timing:
    """First call alone, warm-up, autorange, dispatch time, then `repeats` synced samples.

    `fixed_calls` skips autorange: multi-worker runs need every worker to make exactly the
    same calls (each holds collectives the others wait for), so nothing may depend on local
    timings there; pass an unreachable budget too.
    """
    counter = _Counter()
    deadline = Deadline(budget_s, clock)
    warnings: list[str] = []

    first_call_s = _run_block(kernel, counter, 1, clock)

    done_warmup = 0
    while done_warmup < warmup and deadline.allows(first_call_s):
        _run_block(kernel, counter, 1, clock)
        done_warmup += 1
    if done_warmup < warmup:
        warnings.append(f"warm-up cut to {done_warmup} of {warmup} calls by the time budget")

    calls = fixed_calls or autorange(kernel, counter, deadline, min_block_s, clock)

    start = clock()
    out = None
    for _ in range(calls):
        out = kernel.call(counter.take())
    dispatch_s = (clock() - start) / calls
    kernel.sync(out)

    samples: list[float] = []
    block_estimate_s = 0.0
    while len(samples) < repeats:
        if samples and not deadline.allows(block_estimate_s):
            break
        block_s = _run_block(kernel, counter, calls, clock)
        block_estimate_s = block_s
        samples.append(block_s / calls)
        if on_sample:
            on_sample(len(samples), repeats)
    budget_exhausted = len(samples) < repeats
    if budget_exhausted:
        warnings.append(
            f"stopped after {len(samples)} of {repeats} samples: "
            f"time budget of {budget_s:g} s reached"
        )
    measurement = Measurement(tuple(samples), calls)
    if measurement.noise_warning:
        warnings.append(measurement.noise_warning)
    return Timing(first_call_s, dispatch_s, measurement, tuple(warnings), budget_exhausted)
