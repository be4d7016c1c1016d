"""The device's own timer around a timed block: two CUDA events, recorded on the stream the
calls run on before the first call and after the last, their distance read once the block's
sync returned (PyTorch's `torch.cuda.Event`, CuPy's `cupy.cuda.Event`). It measures what the
GPU spent from the block's first launch to its last kernel's end: the launches' gaps between
kernels included, the host's Python and the final synchronisation not (docs/timing.md,
"Device time"). The events are made once per variant, so a block records but never
allocates one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CUDA_EVENTS = "CUDA events around each timed block"


class EventTimer:
    """A `blocks.DeviceTimer` from a framework's events: `make()` a timing event with a
    `record()`; `elapsed_ms(begin, end)` their distance in milliseconds."""

    name = CUDA_EVENTS

    def __init__(self, make: Callable[[], Any], elapsed_ms: Callable[[Any, Any], float]) -> None:
        self.begin, self.end = make(), make()
        self.elapsed_ms = elapsed_ms

    def start(self) -> None:
        self.begin.record()

    def stop(self) -> None:
        self.end.record()

    def elapsed_s(self) -> float:
        return self.elapsed_ms(self.begin, self.end) / 1e3
