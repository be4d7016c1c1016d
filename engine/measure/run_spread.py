"""A side's error from its runs: one run's median by the bootstrap, several runs' by their
spread, and how much wider Welch's t makes an interval drawn from few runs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

CONFIDENCE = 0.95
Z = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)


def bootstrap_log_medians(
    runs: Sequence[np.ndarray], rng: np.random.Generator, resamples: int
) -> np.ndarray:
    """Per resample: mean over (resampled) runs of log(median of resampled samples)."""
    per_run = []
    for samples in runs:
        picks = rng.integers(0, samples.size, size=(resamples, samples.size))
        per_run.append(np.log(np.median(samples[picks], axis=1)))
    matrix = np.stack(per_run, axis=1)  # (resamples, runs)
    if len(runs) == 1:
        return matrix[:, 0]
    chosen = rng.integers(0, len(runs), size=(resamples, len(runs)))
    return np.take_along_axis(matrix, chosen, axis=1).mean(axis=1)


def side_error(
    runs: Sequence[np.ndarray], floor_log_sd: float, rng: np.random.Generator, resamples: int
) -> tuple[float, float]:
    """One side's variance of its typical log time and its degrees of freedom (inf: known).
    One run: its median's bootstrap variance plus the floor's. Several: the variance of their
    log medians over the runs (never below a median's own sampling variance, so runs that
    happen to agree exactly still carry their samples' noise), with runs - 1 degrees of
    freedom."""
    if len(runs) == 1:
        own = float(np.var(bootstrap_log_medians(runs, rng, resamples), ddof=1))
        return own + floor_log_sd**2, math.inf
    logs = [math.log(float(np.median(r))) for r in runs]
    sampling = float(
        np.mean([np.var(bootstrap_log_medians([r], rng, resamples), ddof=1) for r in runs])
    )
    return max(float(np.var(logs, ddof=1)), sampling) / len(runs), len(runs) - 1.0


def welch_stretch(parts: Sequence[tuple[float, float]], se: float) -> float:
    """How much wider than the normal's Welch's t makes the interval: Student's quantile at
    the Welch–Satterthwaite degrees of freedom over the normal's (1 where every part is
    known)."""
    if se == 0:
        return 1.0
    spread = sum(var**2 / free for var, free in parts if math.isfinite(free) and var > 0)
    if spread == 0:
        return 1.0
    return t_stretch(se**4 / spread)


def t_stretch(freedom: float) -> float:
    """Student's two-sided 95% quantile at `freedom` degrees of freedom over the normal's."""
    from scipy.stats import t as student

    return float(student.ppf(1 - (1 - CONFIDENCE) / 2, freedom)) / Z
