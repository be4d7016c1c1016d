"""A series over time: one machine's runs of one problem and variant, each run's median in the
order they were made, with the steps `history changes` finds marked where they begin."""

from __future__ import annotations

import plotly.graph_objects as go

from dashboard.figures.style import LAYOUT, SECOND_COLOR, empty, inert, variant_color
from engine.analysis.change_points import Series


def series_figure(series: Series) -> go.Figure:
    """Medians (ms) by run, each step a dashed line before its first run, labelled."""
    title = inert(f"{series.variant} over time: {series.problem} on {series.machine}")
    if not series.medians_s:
        return empty(title, "no correct, timed run of this variant in the history")
    runs = list(range(1, len(series.medians_s) + 1))
    fig = go.Figure(
        go.Scatter(
            x=runs,
            y=[m * 1e3 for m in series.medians_s],
            mode="lines+markers",
            line={"color": variant_color(series.variant)},
            name=series.variant,
            customdata=list(zip(series.run_ids, series.created, strict=True)),
            hovertemplate="run %{x}: %{y:.4g} ms<br>%{customdata[1]}<br>%{customdata[0]}"
            "<extra></extra>",
        )
    )
    for step in series.steps:
        way = f"{step.ratio:.2f}x slower" if step.slower else f"{1 / step.ratio:.2f}x faster"
        fig.add_vline(
            x=step.index + 0.5,  # between the last run before it and the first after
            line_dash="dash",
            line_color=SECOND_COLOR,
            annotation_text=way,
            annotation_position="top left",
        )
    fig.update_layout(title=title, showlegend=False, **LAYOUT)
    fig.update_xaxes(title="run, in the order made", dtick=max(1, len(runs) // 10))
    fig.update_yaxes(title="median, ms per call", rangemode="tozero")
    return fig
