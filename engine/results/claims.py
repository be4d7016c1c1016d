"""A read run's claims, checked: what a results file says about correctness and speed is
re-derived from its own numbers before anything shows it.

Every reader (import, the dashboard's upload, the history loader, `report`, `compare`) goes
through the validating parser, which calls `check_claims`:

- `correct` is re-derived: a result called correct whose `max_rel_error` (or
  `rel_error_norm`) is missing or above the tolerance of its dtype and shape is not correct;
- medians and intervals are always recomputed from the samples (the model never reads them);
- a throughput above the run's own measured ceiling, beyond what the run's own check allows
  (`measure/plausible.py`: the ceiling's uncertainty with a working set the cache cannot
  hold, what any cache delivers with one it can), is refused: the result fails, saying why.

What a check changes is said in the result's warnings, so a page shows why a claim fell.
"""

from __future__ import annotations

from typing import Any

from engine.catalogue.catalog import is_known, strategy_info
from engine.measure.correctness import tolerance
from engine.measure.memory import format_bytes, input_set_bytes
from engine.measure.plausible import (
    ABSOLUTE_BYTES_PER_S,
    cache_limit_bytes_per_s,
    dram_allowance,
    is_cache_resident,
    refuse,
)

READ_CHECK = "checked on reading"


def allowed_error(result: Any, config: Any) -> float:
    """The tolerance the run would have checked this result with: its storage dtype's for a
    reduced-precision point, else the run's dtype, at the run's number of columns."""
    storage = strategy_info(result.strategy).storage if is_known(result.strategy) else ""
    return tolerance(storage or config.dtype, config.columns)


def check_correctness(result: Any, config: Any) -> None:
    if not result.correct:
        return
    allowed = allowed_error(result, config)
    errors = [e for e in (result.max_rel_error, result.rel_error_norm) if e is not None]
    worst = max(errors) if errors else None
    if worst is not None and worst <= allowed * (1 + 1e-9):
        return
    result.correct = False
    said = "no error recorded" if worst is None else f"a relative error of {worst:.3g}"
    result.warnings.append(
        f"incorrect ({READ_CHECK}): the file called it correct with {said}, above the "
        f"{allowed:.3g} tolerance of {config.dtype} at {config.columns} columns"
    )
    result.tolerance = allowed


def refuse_rate(result: Any, rate: float, why: str) -> None:
    refuse(
        result,
        rate,
        why,
        when=READ_CHECK,
        cause="the times in the file are not the work they claim",
    )


def check_rate(result: Any, run: Any) -> None:
    median = result.median_s
    if result.status != "ok" or not median:
        return
    ceiling = result.ceiling_bytes_per_s or run.peak.bandwidth_bytes_per_s
    rate = result.bytes / median
    env = run.environment
    device = run.peak.device or env.device_kind
    replicas = max(1, run.config.replicas)
    if not ceiling:  # no ceiling of its own to judge it by: only the bound on any device
        if rate > ABSOLUTE_BYTES_PER_S * replicas:
            refuse_rate(result, rate, "more than any device reads (1 PB/s a replica)")
        return
    limit = cache_limit_bytes_per_s(device, ceiling, env.cpu_count or 1, replicas)
    if rate > limit:
        refuse_rate(
            result, rate, f"more than any cache of its machine delivers ({limit / 1e9:,.0f} GB/s)"
        )
        return
    working_set = input_set_bytes(run.config) * max(1, run.cold_copies)
    llc = env.last_level_cache_bytes
    if result.ceiling_bytes_per_s or is_cache_resident(working_set, llc, run.config.cache):
        return
    if llc is None and run.config.cache == "warm":
        return  # the cache it may have read from is unknown: only the cache's bound holds
    allowed = ceiling * dram_allowance(run.peak)
    if rate > allowed:
        refuse_rate(
            result,
            rate,
            f"{rate / ceiling:,.1f}x the {ceiling / 1e9:.1f} GB/s its run measured, with a "
            f"working set ({format_bytes(working_set)}) its cache cannot hold",
        )


# A cache reads faster than the memory behind it; one a file says reads at under half memory's
# speed is not a reading of that cache (a forged level of 1 B/s put every result at 10^10 of
# its "ceiling"). Half, not less than memory's: a run may place memory at this machine's best
# within the hour while its own cache probe read a slow moment.
CACHE_BELOW_MEMORY = 0.5


def believable_levels(peak: Any) -> tuple[Any, list[str]]:
    """`peak` without the cache levels that read slower than memory can, and a warning for
    each: its results are then placed against the next level up, or memory."""
    import dataclasses

    memory = peak.bandwidth_bytes_per_s
    if not memory:
        return peak, []
    kept = [lv for lv in peak.levels if lv.bandwidth_bytes_per_s >= CACHE_BELOW_MEMORY * memory]
    said = [
        f"the file's {lv.level} ceiling, {lv.bandwidth_bytes_per_s / 1e9:.3g} GB/s, is under "
        f"half memory's {memory / 1e9:.3g} GB/s: a cache is never that slow, so it was left "
        f"out ({READ_CHECK})"
        for lv in peak.levels
        if lv not in kept
    ]
    return (dataclasses.replace(peak, levels=tuple(kept)) if said else peak), said


def check_claims(run: Any) -> None:
    """Hold the run's ceilings to what a cache can be, then re-derive each result's
    correctness and hold its rate to the run's own ceiling and to any device's."""
    run.peak, dropped = believable_levels(run.peak)
    run.warnings.extend(dropped)
    for result in run.results:
        check_correctness(result, run.config)
        check_rate(result, run)
