"""A sweep's points, crossover cells and cost fits, as frames for tables and charts."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from engine.analysis import scaling
from engine.results import frames
from engine.results.formatting import format_number, format_seconds, times
from engine.results.run_result import RunResult


def fit_note(asymptote: float | None, peak_gbytes_per_s: float) -> str:
    """A fit whose asymptote is above the measured ceiling is an extrapolation, said so."""
    if asymptote is None or asymptote != asymptote or not peak_gbytes_per_s:
        return ""
    if asymptote > peak_gbytes_per_s:
        return (
            f"above the measured {peak_gbytes_per_s:.1f} GB/s peak: an extrapolation beyond the "
            "sizes measured (the small points sit in cache), not a reachable rate"
        )
    return ""


def sweep_tables(runs: Sequence[RunResult]) -> dict[str, pd.DataFrame]:
    points = scaling.sweep_frame(runs)
    cells = scaling.crossover(runs)
    fits = scaling.fit_costs(points)
    peak = max((r.peak_bytes_per_s or 0.0) for r in runs) / 1e9 if runs else 0.0
    fits_view = pd.DataFrame(
        {
            "strategy": fits.get("variant", pd.Series(dtype=str)),
            "fixed overhead": [format_seconds(v) for v in fits.get("overhead_s", [])],
            "asymptotic GB/s": [
                format_number(v, ".1f") for v in fits.get("asymptotic_gbytes_per_s", [])
            ],
            "r²": [format_number(v, ".3f") for v in fits.get("r2", [])],
            "points": fits.get("points", pd.Series(dtype=int)),
            "note": [fit_note(v, peak) for v in fits.get("asymptotic_gbytes_per_s", pd.Series())],
        }
    )
    cells_view = (
        cells.assign(
            verdict=[scaling.cell_words(cell) for _, cell in cells.iterrows()],
            winner_median=[format_seconds(v) for v in cells.get("winner_median_s", [])],
            margin=[
                "-" if v is None or v != v else f"{times(v)}x"
                for v in cells.get("margin", pd.Series(dtype=float))
            ],
        )
        .drop(columns=["winner_median_s", "tied_with"], errors="ignore")
        .rename(
            columns={
                "runner_up": "runner-up",
                "margin": "runner-up takes",
                "winner_median": "winner's median",
                "matrices": "B",
                "cols": "n",
            }
        )
    )
    return {
        "points": points,
        "cells": cells,
        "fits": fits,
        "fits_view": fits_view,
        "cells_view": cells_view,
        "levels": sweep_levels(runs),
    }


def sweep_levels(runs: Sequence[RunResult]) -> pd.DataFrame:
    """The ceilings the sweep's points were placed against: its points share the first
    point's probes, so the run with the most levels holds them (memory only for old files)."""
    if not runs:
        return levels_frame_of(None)
    return levels_frame_of(max(runs, key=lambda run: len(run.peak.levels)))


def levels_frame_of(run: RunResult | None) -> pd.DataFrame:
    if run is None:
        return pd.DataFrame(columns=["level", "bytes", "gbytes_per_s"])
    return frames.levels_frame(run)
