"""Compare runs (two machines, two settings, before and after a change): verdicts that hold.

Each side is one run or a group of repetitions of one configuration. The ratio of a variant's
typical time on a side to the baseline side's gets a 95% interval that includes the spread
between runs: resampled where a side has several runs (hierarchical bootstrap), and the
machine's noise floor where it has one. A difference is called (`faster`, `slower`) only when
the interval excludes the equivalence margin; `same` when it lies inside it; otherwise
`inconclusive`. See docs/statistics.md.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pandas as pd

from engine.machine.load import BUSY_FRACTION
from engine.measure.compare_floor import compare_default
from engine.measure.power import detectable_ratio
from engine.measure.stats import NOISE_IQR_FRACTION, Measurement
from engine.measure.uncertainty import (
    DEFAULT_MARGIN,
    NoiseFloor,
    busy_log_sd,
    median_ci,
    ratio_interval,
    verdict,
)
from engine.results.formatting import reported_words
from engine.results.run_result import RunResult

FloorLookup = Callable[[RunResult], NoiseFloor | None]
COMPARE_COLUMNS = (
    "variant",
    "run",
    "run_id",
    "runs",
    "baseline",
    "status",
    "correct",
    "median_s",
    "median_ci_s",
    "samples",
    "ratio",
    "ratio_ci",
    "verdict",
    "noisy",
    "note",
    "detectable_ratio",
    "window_log_sd",
    "busy_log_sd",
    "busy_share",
    "floor_kind",
    "floor_log_sd",
)


@dataclass(frozen=True)
class Side:
    """One side of a comparison: one run, or several repetitions of one configuration."""

    runs: tuple[RunResult, ...]

    @property
    def label(self) -> str:
        first = self.runs[0]
        repeats = f", {len(self.runs)} runs" if len(self.runs) > 1 else ""
        return f"{run_label(first)}{repeats}"

    def samples(self, variant: str) -> list[tuple[float, ...]]:
        return [
            r.samples_s
            for run in self.runs
            for r in run.results
            if r.variant == variant and r.samples_s and r.calls_per_sample
        ]

    def entry(self, variant: str) -> Any:
        return next((r for run in self.runs for r in run.results if r.variant == variant), None)


def run_label(run: RunResult) -> str:
    """A run's name, and whose word its numbers are where it was not measured here."""
    env = run.environment
    name = run_name(run.config.label, env.hostname, env.device_kind, run.run_id)
    return f"{name}, {reported_words(run.reported_by)}" if run.reported_by else name


def run_name(label: str | None, hostname: str | None, device_kind: str, run_id: str) -> str:
    """ "laptop (CPU, 3f2a9c)": one name for a run, in the picker, the tables and the reports."""
    return f"{label or hostname or run_id[:8]} ({device_kind}, {run_id[:6]})"


def sides_of(runs: Sequence[RunResult | Sequence[RunResult]]) -> list[Side]:
    return [Side(tuple(r) if isinstance(r, list | tuple) else (r,)) for r in runs]


def window_of(side: Side) -> tuple[float, float] | None:
    """When a side was measured, in seconds since the epoch: from its first run's start to its
    last run's end (a run's `created_at` is its end, `timings.total_s` its length); None
    where a run does not say."""
    starts, ends = [], []
    for run in side.runs:
        try:
            end = datetime.fromisoformat(run.created_at).timestamp()
        except ValueError:
            return None
        starts.append(end - float((run.timings or {}).get("total_s", 0.0)))
        ends.append(end)
    return min(starts), max(ends)


def same_window(a: Side, b: Side) -> bool:
    """Whether two sides were measured in one window, their runs alternated (pyperf's way):
    their spans overlap for at least half the shorter one. Sides measured one after the other
    (a stored baseline, a later candidate) are not."""
    first, second = window_of(a), window_of(b)
    if first is None or second is None:
        return False
    overlap = min(first[1], second[1]) - max(first[0], second[0])
    shorter = min(first[1] - first[0], second[1] - second[0])
    return shorter > 0 and overlap >= shorter / 2


def windows_apart(a: Side, b: Side) -> int:
    """What repeating runs in one window cannot average away: the host's speed moves between
    windows (minutes apart, 1.6x on a bad hour), and every run of a side shares its window's.
    A side of one run already carries the floor, a fresh process's spread; a side of several
    runs from another window than the other side carries it once more, as the bound of its
    window's offset (the floor times the square root of this count). Sides alternated in one
    window carry none."""
    if same_window(a, b):
        return 0
    return (len(a.runs) > 1) + (len(b.runs) > 1)


def side_load(side: Side) -> float:
    """The largest share of the CPU other processes used during any run of the side."""
    return max(
        (run.machine_load.other_cpu_fraction for run in side.runs if run.machine_load),
        default=0.0,
    )


def busy_note(sides: Sequence[Side], verdict_text: str) -> str:
    """Why a verdict may be weaker than the medians suggest: a side ran on a busy machine."""
    busy = [(side, side_load(side)) for side in sides if side_load(side) > BUSY_FRACTION]
    if not busy:
        return ""
    named = "; ".join(f"{side.label}: other processes used {load:.0%}" for side, load in busy)
    # More runs narrow the spread they measure, never the allowance for other processes.
    advice = "close other work and run again: more runs on a machine this busy do not narrow it"
    if verdict_text == "inconclusive":
        return f"inconclusive on a busy machine ({named}); {advice}"
    return f"interval widened for a busy machine ({named})"


def _noisy(samples: Sequence[float]) -> bool:
    m = Measurement(tuple(samples), 1)
    return m.median_s > 0 and m.iqr_s / m.median_s > NOISE_IQR_FRACTION


def floor_for(sides: Sequence[Side], lookup: FloorLookup | None) -> NoiseFloor:
    """The widest floor among the runs involved (calibrated or observed in the history), else
    the default for runs of separate processes (`compare_default`); a variant's own floor is
    the widest any of them gives it."""
    found = [lookup(run) for side in sides for run in side.runs] if lookup else []
    known = [f for f in found if f is not None]
    if not known:
        return compare_default()
    widest = max(known, key=lambda f: f.between_run_log_sd)
    named = sorted({name for f in known for name, _ in f.variant_log_sd})
    if not named:
        return widest
    own = tuple((name, max(f.between_run_for(name) for f in known)) for name in named)
    return dataclasses.replace(widest, variant_log_sd=own)


def untimed_verdict(entry: Any, reference: Any, samples: Any) -> str:
    """Why a row has no ratio, in the words a reader needs: which side lacks the variant,
    or which side has it without a timing (and its status)."""
    if entry is None:
        return "not in this run"
    if reference is None:
        return "not in the baseline"
    if not samples:
        return f"no timing here ({entry.status})"
    return f"no timing in the baseline ({reference.status})"


def compare_runs(
    runs: Sequence[RunResult | Sequence[RunResult]],
    baseline: int = 0,
    *,
    floor: NoiseFloor | None = None,
    margin: float = DEFAULT_MARGIN,
) -> pd.DataFrame:
    """One row per (variant, side): median, its interval, ratio to the baseline with its
    interval, and the verdict. Runs given as a list are one side (repetitions)."""
    sides = sides_of(runs)
    floor = floor or compare_default()
    base = sides[baseline]
    variants = list(
        dict.fromkeys(r.variant for side in sides for run in side.runs for r in run.results)
    )
    apart = [windows_apart(base, side) for side in sides]  # once per side, not per variant
    rows: list[dict[str, Any]] = []
    for variant in variants:
        reference = base.samples(variant)
        for index, side in enumerate(sides):
            entry = side.entry(variant)
            samples = side.samples(variant)
            pooled = [s for run in samples for s in run]
            estimate = None
            busy = math.hypot(busy_log_sd(side_load(base)), busy_log_sd(side_load(side)))
            window = floor.between_run_for(variant) * math.sqrt(apart[index])
            if samples and reference and index != baseline:
                estimate = ratio_interval(
                    reference,
                    samples,
                    floor.between_run_for(variant),
                    seed=index,
                    extra_log_sd=math.hypot(busy, window),
                )
            called = (
                verdict(estimate, margin)
                if estimate
                else untimed_verdict(entry, base.entry(variant), samples)
            )
            median = float(pd.Series(pooled).median()) if pooled else None
            rows.append(
                {
                    "variant": variant,
                    "run": side.label,
                    "run_id": ",".join(run.run_id for run in side.runs),
                    "runs": len(side.runs),
                    "baseline": index == baseline,
                    "status": entry.status if entry else "absent",
                    "correct": bool(entry and entry.correct),
                    "median_s": median,
                    "median_ci_s": list(median_ci(pooled)) if pooled else None,
                    "samples": len(pooled),
                    "ratio": estimate.ratio if estimate else None,
                    "ratio_ci": [estimate.low, estimate.high] if estimate else None,
                    "verdict": "baseline" if index == baseline else called,
                    "noisy": bool(pooled and _noisy(pooled)),
                    "note": busy_note((base, side), called) if estimate else "",
                    # the smallest slowdown this comparison would have called slower (POWER)
                    "detectable_ratio": detectable_ratio(estimate.log_se, margin)
                    if estimate
                    else None,
                    # the parts of its error more runs per side cannot shrink: windows apart,
                    # and the allowance for other processes' CPU share (the larger side's)
                    "window_log_sd": window if estimate else None,
                    "busy_log_sd": busy if estimate else None,
                    "busy_share": max(side_load(base), side_load(side)) if estimate else None,
                    # which floor judged it: this machine's history, its calibration, or the
                    # default (the source in full is the comparison's `noise_floor`)
                    "floor_kind": floor.kind,
                    "floor_log_sd": floor.between_run_for(variant),
                }
            )
    frame = pd.DataFrame(rows, columns=list(COMPARE_COLUMNS))
    frame.attrs.update(margin=margin, floor=floor)
    return frame


def mode_of(run: RunResult) -> str:
    """ "single", "sharded over 2": a run's layout, as a mismatch names it."""
    c = run.config
    return c.mode if c.mode == "single" else f"{c.mode} over {c.replicas}"


def mismatch_warnings(runs: Sequence[RunResult | Sequence[RunResult]]) -> list[str]:
    """What differs between the sides besides the code: shape, dtype, device kind, mode and
    replicas. Ratios then compare different problems, layouts or machines, and the warning
    says what they mean."""
    firsts = [side.runs[0] for side in sides_of(runs)]
    found = []

    def shape(run: RunResult) -> str:
        c = run.config
        return f"{c.matrices}x{c.dim}x{c.columns}"

    for what, key in (
        ("shapes", shape),
        ("dtypes", lambda run: run.config.dtype),
        ("devices", lambda run: run.environment.device_kind),
        ("modes", mode_of),
    ):
        values = list(dict.fromkeys(key(run) for run in firsts))
        if len(values) > 1:
            found.append(
                f"the runs differ in {what} ({' vs '.join(values)}): each ratio is how much "
                "longer the same variant took on the other problem, layout or machine, not "
                "which way of computing one problem is faster"
            )
    for side in sides_of(runs):  # whose word each side's numbers are, said whole
        reported = sorted({run.reported_by for run in side.runs if run.reported_by})
        if reported:
            found.append(
                f"{side.label}: {', '.join(reported_words(host) for host in reported)}; its "
                "times are the file's claims, checked against physics but not measured here"
            )
    return found


def confirmed_slowdowns(frame: pd.DataFrame, percent: float) -> pd.DataFrame:
    """Rows confirmed slower than the baseline by more than `percent` (the interval's low end)."""
    if frame.empty:
        return frame
    slower = frame[frame["verdict"] == "slower"]
    past = pd.Series([ci[0] > 1 + percent / 100 for ci in slower["ratio_ci"]], index=slower.index)
    return slower[past.astype(bool)]


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else key, inner, out)
    elif isinstance(value, list):
        out[prefix] = ", ".join(map(str, value))
    else:
        out[prefix] = value


def environments(runs: Sequence[RunResult]) -> pd.DataFrame:
    """Environment keys as rows, one column per run; the peak bandwidth included."""
    columns = {}
    for run in runs:
        flat: dict[str, Any] = {}
        _flatten("", run.environment.to_dict(), flat)
        flat["peak GB/s (measured)"] = (
            f"{run.peak_bytes_per_s / 1e9:.1f}" if run.peak_bytes_per_s else "-"
        )
        columns[run_label(run)] = flat
    frame = pd.DataFrame(columns)
    frame.index.name = "setting"
    return frame.fillna("-").astype(str).reset_index()
