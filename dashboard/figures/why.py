"""The Why section's charts: where a call's time goes, and how many ops it executes."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from dashboard.figures.style import LAYOUT, OK_COLOR, SECOND_COLOR, empty


def _profiled(frame: pd.DataFrame) -> pd.DataFrame:
    if frame.empty:
        return frame
    return frame[(frame["status"] == "ok") & frame["op_time_s"].notna()]


def time_split(frame: pd.DataFrame) -> go.Figure:
    """Per call: time in ops and time outside them (Python, dispatch, idle), stacked from 0."""
    title = "Where a call's time goes (profiled, ms per call)"
    shown = _profiled(frame)
    if shown.empty:
        return empty(title, "no profiled variant")
    fig = go.Figure()
    fig.add_bar(
        x=shown["variant"], y=shown["op_time_s"] * 1e3, name="in ops", marker_color=OK_COLOR
    )
    fig.add_bar(
        x=shown["variant"],
        y=shown["host_time_s"] * 1e3,
        name="outside ops (Python, dispatch, idle)",
        marker_color=SECOND_COLOR,
    )
    fig.update_layout(**LAYOUT, title=title, barmode="stack", yaxis_title="ms per call")
    fig.update_yaxes(rangemode="tozero")
    return fig


def ops_per_call(frame: pd.DataFrame) -> go.Figure:
    """Op events per call, on a log axis: thousands for a loop, one for a batched kernel."""
    title = "Ops executed per call (profiled)"
    shown = _profiled(frame)
    shown = shown[shown["ops_per_call"] > 0] if not shown.empty else shown
    if shown.empty:
        return empty(title, "no profiled variant executed an op")
    fig = go.Figure(
        go.Bar(
            x=shown["variant"],
            y=shown["ops_per_call"],
            marker_color=OK_COLOR,
            hovertemplate="%{y:,.0f} ops per call<extra>%{x}</extra>",
        )
    )
    fig.update_layout(**LAYOUT, title=title, yaxis_title="ops per call (log)")
    fig.update_yaxes(type="log")
    return fig


def why_figures(frame: pd.DataFrame) -> dict[str, go.Figure]:
    return {"time_split": time_split(frame), "ops_per_call": ops_per_call(frame)}
