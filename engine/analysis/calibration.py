"""The machine's noise floor, measured: how much typical times move between fresh processes.

From R repetitions of one configuration (A/A: nothing changed between them):
- `between_run_log_sd`: the spread of each variant's log(median) across runs, pooled over
  variants (root mean square of the per-variant standard deviations);
- `ratio_log_sd`: the spread of log(median_v / median_w) for every pair of variants of one
  run, across runs, pooled the same way: what a within-run comparison (a tie) cannot see.

`calibrate` makes those repetitions on purpose. `observed_floor` reads the same two spreads
from runs the user already made: earlier runs of the same measurement on the same machine
with the same framework versions (`same_measurement`), where what differed was the moment.
A host whose speed swings between processes (docs/timing.md, "Figures behind the code")
then shows it in its own history.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from engine.machine.load import BUSY_FRACTION
from engine.measure.compare_floor import upper_log_sd
from engine.measure.uncertainty import NoiseFloor
from engine.results.run_result import RunResult

MIN_RUNS = 3


def log_medians(runs: Sequence[RunResult]) -> dict[str, list[float]]:
    """Variant -> log(median) of each run, for variants correct and timed in every run."""
    table: dict[str, list[float]] = {}
    for run in runs:
        for entry in run.results:
            if entry.status == "ok" and entry.correct and entry.median_s:
                table.setdefault(entry.variant, []).append(math.log(entry.median_s))
    return {v: values for v, values in table.items() if len(values) == len(runs)}


def _pooled_sd(series: Sequence[Sequence[float]]) -> float:
    variances = [float(np.var(values, ddof=1)) for values in series]
    return math.sqrt(float(np.mean(variances))) if variances else 0.0


def noise_floor(runs: Sequence[RunResult], source: str) -> NoiseFloor:
    """The floor from A/A repetitions; raises ValueError when they cannot give one."""
    if len(runs) < MIN_RUNS:
        raise ValueError(f"calibration needs at least {MIN_RUNS} runs, got {len(runs)}")
    table = log_medians(runs)
    if not table:
        raise ValueError("no variant was timed and correct in every run")
    ratios = [
        [a - b for a, b in zip(table[v], table[w])] for v, w in itertools.combinations(table, 2)
    ]
    return NoiseFloor(
        between_run_log_sd=_pooled_sd(list(table.values())),
        ratio_log_sd=_pooled_sd(ratios) if ratios else 0.0,
        source=source,
    )


def same_measurement(run: RunResult, other: RunResult) -> bool:
    """Whether two runs measured the same thing the same way: one problem and layout, one
    machine and device, the same framework versions, and neither on a busy machine (a busy
    run's spread is the load's, which the busy widening covers on its own)."""
    a, b = run.config, other.config
    problem = (
        *("matrices", "dim", "columns", "dtype", "mode", "replicas", "cache", "threads"),
        *("order", "dataset_batch"),  # what else moves a median under the same variant name
    )
    if any(getattr(a, name) != getattr(b, name) for name in problem):
        return False
    e, f = run.environment, other.environment
    machine = ("hostname", "device_kind", "tensorflow", "numpy", "python")
    if any(getattr(e, name) != getattr(f, name) for name in machine):
        return False
    if _versions(e.frameworks) != _versions(f.frameworks):
        return False
    return not any(
        r.machine_load is not None and r.machine_load.other_cpu_fraction > BUSY_FRACTION
        for r in (run, other)
    )


def _versions(frameworks: dict) -> dict:
    return {
        name: info.get("version") if isinstance(info, dict) else None
        for name, info in frameworks.items()
    }


def observed_floor(
    runs: Sequence[RunResult], source: str, bound: bool = False
) -> NoiseFloor | None:
    """The floor that earlier runs of one measurement show, pooled over the variants timed
    and correct in at least `MIN_RUNS` of them (and the pairs timed together that often), and
    each such variant's own; None when no variant was. A user kernel is left out: its code
    may differ between runs. `bound`: each spread at its 95% upper bound for the runs it was
    read from (`upper_log_sd`), so a few runs that agreed by chance never make a narrow one."""
    per_run = [
        {
            entry.variant: math.log(entry.median_s)
            for entry in run.results
            if entry.status == "ok" and entry.correct and entry.median_s and not entry.user_kernel
        }
        for run in runs
    ]
    names = sorted({name for logs in per_run for name in logs})
    timed = {v: [logs[v] for logs in per_run if v in logs] for v in names}
    timed = {v: values for v, values in timed.items() if len(values) >= MIN_RUNS}
    if not timed:
        return None
    pairs = [
        [logs[v] - logs[w] for logs in per_run if v in logs and w in logs]
        for v, w in itertools.combinations(names, 2)
    ]
    pairs = [values for values in pairs if len(values) >= MIN_RUNS]

    def spread(series: list[list[float]]) -> float:
        found = _pooled_sd(series)
        if not bound:
            return found
        return upper_log_sd(found, 1 + sum(len(values) - 1 for values in series))

    return NoiseFloor(
        between_run_log_sd=spread(list(timed.values())),
        ratio_log_sd=spread(pairs) if pairs else 0.0,
        source=source,
        variant_log_sd=tuple((v, spread([values])) for v, values in timed.items()),
    )
