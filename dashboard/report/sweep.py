"""The self-contained HTML report of a sweep's stored points."""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.figures import ceilings as ceiling_figures
from dashboard.figures import sweep as sweep_figures
from dashboard.report.html import escape, figure_html, frame_table, page
from dashboard.tables.sweep import sweep_tables
from engine.results.run_result import RunResult


def sweep_report(runs: Sequence[RunResult], label: str) -> str:
    """Scaling views, crossover map and cost fit of a sweep's stored points."""
    tables = sweep_tables(runs)
    points = tables["points"]
    peak = max((r.peak_bytes_per_s or 0) for r in runs) / 1e9 if runs else None
    figures = [
        sweep_figures.scaling(points, "matrices", "median_s", peak),
        sweep_figures.scaling(points, "matrices", "gbytes_per_s", peak),
        sweep_figures.scaling(points, "cols", "median_s", peak),
        sweep_figures.scaling(points, "cols", "gbytes_per_s", peak),
        sweep_figures.crossover_map(tables["cells"]),
        ceiling_figures.sweep_staircase(points, tables["levels"]),
        sweep_figures.cost_fit(points, tables["fits"]),
    ]
    spills = ceiling_figures.spill_lines(points, tables["levels"])
    sections = [
        f"<h1>Batched MatVec sweep: {escape(label or 'untitled')}</h1>",
        f"<p class='muted'>{len(runs)} points</p>",
        "<h2>Crossover</h2>",
        frame_table(tables["cells_view"]),
        "<h2>Fixed overhead and per-byte cost</h2>",
        frame_table(tables["fits_view"]),
        "<h2>Across the cache levels</h2>",
        *(f"<p>{escape(line)}</p>" for line in spills),
        "<h2>Charts</h2>",
        *(figure_html(f) for f in figures),
    ]
    return page(f"Batched MatVec sweep: {label}", sections)
