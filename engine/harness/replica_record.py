"""What every split of the batch records, however it splits (threads of a process, or a
framework's own devices): each replica timed alone on its slice, and the replicated note."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.measure import roofline, sharding
from engine.measure.timing import Kernel, time_kernel
from engine.results.parts import ReplicaTiming
from engine.run_settings.config import BenchConfig

CONTEXT_REPEATS = 10  # each replica alone is context, not the headline (as replica_modes.py)


def time_alone(
    config: BenchConfig,
    shard: sharding.Shard,
    device: str,
    call: Callable[[], Any],
    sync: Callable[[Any], None],
    replicas: int,
) -> ReplicaTiming:
    """One replica's own time on its slice (`call`), not waiting for the others."""
    if shard.matrices == 0:
        return ReplicaTiming(shard.replica, device, 0, None)
    timing = time_kernel(
        Kernel(call=lambda _i: call(), sync=sync),
        warmup=1,
        repeats=min(config.repeats, CONTEXT_REPEATS),
        budget_s=config.time_budget_s / max(1, replicas),
    )
    median = timing.measurement.median_s
    return ReplicaTiming(
        shard.replica, device, shard.matrices, median, rate_of(config, shard.matrices, median)
    )


def rate_of(config: BenchConfig, matrices: int, median_s: float | None) -> float | None:
    """A replica's necessary bytes per second on its `matrices` (None without a time)."""
    if not median_s or median_s <= 0:
        return None
    return roofline.traffic_bytes(matrices, config.dim, config.columns, config.itemsize) / median_s


def replicated_note(config: BenchConfig, replicas: int) -> str:
    return (
        f"every replica computed all {config.matrices:,} matrices: {replicas}x the "
        "necessary work (rates count the necessary work once)"
    )
