"""The self-contained HTML report of a comparison between runs."""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.figures.compare import compare_medians
from dashboard.report.html import escape, figure_html, frame_table, page
from dashboard.tables.compare import comparison_table
from engine.analysis.compare import compare_runs, environments, run_label
from engine.results.model import RunResult


def comparison_report(runs: Sequence[RunResult], baseline: int = 0) -> str:
    """Side-by-side table, ratio and significance per strategy, chart, environments."""
    frame = compare_runs(runs, baseline)
    names = " vs ".join(run_label(r) for r in runs)
    sections = [
        f"<h1>Batched MatVec comparison</h1><p class='muted'>{escape(names)}</p>",
        "<p class='muted'>Ratios are medians over the baseline run "
        f"({escape(run_label(runs[baseline]))}); differences are called only when a two-sided "
        "Mann-Whitney U test on the raw samples gives p &lt; 0.05.</p>",
        "<h2>Summary</h2>",
        frame_table(comparison_table(frame)),
        figure_html(compare_medians(frame)),
        "<h2>Environments</h2>",
        frame_table(environments(runs)),
    ]
    return page(f"Batched MatVec comparison: {names}", sections)
