"""Shared look of every figure: colours, layout, and the figure drawn when there is no data."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

OK_COLOR = "#2563eb"
WRONG_COLOR = "#dc2626"
SECOND_COLOR = "#f59e0b"
PEAK_COLOR = "#16a34a"
LAYOUT = {"template": "plotly_white", "margin": {"l": 60, "r": 20, "t": 60, "b": 80}}


def measured(frame: pd.DataFrame) -> pd.DataFrame:
    """Variants that produced timings (failed ones have none to draw)."""
    if frame.empty or "median_s" not in frame:
        return frame
    return frame.dropna(subset=["median_s"])


def colors(frame: pd.DataFrame) -> list[str]:
    return [OK_COLOR if v == "ok" else WRONG_COLOR for v in frame["verdict"]]


def empty(title: str, why: str) -> go.Figure:
    fig = go.Figure()
    fig.add_annotation(text=why, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    fig.update_layout(title=title, xaxis_visible=False, yaxis_visible=False, **LAYOUT)
    return fig
