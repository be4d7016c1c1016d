"""A CuPy variant's call warm, as a CUDA graph replay and after an L2 flush, each timed by
CUDA events (`measure/device_forms.py` takes them; docs/timing.md, "Device time").

The graph is captured from a stream of its own (`Stream.begin_capture` / `end_capture`) and
replayed on the current stream, where the events are recorded; the flush writes twice the L2
(`ndarray.fill`) before each flushed call, outside its events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cupy as cp

from engine.measure.device_forms import DeviceForms, take_forms
from engine.measure.device_timer import CUDA_EVENTS


def _timed(run: Callable[[], Any]) -> float:
    begin, end = cp.cuda.Event(), cp.cuda.Event()
    begin.record()
    run()
    end.record()
    end.synchronize()
    return cp.cuda.get_elapsed_time(begin, end) / 1e3


def _capture(call: Callable[[], Any]) -> Callable[[], Any]:
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        call()  # a first call off the capture: CuPy compiles and allocates outside the graph
        stream.synchronize()
        stream.begin_capture()
        call()
        graph = stream.end_capture()
    return graph.launch  # on the current stream, where the events are recorded


def cupy_forms(call: Callable[[], Any], l2_bytes: int | None) -> DeviceForms:
    flush_bytes = 2 * l2_bytes if l2_bytes else None
    scratch = cp.empty(flush_bytes // 4, dtype=cp.float32) if flush_bytes else None
    flush = (lambda: scratch.fill(0)) if scratch is not None else None
    return take_forms(call, _timed, _capture, flush, flush_bytes, CUDA_EVENTS)
