"""Pure chart builders of a sweep: scaling, crossover map, cost fit. DataFrame -> Figure."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from dashboard.figures.style import LAYOUT, PEAK_COLOR, decade_log_axis, empty, variant_color

AXIS_TITLES = {
    "matrices": "matrices B (log)",
    "cols": "columns n (log)",
    "median_s": "ms per call (log)",
    "gbytes_per_s": "GB/s (log)",
}


def scaling(frame: pd.DataFrame, x: str, y: str, peak_gbytes_per_s: float | None) -> go.Figure:
    """`y` against `x` per strategy on log-log axes; GB/s views carry the measured roofline."""
    title = f"{'Latency' if y == 'median_s' else 'Bandwidth'} against {x}"
    if frame.empty:
        return empty(title, "no sweep points yet")
    data = frame.copy()
    data["ms"] = data["median_s"] * 1e3
    other = "cols" if x == "matrices" else "matrices"
    data[other] = data[other].astype(str)
    variants = list(dict.fromkeys(data["variant"]))
    fig = px.line(
        data.sort_values(x),
        x=x,
        y="ms" if y == "median_s" else y,
        color="variant",  # the variant's colour everywhere; the other axis is the dash
        line_dash=other,
        color_discrete_map={v: variant_color(v) for v in variants},
        markers=True,
    )
    if y == "gbytes_per_s" and peak_gbytes_per_s:
        # A trace, not add_hline: shapes on log axes take log10 coordinates.
        xs = sorted(data[x].unique())
        fig.add_trace(
            go.Scatter(
                x=[xs[0], xs[-1]],
                y=[peak_gbytes_per_s, peak_gbytes_per_s],
                mode="lines",
                line={"color": PEAK_COLOR, "dash": "dash"},
                name=f"measured peak {peak_gbytes_per_s:.1f} GB/s",
            )
        )
    fig.update_layout(title=title, **LAYOUT)
    decade_log_axis(fig, "x", title=AXIS_TITLES[x])
    decade_log_axis(fig, "y", title=AXIS_TITLES[y])
    return fig


TIE = "tie"
TIE_COLOR = "#bdbdbd"


def cell_label(cell: Any) -> str:
    """What a cell is coloured by: its winner, or "tie" when its run named none alone."""
    return TIE if tuple(cell["tied_with"] or ()) else str(cell["winner"])


def crossover_map(cells: pd.DataFrame) -> go.Figure:
    """For each (B, n) cell, its run's verdict: the winner (coloured by it, with the nearest's
    time over it as text), or a tie (grey, naming the tied strategies)."""
    title = "Crossover map: the fastest correct strategy per (B, n), or a tie"
    if cells.empty:
        return empty(title, "no correct results in the sweep")
    labels = {cell_label(cell) for _, cell in cells.iterrows()}
    if len(labels) == 1 and TIE not in labels:  # one flat block says nothing a sentence does not
        return empty(
            title,
            f"{labels.pop()} is the fastest correct strategy in every cell of this sweep",
        )
    winners = sorted(labels)
    code = {name: index for index, name in enumerate(winners)}
    matrices = sorted(cells["matrices"].unique())
    cols = sorted(cells["cols"].unique())
    z, text = [], []
    for b in matrices:
        row_z, row_text = [], []
        for n in cols:
            cell = cells[(cells["matrices"] == b) & (cells["cols"] == n)]
            if cell.empty:
                row_z.append(None)
                row_text.append("")
                continue
            first = cell.iloc[0]
            label = cell_label(first)
            row_z.append(code[label])
            if label == TIE:
                row_text.append("tie:<br>" + ", ".join((first["winner"], *first["tied_with"])))
            else:
                margin = "" if pd.isna(first["margin"]) else f"<br>×{first['margin']:.2f}"
                row_text.append(f"{first['winner']}{margin}")
        z.append(row_z)
        text.append(row_text)
    scale = []
    for index, winner in enumerate(winners):
        color = TIE_COLOR if winner == TIE else variant_color(winner)
        scale += [
            [index / max(1, len(winners)), color],
            [(index + 1) / max(1, len(winners)), color],
        ]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[str(n) for n in cols],
            y=[str(b) for b in matrices],
            text=text,
            texttemplate="%{text}",
            colorscale=scale,
            zmin=0,
            zmax=len(winners),
            showscale=False,
            hovertemplate="B=%{y}, n=%{x}: %{text}<extra></extra>",
        )
    )
    fig.update_layout(title=title, **LAYOUT)
    fig.update_xaxes(title="columns n", type="category")
    fig.update_yaxes(title="matrices B", type="category")
    return fig


def cost_fit(points: pd.DataFrame, fits: pd.DataFrame) -> go.Figure:
    """Time against bytes moved per strategy, with the fitted overhead + per-byte line."""
    title = "Time against work: fixed overhead + per-byte cost"
    if points.empty:
        return empty(title, "no sweep points yet")
    fig = go.Figure()
    for variant, group in points.groupby("variant", sort=False):
        fig.add_trace(
            go.Scatter(
                x=group["bytes"],
                y=group["median_s"] * 1e3,
                mode="markers",
                name=variant,
                legendgroup=variant,
                marker={"color": variant_color(str(variant))},
            )
        )
        fit = fits[fits["variant"] == variant]
        if not fit.empty:
            xs = sorted(group["bytes"])
            row = fit.iloc[0]
            ys = [(row["overhead_s"] + row["seconds_per_byte"] * b) * 1e3 for b in xs]
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=ys,
                    mode="lines",
                    name=f"{variant} fit",
                    legendgroup=variant,
                    line={"dash": "dot", "color": variant_color(str(variant))},
                    showlegend=True,
                )
            )
    fig.update_layout(title=title, **LAYOUT)
    decade_log_axis(fig, "x", title="bytes moved per call (log)")
    decade_log_axis(fig, "y", title="ms per call (log)")
    return fig
