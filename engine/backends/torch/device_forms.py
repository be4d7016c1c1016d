"""A PyTorch variant's call warm, as a CUDA graph replay and after an L2 flush, each timed by
CUDA events (`measure/device_forms.py` takes them; docs/timing.md, "Device time").

The graph is captured as PyTorch's documentation asks: the call warmed on a side stream
first, then `torch.cuda.graph` records it; its replay launches every kernel of the call at
once, with no launch from Python. The flush writes twice the L2 (`torch.Tensor.zero_`) before
each flushed call, outside its events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from engine.measure.device_forms import DeviceForms, take_forms
from engine.measure.device_timer import CUDA_EVENTS

SIDE_WARMUP_CALLS = 3


def _timed(run: Callable[[], Any]) -> float:
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    begin.record()
    run()
    end.record()
    end.synchronize()
    return begin.elapsed_time(end) / 1e3


def _capture(call: Callable[[], Any]) -> Callable[[], Any]:
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(SIDE_WARMUP_CALLS):
            call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call()
    return graph.replay


def torch_forms(call: Callable[[], Any], l2_bytes: int | None) -> DeviceForms:
    flush_bytes = 2 * l2_bytes if l2_bytes else None
    scratch = (
        torch.empty(flush_bytes // 4, dtype=torch.float32, device="cuda") if flush_bytes else None
    )
    flush = scratch.zero_ if scratch is not None else None
    return take_forms(call, _timed, _capture, flush, flush_bytes, CUDA_EVENTS)
