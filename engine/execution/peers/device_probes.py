"""An accelerator's own ceilings, read in its framework's process (`peers/worker.py`): its memory
(`device_probes`), and where the framework can say its size, its L2 (`device_l2_probes`); the
results on that device are placed against them (`peers/parent.py`). A framework on the host has none
here: the host's NumPy probes are its ceilings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.harness.capabilities import PlacesOverDevices, ProbesDevice, ProbesL2, process_count
from engine.harness.runtime import Runtime
from engine.measure.host_bandwidth import (
    PROBE_BUDGET_S,
    PROBE_MIN_BLOCK_S,
    PROBE_REPEATS,
    PROBE_WARMUP,
)
from engine.measure.peak import Probe
from engine.measure.timing import Kernel, time_kernel


def timed_read(runtime: Runtime, read: Callable[[], Any]) -> Any:
    """A device probe's timing: the memory probe's effort, synchronised by the runtime."""
    return time_kernel(
        Kernel(call=lambda _i: read(), sync=runtime.sync),
        warmup=PROBE_WARMUP,
        repeats=PROBE_REPEATS,
        budget_s=PROBE_BUDGET_S,
        min_block_s=PROBE_MIN_BLOCK_S,
    )


def device_probes(runtime: Runtime, buffer_bytes: int, when: str) -> list[dict[str, Any]]:
    """The read bandwidth of the framework's own device, when it is an accelerator: the
    ceiling its results are placed against (a CPU framework's is the host's NumPy probe).
    Across several JAX processes, on a CPU too: all of them read at once, and the ceiling is
    the sum of their rates (their results are every process's work over the slowest's time,
    which one process's probe does not bound)."""
    processes = process_count(runtime)
    if not isinstance(runtime, ProbesDevice) or (runtime.device_kind == "CPU" and processes == 1):
        return []
    elements = buffer_bytes // 4
    buffer = runtime.probe_buffer(elements)
    read = runtime.probe_read()
    if isinstance(runtime, PlacesOverDevices) and processes > 1:
        runtime.barrier(f"probe {when}")
    timing = timed_read(runtime, lambda: read(buffer))
    median = timing.measurement.median_s
    rate = elements * 4 / median
    kernel = f"{runtime.framework} sum over {elements * 4 / 2**20:.0f} MiB float32"
    extra: dict[str, Any] = {"method": runtime.framework, "device_kind": runtime.device_kind}
    if isinstance(runtime, PlacesOverDevices) and processes > 1:
        rates = [float(r) for r in runtime.every_process([rate])[:, 0]]
        rate, kernel = sum(rates), f"{kernel} in each of {processes} processes at once"
        extra["per_process_bytes_per_s"] = rates
    return [
        Probe(
            kernel=kernel,
            when=when,
            bandwidth_bytes_per_s=rate,
            samples_s=timing.measurement.samples_s,
            calls_per_sample=timing.measurement.calls_per_sample,
            extra=extra,
        ).to_dict()
    ]


# A device L2 probe reads its buffer this many bytes per launch, at least, through a view that
# repeats it (stride 0): one launch of a cache-sized buffer would time the launch, not the L2.
L2_READ_PER_LAUNCH = 256 * 2**20


def device_l2_probes(runtime: Runtime, when: str) -> list[dict[str, Any]]:
    """The read bandwidth of the accelerator's L2 (`l2_cache_bytes`, `l2_read`), over a
    buffer of half its size read many times in one launch; tagged with its level and size.
    None where the runtime cannot say its L2's size (JAX) or runs on the host."""
    if runtime.device_kind == "CPU" or not isinstance(runtime, ProbesL2):
        return []
    if not isinstance(runtime, ProbesDevice):  # the L2's buffer and read are the device's
        return []
    size = runtime.l2_cache_bytes()
    if not size or size <= 0 or size > 2**40:
        return []
    elements = max(1, size // 2 // 4)
    buffer = runtime.probe_buffer(elements)
    times = max(1, L2_READ_PER_LAUNCH // (elements * 4))
    timing = timed_read(runtime, runtime.l2_read(buffer, times))
    return [
        Probe(
            kernel=f"{runtime.framework} sum over a {elements * 4 / 2**20:.1f} MiB float32 "
            f"buffer read {times} times in one launch",
            when=when,
            bandwidth_bytes_per_s=elements * 4 * times / timing.measurement.median_s,
            samples_s=timing.measurement.samples_s,
            calls_per_sample=timing.measurement.calls_per_sample,
            extra={
                "method": runtime.framework,
                "device_kind": runtime.device_kind,
                "level": "L2",
                "level_bytes": int(size),
            },
        ).to_dict()
    ]
