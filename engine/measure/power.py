"""What a comparison can see: the smallest slowdown it calls `slower` with `POWER`, and the
runs per side that would see a given one (the advice `compare --fail-if-slower` prints)."""

from __future__ import annotations

import math
from statistics import NormalDist

from engine.measure.run_spread import Z, t_stretch
from engine.measure.uncertainty import DEFAULT_MARGIN, bounded_exp

# A comparison "can detect" a slowdown it would call `slower` this often. The A/B-testing
# literature sizes experiments for 80%; a CI gate that lets one regression in five through
# is not one to trust a "no regression" from, so the tool's advice is sized for 95%.
POWER = 0.95
Z_POWER = NormalDist().inv_cdf(POWER)


def detectable_ratio(log_se: float, margin: float = DEFAULT_MARGIN) -> float:
    """The smallest slowdown a comparison with this spread calls `slower` with `POWER`: its
    interval must clear the margin, so the ratio must be (Z + Z_POWER) errors beyond it."""
    return (1 + margin) * bounded_exp((Z + Z_POWER) * log_se)


def runs_to_detect(
    log_se: float,
    runs: int,
    ratio: float,
    margin: float = DEFAULT_MARGIN,
    fixed_log_sd: float = 0.0,
) -> int | None:
    """How many runs per side would detect `ratio` with `POWER`, the error `log_se` shrinking
    as one over the square root of the runs and `fixed_log_sd` (an allowance no number of runs
    narrows: a busy machine's) not at all; None when `ratio` is inside the margin or the
    fixed part alone hides it (never called slower, however many runs). Sides of several runs
    are judged with Welch's t (`ratio_interval`), so the count is the fewest whose error,
    stretched by Student's quantile at their degrees of freedom, fits."""
    gap = math.log(ratio) - math.log(1 + margin)
    room = (gap / (Z + Z_POWER)) ** 2 - fixed_log_sd**2 if gap > 0 else 0.0
    if room <= 0:
        return None
    normal = max(runs, math.ceil(runs * log_se**2 / room))
    if normal == runs:
        return runs  # already enough: no more runs, no new degrees of freedom
    for count in range(max(2, normal), 100 * normal + 2):
        if (log_se * t_stretch(2 * (count - 1))) ** 2 * runs / count <= room:
            return count
    return None
