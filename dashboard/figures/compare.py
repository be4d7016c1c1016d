"""Pure chart builders of a comparison between runs: DataFrame -> plotly Figure."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from dashboard.figures.style import LAYOUT, empty


def compare_medians(frame: pd.DataFrame) -> go.Figure:
    """Median per strategy, one bar per run; significance shown in the hover and bar text."""
    title = "Median per strategy, run by run"
    timed = frame.dropna(subset=["median_s"])
    if timed.empty:
        return empty(title, "no timings to compare")
    fig = go.Figure()
    for run, group in timed.groupby("run", sort=False):
        labels = [
            "" if v in ("baseline", "no timing") else f"{r:.2f}x {'' if v.startswith('no') else v}"
            for r, v in zip(group["ratio_to_baseline"].fillna(1.0), group["verdict"])
        ]
        fig.add_trace(
            go.Bar(
                x=group["variant"],
                y=group["median_s"] * 1e3,
                name=str(run),
                text=labels,
                textposition="outside",
                customdata=group[["verdict", "p_value"]].astype(str),
                hovertemplate="%{y:.4g} ms<br>%{customdata[0]} (p=%{customdata[1]})",
            )
        )
    fig.update_layout(title=title, barmode="group", **LAYOUT)
    fig.update_yaxes(type="log", title="ms per call (log)")
    return fig
