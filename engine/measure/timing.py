"""The timing method (docs/timing.md), independent of any framework.

A kernel is anything with `call(i)` (run once on input set i, maybe asynchronously) and
`sync(output)` (block until that output and everything before it has been computed). Every
timed region ends in `sync`, so asynchronous dispatch is never mistaken for work; the time to
return *without* syncing is measured separately as `dispatch_s` because the gap is instructive.

A `Sampler` does the per-variant part (first call, warm-up, autorange, dispatch) when it is
made, then takes one timed block per `sample()` call: the orchestrator can interleave the blocks of
every variant in a shuffled round-robin, so a slow moment of the machine hits all of them
alike. A variant's time budget counts only the time spent on that variant.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.measure.blocks import (
    MAX_CALLS_PER_SAMPLE,
    MIN_BLOCK_S,
    Clock,
    Counter,
    Deadline,
    DeviceTimer,
    Kernel,
    autorange,
    ladder_calls,
    run_block,
    untimed_around,
)
from engine.measure.stats import Measurement

# Untimed running before a block that follows other work (`Sampler.rewarm`): measured here,
# a fast kernel's calls after an eager Python loop of 3,000 ops were up to 2x slow for about
# 0.1 s of running it (benchmarks/neighbours.py).
REWARM_S = 0.12
# Warm-up stops early once its calls have lasted this long (at least one call is made).
WARMUP_S = 0.25


@dataclass(frozen=True)
class CheckCall:
    """The correctness check's call, on the check's own inputs, made as the first warm-up
    call: a variant whose calls take seconds (an eager loop) is not called once more only to
    be checked. `keep` takes the synced output (its copy to the host), outside the timing."""

    call: Callable[[], Any]
    sync: Callable[[Any], None]
    keep: Callable[[Any], None]


@dataclass(frozen=True)
class Timing:
    first_call_s: float
    dispatch_s: float
    measurement: Measurement
    warnings: tuple[str, ...]
    budget_exhausted: bool
    rewarm_s: float = 0.0  # untimed calls before its turns (`Sampler.rewarm`), in total
    # On a GPU: the device's time of each kept block (none unless every block has one), the
    # clocks of every block, and the samples of blocks left out as throttled.
    device_samples: tuple[float, ...] = ()
    device_timer: str | None = None
    clocks: tuple[Any, ...] = ()
    throttled_samples: tuple[float, ...] = ()


class Sampler:
    """One variant's timing: prepared on construction, then one synced block per `sample()`.

    `fixed_calls` skips autorange: multi-worker runs need every worker to make exactly the
    same calls (each holds collectives the others wait for), so nothing may depend on local
    timings there; pass an unreachable budget too.
    """

    def __init__(
        self,
        kernel: Kernel,
        *,
        warmup: int,
        budget_s: float,
        min_block_s: float = MIN_BLOCK_S,
        clock: Clock = time.perf_counter,
        fixed_calls: int | None = None,
        check: CheckCall | None = None,
        confirm: float | None = None,
    ) -> None:
        self.kernel = kernel
        self.clock = clock
        self.budget_s = budget_s
        self.min_block_s = min_block_s
        self.warmup = warmup
        self.counter = Counter()
        self.deadline = Deadline(budget_s, clock)
        self.warnings: list[str] = []
        self.samples: list[float] = []
        self.device_samples: list[float | None] = []  # the device's time of each sample
        self.block_clocks: list[Any] = []  # the clocks of each sample's block
        self.last_block_s = 0.0
        self.rewarm_s = 0.0  # what its re-warms took, in total: where a run's time goes
        self.fixed_calls = fixed_calls
        self.checked = False  # whether `check` was made (it is, with any warm-up)
        # A variant the history shows far slower than the best (`analysis/history_prior.py`)
        # is confirmed by one block: its first call is the check, no warm-up, no autorange;
        # `confirm` is its time per call in the history, which sizes its block and the
        # re-warm before it (its first call, tracing included, would size neither right),
        # unless its first call here was shorter (the first, warm-up included, is about the
        # longest), as an estimate scaled from a sweep's point of fewer matrices may be.
        self.confirming = confirm is not None and check is not None and fixed_calls is None
        if self.confirming:
            assert check is not None and confirm is not None
            self.first_call_s = self._checked_call(check)[1]
            per_call = min(confirm, self.first_call_s)
            self.calls = ladder_calls(min_block_s / max(per_call, 1e-9))
            self.dispatch_s = self.dispatch_block_s = per_call  # until its block
            return
        # The first call (tracing, compiling: seconds for torch.compile) is reported on its own
        # and not charged to the budget, which is for warm-up, autorange and samples.
        self.first_call_s = run_block(kernel, self.counter, 1, clock)
        self._settle(self._warm_up(warmup, every_call=fixed_calls is not None, check=check))

    def _settle(self, last: tuple[float, float] | None) -> None:
        """The calls per block and the dispatch time, after the warm-up (`last`: its last
        call's times both ways)."""
        if self.fixed_calls is None and last is not None and last[1] >= self.min_block_s:
            # One call already fills a block: autorange would only run it again, and the
            # last warm-up call was timed both ways, so it gives the dispatch time too.
            self.calls = 1
            self.dispatch_s, self.dispatch_block_s = last
        else:
            self.calls = self.fixed_calls or autorange(
                self.kernel, self.counter, self.deadline, self.min_block_s, self.clock
            )
            self.dispatch_s, self.dispatch_block_s = self._timed_calls(self.calls)

    def measure_in_full(self) -> None:
        """A confirming variant its block did not confirm: its sample is dropped, and it is
        warmed up and autoranged as every other variant was, before its next block."""
        self.confirming = False
        self.samples.clear()
        self.device_samples.clear()
        self.block_clocks.clear()
        self.last_block_s = 0.0
        self._settle(self._warm_up(self.warmup, every_call=False))

    def _checked_call(self, check: CheckCall) -> tuple[float, float]:
        """The check's call, timed both ways, its output kept (outside the timing)."""
        start = self.clock()
        out = check.call()
        returned = self.clock() - start
        check.sync(out)
        synced = self.clock() - start
        check.keep(out)
        self.checked = True
        return returned, synced

    def _timed_calls(self, calls: int) -> tuple[float, float]:
        """Per call: the time to return without a sync (dispatch), and with it."""
        with untimed_around(self.kernel, calls):
            start = self.clock()
            out = None
            for _ in range(calls):
                out = self.kernel.call(self.counter.take())
            returned = self.clock() - start
            self.kernel.sync(out)
            synced = self.clock() - start
        self.deadline.spend(synced)
        return returned / calls, synced / calls

    def _warm_up(
        self, warmup: int, *, every_call: bool, check: CheckCall | None = None
    ) -> tuple[float, float] | None:
        """Up to `warmup` untimed calls, stopping early once they have lasted `WARMUP_S` (one
        call of a half-second eager loop warms it as well as three do); a multi-worker run
        (`every_call`) makes all of them, since every worker must make the same calls. The
        `check` call, when given, is the first of them.
        Returns the last call's dispatch and synced times (None without a warm-up call)."""
        done, spent, last = 0, 0.0, None
        if check is not None and warmup > 0 and not every_call:
            last = self._checked_call(check)
            self.deadline.spend(last[1])
            spent, done = last[1], 1
        while done < warmup and self.deadline.allows(self.first_call_s):
            if done and spent >= WARMUP_S and not every_call:
                return last
            last = self._timed_calls(1)
            spent += last[1]
            done += 1
        if done < warmup:
            self.warnings.append(f"warm-up cut to {done} of {warmup} calls by the time budget")
        return last

    def _block(self, calls: int, timer: DeviceTimer | None = None) -> float:
        elapsed = run_block(self.kernel, self.counter, calls, self.clock, timer)
        self.deadline.spend(elapsed)
        return elapsed

    def _after_sample(self, timer: DeviceTimer | None) -> None:
        """What the device says of the block just sampled, outside its clock: its own time
        per call (None without a timer) and the clocks it ran at."""
        self.device_samples.append(timer.elapsed_s() / self.calls if timer else None)
        if self.kernel.clocks is not None:
            self.block_clocks.append(self.kernel.clocks())

    def rewarm(self) -> None:
        """Untimed calls before a block that follows other work (another variant's block, or
        preparing the others): enough to last `REWARM_S`. A slow neighbour (an eager loop of
        thousands of small ops) leaves the process in a state that slows a fast kernel's next
        calls by up to 2× for about 0.1 s of running it; sleeping does not clear it, running
        does. Those calls are spent here, outside the clock, and counted in the variant's
        budget. A variant whose one call outlasts `REWARM_S` carries the disturbance diluted
        in its own call and gets none. Shorter rules that stop once the calls look settled
        were tried and not kept (docs/timing.md): the full time is the rule."""
        if self.fixed_calls:  # multi-worker: every worker must make exactly the same calls
            return
        per_call = self.per_call_s()
        if per_call >= REWARM_S:
            return
        limit = min(MAX_CALLS_PER_SAMPLE, self.kernel.max_calls)
        calls = min(limit, math.ceil(REWARM_S / max(per_call, 1e-9)))
        self.rewarm_s += self._block(calls)

    def per_call_s(self) -> float:
        """Its time per call so far: the last block's, or before any, autorange's."""
        return self.last_block_s / self.calls if self.samples else self.dispatch_block_s

    def can_sample(self) -> bool:
        """At least one sample always; more while the budget allows another block."""
        return not self.samples or self.deadline.allows(self.last_block_s)

    def sample(self) -> float:
        """Time one block of `calls` calls, ending in a sync; returns seconds per call. A
        confirming variant's one block is timed both ways: it gives the dispatch time too."""
        if self.confirming and not self.samples:
            self.dispatch_s, self.dispatch_block_s = self._timed_calls(self.calls)
            self.last_block_s = self.dispatch_block_s * self.calls
            self.samples.append(self.dispatch_block_s)
            self._after_sample(None)
            return self.samples[-1]
        timer = self.kernel.device_timer
        self.last_block_s = self._block(self.calls, timer)
        self.samples.append(self.last_block_s / self.calls)
        self._after_sample(timer)
        return self.samples[-1]

    def timing(self, repeats: int, stop_reason: str | None = None) -> Timing:
        """The finished measurement, with its warnings (budget, noise). `stop_reason` (from
        the sampling phase) says why it stopped; without one, fewer than `repeats` samples
        means the budget ended it."""
        warnings = list(self.warnings)
        if stop_reason is None:
            budget_exhausted = len(self.samples) < repeats
        else:
            budget_exhausted = stop_reason == "budget"
        if budget_exhausted:
            warnings.append(
                f"stopped after {len(self.samples)} of {repeats} samples: "
                f"time budget of {self.budget_s:g} s reached"
            )
        kept, throttled = self._unthrottled(warnings)
        measurement = Measurement(tuple(self.samples[i] for i in kept), self.calls)
        if measurement.noise_warning and stop_reason != "eliminated":  # its note says enough
            warnings.append(measurement.noise_warning)
        device = [self.device_samples[i] for i in kept]
        timer = self.kernel.device_timer
        return Timing(
            self.first_call_s,
            self.dispatch_s,
            measurement,
            tuple(warnings),
            budget_exhausted,
            self.rewarm_s,
            device_samples=tuple(d for d in device if d is not None)
            if all(d is not None for d in device)
            else (),
            device_timer=timer.name if timer else None,
            clocks=tuple(self.block_clocks),
            throttled_samples=tuple(self.samples[i] for i in throttled),
        )

    def _unthrottled(self, warnings: list[str]) -> tuple[list[int], list[int]]:
        """The samples kept for the interval and those left out, as indices: a block taken
        while the GPU throttled is left out, said in `warnings`, unless every block was (then
        all are kept, and the warning says to read them as throttled numbers)."""
        every = list(range(len(self.samples)))
        clocks = self.block_clocks
        if len(clocks) != len(self.samples):
            return every, []
        throttled = [i for i in every if clocks[i].throttled]
        if not throttled:
            return every, []
        why = ", ".join(sorted({clocks[i].why for i in throttled}))
        if len(throttled) == len(every):
            warnings.append(
                f"every block was taken while the GPU throttled ({why}): kept, but read these "
                "times as a throttled GPU's"
            )
            return every, []
        warnings.append(
            f"{len(throttled)} of {len(every)} blocks were taken while the GPU throttled "
            f"({why}): left out of the interval"
        )
        left_out = set(throttled)
        return [i for i in every if i not in left_out], throttled


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
    """First call alone, warm-up, autorange, dispatch time, then `repeats` synced samples in a
    row (the sequential order; the orchestrator interleaves variants with `Sampler` directly)."""
    sampler = Sampler(
        kernel,
        warmup=warmup,
        budget_s=budget_s,
        min_block_s=min_block_s,
        clock=clock,
        fixed_calls=fixed_calls,
    )
    while len(sampler.samples) < repeats and sampler.can_sample():
        sampler.sample()
        if on_sample:
            on_sample(len(sampler.samples), repeats)
    return sampler.timing(repeats)
