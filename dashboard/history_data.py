"""Comparison and sweep frames formatted for tables and reports. No Streamlit here."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from engine import scaling
from engine.formatting import format_number, format_seconds
from engine.results import RunResult


def comparison_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Side by side: one row per strategy, one median column per run, ratios and verdicts."""
    rows = []
    for variant, group in frame.groupby("variant", sort=False):
        row: dict[str, str] = {"strategy": variant}
        for _, item in group.iterrows():
            cell = format_seconds(item["median_s"])
            if not item["baseline"] and item["ratio_to_baseline"] == item["ratio_to_baseline"]:
                p = "" if item["p_value"] is None else f", p={item['p_value']:.2g}"
                noisy = ", noisy" if item["noisy"] else ""
                cell += f" ({item['ratio_to_baseline']:.2f}x, {item['verdict']}{p}{noisy})"
            if item["status"] not in ("ok", "absent") or (
                item["status"] == "ok" and not item["correct"]
            ):
                cell += f" [{item['status'] if item['status'] != 'ok' else 'WRONG'}]"
            row[str(item["run"])] = cell
        rows.append(row)
    return pd.DataFrame(rows)


def sweep_tables(runs: Sequence[RunResult]) -> dict[str, pd.DataFrame]:
    points = scaling.sweep_frame(runs)
    cells = scaling.crossover(points)
    fits = scaling.fit_costs(points)
    fits_view = pd.DataFrame(
        {
            "strategy": fits.get("variant", pd.Series(dtype=str)),
            "fixed overhead": [format_seconds(v) for v in fits.get("overhead_s", [])],
            "asymptotic GB/s": [
                format_number(v, ".1f") for v in fits.get("asymptotic_gbytes_per_s", [])
            ],
            "r²": [format_number(v, ".3f") for v in fits.get("r2", [])],
            "points": fits.get("points", pd.Series(dtype=int)),
        }
    )
    cells_view = cells.assign(
        winner_median=[format_seconds(v) for v in cells.get("winner_median_s", [])],
        margin=[format_number(v, ".2f") for v in cells.get("margin", [])],
    ).drop(columns=["winner_median_s"], errors="ignore")
    return {
        "points": points,
        "cells": cells,
        "fits": fits,
        "fits_view": fits_view,
        "cells_view": cells_view,
    }
