"""A sweep's points, crossover cells and cost fits, as frames for tables and charts."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from engine.analysis import scaling
from engine.results.formatting import format_number, format_seconds
from engine.results.model import RunResult


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
