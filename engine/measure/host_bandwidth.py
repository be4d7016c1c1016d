"""A ceiling measured without TensorFlow: NumPy max-reductions over a large buffer, one
thread per core.

If the peak came only from the framework under test, a slow framework would flatter every
roofline fraction. NumPy releases the GIL inside its reductions, so one thread per core reading
its own slice of a buffer several times the last-level cache measures what the memory system
delivers to plain compiled code. `np.max` is used rather than `np.sum`: NumPy's float32 sum
is pairwise and compute-bound (15.8 GB/s here against 21.7 GB/s for `np.max`, which is a plain
SIMD read).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.measure.peak import Probe
from engine.measure.timing import MIN_BLOCK_S, Kernel, time_kernel

PROBE_WARMUP = 2
PROBE_REPEATS = 15
PROBE_BUDGET_S = 10.0
METHOD = "numpy"


@dataclass(frozen=True)
class HostProbe:
    kernel: str
    bandwidth_bytes_per_s: float
    samples_s: tuple[float, ...]
    calls_per_sample: int
    threads: int


def threads_for_host() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def host_buffer(buffer_bytes: int) -> np.ndarray:
    """A float32 buffer of `buffer_bytes`, touched, so every page is resident before timing."""
    return np.ones(buffer_bytes // 4, dtype=np.float32)


def measure_host_read(
    buffer: np.ndarray,
    threads: int | None = None,
    *,
    warmup: int = PROBE_WARMUP,
    repeats: int = PROBE_REPEATS,
    budget_s: float = PROBE_BUDGET_S,
    min_block_s: float = MIN_BLOCK_S,
) -> HostProbe:
    """Median read bandwidth of `threads` concurrent `np.max` over float32 slices of `buffer`."""
    workers = threads or threads_for_host()
    elements = buffer.size // workers * workers
    slices = np.split(buffer[:elements], workers)
    with ThreadPoolExecutor(max_workers=workers) as pool:

        def read_all(_index: int) -> list[float]:
            return list(pool.map(np.max, slices))

        timing = time_kernel(
            Kernel(call=read_all, sync=lambda _out: None),
            warmup=warmup,
            repeats=repeats,
            budget_s=budget_s,
            min_block_s=min_block_s,
        )
    median = timing.measurement.median_s
    return HostProbe(
        kernel=f"numpy.max over {workers} float32 slices, {workers} threads",
        bandwidth_bytes_per_s=elements * 4 / median,
        samples_s=timing.measurement.samples_s,
        calls_per_sample=timing.measurement.calls_per_sample,
        threads=workers,
    )


PROBE_WARMUP = 2
PROBE_REPEATS = 15
# Once a worker has probed (its buffers resident, its probe functions traced), a shorter probe
# of the same kernels over the same buffer is enough: the budget is small and fixed.
WARM_PROBE_WARMUP = 1
WARM_PROBE_REPEATS = 7
PROBE_BUDGET_S = 10.0
# One read of the buffer takes milliseconds; blocks of >= 5 ms keep the clock and sync cost
# under 1% while letting a probe finish in a few tenths of a second.
PROBE_MIN_BLOCK_S = 0.005


@dataclass(frozen=True)
class ProbeEffort:
    """How hard one round of probes works: the full probe in a fresh process, less when warm."""

    warmup: int = PROBE_WARMUP
    repeats: int = PROBE_REPEATS
    budget_s: float = PROBE_BUDGET_S


FULL = ProbeEffort()
WARM = ProbeEffort(WARM_PROBE_WARMUP, WARM_PROBE_REPEATS)


def host_probe(buffer: Any, when: str, effort: ProbeEffort = FULL) -> list[Probe]:
    """The independent probe (NumPy threads, no framework): on a CPU it reads the same memory
    every framework's kernels read."""
    found = measure_host_read(
        buffer,
        warmup=effort.warmup,
        repeats=effort.repeats,
        budget_s=effort.budget_s,
        min_block_s=PROBE_MIN_BLOCK_S,
    )
    return [
        Probe(
            kernel=found.kernel,
            when=when,
            bandwidth_bytes_per_s=found.bandwidth_bytes_per_s,
            samples_s=found.samples_s,
            calls_per_sample=found.calls_per_sample,
            extra={"method": METHOD, "threads": found.threads},
        )
    ]
