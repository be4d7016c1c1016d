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
    """Per timed call: its time in ops (with the op time's 95% interval) and the rest
    (launch, dispatch, synchronisation, Python), stacked from 0."""
    title = "Where a call's time goes (ms per call)"
    shown = _profiled(frame)
    if shown.empty:
        return empty(title, "no profiled variant")
    fig = go.Figure()
    op_ms = shown["op_time_s"] * 1e3
    below, above = _reach(shown["op_ci_s"], op_ms)
    fig.add_bar(
        x=shown["variant"],
        y=op_ms,
        name="in ops",
        marker_color=OK_COLOR,
        error_y={"type": "data", "symmetric": False, "array": above, "arrayminus": below},
    )
    fig.add_bar(
        x=shown["variant"],
        y=shown["host_time_s"] * 1e3,
        name="the rest (launch, dispatch, sync, Python)",
        marker_color=SECOND_COLOR,
    )
    fig.update_layout(**LAYOUT, title=title, barmode="stack", yaxis_title="ms per call")
    fig.update_yaxes(rangemode="tozero")
    return fig


def _reach(intervals: pd.Series, values_ms: pd.Series) -> tuple[list[float], list[float]]:
    """Error bars below and above each value (ms) from its [low, high] seconds (0 without)."""
    below, above = [], []
    for interval, value in zip(intervals, values_ms, strict=True):
        has = isinstance(interval, list | tuple) and len(interval) == 2
        below.append(max(0.0, value - interval[0] * 1e3) if has else 0.0)
        above.append(max(0.0, interval[1] * 1e3 - value) if has else 0.0)
    return below, above


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
