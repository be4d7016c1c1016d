"""Pure chart builders of one run: DataFrame -> plotly Figure. No Streamlit, so the app and the
HTML report draw exactly the same figures. Times are plotted in milliseconds; rates in GB/s
and GFLOP/s (10^9). Wrong results are drawn in red and labelled, never silently dropped.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.figures.ceilings import run_staircase
from dashboard.figures.style import (
    LAYOUT,
    OK_COLOR,
    PEAK_COLOR,
    SECOND_COLOR,
    WRONG_COLOR,
    accuracy_label,
    colors,
    decade_log_axis,
    empty,
    measured,
    reduced_pattern,
    variant_color,
)
from engine.measure.uncertainty import DEFAULT_MARGIN
from engine.results.formatting import times


def latency_distribution(samples: pd.DataFrame) -> go.Figure:
    """Every raw sample (ms per call) per variant, as a box with the points, on a log axis."""
    title = "Latency per call (every sample)"
    if samples.empty:
        return empty(title, "no timed samples")
    fig = go.Figure()
    for variant, group in samples.groupby("variant", sort=False):
        correct = bool(group["correct"].iloc[0])
        accuracy = group["accuracy_class"].iloc[0] if "accuracy_class" in group else None
        fig.add_trace(
            go.Box(
                y=group["ms"],
                name=accuracy_label(str(variant), accuracy) if correct else f"{variant} (WRONG)",
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                marker_color=variant_color(str(variant)) if correct else WRONG_COLOR,
                hovertemplate="%{y:.4g} ms<extra>" + str(variant) + "</extra>",
            )
        )
    fig.update_layout(title=title, showlegend=False, **LAYOUT)
    decade_log_axis(fig, title="ms per call (log)")
    return fig


def throughput(summary: pd.DataFrame, peak_bytes_per_s: float | None) -> go.Figure:
    """GB/s and GFLOP/s per variant, with the roofline measured on the same device."""
    frame = measured(summary)
    title = "Throughput against the measured roofline"
    if frame.empty:
        return empty(title, "no variant produced timings")
    fig = make_subplots(rows=1, cols=2, subplot_titles=("Memory traffic", "Arithmetic"))
    bar_colors = colors(frame)
    fig.add_trace(
        go.Bar(
            x=frame["variant"],
            y=frame["gbytes_per_s"],
            marker_color=bar_colors,
            marker_pattern_shape=reduced_pattern(frame),  # another accuracy: hatched
            name="GB/s",
            error_y=rate_error_bars(frame, "bytes"),
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Bar(
            x=frame["variant"],
            y=frame["gflops_per_s"],
            marker_color=bar_colors,
            marker_pattern_shape=reduced_pattern(frame),
            name="GFLOP/s",
        ),
        row=1,
        col=2,
    )
    intensity = float((frame["flops"] / frame["bytes"]).iloc[0])
    if peak_bytes_per_s:
        peak_gb = peak_bytes_per_s / 1e9
        fig.add_hline(
            y=peak_gb,
            line_color=PEAK_COLOR,
            line_dash="dash",
            annotation_text=f"measured peak {peak_gb:.1f} GB/s",
            annotation_position="top left",
            row=1,
            col=1,
        )
        fig.add_hline(
            y=peak_gb * intensity,
            line_color=PEAK_COLOR,
            line_dash="dash",
            annotation_text=f"roofline {peak_gb * intensity:.1f} GFLOP/s at {intensity:.2f} FLOP/B",
            annotation_position="top left",
            row=1,
            col=2,
        )
    top = max(float(frame["gbytes_per_s"].max()), peak_bytes_per_s / 1e9 if peak_bytes_per_s else 0)
    fig.update_yaxes(range=[0, top * 1.25], row=1, col=1)  # room for the line's label
    fig.update_yaxes(title="GB/s (10^9 bytes/s)", row=1, col=1)
    flops_top = max(float(frame["gflops_per_s"].max()), top * intensity if peak_bytes_per_s else 0)
    fig.update_yaxes(range=[0, flops_top * 1.25], row=1, col=2)
    fig.update_yaxes(title="GFLOP/s", row=1, col=2)
    fig.update_layout(title=title, showlegend=False, **LAYOUT)
    return fig


def rate_error_bars(frame: pd.DataFrame, work: str) -> dict:
    """Asymmetric error bars of a rate (work / median) from the median's 95% interval."""
    plus, minus = [], []
    intervals = frame["median_ci_s"] if "median_ci_s" in frame else [None] * len(frame)
    for amount, median, interval in zip(frame[work], frame["median_s"], intervals):
        if not isinstance(interval, list) or not median:
            plus.append(0.0)
            minus.append(0.0)
            continue
        rate = amount / median / 1e9
        plus.append(amount / interval[0] / 1e9 - rate if interval[0] else 0.0)
        minus.append(rate - amount / interval[1] / 1e9 if interval[1] else 0.0)
    return {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus}


def speedups(summary: pd.DataFrame) -> go.Figure:
    """Times faster than each baseline, as points with 95% intervals (a ratio is not a bar)."""
    frame = measured(summary)
    title = "Speedup over the baselines (95% interval)"
    columns = [
        c
        for c in frame.columns
        if c.startswith("speedup_vs_")
        and not c.endswith(("_low", "_high"))
        and frame[c].notna().any()
    ]
    if frame.empty or not columns:
        return empty(title, "include python_loop or numpy in the run to see speedups")
    if len(frame) < 2:
        return empty(title, "only one variant was measured: there is nothing to compare it with")
    fig = go.Figure()
    for column, color in zip(columns, (OK_COLOR, SECOND_COLOR, PEAK_COLOR)):
        base = column.removeprefix("speedup_vs_")
        values = frame[column]
        fig.add_trace(
            go.Scatter(
                x=frame["variant"],
                y=values,
                mode="markers+text",
                name=f"vs {base}",
                marker={"color": color, "size": 10},
                text=[
                    ratio_label(v, low, high)
                    for v, low, high in zip(
                        values, frame[f"{column}_low"], frame[f"{column}_high"], strict=True
                    )
                ],
                textposition="middle right",
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": (frame[f"{column}_high"] - values).fillna(0).tolist(),
                    "arrayminus": (values - frame[f"{column}_low"]).fillna(0).tolist(),
                },
            )
        )
    fig.add_hline(y=1.0, line_color="#6b7280", line_dash="dot")
    fig.update_layout(title=title, **LAYOUT)
    # The legend above the plot: at the right it covered the last point's label.
    fig.update_layout(legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom"})
    decade_log_axis(fig, title="times faster (log; below 1 is slower)")
    return fig


def _paired_points(
    frame: pd.DataFrame, first: str, first_name: str, title: str, why: str
) -> go.Figure:
    """Two times per variant as points on a log axis (bars on a log axis would exaggerate)."""
    frame = measured(frame)
    if frame.empty or first not in frame:
        return empty(title, why)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=frame["variant"],
            y=frame[first] * 1e3,
            mode="markers",
            name=first_name,
            marker={"color": SECOND_COLOR, "size": 11, "symbol": "diamond"},
        )
    )
    fig.add_trace(
        go.Scatter(
            x=frame["variant"],
            y=frame["median_s"] * 1e3,
            mode="markers",
            name="steady state (synchronised median)",
            marker={"color": OK_COLOR, "size": 11},
        )
    )
    fig.update_layout(title=title, **LAYOUT)
    decade_log_axis(fig, title="ms (log)")
    return fig


def first_call_vs_steady(summary: pd.DataFrame) -> go.Figure:
    """Tracing and compilation cost (first call) beside the steady-state time."""
    return _paired_points(
        summary,
        "first_call_s",
        "first call (trace + compile)",
        "First call vs steady state",
        "no timings",
    )


def dispatch_vs_synchronised(summary: pd.DataFrame) -> go.Figure:
    """The 0.001 s illusion: time to return without waiting vs time until the work is done."""
    return _paired_points(
        summary,
        "dispatch_s",
        "returns (no sync)",
        "Dispatch only vs synchronised",
        "no timings",
    )


def replica_breakdown(replicas: pd.DataFrame, steps: pd.DataFrame | None = None) -> go.Figure:
    """Each replica's own compute time and matrices held; step time sharded vs replicated."""
    title = "Per-replica breakdown"
    if replicas.empty or replicas["median_s"].isna().all():
        return empty(title, "run in replicated or sharded mode to see replicas")
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=("Compute time per replica", "Matrices held", "Step: sharded vs replicated"),
    )
    for (mode, variant), group in replicas.groupby(["mode", "variant"], sort=False):
        label = f"{variant} · {mode}"
        names = [f"r{r}" for r in group["replica"]]
        # The variant's colour everywhere; the replicated baseline of a sharded run hatched.
        look = {
            "marker_color": variant_color(str(variant)),
            "marker_pattern_shape": "/" if mode == "replicated" else "",
            "name": label,
            "legendgroup": label,
        }
        fig.add_trace(go.Bar(x=names, y=group["median_s"] * 1e3, **look), row=1, col=1)
        fig.add_trace(go.Bar(x=names, y=group["matrices"], showlegend=False, **look), row=1, col=2)
    if steps is not None and not steps.empty:
        for column, name, color in (
            ("step_s", "in-sync step (this mode)", OK_COLOR),
            ("replicated_step_s", "replicated step", SECOND_COLOR),  # red means wrong
        ):
            if steps[column].notna().any():
                fig.add_trace(
                    go.Bar(
                        x=steps["variant"],
                        y=steps[column] * 1e3,
                        name=name,
                        marker_color=color,
                        text=[
                            f"imbalance {v:.2f}"
                            if column == "step_s" and isinstance(v, int | float) and v == v
                            else ""
                            for v in steps["load_imbalance"]
                        ],
                    ),
                    row=1,
                    col=3,
                )
    fig.update_yaxes(title="ms", row=1, col=1)
    fig.update_yaxes(title="matrices held", row=1, col=2)
    fig.update_yaxes(title="ms", row=1, col=3)
    fig.update_layout(title=title, barmode="group", **LAYOUT)
    return fig


def all_figures(
    summary: pd.DataFrame,
    samples: pd.DataFrame,
    replicas: pd.DataFrame,
    peak_bytes_per_s: float | None,
    steps: pd.DataFrame | None = None,
    levels: pd.DataFrame | None = None,
) -> dict[str, go.Figure]:
    """Every chart of a run, in page order; the app and the report both use this. `levels`:
    the run's ceilings (`tables.run.levels`), for the cache-aware roofline."""
    return {
        "latency": latency_distribution(samples),
        "throughput": throughput(summary, peak_bytes_per_s),
        "ceilings": run_staircase(
            summary, levels if levels is not None else pd.DataFrame(columns=["level"])
        ),
        "speedup": speedups(summary),
        "first_call": first_call_vs_steady(summary),
        "dispatch": dispatch_vs_synchronised(summary),
        "replicas": replica_breakdown(replicas, steps),
    }


def ratio_label(value: float, low: float | None = None, high: float | None = None) -> str:
    """A speedup point's label: "2,245x", "1.9x", "19x slower" (never "2.2e+03x"); "about as
    fast (1.52x)" where its interval reaches within the tie margin of 1, the rule the verdict
    ties by (`uncertainty.winner_and_ties`), so a chart never calls slower what it calls tied."""
    if value != value or value <= 0:  # NaN: no timing to compare
        return ""
    shown = f"{times(value)}x" if value >= 1 else f"{times(1 / value)}x slower"
    if low is None or high is None or low != low or high != high:
        return shown
    nearest = low if value >= 1 else 1 / high  # the interval's end nearest 1, as a ratio >= 1
    return f"about as fast ({shown})" if nearest <= 1 + DEFAULT_MARGIN else shown
