"""Where a run's measuring went: its timed calls and its re-warms, read from its results.

A run's `variants_s` (and its peer processes' `peers_s`) is mostly not timed calls: first
calls, checks, warm-up, autorange, and before every turn that follows other work, a re-warm
that keeps a variant's time from depending on its neighbours (docs/timing.md). The split is
computed once, from every process's results, kept in the run's `timings`, and every line that
says it reads it there.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.results.model import StrategyResult

TIMING_SPLIT = ("timed_s", "rewarm_s")


def time_split(results: Iterable[StrategyResult]) -> dict[str, float]:
    """`timed_s`: the timed blocks (every sample times its calls), all variants together;
    `rewarm_s`: their re-warms (`Sampler.rewarm`)."""
    found = list(results)
    timed = sum(sum(r.samples_s) * (r.calls_per_sample or 0) for r in found)
    rewarm = sum(r.rewarm_s or 0.0 for r in found)
    return {"timed_s": timed, "rewarm_s": rewarm}
