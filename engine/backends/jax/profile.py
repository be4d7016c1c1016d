"""JAX's profiler (`jax.profiler`) around a few more calls of a variant, after its timed
samples, in the variant's own process: the same summary as TensorFlow's and PyTorch's.

Each call is one `TraceAnnotation("matvec_call")`, synced like every timed call. The trace is
read in the process by `jax.profiler.ProfileData` (no TensorBoard): an **op** is an event XLA
marks with the HLO instruction it ran (its `hlo_op` stat: `dot`, a `fusion`), on the device's
own plane where the trace has one (a GPU's kernels, a TPU's ops) and else on XLA's CPU
threads. A call's op time is the time some op ran inside it (a union: ops on two threads or
streams at once are not counted twice); the rest of the call is Python, dispatch and
synchronisation.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from engine.results.parts import ProfiledOp, ProfileSummary

STEP_NAME = "matvec_call"
TOP_OPS = 8
HLO_OP = "hlo_op"
DEVICE_PLANE = "/device:"
HOST_SOURCE = "JAX profiler: XLA's ops on its CPU threads"
DEVICE_SOURCE = "JAX profiler: XLA's ops on the {device}"

Interval = tuple[float, float]


def profile_kernel(
    call: Callable[[int], Any], sync: Callable[[Any], None], calls: int, device: Any
) -> ProfileSummary:
    """Profile `calls` calls of `call(i)` on `device`; what ran and where a call's time went.
    JAX is imported here, not with the module: reading a trace needs no JAX in the process."""
    import jax

    with tempfile.TemporaryDirectory(prefix="matvec-jax-profile-") as folder:
        jax.profiler.start_trace(folder)
        try:
            for index in range(calls):
                with jax.profiler.TraceAnnotation(STEP_NAME):
                    sync(call(index))
        finally:
            jax.profiler.stop_trace()
        planes = read_planes(folder)
    return summary(planes, calls, device)


def read_planes(folder: str) -> list[Any]:
    """The trace's planes (`ProfileData`), from the one XSpace file the trace wrote."""
    from jax.profiler import ProfileData

    found = sorted(Path(folder).rglob("*.xplane.pb"))
    if not found:
        raise ValueError("the JAX profiler wrote no trace")
    return list(ProfileData.from_file(str(found[-1])).planes)


def summary(planes: Iterable[Any], calls: int, device: Any) -> ProfileSummary:
    """A `ProfileSummary` from a trace's planes: each annotated call's wall time and op time,
    the ops per call and the top ops by their time."""
    steps: list[Interval] = []
    ops: dict[bool, list[tuple[str, Interval]]] = {True: [], False: []}  # on the device?
    for plane in planes:
        on_device = plane.name.startswith(DEVICE_PLANE)
        for line in plane.lines:
            for event in line.events:
                span = (float(event.start_ns), float(event.end_ns))
                if event.name == STEP_NAME and not on_device:
                    steps.append(span)
                    continue
                op = dict(event.stats).get(HLO_OP)
                if op:
                    ops[on_device].append((str(op), span))
    if not steps:
        raise ValueError(f"the profile has no {STEP_NAME!r} calls")
    steps.sort()
    on_device = bool(ops[True])
    chosen = ops[on_device]
    inside = [(name, span) for name, span in chosen if any(within(span, s) for s in steps)]
    op_samples = [busy_ns([s for _, s in inside if within(s, step)], step) / 1e9 for step in steps]
    wall_samples = [(end - start) / 1e9 for start, end in steps]
    wall_s = sum(wall_samples) / len(wall_samples)
    op_s = sum(op_samples) / len(op_samples)
    return ProfileSummary(
        "ok",
        calls=len(steps),
        ops_per_call=len(inside) / len(steps),
        op_time_s=op_s,
        host_time_s=max(0.0, wall_s - op_s),
        wall_s=wall_s,
        top_ops=top_ops(inside, len(steps)),
        peak_memory_bytes=peak_memory(device),
        memory_note=None if on_device else "not reported on the CPU (JAX keeps no host statistics)",
        op_samples_s=tuple(op_samples),
        wall_samples_s=tuple(wall_samples),
        op_source=DEVICE_SOURCE.format(device=device.platform.upper())
        if on_device
        else HOST_SOURCE,
    )


def within(span: Interval, step: Interval) -> bool:
    """An op belongs to the call it started in."""
    return step[0] <= span[0] < step[1]


def busy_ns(spans: list[Interval], step: Interval) -> float:
    """The time some of `spans` ran inside `step`: their union, clipped to it."""
    busy, reach = 0.0, step[0]
    for start, end in sorted(spans):
        end = min(end, step[1])
        if end > reach:
            busy += end - max(start, reach)
            reach = end
    return busy


def top_ops(inside: list[tuple[str, Interval]], calls: int) -> tuple[ProfiledOp, ...]:
    """The ops by their total time, each with its count and time per call."""
    count: dict[str, int] = defaultdict(int)
    total: dict[str, float] = defaultdict(float)
    for name, (start, end) in inside:
        count[name] += 1
        total[name] += (end - start) / 1e9
    ranked = sorted(total, key=lambda name: -total[name])[:TOP_OPS]
    return tuple(ProfiledOp(n, "XLA op", count[n] / calls, total[n] / calls) for n in ranked)


def peak_memory(device: Any) -> int | None:
    """The device's peak bytes in use, where its runtime reports them (GPU, TPU)."""
    peak = (device.memory_stats() or {}).get("peak_bytes_in_use")
    return int(peak) if peak is not None else None
