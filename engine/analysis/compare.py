"""Compare runs (two machines, two settings): ratios of medians with a significance test.

The test is Mann-Whitney U on the raw samples (no normality assumed: timing distributions are
skewed); a ratio is called a difference only when the test says so, and a noise flag warns
when either side's spread alone could explain it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
from scipy.stats import mannwhitneyu

from engine.measure.stats import NOISE_IQR_FRACTION, Measurement
from engine.results.model import RunResult

SIGNIFICANCE = 0.05
MIN_SAMPLES = 3


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Two-sided p-value that the two sample sets come from one distribution (None: too few)."""
    if len(a) < MIN_SAMPLES or len(b) < MIN_SAMPLES:
        return None
    return float(mannwhitneyu(a, b, alternative="two-sided").pvalue)


def _noisy(m: Measurement) -> bool:
    return m.median_s > 0 and m.iqr_s / m.median_s > NOISE_IQR_FRACTION


def verdict(ratio: float | None, p_value: float | None) -> str:
    if ratio is None:
        return "no timing"
    if p_value is None:
        return "too few samples"
    if p_value >= SIGNIFICANCE:
        return "no significant difference"
    return "faster" if ratio < 1 else "slower"


def run_label(run: RunResult) -> str:
    env = run.environment
    label = run.config.label or env.hostname or run.run_id[:8]
    return f"{label} ({env.device_kind}, {run.run_id[:6]})"


def compare_runs(runs: Sequence[RunResult], baseline: int = 0) -> pd.DataFrame:
    """One row per (variant, run): median, ratio to the baseline run, p-value, verdict."""
    base = runs[baseline]
    base_by_variant = {r.variant: r for r in base.results}
    variants = list(dict.fromkeys(r.variant for run in runs for r in run.results))
    rows: list[dict[str, Any]] = []
    for variant in variants:
        reference = base_by_variant.get(variant)
        ref_m = reference.measurement if reference else None
        for index, run in enumerate(runs):
            entry = next((r for r in run.results if r.variant == variant), None)
            m = entry.measurement if entry else None
            ratio = p_value = None
            if m and ref_m and index != baseline:
                ratio = m.median_s / ref_m.median_s
                p_value = mann_whitney_p(m.samples_s, ref_m.samples_s)
            rows.append(
                {
                    "variant": variant,
                    "run": run_label(run),
                    "run_id": run.run_id,
                    "baseline": index == baseline,
                    "status": entry.status if entry else "absent",
                    "correct": bool(entry and entry.correct),
                    "median_s": m.median_s if m else None,
                    "iqr_s": m.iqr_s if m else None,
                    "samples": len(m.samples_s) if m else 0,
                    "ratio_to_baseline": ratio,
                    "p_value": p_value,
                    "verdict": "baseline" if index == baseline else verdict(ratio, p_value),
                    "noisy": bool((m and _noisy(m)) or (ref_m and _noisy(ref_m))),
                }
            )
    return pd.DataFrame(rows)


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
