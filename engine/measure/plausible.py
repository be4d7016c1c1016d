"""What a measured rate can be, at most: the bounds a run's own ceiling check and the reading
of a stored file both hold a result to (`analysis/ceiling.py`, `results/claims.py`). One
place, so a file is judged by the rule the run that wrote it was."""

from __future__ import annotations

from typing import Any

# The ceiling's own uncertainty, at least: probes on a shared host move ±15% between moments
# and a busy one reads less; a result more than 1.5x the best probe (or more than the probes'
# own spread) above it, with a working set the cache cannot hold, did not read DRAM that fast.
CEILING_UNCERTAINTY = 0.5
# What a cache can deliver at most: two 64-byte loads per core and cycle at 6 GHz, on every
# core (no CPU core of 2026 loads more); an accelerator's on-chip caches, 10x its memory.
CACHE_BYTES_PER_CORE_S = 2 * 64 * 6e9
ACCELERATOR_CACHE_FACTOR = 10.0
# What no device reads, whatever a file says of it (its core count, its ceiling): 1 PB/s per
# replica, caches included. The largest CPU of 2026 loads about 150 TB/s from all its L1s at
# once (192 cores at the bound above); an accelerator's memory about 8 TB/s, its caches ten
# times that. A rate above it is a forged or corrupt time, never a measurement.
ABSOLUTE_BYTES_PER_S = 1e15


def probe_spread(peak: Any) -> float:
    """How far the run's probes disagree: best over worst, minus one (0 with one probe)."""
    rates = [p.bandwidth_bytes_per_s for p in peak.probes if p.bandwidth_bytes_per_s > 0]
    return max(rates) / min(rates) - 1.0 if len(rates) > 1 else 0.0


def cache_limit_bytes_per_s(
    device: str | None, ceiling: float, cores: int, replicas: int = 1
) -> float:
    """The fastest read a cache-resident working set can have on the run's device (`cores`:
    the run's machine's, not necessarily this one's), never above `ABSOLUTE_BYTES_PER_S` a
    replica whatever the cores or the ceiling claim."""
    if device and any(kind in device.upper() for kind in ("GPU", "TPU")):
        found = ACCELERATOR_CACHE_FACTOR * ceiling
    else:
        found = CACHE_BYTES_PER_CORE_S * max(1, cores)
    return min(found, ABSOLUTE_BYTES_PER_S * max(1, replicas))


def is_cache_resident(working_set_bytes: int, llc_bytes: int | None, cache: str) -> bool:
    """Whether warm inputs this large can stay in the last-level cache between calls."""
    return cache == "warm" and bool(llc_bytes) and working_set_bytes <= int(llc_bytes or 0)


def dram_allowance(peak: Any) -> float:
    """How far above the best probe a result with a working set the cache cannot hold may
    read before its time is refused: the ceiling's own uncertainty, or the probes' spread."""
    return 1.0 + max(CEILING_UNCERTAINTY, probe_spread(peak))


def refuse(result: Any, rate: float, why: str, *, when: str = "", cause: str) -> None:
    """Fail a variant whose rate cannot be real; its samples stay, marked by the reason
    (`when`: how it was found, e.g. "checked on reading"; `cause`: what the time must be)."""
    result.status = "failed"
    result.correct = False
    found = f" ({when})" if when else ""
    result.error = (
        f"ImplausibleThroughput{found}: its time says it read {rate / 1e9:,.1f} GB/s, "
        f"{why}: {cause}"
    )
