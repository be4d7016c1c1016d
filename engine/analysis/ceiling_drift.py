"""A ceiling that moved: this run's per-level ceilings against the machine's own history.

A throttled host or a noisy neighbour shows as a moved ceiling before it shows as a slower
variant. Every stored run keeps its ceilings (`History.machine_ceilings`), so a run can be
judged against what this machine has read before: a level whose ceiling lies outside the
band its earlier runs spanned (widened by `MIN_BAND` where they happened to agree) is named,
with both numbers. Fewer than `MIN_EARLIER` earlier runs say nothing: there is no spread yet.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from engine.measure.peak import CEILING_MOVED, MEMORY, Peak

MIN_EARLIER = 3
# The band is at least ±15% around the earlier median: medians move that much between
# processes on the shared development host, and probes as much.
MIN_BAND = math.log(1.15)


def moved_ceilings(
    peak: Peak,
    earlier: Mapping[tuple[str, int | None], Sequence[float]],
    load: Any = None,
) -> list[str]:
    """One warning per level whose ceiling this run moved beyond the machine's own spread,
    judged against the earlier runs that read it the same way (a cache of the same size;
    memory over the same probe buffer)."""
    notes = []
    for level in peak.ceilings():
        rate = level.own  # the run's own probes, not a session's best it was placed against
        key = (level.level, level.bytes or peak.buffer_bytes)
        before = [value for value in earlier.get(key, ()) if value and value > 0]
        if not rate or len(before) < MIN_EARLIER:
            continue
        logs = sorted(math.log(value) for value in before)
        middle = logs[len(logs) // 2]
        low = min(logs[0], middle - MIN_BAND)
        high = max(logs[-1], middle + MIN_BAND)
        if low <= math.log(rate) <= high:
            continue
        name = "memory's" if level.level == MEMORY else f"the {level.level}"
        direction = "below" if math.log(rate) < low else "above"
        notes.append(
            f"{name} {CEILING_MOVED} {rate / 1e9:.1f} GB/s here, {direction} the "
            f"{math.exp(low) / 1e9:.1f}–{math.exp(high) / 1e9:.1f} GB/s this machine read in "
            f"its last {len(before)} runs (a throttled host or a busy neighbour shows here "
            "before it shows as a slower variant)" + busy_words(load)
        )
    return notes


BUSY_SHARE = 0.10  # of the CPU: a share that reaches an all-core probe


def busy_words(load: Any) -> str:
    """The run's own load beside a moved ceiling: an all-core probe shares its cores with the
    tool's own processes (the dashboard's server, the browser showing it) and everyone else's."""
    if load is None:
        return ""
    own = getattr(load, "tool_cpu_fraction", None) or 0.0
    other = getattr(load, "other_cpu_fraction", None) or 0.0
    if own + other < BUSY_SHARE:
        return ""
    return (
        f"; the machine was not quiet meanwhile (the tool's own processes used {own:.0%} of "
        f"the CPU, others {other:.0%}), and an all-core probe shares its cores with them"
    )
