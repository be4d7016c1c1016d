"""Pure chart builders of a comparison between runs: DataFrame -> plotly Figure.

Medians are bars from zero with their 95% intervals (a log axis that does not start at zero
makes a 5% difference look like 2x); ratios are points with intervals around the equivalence
band, since a ratio is not an amount.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from dashboard.figures.style import LAYOUT, PALETTE, PEAK_COLOR, decade_log_axis, empty, inert
from dashboard.tables.compare import ratio_text

# A run keeps one colour in both charts (its place among the runs compared); the verdict is
# the marker's shape and its words, so the legend names runs, not verdicts.
VERDICT_SYMBOLS = {
    "faster": "triangle-down",
    "slower": "triangle-up",
    "same": "circle",
    "inconclusive": "circle-open",
}


def run_colors(frame: pd.DataFrame) -> dict[str, str]:
    """Each run of the comparison (baseline included, in order) -> its colour."""
    runs = list(dict.fromkeys(str(run) for run in frame["run"])) if not frame.empty else []
    return {run: PALETTE[index % len(PALETTE)] for index, run in enumerate(runs)}


def compare_medians(frame: pd.DataFrame) -> go.Figure:
    """Median per strategy, one bar per run, from zero, with the median's 95% interval."""
    title = "Median per strategy, run by run (95% interval)"
    timed = frame.dropna(subset=["median_s"]) if not frame.empty else frame
    if timed.empty:
        return empty(title, "no timings to compare")
    fig = go.Figure()
    colors = run_colors(frame)
    for run, group in timed.groupby("run", sort=False):
        plus, minus = [], []
        for median, interval in zip(group["median_s"], group["median_ci_s"]):
            ok = isinstance(interval, list)
            plus.append((interval[1] - median) * 1e3 if ok else 0.0)
            minus.append((median - interval[0]) * 1e3 if ok else 0.0)
        fig.add_trace(
            go.Bar(
                x=group["variant"],
                y=group["median_s"] * 1e3,
                name=inert(run),
                marker_color=colors[str(run)],
                error_y={"type": "data", "symmetric": False, "array": plus, "arrayminus": minus},
                customdata=group[["verdict"]].astype(str),
                hovertemplate="%{y:.4g} ms<br>%{customdata[0]}",
            )
        )
    fig.update_layout(title=title, barmode="group", **LAYOUT)
    fig.update_yaxes(title="ms per call", rangemode="tozero")
    return fig


def ratio_points(frame: pd.DataFrame, margin: float) -> go.Figure:
    """Each run's ratio to the baseline per strategy, with its interval and the margin band."""
    title = "Ratio to the baseline (95% interval; shaded: the equivalence margin)"
    rows = frame[frame["ratio_ci"].map(lambda v: isinstance(v, list))] if not frame.empty else frame
    if rows.empty:
        return empty(title, "no strategy has timings in both the baseline and another run")
    fig = go.Figure()
    colors = run_colors(frame)
    for run, group in rows.groupby("run", sort=False):
        lows = [ci[0] for ci in group["ratio_ci"]]
        highs = [ci[1] for ci in group["ratio_ci"]]
        fig.add_trace(
            go.Scatter(
                x=group["variant"],
                y=group["ratio"],
                mode="markers+text",
                name=inert(run),
                textposition="middle right",
                marker={
                    "size": 12,
                    "color": colors[str(run)],
                    "symbol": [VERDICT_SYMBOLS.get(v, "circle-open") for v in group["verdict"]],
                },
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [h - r for h, r in zip(highs, group["ratio"])],
                    "arrayminus": [r - lo for r, lo in zip(group["ratio"], lows)],
                },
                text=[
                    f"{ratio_text(r)}x the time: {v}"
                    for r, v in zip(group["ratio"], group["verdict"])
                ],
                hovertemplate="%{y:.3f}× (%{text})",
            )
        )
    fig.add_hrect(
        y0=1 / (1 + margin), y1=1 + margin, fillcolor=PEAK_COLOR, opacity=0.12, line_width=0
    )
    fig.add_hline(y=1.0, line_color="#6b7280", line_dash="dot")
    fig.update_layout(title=title, **LAYOUT)
    decade_log_axis(fig, title="time / baseline time (log; above 1 is slower)")
    # Room at the right for the last point's label (categories sit at 0, 1, ...).
    categories = list(dict.fromkeys(rows["variant"]))
    fig.update_xaxes(type="category", range=[-0.5, len(categories) - 0.5 + 0.6])
    return fig
