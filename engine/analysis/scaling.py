"""Sweep analysis: tidy points, the crossover map, and a fixed-cost + per-byte fit.

Fitting `time = overhead + bytes × cost` per strategy separates what a strategy pays once per
call (Python dispatch, kernel launch, graph overhead) from what it pays per byte moved: the two
numbers that decide where one strategy overtakes another.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from engine.results.run_result import RunResult

FIT_COLUMNS = (
    "variant",
    "overhead_s",
    "seconds_per_byte",
    "asymptotic_gbytes_per_s",
    "r2",
    "points",
)
POINT_COLUMNS = (
    "run_id",
    "matrices",
    "dim",
    "cols",
    "dtype",
    "mode",
    "variant",
    "median_s",
    "gbytes_per_s",
    "bytes",
    "flops",
    "work",
    "correct",
    "peak_gbytes_per_s",
    "working_set_bytes",
    "ceiling_level",
    "ceiling_fraction",
)
CELL_COLUMNS = (
    "mode",
    "dtype",
    "matrices",
    "cols",
    "winner",
    "tied_with",
    "winner_median_s",
    "runner_up",
    "margin",
)


def sweep_frame(runs: Sequence[RunResult]) -> pd.DataFrame:
    """One row per (point, variant) that produced a timing."""
    rows = []
    for run in runs:
        config = run.config
        for entry in run.results:
            derived = entry.derived(run.peak_bytes_per_s, run.ceiling_of(entry))
            if derived["median_s"] is None:
                continue
            rows.append(
                {
                    "run_id": run.run_id,
                    "matrices": config.matrices,
                    "dim": config.dim,
                    "cols": config.columns,
                    "dtype": config.dtype,
                    "mode": config.mode,
                    "variant": entry.variant,
                    "median_s": derived["median_s"],
                    "gbytes_per_s": derived["gbytes_per_s"],
                    "bytes": entry.bytes,
                    "flops": entry.flops,
                    "work": config.matrices * config.dim * config.columns,
                    "correct": entry.correct,
                    "peak_gbytes_per_s": (run.peak_bytes_per_s or 0) / 1e9 or None,
                    "working_set_bytes": run.working_set_of(entry),
                    "ceiling_level": derived["ceiling_level"],
                    "ceiling_fraction": derived["ceiling_fraction"],
                }
            )
    return pd.DataFrame(rows, columns=list(POINT_COLUMNS))


def crossover(runs: Sequence[RunResult]) -> pd.DataFrame:
    """For each (mode, dtype, B, n) cell: its run's own verdict, read from the run's winner
    record (the one the Run page, the report and the JSON give): the fastest, or a tie and
    with whom (`tied_with`, empty for a clear winner), and the nearest other variant with its
    time over the winner's. Never a second idea of "fastest" such as the lowest median, which
    names a winner in a cell its run calls a tie. A cell several runs measured (an axis not
    drawn here: cache, xla) takes the run whose winner's median is lowest."""
    best: dict[tuple[Any, ...], dict[str, Any]] = {}
    for run in runs:
        record = run.winner_dict()
        if record is None:
            continue
        config = run.config
        entry = next(r for r in run.results if r.variant == record["variant"])
        ratios = record.get("ratios") or {}
        nearest = min(ratios, key=lambda name: ratios[name]["ratio"]) if ratios else None
        row = {
            "mode": config.mode,
            "dtype": config.dtype,
            "matrices": config.matrices,
            "cols": config.columns,
            "winner": record["variant"],
            "tied_with": tuple(record["tied_with"]),
            "winner_median_s": entry.median_s,
            "runner_up": nearest,
            "margin": ratios[nearest]["ratio"] if nearest else None,
        }
        key = (config.mode, config.dtype, config.matrices, config.columns)
        if key not in best or row["winner_median_s"] < best[key]["winner_median_s"]:
            best[key] = row
    rows = [best[key] for key in sorted(best)]
    return pd.DataFrame(rows, columns=list(CELL_COLUMNS))


def cell_words(cell: Any) -> str:
    """A cell's verdict in words, the same on the page, the report, the CLI and the JSON."""
    tied = tuple(cell["tied_with"] or ())
    if tied:
        return f"tie: {', '.join((cell['winner'], *tied))}"
    return f"fastest: {cell['winner']}"


def fit_costs(frame: pd.DataFrame) -> pd.DataFrame:
    """Per variant: relative least squares `median_s = overhead_s + bytes * seconds_per_byte`."""
    rows = []
    if frame.empty:
        return pd.DataFrame(rows, columns=list(FIT_COLUMNS))
    for variant, group in frame.groupby("variant", sort=False):
        if group["bytes"].nunique() < 2:  # one point: nothing to fit
            continue
        x = group["bytes"].to_numpy(dtype=float)
        y = group["median_s"].to_numpy(dtype=float)
        design = np.column_stack([np.ones_like(x), x])
        # Relative (1/y-weighted) least squares: points span decades, and a plain fit would
        # let the largest points swamp the fixed overhead that the small ones reveal.
        weights = 1.0 / y
        (overhead, per_byte), *_ = np.linalg.lstsq(
            design * weights[:, None], y * weights, rcond=None
        )
        predicted = design @ np.array([overhead, per_byte])
        total = float(np.sum((y - y.mean()) ** 2))
        r2 = 1 - float(np.sum((y - predicted) ** 2)) / total if total > 0 else None
        rows.append(
            {
                "variant": variant,
                "overhead_s": float(overhead),
                "seconds_per_byte": float(per_byte),
                "asymptotic_gbytes_per_s": 1 / per_byte / 1e9 if per_byte > 0 else None,
                "r2": r2,
                "points": len(group),
            }
        )
    return pd.DataFrame(rows, columns=list(FIT_COLUMNS))
