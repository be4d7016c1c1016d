"""A variant's host time beside the time its ops (or the device) took in the same calls, and
the difference: what a call pays beyond the work itself (Python, dispatch, a launch, the
synchronisation), each with a 95% interval.

Two sources, both paired call by call (or block by block), so the op time is never above the
host time of the calls it was measured in:

- on a GPU, the device's own timer around the very blocks the samples timed (CUDA events,
  `device_samples_s`): host time is the timed samples';
- elsewhere, a framework profiler's op time over a few calls after the samples
  (`ProfileSummary.op_samples_s`): host time is those calls' wall time, slower than the
  timed calls under the profiler, and said so (`calls`).

The verdict judges the timed samples' host time either way (`verdict.JUDGED_ON`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from engine.measure.uncertainty import median_ci

TIMED_BLOCKS = "the timed blocks"
PROFILED_CALLS = "the profiled calls (slower than the timed ones under the profiler)"


@dataclass(frozen=True)
class TimeSplit:
    host_s: float
    host_ci_s: tuple[float, float]
    op_s: float
    op_ci_s: tuple[float, float]
    overhead_s: float  # host minus op, call by call: launch, dispatch, synchronisation, Python
    overhead_ci_s: tuple[float, float]
    op_source: str  # which time the op time is
    calls: str  # which calls: TIMED_BLOCKS or PROFILED_CALLS
    count: int  # how many blocks or calls the medians are of

    @property
    def overhead_share(self) -> float:
        """The share of the host time that is not op time."""
        return self.overhead_s / self.host_s if self.host_s > 0 else 0.0

    def to_dict(self) -> dict[str, object]:
        data = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}
        data["overhead_share"] = self.overhead_share
        return data


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def time_split(host: Sequence[float], op: Sequence[float], source: str, calls: str) -> TimeSplit:
    """Host and op time of the same calls or blocks (seconds per call, in order): each op
    time at most its call's host time, the difference call by call, each a median with its
    order-statistic interval."""
    held = [min(o, h) for h, o in zip(host, op, strict=True)]
    overhead = [h - o for h, o in zip(host, held, strict=True)]
    return TimeSplit(
        host_s=_median(host),
        host_ci_s=median_ci(host),
        op_s=_median(held),
        op_ci_s=median_ci(held),
        overhead_s=_median(overhead),
        overhead_ci_s=median_ci(overhead),
        op_source=source,
        calls=calls,
        count=len(held),
    )
