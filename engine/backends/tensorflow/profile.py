"""TensorFlow's profiler around a few more calls of a variant, after its timed samples.

The calls are the same kernel on the same inputs as the samples, each marked as a step
(`tf.profiler.experimental.Trace`), synced like every timed call. The captured XSpace is
converted offline by xprof (the code behind TensorBoard's profile plugin) into the trace
viewer's events, which `engine.measure.trace_analysis` reads. On GPU and TPU the device
tracer records the device's kernels too, and the device's peak memory is read where it is
reported (`get_memory_info`).
"""

from __future__ import annotations

import contextlib
import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.backends.tensorflow.loader import tf
from engine.measure.timing import Kernel
from engine.measure.trace_analysis import (
    FIRST_CALL_STEP,
    PROFILE_CALLS,
    STEP_NAME,
    FirstCallSplit,
    TraceSummary,
    first_call_split,
    summarize,
)

XPROF_HINT = "install xprof (pip install xprof==2.24.2) to convert profiles"


class ProfilerUnavailable(RuntimeError):
    """The profile cannot be converted here; `str()` says what to install."""


def _options() -> Any:
    # Host level 2 records every op TensorFlow traces; no Python tracer (it would slow every
    # Python call and dwarf what is measured); device level 1 turns on CUPTI / the TPU tracer.
    return tf.profiler.experimental.ProfilerOptions(
        host_tracer_level=2, python_tracer_level=0, device_tracer_level=1
    )


def peak_memory(device: str) -> tuple[int | None, str | None]:
    """Peak device memory since the last reset, or why it is not reported."""
    try:
        info = tf.config.experimental.get_memory_info(device)
    except (ValueError, tf.errors.OpError) as error:
        kind = device.split(":")[-2] if device.count(":") >= 2 else device
        return None, f"not reported on this device ({kind}): {str(error).splitlines()[0][:200]}"
    return int(info["peak"]), None


def _reset_memory(device: str) -> None:
    with contextlib.suppress(ValueError, tf.errors.OpError):  # a CPU keeps no memory stats
        tf.config.experimental.reset_memory_stats(device)


def trace_json(logdir: Path) -> str:
    """The trace viewer's JSON (Chrome trace format) of the XSpace captured in `logdir`."""
    try:
        from xprof.convert import raw_to_tool_data
    except ImportError as error:
        raise ProfilerUnavailable(XPROF_HINT) from error
    planes = sorted(str(p) for p in logdir.glob("plugins/profile/*/*.xplane.pb"))
    if not planes:
        raise RuntimeError("the profiler wrote no XSpace")
    data, _ = raw_to_tool_data.xspace_to_tool_data(planes, "trace_viewer", {})
    if not data:
        raise RuntimeError("xprof could not convert the XSpace to a trace")
    return data.decode() if isinstance(data, bytes) else data


def profile_kernel(
    kernel: Kernel, device: str, logdir: Path, calls: int = PROFILE_CALLS
) -> tuple[TraceSummary, Path, int | None, str | None]:
    """Profile `calls` synced calls; returns the summary, the trace file and peak memory."""
    _reset_memory(device)
    tf.profiler.experimental.start(str(logdir), options=_options())
    try:
        with tf.device(device):
            for index in range(calls):
                with tf.profiler.experimental.Trace(STEP_NAME, step_num=index, _r=1):
                    kernel.sync(kernel.call(index))
    finally:
        tf.profiler.experimental.stop()
    text = trace_json(logdir)
    trace = logdir / "trace.json.gz"
    with gzip.open(trace, "wt", encoding="utf-8", compresslevel=1) as out:
        out.write(text)  # as xprof wrote it: Perfetto and chrome://tracing open it
    memory, note = peak_memory(device)
    return summarize(json.loads(text)["traceEvents"]), trace, memory, note


def profile_first_call(
    call: Callable[[], Any], sync: Callable[[Any], None], device: str, logdir: Path
) -> FirstCallSplit:
    """A *fresh* function's first call (traced, maybe compiled, then run), taken apart: the
    timed first call already happened outside the profiler, so this one is its twin."""
    tf.profiler.experimental.start(str(logdir), options=_options())
    try:
        with tf.device(device), tf.profiler.experimental.Trace(FIRST_CALL_STEP, step_num=0, _r=1):
            sync(call())
    finally:
        tf.profiler.experimental.stop()
    return first_call_split(json.loads(trace_json(logdir))["traceEvents"])
