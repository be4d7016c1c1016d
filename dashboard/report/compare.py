"""The self-contained HTML report of a comparison between runs."""

from __future__ import annotations

from collections.abc import Sequence

from dashboard.figures.compare import compare_medians, ratio_points
from dashboard.report.html import escape, figure_html, frame_table, page
from dashboard.tables.compare import comparison_notes, comparison_table
from dashboard.text.explain import comparison_method
from engine.analysis.compare import (
    compare_runs,
    environments,
    mismatch_warnings,
    run_label,
)
from engine.analysis.sensitivity import run_seconds, sensitivity_sentence
from engine.measure.uncertainty import NoiseFloor
from engine.results.run_result import RunResult


def comparison_report(
    runs: Sequence[RunResult], baseline: int = 0, floor: NoiseFloor | None = None
) -> str:
    """Side-by-side table, ratios with intervals and verdicts, charts, environments."""
    frame = compare_runs(runs, baseline, floor=floor)
    names = " vs ".join(run_label(r) for r in runs)
    method = comparison_method(frame.attrs["floor"], frame.attrs["margin"])
    sections = [
        f"<h1>Batched MatVec comparison</h1><p class='muted'>{escape(names)}</p>",
        f"<p class='muted'>Baseline: {escape(run_label(runs[baseline]))}. {escape(method)}</p>",
        "<h2>Summary</h2>",
        frame_table(comparison_table(frame)),
        *(
            f"<p class='muted'>{escape(note)}</p>"
            for note in [*mismatch_warnings(runs), *comparison_notes(frame)]
        ),
        *(
            f"<p class='muted'>{escape(line)}</p>"
            for line in [sensitivity_sentence(frame, run_seconds(runs))]
            if line
        ),
        figure_html(ratio_points(frame, frame.attrs["margin"])),
        figure_html(compare_medians(frame)),
        "<h2>Environments</h2>",
        frame_table(environments(runs)),
    ]
    return page(f"Batched MatVec comparison: {names}", sections)
