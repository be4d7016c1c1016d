"""The cache-aware roofline: each measured ceiling as a step over working-set size (log-log),
each variant a point at its working set (a run), or a line across the steps (a sweep), so the
size where a batch spills out of a cache is seen. DataFrame -> Figure, as every chart here."""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

from dashboard.figures.style import (
    LAYOUT,
    PEAK_COLOR,
    WRONG_COLOR,
    decade_log_axis,
    empty,
    empty_reason,
    measured,
    variant_color,
)
from engine.measure.memory import format_bytes

TITLE = "Each variant against the ceiling of the level its working set lives in"
SWEEP_TITLE = "The sweep across the cache levels: GB/s against working set"
MARGIN = 4.0  # the steps run this factor beyond the smallest and largest working set


def steps(levels: pd.DataFrame, low: float, high: float) -> tuple[list[float], list[float]]:
    """The staircase's corners: each level flat from the capacity below it to its own."""
    xs: list[float] = []
    ys: list[float] = []
    start = low
    for _, level in levels.iterrows():
        end = float(level["bytes"]) if pd.notna(level["bytes"]) else high
        end = max(end, start)
        xs += [start, end]
        ys += [float(level["gbytes_per_s"])] * 2
        start = end
    return xs, ys


def with_staircase(fig: go.Figure, levels: pd.DataFrame, sizes: pd.Series) -> None:
    """Draw the ceilings of `levels` under the points whose working sets are `sizes`."""
    capacities = [float(b) for b in levels["bytes"] if pd.notna(b)]
    known = [float(s) for s in sizes if pd.notna(s) and s > 0] + capacities
    low = min(known) / MARGIN
    high = max(known) * MARGIN
    xs, ys = steps(levels, low, high)
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines",
            line={"color": PEAK_COLOR, "width": 2},
            name="measured ceilings",
            hoverinfo="skip",
        )
    )
    for index, (_, level) in enumerate(levels.iterrows()):
        left, right = xs[2 * index], xs[2 * index + 1]
        fig.add_trace(
            go.Scatter(
                x=[math.sqrt(left * right)],
                y=[float(level["gbytes_per_s"])],
                mode="text",
                text=[f"{level['level']} {level['gbytes_per_s']:.0f} GB/s"],
                textposition="top center",
                showlegend=False,
                hoverinfo="skip",
            )
        )


def staircase_or_why(
    title: str, levels: pd.DataFrame, points: pd.DataFrame, what: str, no_points: str
) -> go.Figure:
    """A figure with the ceilings' staircase drawn under `points`, or the one line saying why
    there is none (no ceiling measured in `what`, or nothing to place on it)."""
    if levels.empty:
        return empty(title, f"no ceiling was measured in {what}")
    if points.empty or "working_set_bytes" not in points:
        return empty(title, no_points)
    fig = go.Figure()
    with_staircase(fig, levels, points["working_set_bytes"])
    return fig


def run_staircase(summary: pd.DataFrame, levels: pd.DataFrame) -> go.Figure:
    """A run's variants, each at (working set, GB/s), over the run's measured ceilings."""
    frame = measured(summary)
    fig = staircase_or_why(TITLE, levels, frame, "this run", "no variant produced timings")
    if empty_reason(fig) is not None:
        return fig
    for _, row in frame.iterrows():
        ok = row.get("verdict", "ok") == "ok"
        placed = level_words(row)
        fig.add_trace(
            go.Scatter(
                x=[row["working_set_bytes"]],
                y=[row["gbytes_per_s"]],
                mode="markers",
                marker={"size": 11, "color": variant_color(row["variant"]) if ok else WRONG_COLOR},
                name=str(row["variant"]) if ok else f"{row['variant']} (WRONG)",
                hovertemplate=(
                    f"{format_bytes(row['working_set_bytes'])} working set<br>"
                    f"%{{y:.1f}} GB/s, {placed}<extra>{row['variant']}</extra>"
                ),
            )
        )
    finish(fig, TITLE)
    return fig


def sweep_staircase(points: pd.DataFrame, levels: pd.DataFrame) -> go.Figure:
    """Each variant's sweep as a line over working-set size, across the measured ceilings."""
    fig = staircase_or_why(SWEEP_TITLE, levels, points, "this sweep", "no sweep points yet")
    if empty_reason(fig) is not None:
        return fig
    widths = sorted(points["cols"].unique())
    dashes = ("solid", "dot", "dash", "dashdot", "longdash", "longdashdot")
    for (variant, cols), group in points.groupby(["variant", "cols"], sort=False):
        group = group.sort_values("working_set_bytes")  # B grows along the line; n is its dash
        fig.add_trace(
            go.Scatter(
                x=group["working_set_bytes"],
                y=group["gbytes_per_s"],
                mode="lines+markers",
                line={
                    "color": variant_color(str(variant)),
                    "dash": dashes[widths.index(cols) % len(dashes)],
                },
                name=f"{variant}, n={int(cols):,}" if len(widths) > 1 else str(variant),
                customdata=group[["matrices", "cols"]],
                hovertemplate=(
                    "B=%{customdata[0]:,}, n=%{customdata[1]:,}<br>%{x:.3s}B working set, "
                    "%{y:.1f} GB/s<extra>" + str(variant) + "</extra>"
                ),
            )
        )
    finish(fig, SWEEP_TITLE)
    return fig


def finish(fig: go.Figure, title: str) -> None:
    fig.update_layout(title=title, **LAYOUT)
    decade_log_axis(fig, "x", title="working set, bytes (log)")
    decade_log_axis(fig, "y", title="GB/s (log)")
    low, high = fig.layout.yaxis.range
    top = max((max(t.y) for t in fig.data if t.y is not None and len(t.y)), default=0)
    if top and math.log10(top) > high - 0.3:  # room above the top step for its label
        fig.update_yaxes(range=[low, high + 1])


def level_words(row: pd.Series) -> str:
    """ "28% of the L2 ceiling" (a file without levels: of memory's)."""
    level = row.get("ceiling_level")
    fraction = row.get("ceiling_fraction")
    if not isinstance(level, str) or fraction is None or fraction != fraction:
        return "no ceiling"
    return f"{fraction:.0%} of the {level} ceiling"


def spill_lines(points: pd.DataFrame, levels: pd.DataFrame) -> list[str]:
    """Under the sweep's chart: for each cache, the sizes of the sweep on either side of it
    ("L2 (2.0 MiB): B=300, n=32 (1.3 MiB) is the largest point in it; B=600, n=32 (2.5
    MiB) the smallest beyond it")."""
    if points.empty or "working_set_bytes" not in points:
        return []
    sizes = points.drop_duplicates(["matrices", "cols"]).sort_values("working_set_bytes")
    largest = float(sizes["working_set_bytes"].max())
    lines = []
    for _, level in levels.iterrows():
        capacity = level["bytes"]
        if pd.isna(capacity):
            continue
        inside = sizes[sizes["working_set_bytes"] <= capacity]
        beyond = sizes[sizes["working_set_bytes"] > capacity]
        if inside.empty or beyond.empty:
            continue
        last, first = inside.iloc[-1], beyond.iloc[0]
        lines.append(
            f"{level['level']} ({format_bytes(capacity)}, {level['gbytes_per_s']:.0f} GB/s): "
            f"the sweep spills out of it between {point_words(last)} and {point_words(first)}"
        )
    if not lines:  # nothing spills: say where the whole sweep lives
        holding = next(
            (lv for _, lv in levels.iterrows() if pd.notna(lv["bytes"]) and largest <= lv["bytes"]),
            None,
        )
        where = (
            f"the {holding['level']} ({format_bytes(holding['bytes'])})"
            if holding is not None
            else "memory: none fits a cache"
        )
        lines.append(f"every point of the sweep lies in {where}; none crosses a level")
    return lines


def point_words(point: pd.Series) -> str:
    return (
        f"B={int(point['matrices']):,}, n={int(point['cols']):,} "
        f"({format_bytes(point['working_set_bytes'])})"
    )
