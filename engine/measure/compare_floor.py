"""The floor runs of separate processes are compared with: a measured default where nothing
better is known, and a spread read from a few runs taken at its upper bound.

A run's own verdicts compare variants measured side by side (`uncertainty.NoiseFloor`'s
defaults); a comparison of runs compares two processes, whose medians move much more. See
docs/statistics.md, "Runs compared with nothing known about their spread"."""

from __future__ import annotations

import math

from engine.measure.uncertainty import CONFIDENCE, NoiseFloor

# Runs compared across processes (`compare`, the Compare page) with neither a calibration nor a
# history of the measurement: how far one fresh process's median moves on a noisy shared host,
# chosen so a 10% gate fires on few A/A pairs there (`benchmarks/aa_gate.py`; the figures in
# docs/timing.md, "Figures behind the code"). A history of the measurement replaces it with
# the variants' own spreads (`observed_floor`, at their 95% upper bound).
DEFAULT_COMPARE_LOG_SD = 0.35
COMPARE_DEFAULT_SOURCE = (
    "default for runs of separate processes, measured on a noisy shared host (keep a history "
    "of this measurement, or run `python -m engine calibrate`, for this machine's own)"
)


def compare_default() -> NoiseFloor:
    """The floor runs of separate processes are compared with, where nothing better is known."""
    return NoiseFloor(between_run_log_sd=DEFAULT_COMPARE_LOG_SD, source=COMPARE_DEFAULT_SOURCE)


def upper_log_sd(log_sd: float, runs: int) -> float:
    """The one-sided 95% upper bound of a spread estimated from `runs` runs (chi-square on
    runs - 1 degrees of freedom): three runs that happened to agree do not make a host quiet
    (4.4x their spread; 20 runs, 1.37x)."""
    from scipy.stats import chi2

    freedom = max(1, runs - 1)
    return log_sd * math.sqrt(freedom / float(chi2.ppf(1 - CONFIDENCE, freedom)))
