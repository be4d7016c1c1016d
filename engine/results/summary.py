"""The CLI's run summary: the table, the ceilings and speed of light above it, the verdict and
the host/op split below it, and the line that says what the run's time went on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from engine.measure.host_and_device import TIMED_BLOCKS
from engine.measure.memory import format_bytes
from engine.measure.peak import CEILING_MOVED
from engine.results.ceiling_text import ceilings_line
from engine.results.codec import run_entries
from engine.results.formatting import (
    entry_notes,
    format_entry,
    format_seconds,
    grouped_notes,
    reduced_precision_line,
    winner_line,
    with_interval,
)
from engine.results.run_result import RunResult
from engine.results.verdict import JUDGED_ON


def time_split_words(variant: str, split: Mapping[str, Any]) -> str:
    """ "torch_bmm: profiled call 38.2 us (35–84.6 us), in ops 23.4 us (22.7–51.2 us), the rest
    14.8 us (11.7–33.4 us), 39% of the call": a result's `time_split` in one line."""
    calls = "timed block" if split.get("calls") == TIMED_BLOCKS else "profiled call"
    return (
        f"{variant}: {calls} {with_interval(split['host_s'], split['host_ci_s'])}, in ops "
        f"{with_interval(split['op_s'], split['op_ci_s'])}, the rest "
        f"{with_interval(split['overhead_s'], split['overhead_ci_s'])}, "
        f"{split['overhead_share']:.0%} of the call"
    )


def time_split_lines(entries: list[Mapping[str, Any]]) -> list[str]:
    """Each variant's host time beside its op (or device) time in the same calls, under a
    heading that says which time the verdict judged; none where no variant has a split."""
    split = [(e["variant"], e["time_split"]) for e in entries if e.get("time_split")]
    if not split:
        return []
    sources = sorted({found["op_source"] for _, found in split})
    return [
        "host and op time per call, in the same calls (95% intervals; the rest is launch, "
        f"dispatch, synchronisation and Python; the verdict judges {JUDGED_ON}):",
        *(f"  {time_split_words(variant, found)}" for variant, found in split),
        *(f"  op time: {source}" for source in sources),
    ]


def speed_of_light_line(
    light: Mapping[str, Any] | None, entries: list[Mapping[str, Any]], winner: str | None
) -> str:
    """ "speed of light for this problem: 2.4 µs (46.9 KiB over memory's 20.0 GB/s); the
    winner, numpy, at 12% of it" (empty without a ceiling)."""
    if not light:
        return ""
    line = (
        f"speed of light for this problem: {format_seconds(light['time_s'])} "
        f"({format_bytes(light['bytes'])} over {light['level']}'s "
        f"{light['bytes_per_s'] / 1e9:.1f} GB/s)"
    )
    best = next((e for e in entries if e["variant"] == winner), None)
    if best is None or not best.get("ceiling_fraction"):
        return line
    fraction = best["ceiling_fraction"]
    share = f"{fraction:.0%}" if fraction >= 0.01 else f"{fraction * 100:.2g}%"
    return f"{line}; the winner, {winner}, at {share} of it"


def summary_table(result: RunResult) -> str:
    """The CLI's readable table: one row per variant, failures and wrong results spelt out."""
    entries = run_entries(result)
    table = pd.DataFrame([format_entry(entry) for entry in entries]).to_string(index=False)
    pairs = [(entry["variant"], note) for entry in entries for note in entry_notes(entry)]
    notes = [f"  {line}" for line in grouped_notes(pairs)]
    header = ceilings_line(result.peak)
    moved = [f"  {w}" for w in result.warnings if CEILING_MOVED in w]
    winner = (result.winner_dict() or {}).get("variant")
    light = speed_of_light_line(result.speed_of_light(), entries, winner)
    header = "\n".join([header, *moved, *([light] if light else [])]) if header else ""
    answer = winner_line(result.winner_dict())
    reduced = reduced_precision_line(result.reduced_precision(), result.config.dtype)
    parts = [header, table, answer, *([reduced] if reduced else []), *time_split_lines(entries)]
    parts += ["notes:", *notes] if notes else []
    about_run = [f"  {w}" for w in result.warnings if CEILING_MOVED not in w]
    parts += ["about this run:", *about_run] if about_run else []
    return "\n".join(parts).strip()


PHASE_LABELS = {
    "startup_s": "starting",
    "peers_s": "peers",
    "peak_s": "peak bandwidth",
    "inputs_s": "inputs",
    "variants_s": "variants",
    "profile_s": "profiles",
}


def took_line(
    timings: Mapping[str, float] | None, worker: Mapping[str, Any] | None = None
) -> str | None:
    """ "This run took 10.9 s: starting 3.0 s · ...; its timed calls took 1.9 s of it and its
    re-warms 1.5 s" — phases under 0.05 s are left out; `worker` (the results'
    `sampling.worker`) says when a warm worker ran it."""
    if not timings or "total_s" not in timings:
        return None
    parts = [
        f"{label} {timings[name]:.1f} s"
        for name, label in PHASE_LABELS.items()
        if timings.get(name, 0.0) >= 0.05
    ]
    where = ""
    if worker and worker.get("warm") is True:
        reused = " (inputs reused)" if worker.get("inputs_reused") is True else ""
        where = f" on a warm worker{reused}"
    took = f"This run took {timings['total_s']:.1f} s{where}"
    split = ""
    if timings.get("timed_s") is not None and timings.get("rewarm_s") is not None:
        split = (
            f"; its timed calls took {timings['timed_s']:.1f} s of it and its re-warms "
            f"{timings['rewarm_s']:.1f} s"
        )
    return took + (": " + " · ".join(parts) if parts else "") + split
