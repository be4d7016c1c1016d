"""The machine's noise floor, measured: how much typical times move between fresh processes.

From R repetitions of one configuration (A/A: nothing changed between them):
- `between_run_log_sd`: the spread of each variant's log(median) across runs, pooled over
  variants (root mean square of the per-variant standard deviations);
- `ratio_log_sd`: the spread of log(median_v / median_w) for every pair of variants of one
  run, across runs, pooled the same way: what a within-run comparison (a tie) cannot see.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from engine.measure.uncertainty import NoiseFloor
from engine.results.model import RunResult

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
