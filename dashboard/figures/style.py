"""Shared look of every figure: colours, layout, and the figure drawn when there is no data."""

from __future__ import annotations

import zlib

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from engine.spec.catalog import strategy_names

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


# One colour per variant, the same in every chart, report and sweep: a strategy takes a dark
# colour and its +option variant the light one beside it (Plotly's Dark24 and Light24).
PALETTE = tuple(
    color
    for pair in zip(px.colors.qualitative.Dark24, px.colors.qualitative.Light24)
    for color in pair
)


def variant_color(variant: str) -> str:
    """The variant's colour: its place in the catalogue (a stable order), its option apart.
    The same variant is the same colour in every figure of every run and sweep."""
    base, _, option = variant.partition("+")
    names = strategy_names()
    index = names.index(base) if base in names else zlib.crc32(base.encode()) % 997
    return PALETTE[(2 * index + (1 if option else 0)) % len(PALETTE)]


def colors(frame: pd.DataFrame) -> list[str]:
    """Each row's variant colour; a wrong result is red, whatever its variant."""
    return [
        variant_color(variant) if verdict == "ok" else WRONG_COLOR
        for variant, verdict in zip(frame["variant"], frame["verdict"])
    ]


def decade_log_axis(fig: go.Figure, axis: str = "y", **options: object) -> None:
    """A log axis labelled at whole decades only (0.001, 0.01, 0.1, ...), with unlabelled minor
    ticks: a label never reads "2" where it means 200."""
    update = fig.update_yaxes if axis == "y" else fig.update_xaxes
    update(type="log", dtick=1, tickformat="~g", minor={"ticks": "outside", "showgrid": True})
    if options:
        update(**options)


def empty(title: str, why: str) -> go.Figure:
    fig = go.Figure()
    fig.add_annotation(text=why, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    fig.update_layout(title=title, xaxis_visible=False, yaxis_visible=False, **LAYOUT)
    return fig
