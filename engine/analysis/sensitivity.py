"""What a comparison could see, computed once for the CLI, the Compare page and the report:
per variant, the smallest slowdown it calls `slower` `POWER` of the time, and for a gate's
ratio it cannot see yet, the runs per side that would (alternated with the other side's in
one window), whether runs apart in time could, and when a busy machine's allowance alone
hides it. Read from the comparison's frame (`compare.compare_runs`)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from engine.measure.power import POWER, Z_POWER, runs_to_detect
from engine.measure.run_spread import Z
from engine.results.run_result import RunResult


@dataclass(frozen=True)
class Sensitivity:
    """What a comparison could see for one variant of one run: the smallest slowdown it calls
    `slower` with `POWER`, and for a gate's ratio it cannot see yet, the runs per side that
    would (None: inside the margin, never called slower) and about how long they take."""

    variant: str
    run: str
    detectable: float
    asked: float | None = None
    runs_needed: int | None = None  # per side, alternated with the other side's in one window
    seconds_needed: float | None = None
    # Whether sides of that many runs made apart in time (a stored baseline, a later
    # candidate) would see it too: False when the host's drift between windows alone hides it.
    apart_too: bool = True
    # Other processes' CPU share during the runs when the allowance for it alone hides the
    # asked ratio (no number of runs on a machine this busy would see it); else None.
    busy_share: float | None = None


def sensitivities(
    frame: pd.DataFrame, seconds_per_run: float, percent: float | None = None
) -> list[Sensitivity]:
    """Per variant and run (not the baseline), from the comparison's frame; with a gate
    (`--fail-if-slower PCT`), what it would take to see the gate's ratio where it cannot now
    (`seconds_per_run`: `run_seconds`)."""
    rows = frame[(~frame["baseline"]) & frame["detectable_ratio"].notna()]
    margin = frame.attrs.get("margin", 0.05)
    asked = 1 + percent / 100 if percent is not None else None
    found = []
    for _, row in rows.iterrows():
        detectable = float(row["detectable_ratio"])
        item = Sensitivity(str(row["variant"]), str(row["run"]), detectable)
        if asked is not None and detectable > asked:
            item = _what_it_takes(item, row, frame, asked, margin, seconds_per_run)
        found.append(item)
    return found


def _what_it_takes(
    item: Sensitivity,
    row: pd.Series,
    frame: pd.DataFrame,
    asked: float,
    margin: float,
    seconds_per_run: float,
) -> Sensitivity:
    """The runs per side, alternated with the other side's in one window, that would see
    `asked` with `POWER`: the error's part that more runs narrow shrinks as one over their
    square root; the allowance for a busy machine does not (None where it alone hides it)."""
    log_se = (math.log(float(row["detectable_ratio"])) - math.log(1 + margin)) / (Z + Z_POWER)
    window = float(row.get("window_log_sd") or 0.0)
    busy = float(row.get("busy_log_sd") or 0.0)
    shrinkable = math.sqrt(max(log_se**2 - window**2 - busy**2, 0.0))
    item = dataclasses.replace(item, asked=asked)
    runs = runs_to_detect(shrinkable, int(row["runs"]), asked, margin, busy)
    if runs is None:
        inside = asked <= 1 + margin
        return item if inside else dataclasses.replace(item, busy_share=float(row["busy_share"]))
    # Sides of several runs each, windows apart, keep the floor once each (window_log_sd).
    apart = frame.attrs["floor"].between_run_for(str(row["variant"])) * math.sqrt(2)
    gap = math.log(asked) - math.log(1 + margin)
    return dataclasses.replace(
        item,
        runs_needed=runs,
        seconds_needed=seconds_per_run * 2 * runs,
        apart_too=(Z + Z_POWER) * math.hypot(apart, busy) < gap,
    )


def sensitivity_lines(
    frame: pd.DataFrame, seconds_per_run: float, percent: float | None = None
) -> list[str]:
    """What a comparison could see, as the CLI's aligned lines: the smallest slowdown it calls
    `slower` `POWER` (95%) of the time, per variant; with a gate (`--fail-if-slower PCT`), how
    many runs per side would let it see the gate's ratio where it cannot now, and about how
    long they take."""
    found = sensitivities(frame, seconds_per_run, percent)
    if not found:
        return []
    margin = frame.attrs["margin"]
    lines = [f"could detect ({POWER:.0%} of the time): slowdowns of at least"]
    for item in found:
        line = f"  {item.variant:<22} {item.run[:48]:<48} {item.detectable:.2f}x"
        if item.asked is not None and item.busy_share is not None:
            line += (
                f"; {item.asked:.2f}x cannot be seen while other processes take "
                f"{item.busy_share:.0%} of the CPU (the allowance for them alone is wider): "
                "measure on a quiet machine"
            )
        elif item.asked is not None and item.runs_needed is None:
            line += f"; {item.asked:.2f}x is inside the {margin:.0%} margin: never called slower"
        elif item.asked is not None:
            line += (
                f"; {item.asked:.2f}x needs about {item.runs_needed} runs per side, alternated "
                f"with the other side's (~{(item.seconds_needed or 0.0) / 60:.0f} min at these "
                f"runs' length; `--rerun {item.runs_needed}` runs them where both sides can be "
                "measured again here)"
            )
            if not item.apart_too:
                line += "; runs made apart in time never see it: the host drifts between them"
        lines.append(line)
    return lines


def sensitivity_sentence(frame: pd.DataFrame, seconds_per_run: float) -> str | None:
    """The same, as one sentence for a page or a report (the CLI's columns read as broken
    lines there)."""
    found = sensitivities(frame, seconds_per_run)
    if not found:
        return None
    each = "; ".join(f"{s.variant} in {s.run}: {s.detectable:.2f}×" for s in found)
    busy = frame["busy_log_sd"].fillna(0.0).gt(0.0).any() if "busy_log_sd" in frame else False
    more = (
        "more runs per side narrow the part of it that is sampling, not the allowance for a "
        "busy machine: run again on a quiet one"
        if busy
        else "more runs per side, alternated, narrow it"
    )
    return (
        f"What this comparison could detect ({POWER:.0%} of the time): slowdowns of at least "
        f"{each}. A smaller slowdown can hide in the spread; {more}."
    )


def run_seconds(runs: Sequence[RunResult | Sequence[RunResult]]) -> float:
    """A run's typical wall time among the compared ones (0 where none was recorded)."""
    flat = [run for item in runs for run in (item if isinstance(item, Sequence) else [item])]
    totals = [run.timings["total_s"] for run in flat if run.timings]
    return sorted(totals)[len(totals) // 2] if totals else 0.0
