"""When to stop sampling a variant: precise enough, eliminated by a race, or out of samples.

Adaptive sampling (docs/statistics.md, "Adaptive sampling and racing"):

- a variant is **precise** once it has at least `min_samples` samples and the 95% interval of
  its median (`uncertainty.median_ci`) is within ±`precision` of the median;
- after every round, each correct variant still sampling is compared with the current best
  (the correct variant with the lowest median), from its 3rd sample if it is already shown
  more than `CLEARLY_SLOWER` times slower, else from its `min_samples`-th; it is
  **eliminated** when its time over the best's is, at the adjusted level below, above
  1 + margin (the margin that decides ties), and the rule that names the winner's ties
  separates it too, so an eliminated variant is never listed as tied with the winner;
- a variant is eliminated after a single sample when that sample is more than
  `GROSSLY_SLOWER` times every sample of the best: no slow phase of a shared machine seen here
  moved a time by more than 2×, and an eager loop at 300× the best's time would otherwise
  cost two more of its seconds-long calls;
- a variant still sampling is **tied** (stopped, decided) once sampling on to `max_samples`
  would not separate it from the best: with at least `min_samples` on both sides, the
  furthest its ratio can plausibly move with the samples still to come stays within what the
  verdict at `max_samples` ties (`RacePlan.cannot_separate`: futility by prediction; the
  machine's between-run floor, not the samples, decides such a pair, and that is what the tie
  says);
- a variant still sampling is **eliminated by a best measured elsewhere** (a peer process
  of this run, its samples final) once the verdict at `max_samples` would separate the two
  whatever its remaining samples show (`RacePlan.lowest_reach`): between processes each side
  carries the floor between runs, which more samples do not shrink, so a variant 1.5× a
  peer's best is decided after `min_samples`, not sampled to the end against its own
  process's best;
- the run ends when every variant has stopped (precise, eliminated, tied, out of budget, or
  at `max_samples`, the config's `repeats`).

Repeated looks: each round is a look, and each look compares every candidate with the best.
The one-sided level of each comparison is `alpha / (looks · comparisons)` (Bonferroni over the
planned looks and the comparisons), so over the whole run the chance of eliminating any
variant that is truly within the margin stays below `alpha`. The standard error of a log ratio
combines each side's median standard error (from the spread of its log samples) with the
within-run ratio noise floor that one run cannot see (`NoiseFloor.ratio_log_sd`), as ties do.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np

from engine.measure.uncertainty import (
    DEFAULT_BETWEEN_RUN_LOG_SD,
    DEFAULT_MARGIN,
    DEFAULT_RATIO_LOG_SD,
    NoiseFloor,
    Z,
    busy_log_sd,
    median_ci,
    winner_and_ties,
)
from engine.run_settings.config import DEFAULT_PRECISION

# `interrupted`: the run was stopped (SIGINT) while the variant was still being sampled; it
# keeps the samples it had.
StopReason = Literal["precise", "eliminated", "tied", "budget", "max_samples", "interrupted"]
STOP_REASONS: tuple[str, ...] = (
    "precise",
    "eliminated",
    "tied",
    "budget",
    "max_samples",
    "interrupted",
)
MIN_SAMPLES = 6  # the fewest for which the median's order-statistic interval reaches 95%
RACE_AFTER = 3  # samples each side has before it can be eliminated
# A variant not yet shown at least this much slower needs `min_samples` before it can go: a
# shared host can halve a two-thread kernel's speed for seconds (docs/timing.md, "Figures
# behind the code": three samples all in one slow phase eliminated a winner), so three samples
# can all fall in one slow phase.
CLEARLY_SLOWER = 2.5
# One sample this many times every sample of the best is eliminated at once (see above).
GROSSLY_SLOWER = 10.0
# A variant the history shows at least this much slower than its runs' best is confirmed by
# one sample this much over every sample of the best (`confirmed_slower`).
CONFIRMED_SLOWER = CLEARLY_SLOWER
RACE_ALPHA = 0.05
MAD_TO_SD = 1.4826  # a normal's standard deviation from its median absolute deviation


def log_median_se(samples: Sequence[float]) -> float:
    """Standard error of log(median): a spread of the log samples times the median's
    efficiency factor sqrt(pi / 2n). The spread is the larger of the robust one (MAD) and the
    standard deviation: with three samples the MAD is the smaller of two deviations, so one
    sample of a shared machine's 2× slow mode would be ignored and a tie eliminated; the
    standard deviation sees it (a truly slow variant is still eliminated)."""
    logs = np.log(np.asarray(samples, dtype=np.float64))
    if logs.size < 2:
        return 0.0
    robust = MAD_TO_SD * float(np.median(np.abs(logs - np.median(logs))))
    spread = max(robust, float(np.std(logs, ddof=1)))
    return spread * math.sqrt(math.pi / (2 * logs.size))


def log_ratio(best_samples: Sequence[float], samples: Sequence[float]) -> tuple[float, float]:
    """log(median / best's median) and its standard error from the samples alone."""
    point = math.log(float(np.median(samples))) - math.log(float(np.median(best_samples)))
    return point, math.hypot(log_median_se(samples), log_median_se(best_samples))


def relative_half_width(samples: Sequence[float]) -> float:
    """Half the width of the median's 95% interval, over the median."""
    low, high = median_ci(samples)
    middle = float(np.median(samples))
    return (high - low) / 2 / middle if middle > 0 else math.inf


@dataclass(frozen=True)
class RatioBound:
    """A candidate's median over the best's, and the lower bound at the race's level."""

    best: str
    ratio: float
    low: float


@dataclass(frozen=True)
class RacePlan:
    """How a run samples: `adaptive` stops on precision and races; `fixed` takes
    `max_samples` of every variant (what multi-worker runs need)."""

    adaptive: bool = True
    max_samples: int = 20
    precision: float = DEFAULT_PRECISION
    min_samples: int = MIN_SAMPLES
    race_after: int = RACE_AFTER
    margin: float = DEFAULT_MARGIN
    alpha: float = RACE_ALPHA
    floor_log_sd: float = DEFAULT_RATIO_LOG_SD
    # One side's floor when the two were measured in different processes (each carries it).
    between_log_sd: float = DEFAULT_BETWEEN_RUN_LOG_SD

    @property
    def looks(self) -> int:
        """Rounds at which an elimination can happen: from `race_after` to `max_samples`."""
        return max(1, self.max_samples - self.race_after + 1)

    def z(self, comparisons: int) -> float:
        """The one-sided critical value of each comparison at each look."""
        return -NormalDist().inv_cdf(self.alpha / (self.looks * max(1, comparisons)))

    def is_precise(self, samples: Sequence[float]) -> bool:
        return (
            self.adaptive
            and len(samples) >= self.min_samples
            and relative_half_width(samples) <= self.precision
        )

    def ratio_bound(
        self, best: str, best_samples: Sequence[float], samples: Sequence[float], z: float
    ) -> RatioBound:
        point, sampled_se = log_ratio(best_samples, samples)
        se = math.hypot(sampled_se, self.floor_log_sd)
        return RatioBound(best, math.exp(point), math.exp(point - z * se))

    def under_load(self, other_cpu_fraction: float) -> RacePlan:
        """This plan with its floor widened for a machine this busy so far (as ties are)."""
        extra = busy_log_sd(other_cpu_fraction)
        if extra == 0.0:
            return self
        return dataclasses.replace(
            self,
            floor_log_sd=math.hypot(self.floor_log_sd, extra),
            between_log_sd=math.hypot(self.between_log_sd, extra),
        )

    def eliminates(self, bound: RatioBound) -> bool:
        return self.adaptive and bound.low > 1 + self.margin

    def cannot_separate(self, best_samples: Sequence[float], samples: Sequence[float]) -> bool:
        """Whether the verdict at `max_samples` would still tie the pair, as far as its samples
        so far can tell (futility by prediction, a stochastic curtailment): by then the log
        ratio will plausibly have moved from its value now by no more than `Z` standard errors
        of what the remaining samples add (sqrt(se_now² - se_end²), se shrinking as
        1/sqrt(n)), and the verdict separates only a ratio above 1 + margin by its 95% reach
        (`Z` times the samples' error then, with the floor). A ratio that cannot get there is
        tied whatever the rest of the samples show, so they are not taken."""
        taken = min(len(samples), len(best_samples))
        point, sampled_se = log_ratio(best_samples, samples)
        end_se = sampled_se * math.sqrt(taken / max(taken, self.max_samples))
        reach = point + Z * math.sqrt(max(0.0, sampled_se**2 - end_se**2))
        return reach <= math.log(1 + self.margin) + Z * math.hypot(end_se, self.floor_log_sd)

    def lowest_reach(self, final_best: Sequence[float], samples: Sequence[float]) -> float:
        """The lowest log ratio over a best measured in another process (its samples final)
        that the verdict at `max_samples` could plausibly give the pair: the log ratio now,
        less `Z` standard errors of what this side's remaining samples add, less the verdict's
        own 95% reach then (both sides' sampled errors and each side's floor between
        processes). The mirror of `cannot_separate`: above log(1 + margin), no samples still
        to come here could tie the pair, because the floor between processes, which samples
        do not shrink, decides most of it."""
        taken = len(samples)
        point = math.log(float(np.median(samples))) - math.log(float(np.median(final_best)))
        here_se, there_se = log_median_se(samples), log_median_se(final_best)
        here_end = here_se * math.sqrt(taken / max(taken, self.max_samples))
        moves = math.sqrt(max(0.0, here_se**2 - here_end**2))
        floor = math.sqrt(2) * self.between_log_sd
        return point - Z * moves - Z * math.sqrt(here_end**2 + there_se**2 + floor**2)


def race(
    candidates: dict[str, Sequence[float]], running: set[str], plan: RacePlan
) -> dict[str, RatioBound]:
    """The running candidates to eliminate now, each with its bound over the best.

    `candidates`: every correct variant with samples, running or stopped (a precise variant
    stays a reference); only those in `running` with at least `race_after` samples can go.
    """
    if not plan.adaptive:
        return {}
    found = grossly_slower(candidates, running)
    ready = {name: s for name, s in candidates.items() if len(s) >= plan.race_after}
    if len(ready) < 2:
        return found
    best = min(ready, key=lambda name: float(np.median(ready[name])))
    z = plan.z(len(ready) - 1)
    for name, samples in ready.items():
        if name == best or name not in running or name in found:
            continue
        bound = plan.ratio_bound(best, ready[best], samples, z)
        if bound.low <= CLEARLY_SLOWER and len(samples) < plan.min_samples:
            continue
        if plan.eliminates(bound) and not tied_by_the_winner_rule(ready[best], samples, plan):
            found[name] = bound
    return found


def grossly_slower(
    candidates: dict[str, Sequence[float]],
    running: set[str],
    factor: float = GROSSLY_SLOWER,
    among: Collection[str] | None = None,
) -> dict[str, RatioBound]:
    """The running candidates (of `among`, when given) whose every sample is over `factor`
    times every sample of the best (the lowest median among those with a sample): gone after
    one sample. `GROSSLY_SLOWER` for any variant; `CONFIRMED_SLOWER` for one the history
    shows that much slower (`confirmed_slower`)."""
    sampled = {name: s for name, s in candidates.items() if len(s)}
    if len(sampled) < 2:
        return {}
    best = min(sampled, key=lambda name: float(np.median(sampled[name])))
    ceiling = max(sampled[best])
    return {
        name: RatioBound(
            best,
            float(np.median(samples)) / float(np.median(sampled[best])),
            min(samples) / ceiling,
        )
        for name, samples in sampled.items()
        if name != best
        and name in running
        and (among is None or name in among)
        and min(samples) > factor * ceiling
    }


def confirmed_slower(
    candidates: dict[str, Sequence[float]], running: set[str], confirming: Collection[str]
) -> dict[str, RatioBound]:
    """The confirming variants (the history showed each at least `CONFIRMED_SLOWER` times its
    run's best) whose one sample is again more than that over every sample of this run's
    best: two readings agree, so it goes without a full turn. The factor is above the 2× no
    slow phase of a shared machine was seen to exceed, so the slow phase alone cannot
    confirm one."""
    return grossly_slower(candidates, running, CONFIRMED_SLOWER, confirming)


def settled_ties(
    candidates: dict[str, Sequence[float]], running: set[str], plan: RacePlan
) -> dict[str, str]:
    """The running candidates that sampling on to `max_samples` would not separate from the
    best, each with the best's name: tied, decided. The best keeps sampling while any other
    does."""
    if not plan.adaptive:
        return {}
    ready = {name: s for name, s in candidates.items() if len(s) >= plan.min_samples}
    if len(ready) < 2:
        return {}
    best = min(ready, key=lambda name: float(np.median(ready[name])))
    return {
        name: best
        for name, samples in ready.items()
        if name != best and name in running and plan.cannot_separate(ready[best], samples)
    }


def separated_from_elsewhere(
    candidates: dict[str, Sequence[float]],
    running: set[str],
    elsewhere: Mapping[str, Sequence[float]],
    plan: RacePlan,
) -> dict[str, RatioBound]:
    """The running candidates that the verdict at `max_samples` would separate from the best
    measured in another process of this run whatever their remaining samples show
    (`RacePlan.lowest_reach`), each with its bound: such a variant is neither the answer
    nor tied with it (the winner is at most that best's time), so it is eliminated. Both
    sides need `min_samples` first, as a tie does."""
    if not plan.adaptive:
        return {}
    final = {name: s for name, s in elsewhere.items() if len(s) >= plan.min_samples}
    if not final:
        return {}
    best = min(final, key=lambda name: float(np.median(final[name])))
    found = {}
    for name, samples in candidates.items():
        if name not in running or len(samples) < plan.min_samples:
            continue
        low = plan.lowest_reach(final[best], samples)
        if low > math.log(1 + plan.margin) and not tied_across(final[best], samples, plan):
            ratio = float(np.median(samples)) / float(np.median(final[best]))
            found[name] = RatioBound(best, ratio, math.exp(low))
    return found


def tied_across(final_best: Sequence[float], samples: Sequence[float], plan: RacePlan) -> bool:
    """Whether the verdict's rule, on the samples so far, ties a variant with a best measured
    in another process (each side with the floor between processes)."""
    floor = NoiseFloor(between_run_log_sd=plan.between_log_sd, ratio_log_sd=plan.floor_log_sd)
    found = winner_and_ties(
        {"best": final_best, "other": samples},
        floor,
        plan.margin,
        processes={"best": "elsewhere", "other": "here"},
    )
    return found is not None and (found.variant == "other" or "other" in found.tied_with)


def tied_by_the_winner_rule(
    best_samples: Sequence[float], samples: Sequence[float], plan: RacePlan
) -> bool:
    """Whether the rule that names the winner's ties (`uncertainty.winner_and_ties`) would
    call it tied now, with the race's floor. The race eliminates only what that rule also
    separates, so an eliminated variant is never listed among the winner's ties (seen before
    this check: `einsum` eliminated after three samples by the race's own interval, then tied
    by the final one)."""
    floor = NoiseFloor(ratio_log_sd=plan.floor_log_sd)
    found = winner_and_ties({"best": best_samples, "other": samples}, floor, plan.margin)
    return found is not None and (found.variant == "other" or "other" in found.tied_with)
