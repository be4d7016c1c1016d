"""A ceiling that is never below what was achieved, or says why.

A variant's bandwidth above the measured peak has one of two causes, told apart by its working
set against the last-level cache:

- **cache-resident**: with `cache=warm`, inputs no larger than the last-level cache stay in it
  between calls, so the variant reads the cache, not DRAM. Its roofline fraction may exceed
  100% and its note says so (use `cache=cold` for the DRAM figure);
- **a disturbed probe**: the working set is larger than the cache (or rotated cold), so the
  variant did read DRAM at that rate, and the probes landed in a busy moment. The run probes
  once more; if the variant still beats every probe, the ceiling becomes the best rate the
  run achieved, with the reason in the run's warnings. The roofline never exceeds 100% then.

A rate neither can explain is refused, not believed: above the probes by more than their own
uncertainty with a working set the cache cannot hold, or above what any cache of the machine
can deliver with one it can. Such a time did not measure the work it claims (a result cached
or computed outside the timed calls, a forged report): the variant fails, saying why, and
keeps its samples for the record.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from typing import Any

from engine.analysis.session_ceiling import Earlier, session_ceilings
from engine.measure import plausible
from engine.measure.cache_ceilings import LevelProber
from engine.measure.memory import (
    cold_copies,
    format_bytes,
    input_set_bytes,
    probe_size_warning,
    working_set_bytes,
)
from engine.measure.peak import MEMORY, LevelCeiling, Peak, Probe, peak_from
from engine.measure.plausible import dram_allowance, is_cache_resident

Reprobe = Callable[[], list[Probe]]


def cache_limit_bytes_per_s(device: str | None, ceiling: float) -> float:
    """The fastest read a cache-resident working set can have on this machine's device."""
    return plausible.cache_limit_bytes_per_s(device, ceiling, os.cpu_count() or 1)


def refuse(result: Any, rate: float, why: str) -> None:
    """Fail a variant whose rate cannot be real; its samples stay, marked by the reason."""
    plausible.refuse(
        result,
        rate,
        why,
        cause="the timed calls did not do the work they claim (a result kept from an earlier "
        "call, work done outside the timed calls, or a forged report)",
    )


def cache_note(working_set_bytes: int, llc_bytes: int | None) -> str:
    return (
        f"above the measured DRAM ceiling: its working set ({format_bytes(working_set_bytes)}) "
        f"fits in the {format_bytes(int(llc_bytes or 0))} last-level cache, so warm inputs were "
        "read from the cache; use cache=cold for the DRAM-bound figure"
    )


def fastest_dram_rate(results: Sequence[Any]) -> tuple[str, float] | None:
    """The highest necessary-bytes rate among correct, timed results (variant, bytes/s)."""
    rates = [
        (r.variant, r.bytes / r.median_s)
        for r in results
        if r.status == "ok" and r.correct and r.median_s and r.work_multiplier == 1
    ]
    return max(rates, key=lambda pair: pair[1]) if rates else None


def place_cache_resident(
    peak: Peak, above: Sequence[Any], working_set_bytes: int, llc_bytes: int | None
) -> None:
    """Results above memory's ceiling with a working set the cache holds: refused past what
    any cache delivers, else noted as the cache's (where the run has no levels to place them
    on)."""
    limit = cache_limit_bytes_per_s(peak.device, peak.bandwidth_bytes_per_s or 0.0)
    for result in above:
        rate = result.bytes / result.median_s
        if rate > limit:
            refuse(result, rate, f"more than any cache here delivers ({limit / 1e9:,.0f} GB/s)")
            continue
        note = cache_note(working_set_bytes, llc_bytes)
        if not peak.levels and note not in result.notes:  # else placed on its level
            result.notes.append(note)


def probed_again(peak: Peak, reprobe: Reprobe) -> Peak:
    """`peak` with the probes read again kept, and raised to the best of them where it beats
    the first ones (which a disturbed moment read low)."""
    more = reprobe()
    probes = (*peak.probes, *more)
    top = max((p.bandwidth_bytes_per_s for p in more), default=0.0)
    if top > (peak.bandwidth_bytes_per_s or 0.0):
        return dataclasses.replace(peak, bandwidth_bytes_per_s=top, probes=probes)
    return dataclasses.replace(peak, probes=probes)


def settle_ceiling(
    peak: Peak,
    results: Sequence[Any],
    *,
    working_set_bytes: int,
    llc_bytes: int | None,
    cache: str,
    reprobe: Reprobe | None,
) -> tuple[Peak, list[str]]:
    """The peak to place results against, and the run's warnings about it. Cache-resident
    results get their note here (on the result); a disturbed probe is probed again, then the
    ceiling is raised to the best achieved rate if it still is below it."""
    best = peak.bandwidth_bytes_per_s
    if not best:
        return peak, []
    resident = is_cache_resident(working_set_bytes, llc_bytes, cache)
    above = [  # results placed against their own device's ceiling are not this peak's
        r
        for r in results
        if r.median_s and not r.ceiling_bytes_per_s and r.bytes / r.median_s > best
    ]
    if not above:
        return peak, []
    if resident:
        place_cache_resident(peak, above, working_set_bytes, llc_bytes)
        return peak, []
    fastest = fastest_dram_rate(above)
    if fastest is None:
        return peak, []
    if reprobe is not None:
        peak = probed_again(peak, reprobe)
        best = peak.bandwidth_bytes_per_s or best
    allowed = best * dram_allowance(peak)
    for result in above:
        rate = result.bytes / result.median_s
        if rate > allowed:
            refuse(
                result,
                rate,
                f"{rate / best:,.1f}x the {best / 1e9:.1f} GB/s read on this device, with a "
                f"working set ({format_bytes(working_set_bytes)}) the "
                f"{format_bytes(int(llc_bytes or 0))} last-level cache cannot hold",
            )
    fastest = fastest_dram_rate(above)
    if fastest is None:
        return peak, []
    variant, rate = fastest
    if rate <= best:
        return peak, [
            f"the first probes read less than {variant} achieved; a probe after the "
            "strategies measured the ceiling used here (the first ones were disturbed)"
        ]
    raised = dataclasses.replace(
        peak,
        bandwidth_bytes_per_s=rate,
        method=f"the best rate achieved in this run ({variant}); {peak.method}",
        extra={**peak.extra, "raised_from_bytes_per_s": best, "raised_by": variant},
    )
    reason = (
        f"the ceiling is {variant}'s own {rate / 1e9:.1f} GB/s: every probe read less "
        f"({best / 1e9:.1f} GB/s at best) although its working set "
        f"({format_bytes(working_set_bytes)}) does not stay in the "
        f"{format_bytes(int(llc_bytes or 0))} last-level cache, so the probes were disturbed "
        "(another process, frequency); roofline fractions are against it"
    )
    return raised, [reason]


UNPROBED = "not measured: the run was interrupted before its read probe"


def run_ceiling(
    probes: list[Probe],
    device: str,
    results: Sequence[Any],
    config: Any,
    llc_bytes: int,
    reprobe: Reprobe | None,
    device_probes: Sequence[Probe] = (),
    levels: LevelProber | None = None,
    earlier: Earlier | None = None,
) -> tuple[Peak, list[str]]:
    """A run's `peak` from its probes, settled against what its results achieved, with each
    accelerator peer's own probes kept beside it, and its cache levels' ceilings (`levels`);
    and the warnings that say why. Without a probe (a run interrupted before its first), no
    ceiling: every rate is then unplaced."""
    if not probes:
        return Peak(None, UNPROBED, device, probes=tuple(device_probes)), []
    memory_peak = peak_from(probes, device, llc_bytes)
    peak, level_notes = levels.settle(memory_peak) if levels else (memory_peak, [])
    peak = session_ceilings(peak, earlier or {})
    peak, notes = settle_ceiling(
        peak,
        results,
        working_set_bytes=input_set_bytes(config),
        llc_bytes=llc_bytes,
        cache=config.cache,
        reprobe=reprobe,
    )
    if device_probes:
        peak = dataclasses.replace(peak, probes=(*peak.probes, *device_probes))
    place_on_levels(peak, results, config, cold_copies(config, llc_bytes))
    small = probe_size_warning(llc_bytes)
    elsewhere = accelerator_note(results)
    moved = moved_during_run(probes)
    return peak, [*notes, *level_notes, *(n for n in (small, elsewhere, moved) if n)]


MOVED_DURING_RUN = 0.10  # beyond this between one kernel's own probes: said
WHEN_WORDS = {"before": "before the variants", "after": "after them", "check": "on a check after"}


def moved_during_run(probes: Sequence[Probe]) -> str | None:
    """The words for a run whose memory read moved between its own probes of one kernel. On a
    shared host the memory bus is shared with other tenants, and one process's read can step
    by half between two moments (docs/timing.md, "Figures behind the code"), so no probe holds
    still there; the run says when it saw it."""
    if not probes:
        return None
    best = max(probes, key=lambda p: p.bandwidth_bytes_per_s)
    same = [p for p in probes if p.kernel == best.kernel]
    slowest = min(same, key=lambda p: p.bandwidth_bytes_per_s)
    moved = best.bandwidth_bytes_per_s / max(slowest.bandwidth_bytes_per_s, 1.0) - 1.0
    if len(same) < 2 or moved <= MOVED_DURING_RUN:
        return None
    return (
        f"the memory read moved during the run: {best.kernel} read "
        f"{slowest.bandwidth_bytes_per_s / 1e9:.1f} GB/s "
        f"{WHEN_WORDS.get(slowest.when, slowest.when)} and "
        f"{best.bandwidth_bytes_per_s / 1e9:.1f} GB/s {WHEN_WORDS.get(best.when, best.when)} "
        f"({moved:.0%} apart; on a shared host other tenants' load moves it). The ceiling is "
        "the faster reading: a variant measured while the host read at the slower one sits "
        "that much lower against it"
    )


def accelerator_note(results: Sequence[Any]) -> str | None:
    """The one note for results placed against their own accelerator's memory whose caches
    were not probed (a framework that cannot say its L2's size, JAX)."""
    placed = [r.variant for r in results if r.ceiling_bytes_per_s and not r.device_levels]
    if not placed:
        return None
    verb = "is" if len(placed) == 1 else "are"
    return (
        f"{', '.join(placed)} ran on an accelerator and {verb} placed against its memory's "
        "ceiling: no cache of it has a ceiling (its framework does not say its L2's size, or "
        "the L2 read no faster than memory), so a warm working set that fits one may read "
        "above it"
    )


# A fraction of its own level's ceiling above this is never shown bare: the probes' own spread
# on this shared host is about ±10%, so up to 110% is the ceiling; beyond, a note says how far.
LEVEL_NOTE_FRACTION = 1.10


def place_on_levels(peak: Peak, results: Sequence[Any], config: Any, copies: int = 1) -> None:
    """Each result read faster than 110% of the cache level its working set lives in gets a
    measurement warning with the numbers (shown wherever its fraction is); a user's kernel
    beyond that level's own uncertainty is refused, as above memory's (a built-in's code is
    this tool's: its rate says the probe was slow)."""
    if not peak.levels:
        return
    for result in results:
        if result.status != "ok" or not result.median_s or result.ceiling_bytes_per_s:
            continue
        level = peak.ceiling_for(working_set_bytes(config, result.mode, copies))
        ceiling = level.bandwidth_bytes_per_s
        if level.level == MEMORY or not ceiling:
            continue  # memory's ceiling was settled by settle_ceiling
        rate = result.bytes / result.median_s
        if rate <= LEVEL_NOTE_FRACTION * ceiling:
            continue
        allowed = ceiling * (1.0 + max(plausible.CEILING_UNCERTAINTY, level_spread(level)))
        if result.user_kernel and rate > allowed:
            refuse(
                result,
                rate,
                f"{rate / ceiling:,.1f}x the {ceiling / 1e9:.1f} GB/s read from the {level.level} "
                f"cache on this device, which holds its working set",
            )
            continue
        note = (
            f"{rate / ceiling:.0%} of the {level.level} ceiling: it read {rate / 1e9:.1f} GB/s "
            f"where the {level.level} probes read {ceiling / 1e9:.1f} GB/s at best; the probe "
            "was slower than this variant's own reads (a busy moment, or a faster read kernel)"
        )
        if note not in result.warnings:
            result.warnings.append(note)


def level_spread(level: LevelCeiling) -> float:
    """How far a level's probes disagree: best over worst, minus one."""
    return plausible.probe_spread(level)
