"""Uncertainty of timings: intervals for a median and for a ratio of two, verdicts, and ties.

On a shared machine the spread *between* processes (placement, allocation, frequency,
neighbours) is larger than the spread of samples within one process, so a test that treats one
run's samples as independent calls identical runs different most of the time. Here:

- a median gets a distribution-free order-statistic interval (`median_ci`);
- a ratio of two typical times gets a bootstrap interval on the log scale, resampling runs and
  then samples where a side has several runs (hierarchical bootstrap), and widened by the
  machine's measured noise floor for every side that has a single run (`ratio_interval`);
- a difference is called only when the ratio's interval excludes the equivalence margin
  (`verdict`); a winner within the noise is a tie (`winner_and_ties`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from engine.measure.run_spread import (
    CONFIDENCE,
    RESAMPLED_UP_TO,
    Z,
    bootstrap_log_medians,
    log_median_variance,
    side_error,
    welch_stretch,
)

BOOTSTRAP_RESAMPLES = 2000
# Ratios within this factor of 1 are "the same": below it a difference does not matter.
DEFAULT_MARGIN = 0.05
# Measured noise when none has been calibrated on this machine (docs/statistics.md): the
# standard deviation of log(median) between fresh processes of one configuration, and of
# log(median_a / median_b) between two variants of one run, across runs.
DEFAULT_BETWEEN_RUN_LOG_SD = 0.08
DEFAULT_RATIO_LOG_SD = 0.08
MEDIAN_CI_METHOD = (
    "order statistic (scipy.stats.quantile_test's ranks), 95%; with fewer than 6 samples the range "
    "of the samples (coverage below 95%)"
)
RATIO_CI_METHOD = (
    "95% normal interval on log(ratio): bootstrap standard error (runs, then samples, "
    f"resampled {BOOTSTRAP_RESAMPLES} times) combined with the noise floor for each side "
    "measured in a single run"
)
Verdict = Literal["faster", "slower", "same", "inconclusive"]


EXACT_RANKS_UP_TO = 1_000  # above it the binomial's points come from SciPy, in floats


@functools.lru_cache(maxsize=512)
def _order_statistic_ranks(size: int) -> tuple[int, int] | None:
    """The ranks (0-based) of the order statistics bounding the median's 95% interval for
    `size` samples: the binomial's 2.5% and 97.5% points, as `scipy.stats.quantile_test`'s
    two-sided interval takes them (its `ppf(0.025) - 1` and `isf(0.025)`; a test holds the two
    equal). Worked out in exact integers rather than with SciPy's stats, whose import costs a
    command 0.7 s that a run of one variant needs for nothing else."""
    tail = round(2 / (1 - CONFIDENCE))  # P = 1/40 in each tail
    if size > EXACT_RANKS_UP_TO:  # exact integers grow with 2**size: quadratic in the samples
        from scipy.stats import binom

        k = int(binom.ppf(1 / tail, size, 0.5))
    else:
        whole, below = 2**size, 0
        for k in range(size + 1):  # ppf: the smallest k with P(K <= k) >= 1/40, K ~ B(size, ½)
            below += math.comb(size, k)
            if tail * below >= whole:
                break
    # The binomial of 1/2 is symmetric and never lands on 1/40 exactly, so isf = size - ppf.
    low, high = k - 1, size - k
    if low < 0 or high >= size:
        return None
    return low, high


def median_ci(samples: Sequence[float]) -> tuple[float, float]:
    """95% interval for the median from order statistics (no distribution assumed)."""
    values = np.sort(np.asarray(samples, dtype=np.float64))
    if values.size < 6:
        return float(values[0]), float(values[-1])
    ranks = _order_statistic_ranks(int(values.size))
    if ranks is None:
        return float(values[0]), float(values[-1])
    return float(values[ranks[0]]), float(values[ranks[1]])


def busy_log_sd(other_cpu_fraction: float | None) -> float:
    """How much other processes' CPU use can move a median, as a log standard deviation.

    A share s of the machine's CPU taken by others during a run can slow any one variant's
    blocks by up to a factor of about 1 + s (its threads wait that much longer for a core), and
    interleaving spreads that over the variants only on average. Half of log(1 + s) as a
    standard deviation puts that whole factor inside a 95% interval: an A/A comparison on a
    busy machine comes out `same` or `inconclusive`, never `slower`.
    """
    if not other_cpu_fraction or other_cpu_fraction <= 0:
        return 0.0
    return math.log1p(min(other_cpu_fraction, 1.0)) / 2


@dataclass(frozen=True)
class NoiseFloor:
    """How much a typical time moves that a single run cannot see, as log standard deviations."""

    between_run_log_sd: float = DEFAULT_BETWEEN_RUN_LOG_SD  # same config, fresh processes
    ratio_log_sd: float = DEFAULT_RATIO_LOG_SD  # two variants of one run, across runs
    source: str = "default (not calibrated on this machine; run `python -m engine calibrate`)"
    # A variant's own spread between runs where the history showed it (`observed_floor`), as
    # (variant, log sd) pairs: a steady one-thread kernel is not judged by a swinging one's.
    variant_log_sd: tuple[tuple[str, float], ...] = ()

    @property
    def kind(self) -> str:
        """Where this floor came from, in one word: "history" (observed over stored runs of
        the measurement), "calibration" (`calibrate`), else "default"."""
        if self.source.startswith("observed over"):
            return "history"
        if self.source.startswith("calibrated on"):
            return "calibration"
        return "default"

    def between_run_for(self, variant: str) -> float:
        """The between-run floor of one variant: its own where known, else the machine's."""
        return dict(self.variant_log_sd).get(variant, self.between_run_log_sd)

    def under_load(self, other_cpu_fraction: float | None) -> NoiseFloor:
        """This floor on a busy machine: both spreads widened by `busy_log_sd` of the share of
        the CPU that other processes used during the run (nothing changes on a quiet one)."""
        extra = busy_log_sd(other_cpu_fraction)
        if extra == 0.0:
            return self
        return NoiseFloor(
            math.hypot(self.between_run_log_sd, extra),
            math.hypot(self.ratio_log_sd, extra),
            f"{self.source}; widened for a busy machine (other processes used "
            f"{other_cpu_fraction:.0%} of the CPU)",
            tuple((name, math.hypot(sd, extra)) for name, sd in self.variant_log_sd),
        )

    def side_log_sd(self, same_process: bool = True) -> float:
        """The floor each side of a ratio of one run carries: half the within-run ratio
        variance when both were interleaved in one process, else a fresh process's own."""
        return self.ratio_log_sd / math.sqrt(2) if same_process else self.between_run_log_sd


@dataclass(frozen=True)
class RatioEstimate:
    """B's typical time over A's (above 1: B is slower), with its 95% interval."""

    ratio: float
    low: float
    high: float
    runs_a: int
    runs_b: int
    log_se: float = 0.0  # the standard error of log(ratio) the interval was drawn with


def typical_log_time(runs: Sequence[Sequence[float]]) -> float:
    """A side's typical time on the log scale: the mean of its runs' log medians."""
    return float(np.mean([math.log(float(np.median(r))) for r in runs]))


MAX_LOG = 700.0  # exp(700) ~ 1e304: finite, so every ratio stays a JSON number


def bounded_exp(log_value: float) -> float:
    """exp, held finite: samples a file may carry (1e-268 s beside 3e-4 s) give log spreads
    whose exponential overflows a float; such an interval is shown as unbounded, not raised."""
    return math.exp(max(-MAX_LOG, min(MAX_LOG, log_value)))


def ratio_interval(
    a_runs: Sequence[Sequence[float]],
    b_runs: Sequence[Sequence[float]],
    floor_log_sd: float,
    seed: int = 0,
    resamples: int = BOOTSTRAP_RESAMPLES,
    extra_log_sd: float = 0.0,
) -> RatioEstimate:
    """Ratio of B's typical time to A's, each side one or more runs' samples (seconds/call).

    A side of one run: the bootstrap of its median, plus `floor_log_sd` in quadrature (its
    bootstrap cannot see how much a fresh process would have moved its median). A side of
    several runs: the spread of its runs' log medians is that movement, seen
    (`run_spread.side_error`), and the interval is Welch's t, not the normal: three runs a
    side that happen to agree say little about the next three (a bootstrap over so few runs
    fired a 10% gate on 8% of A/A pairs of three alternated runs a side here).
    `extra_log_sd` is added once, whatever the sides (a busy machine: `busy_log_sd`; sides
    windows apart).
    """
    a = [np.asarray(r, dtype=np.float64) for r in a_runs if len(r)]
    b = [np.asarray(r, dtype=np.float64) for r in b_runs if len(r)]
    if not a or not b:
        raise ValueError("each side needs at least one run with samples")
    rng = np.random.default_rng(seed)
    point = typical_log_time(b) - typical_log_time(a)
    if len(a) == 1 and len(b) == 1 and max(a[0].size, b[0].size) <= RESAMPLED_UP_TO:
        boot = bootstrap_log_medians(b, rng, resamples) - bootstrap_log_medians(a, rng, resamples)
        se = math.sqrt(float(np.var(boot, ddof=1)) + 2 * floor_log_sd**2 + extra_log_sd**2)
        stretch = 1.0
    elif len(a) == 1 and len(b) == 1:  # each side's exact variance: no resamples held
        sides = (log_median_variance(side[0], rng, resamples) for side in (a, b))
        se = math.sqrt(sum(sides) + 2 * floor_log_sd**2 + extra_log_sd**2)
        stretch = 1.0
    else:
        (var_a, free_a), (var_b, free_b) = (
            side_error(side, floor_log_sd, rng, resamples) for side in (a, b)
        )
        se = math.sqrt(var_a + var_b + extra_log_sd**2)
        stretch = welch_stretch(((var_a, free_a), (var_b, free_b)), se)
    half = Z * se * stretch
    return RatioEstimate(
        ratio=bounded_exp(point),
        low=bounded_exp(point - half),
        high=bounded_exp(point + half),
        runs_a=len(a),
        runs_b=len(b),
        log_se=se * stretch,
    )


def verdict(estimate: RatioEstimate, margin: float = DEFAULT_MARGIN) -> Verdict:
    """`slower`/`faster` only when the interval excludes the margin around 1; `same` when it
    lies inside it; otherwise `inconclusive`."""
    upper, lower = 1 + margin, 1 / (1 + margin)
    if estimate.low > upper:
        return "slower"
    if estimate.high < lower:
        return "faster"
    if estimate.low >= lower and estimate.high <= upper:
        return "same"
    return "inconclusive"


@dataclass(frozen=True)
class PhaseTie:
    """Why a variant slower over the whole run is tied with the winner: on one side of the
    moment the machine changed speed (`round`) it was within the margin, or faster."""

    changed: str  # the variant whose samples show the change
    round: int
    before: float  # its time over the winner's before the change
    after: float


@dataclass(frozen=True)
class Winner:
    variant: str
    tied_with: tuple[str, ...]
    margin: float
    ratios: dict[str, RatioEstimate]  # every other candidate's time over the winner's
    # Tied because the machine changed speed during the run (`engine.measure.phases`): the
    # variant was within the margin of the winner, or faster, on one side of the change.
    by_phase: Mapping[str, PhaseTie] = field(default_factory=dict)
    # Why each tie is one (`tie_reason`), and the floor each side of its ratio carried.
    reasons: Mapping[str, str] = field(default_factory=dict)
    side_log_sd: Mapping[str, float] = field(default_factory=dict)


# Why a variant is tied with the winner, from the numbers: "margin" (its own samples put it
# within the margin), "samples" (its samples spread too widely to tell), "processes" (its
# samples alone set it apart, but it ran in another process, whose run-to-run spread covers
# the difference), "floor" (the same, for variants interleaved in one process: the machine's
# within-run floor covers it).
TIE_REASONS = ("margin", "samples", "processes", "floor")


def tie_reason(
    best: Sequence[float], other: Sequence[float], same_process: bool, margin: float, seed: int
) -> str:
    """Which of `TIE_REASONS` made a tie: the ratio drawn from the samples alone decides.
    `margin` (as fast) only when that whole interval lies inside the margin, both ways (an
    equivalence): a median ratio of 1.01 whose interval is 0.59–1.71 shows nothing as fast,
    its samples are too spread to tell."""
    alone = ratio_interval([best], [other], 0.0, seed)
    if alone.low > 1 + margin:
        return "floor" if same_process else "processes"
    if 1 / (1 + margin) <= alone.low and alone.high <= 1 + margin:
        return "margin"
    return "samples"


def winner_and_ties(
    candidates: dict[str, Sequence[float]],
    floor: NoiseFloor,
    margin: float = DEFAULT_MARGIN,
    seed: int = 0,
    processes: Mapping[str, str] | None = None,
) -> Winner | None:
    """The fastest candidate by median and every candidate not distinguishable from it.

    Candidates are variants of one run (samples in seconds per call). Another variant is tied
    when the interval of its time over the winner's reaches down into the margin: the data do
    not show it slower by more than `margin`. The floor is the variation of such a ratio
    between runs, which one run cannot see. Variants measured in different processes
    (`processes`: variant -> process, e.g. a JAX peer) were not interleaved with each other:
    each side then carries the between-process floor, not the within-run one.
    """
    timed = {name: s for name, s in candidates.items() if len(s)}
    if not timed:
        return None
    best = min(timed, key=lambda name: float(np.median(timed[name])))
    where = processes or {}

    def side_floor(name: str) -> float:
        return floor.side_log_sd(where.get(name, "") == where.get(best, ""))

    ratios = {
        name: ratio_interval([timed[best]], [samples], side_floor(name), seed)
        for name, samples in timed.items()
        if name != best
    }
    tied = tuple(name for name, r in ratios.items() if r.low <= 1 + margin)
    same = {name: where.get(name, "") == where.get(best, "") for name in tied}
    reasons = {
        name: tie_reason(timed[best], timed[name], same[name], margin, seed) for name in tied
    }
    sides = {name: side_floor(name) for name in tied}
    return Winner(best, tied, margin, ratios, reasons=reasons, side_log_sd=sides)
