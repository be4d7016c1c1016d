"""PyTorch's profiler (`torch.profiler`) around a few more calls of a variant, after its timed
samples, in the variant's own process: the same summary as a TensorFlow profile.

Each call is one `record_function` step, synced like every timed call. An **op** is every
event PyTorch recorded inside the steps (`aten::bmm`, a `torch.compile`d region and the
kernels it launches); its self time excludes the ops it called, so the sum of the self times
is the time spent in PyTorch's operators, never counted twice. **Host time** is the rest of
the step: Python and dispatch. On a GPU the device's kernels are recorded too and op time is
their time on the device.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile, record_function

from engine.results.parts import ProfiledOp, ProfileSummary

STEP_NAME = "matvec_call"
TOP_OPS = 8
HOST_SOURCE = "PyTorch profiler: its operators' self time on the CPU"
DEVICE_SOURCE = "PyTorch profiler (CUPTI): its kernels' time on the GPU"


def _self_s(event: Any, on_device: bool) -> float:
    if on_device:  # the attribute's name changed across versions
        micros = getattr(event, "self_device_time_total", None)
        if micros is None:
            micros = getattr(event, "self_cuda_time_total", 0.0)
    else:
        micros = event.self_cpu_time_total
    return float(micros) / 1e6


def profile_kernel(
    call: Callable[[int], Any], sync: Callable[[Any], None], calls: int, cuda: bool
) -> ProfileSummary:
    """Profile `calls` calls of `call(i)`; what ran and where the time of a call went."""
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    with profile(activities=activities) as profiler:
        for index in range(calls):
            with record_function(STEP_NAME):
                sync(call(index))
    averages = profiler.key_averages()
    step = next((e for e in averages if e.key == STEP_NAME), None)
    if step is None or not step.count:
        raise ValueError(f"the profile has no {STEP_NAME!r} steps")
    ops = [e for e in averages if e.key != STEP_NAME and _self_s(e, cuda) > 0]
    windows = sorted(
        (e.time_range.start, e.time_range.end) for e in profiler.events() if e.name == STEP_NAME
    )
    op_samples = [_op_time_in(profiler.events(), window, cuda) for window in windows]
    wall_samples = [(end - start) / 1e6 for start, end in windows]
    top = sorted(ops, key=lambda e: -_self_s(e, cuda))[:TOP_OPS]
    wall_s = sum(wall_samples) / len(wall_samples)
    op_s = sum(op_samples) / len(op_samples)
    return ProfileSummary(
        "ok",
        calls=calls,
        ops_per_call=sum(e.count for e in ops) / calls,
        op_time_s=op_s,
        host_time_s=max(0.0, wall_s - op_s),
        wall_s=wall_s,
        top_ops=tuple(
            ProfiledOp(e.key, "torch op", e.count / calls, _self_s(e, cuda) / calls) for e in top
        ),
        peak_memory_bytes=int(torch.cuda.max_memory_allocated()) if cuda else None,
        memory_note=None if cuda else "not reported on the CPU (PyTorch keeps no host statistics)",
        op_samples_s=tuple(op_samples),
        wall_samples_s=tuple(wall_samples),
        op_source=DEVICE_SOURCE if cuda else HOST_SOURCE,
    )


def _op_time_in(events: Any, window: tuple[float, float], cuda: bool) -> float:
    """One profiled call's op time, in seconds: on a GPU the time its kernels kept the device
    busy (a union: two streams are not counted twice); on the CPU the self times of the
    operators it ran (never counting a caller's time twice). At most the call's wall time."""
    start, end = window
    inside = [e for e in events if e.name != STEP_NAME and start <= e.time_range.start < end]
    if cuda:
        kernels = sorted(
            (e.time_range.start, e.time_range.end)
            for e in inside
            if getattr(e, "device_type", None) == DeviceType.CUDA
        )
        busy, reach = 0.0, float("-inf")
        for a, b in kernels:
            if b > reach:
                busy += b - max(a, reach)
                reach = b
        micros = busy
    else:
        micros = sum(e.self_cpu_time_total for e in inside)
    return min(micros, end - start) / 1e6
