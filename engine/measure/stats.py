"""Statistics derived from raw timing samples.

Modelled on torch.utils.benchmark's Measurement: the samples are the truth and every statistic
is a view computed from them on demand, so nothing is stored twice and nothing can disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# IQR/median above this means the machine was busy or the clock too coarse for the block.
NOISE_IQR_FRACTION = 0.10


@dataclass(frozen=True)
class Measurement:
    """Seconds per call, one entry per timed block of `calls_per_sample` calls."""

    samples_s: tuple[float, ...]
    calls_per_sample: int

    def __post_init__(self) -> None:
        if not self.samples_s:
            raise ValueError("a Measurement needs at least one sample")
        if self.calls_per_sample < 1:
            raise ValueError("calls_per_sample must be >= 1")

    @property
    def _array(self) -> np.ndarray:
        return np.asarray(self.samples_s, dtype=np.float64)

    @property
    def median_s(self) -> float:
        return float(np.median(self._array))

    @property
    def mean_s(self) -> float:
        return float(np.mean(self._array))

    @property
    def min_s(self) -> float:
        return float(np.min(self._array))

    @property
    def p5_s(self) -> float:
        return float(np.percentile(self._array, 5))

    @property
    def p95_s(self) -> float:
        return float(np.percentile(self._array, 95))

    @property
    def iqr_s(self) -> float:
        q1, q3 = np.percentile(self._array, [25, 75])
        return float(q3 - q1)

    @property
    def std_s(self) -> float:
        """Sample standard deviation (ddof=1); 0 for a single sample."""
        if len(self.samples_s) < 2:
            return 0.0
        return float(np.std(self._array, ddof=1))

    @property
    def noise_warning(self) -> str | None:
        if len(self.samples_s) < 4:
            return f"only {len(self.samples_s)} sample(s): spread cannot be judged"
        ratio = self.iqr_s / self.median_s if self.median_s > 0 else 0.0
        if ratio > NOISE_IQR_FRACTION:
            return (
                f"IQR is {ratio:.0%} of the median: significant environmental influence "
                "(other load on the machine, frequency scaling)"
            )
        return None

    def summary(self) -> dict[str, float]:
        return {
            "median_s": self.median_s,
            "mean_s": self.mean_s,
            "min_s": self.min_s,
            "p5_s": self.p5_s,
            "p95_s": self.p95_s,
            "iqr_s": self.iqr_s,
            "std_s": self.std_s,
        }
