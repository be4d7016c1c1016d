"""A ceiling that holds still: each level's ceiling is the best this machine read lately.

A read probe on a shared host lands in a slow phase now and then, and never in a fast one: a
disturbed read is slower, not faster. Memory's probe on a shared host reads in clusters
(docs/timing.md, "Figures behind the code"), so a variant's "% of memory" moved with the
probe, not with the variant. The ceiling is what the hardware can do, so a run's ceiling of
each level is the best of its own probes and of this machine's runs in the last `WINDOW_S` (at most
`SESSION_RUNS` of them) that read it the same way: the same host and device kind, the same
level and capacity (memory: the same probe buffer). The run's own figure stays beside it
(`own_bytes_per_s`): it is what the history stores (so a session's best never outlives its
window by being stored again) and what a moved ceiling is judged by (`ceiling_drift.py`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone

from engine.machine.words import counted
from engine.measure.peak import MEMORY, LevelCeiling, Peak

WINDOW_S = 3600.0
# A bound on what is read, not the window: the window is the hour. At 10 runs, 20 dashboard
# runs in three minutes rolled the best out of it (36.8 GB/s fell to 31.5 as its run aged out
# of the newest 10 while its hour had not passed).
SESSION_RUNS = 200
Earlier = Mapping[tuple[str, int | None], Sequence[float]]


def window_start(now: datetime | None = None) -> str:
    """The ISO time the session's window opens at (stored runs' `created_at` compare as text:
    every one is written as UTC with its offset, `...+00:00`)."""
    now = now or datetime.now(timezone.utc)
    return (now - timedelta(seconds=WINDOW_S)).isoformat(timespec="seconds")


def _session_best(level: LevelCeiling, key_bytes: int | None, earlier: Earlier) -> float | None:
    """The best earlier figure where it beats the run's own, else None."""
    own = level.bandwidth_bytes_per_s
    before = [v for v in earlier.get((level.level, key_bytes), ()) if v and v > 0]
    if not own or not before or max(before) <= own:
        return None
    return max(before)


def session_ceilings(peak: Peak, earlier: Earlier) -> Peak:
    """`peak` with each level raised to the session's best where that beats this run's own
    probes, the own figure kept beside it (`own_bytes_per_s`) and memory's method saying so."""
    if not earlier or not peak.bandwidth_bytes_per_s:
        return peak
    levels = []
    for level in peak.levels:
        best = _session_best(level, level.bytes, earlier)
        levels.append(
            level
            if best is None
            else dataclasses.replace(
                level, bandwidth_bytes_per_s=best, own_bytes_per_s=level.bandwidth_bytes_per_s
            )
        )
    peak = dataclasses.replace(peak, levels=tuple(levels))
    memory = peak.ceilings()[-1]
    best = _session_best(memory, peak.buffer_bytes, earlier)
    if best is None:
        return peak
    runs = len(earlier.get((MEMORY, peak.buffer_bytes), ()))
    return dataclasses.replace(
        peak,
        bandwidth_bytes_per_s=best,
        own_bytes_per_s=memory.bandwidth_bytes_per_s,
        method=(
            f"the best of this machine's last {counted(runs, 'run')} within the hour over the "
            "same buffer "
            f"({best / 1e9:.1f} GB/s; a probe reads low now and then, never high); this run's "
            f"own: {peak.method}"
        ),
    )
