"""A side's error from its runs: one run's median by the bootstrap, several runs' by their
spread, and how much wider Welch's t makes an interval drawn from few runs.

The bootstrap resamples a run's samples `resamples` times: memory and time grow with samples x
resamples (20,000 samples took 1 GB and seconds; a file may hold millions). Past
`RESAMPLED_UP_TO` samples, the variance of the bootstrap's log median is computed exactly
instead, from the distribution of a resample's median over the sorted samples (a binomial
per order statistic, SciPy): the value the resampling converges to, in O(n log n) time and O(n)
memory. Runs the tool makes hold tens to a few thousand samples.
"""

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


RESAMPLED_UP_TO = 1_000  # samples of a run above which the bootstrap variance is exact
# The order statistics further than this many standard deviations of a resample's median rank
# from the middle carry less than 1e-30 of its probability: they are left out of the sum.
RANK_REACH_SD = 24


def exact_log_median_variance(samples: np.ndarray) -> float:
    """The variance of log(median) over every resample of `samples` with replacement: a
    resample's median is the order statistic x(j) of the sorted samples with probability
    P(B(n, (j+1)/n) >= m+1) - P(B(n, j/n) >= m+1), m = (n-1)//2 (for an even n, the upper
    of the middle two: at these sizes the difference is far below the floor's)."""
    from scipy.special import bdtr

    values = np.sort(samples)
    n = values.size
    middle = (n - 1) // 2
    reach = int(RANK_REACH_SD * 0.5 * math.sqrt(n)) + 2
    low, high = max(0, middle - reach), min(n, middle + reach + 1)
    ranks = np.arange(low - 1, high)  # one below, for the first difference
    below = 1.0 - bdtr(middle, n, np.clip((ranks + 1) / n, 0.0, 1.0))
    below = np.where(ranks < 0, 0.0, np.where(ranks >= n - 1, 1.0, below))
    weights = np.diff(below)
    logs = np.log(values[low:high]) - math.log(values[middle])  # centred: no cancellation
    mean = float(np.sum(weights * logs))
    return max(0.0, float(np.sum(weights * logs * logs)) - mean * mean)


def log_median_variance(samples: np.ndarray, rng: np.random.Generator, resamples: int) -> float:
    """One run's bootstrap variance of its log median: resampled up to `RESAMPLED_UP_TO`
    samples, exact above it (the same quantity, without the resamples' memory)."""
    if samples.size > RESAMPLED_UP_TO:
        return exact_log_median_variance(samples)
    return float(np.var(bootstrap_log_medians([samples], rng, resamples), ddof=1))


def side_error(
    runs: Sequence[np.ndarray], floor_log_sd: float, rng: np.random.Generator, resamples: int
) -> tuple[float, float]:
    """One side's variance of its typical log time and its degrees of freedom (inf: known).
    One run: its median's bootstrap variance plus the floor's. Several: the variance of their
    log medians over the runs (never below a median's own sampling variance, so runs that
    happen to agree exactly still carry their samples' noise), with runs - 1 degrees of
    freedom."""
    if len(runs) == 1:
        return log_median_variance(runs[0], rng, resamples) + floor_log_sd**2, math.inf
    logs = [math.log(float(np.median(r))) for r in runs]
    sampling = float(np.mean([log_median_variance(r, rng, resamples) for r in runs]))
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
