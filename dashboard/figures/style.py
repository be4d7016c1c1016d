"""Shared look of every figure: colours, layout, and the figure drawn when there is no data."""

from __future__ import annotations

import html
import math
import numbers
import zlib

import pandas as pd
import plotly.graph_objects as go

from engine.catalogue.catalog import strategy_names

OK_COLOR = "#2563eb"
WRONG_COLOR = "#dc2626"
SECOND_COLOR = "#f59e0b"
PEAK_COLOR = "#16a34a"
LAYOUT = {"template": "plotly_white", "margin": {"l": 60, "r": 20, "t": 60, "b": 80}}


def inert(text: object) -> str:
    """Text a file or a user wrote, for a chart: plotly draws a subset of HTML in titles,
    names and labels (a host name `<a href=...>` became a live link), so its markup is
    escaped and shows as the characters it is."""
    return html.escape(str(text), quote=False)


def measured(frame: pd.DataFrame) -> pd.DataFrame:
    """Variants that produced timings (failed ones have none to draw)."""
    if frame.empty or "median_s" not in frame:
        return frame
    return frame.dropna(subset=["median_s"])


# One colour per variant, the same in every chart, report and sweep: each strategy its own,
# by its place in the catalogue, picked by hand from Kelly's colours of maximum contrast so the
# strategies usually run together (the loops, the batched kernels, NumPy, JAX, PyTorch) never
# share a hue, and none is the red that marks a wrong result. A +option variant (+xla) is its
# strategy's colour lightened: the same family, told apart.
PALETTE = (
    "#0067A5",  # python_loop: blue
    "#F38400",  # while_loop: orange
    "#008856",  # map_fn: green
    "#875692",  # vectorized_map: purple
    "#E68FAC",  # batched_matvec: pink
    "#C2B280",  # batched_matmul: buff
    "#17BECF",  # einsum: cyan (not batched_matvec's pink: they run side by side)
    "#848482",  # dataset: grey
    "#2B3D26",  # numpy: dark olive
    "#A1CAF1",  # jax_vmap: light blue
    "#604E97",  # jax_einsum: violet
    "#8DB600",  # torch_bmm: lime
    "#654522",  # torch_einsum: brown
    "#F99379",  # broadcast_reduce: salmon
    "#DCD300",  # numpy_einsum: yellow-green
    "#882D17",  # numpy_broadcast: russet
    "#E25822",  # numpy_split2: flame
    "#F6A600",  # jax_broadcast: amber
    "#B3446C",  # torch_broadcast: raspberry
    "#1F3A93",  # torch_bmm_compiled: navy
    "#9467BD",  # torch_broadcast_compiled: lavender
    "#D98CB3",  # broadcast_reduce_bf16: orchid
    "#5C5C8A",  # jax_einsum_bf16: slate
    "#4C9A2A",  # torch_broadcast_bf16_compiled: leaf
    "#11A579",  # cupy_matmul: teal
    "#3969AC",  # cupy_einsum: steel blue
    "#7F3C8D",  # further strategies and names from elsewhere: plum
    "#80BA5A",  # sage
    "#F3C300",  # yellow
)


def accuracy_label(variant: str, accuracy_class: object) -> str:
    """A reduced-precision variant's name says so wherever it is drawn ("... (bfloat16
    storage)"), so a bar faster than the answer is never read as the answer."""
    if not isinstance(accuracy_class, str) or not accuracy_class:
        return variant
    return f"{variant} ({accuracy_class.split(',')[0]})"


def reduced_pattern(frame: pd.DataFrame) -> list[str]:
    """Hatching for each row of a reduced accuracy class, none for the requested dtype's."""
    classes = frame["accuracy_class"] if "accuracy_class" in frame else [None] * len(frame)
    return ["/" if isinstance(c, str) and c else "" for c in classes]


def lighter(color: str, share: float = 0.5) -> str:
    """`color` mixed with white: `share` of the way to white."""
    red, green, blue = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    mixed = (round(c + (255 - c) * share) for c in (red, green, blue))
    return "#" + "".join(f"{c:02X}" for c in mixed)


def variant_color(variant: str) -> str:
    """The variant's colour: its strategy's place in the catalogue (a stable order), a name
    from elsewhere by a stable hash; an +option variant lighter. The same variant is the same
    colour in every figure of every run and sweep."""
    base, _, option = variant.partition("+")
    names = strategy_names()
    index = names.index(base) if base in names else zlib.crc32(base.encode())
    color = PALETTE[index % len(PALETTE)]
    return lighter(color) if option else color


def colors(frame: pd.DataFrame) -> list[str]:
    """Each row's variant colour; a wrong result is red, whatever its variant."""
    return [
        variant_color(variant) if verdict == "ok" else WRONG_COLOR
        for variant, verdict in zip(frame["variant"], frame["verdict"])
    ]


def decade_log_axis(fig: go.Figure, axis: str = "y", **options: object) -> None:
    """A log axis labelled at whole decades only (0.001, 0.01, 0.1, ...), with unlabelled minor
    ticks: a label never reads "2" where it means 200. The range runs from the decade below
    the smallest value to the decade above the largest (error bars included), so every point
    has a labelled decade on each side of it."""
    update = fig.update_yaxes if axis == "y" else fig.update_xaxes
    update(type="log", dtick=1, tickformat="~g", minor={"ticks": "outside", "showgrid": True})
    span = decade_span(fig, axis)
    if span is not None:
        update(range=list(span))
    if options:
        update(**options)


def decade_span(fig: go.Figure, axis: str) -> tuple[int, int] | None:
    """(floor, ceil) of log10 over every positive value the traces draw on axes of this letter."""
    values: list[float] = []
    for trace in fig.data:  # every subplot: the update sets all axes of this letter
        data = getattr(trace, axis, None)
        if data is None:
            continue
        points = [float(v) for v in data if isinstance(v, numbers.Real) and v == v and v > 0]
        error = getattr(trace, f"error_{axis}", None)
        if points and error is not None and error.array is not None:
            minus = error.arrayminus if error.arrayminus is not None else error.array
            points += [p + float(e) for p, e in zip(points, error.array) if e == e]
            points += [p - float(e) for p, e in zip(points, minus) if e == e and p - e > 0]
        values += points
    if not values:
        return None
    low, high = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    return (low, high if high > low else low + 1)


def empty(title: str, why: str) -> go.Figure:
    """A chart with nothing to say: pages and reports draw it as one line (`empty_reason`),
    the figure itself still says why if it is shown."""
    fig = go.Figure()
    fig.add_annotation(text=why, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    fig.update_layout(title=title, xaxis_visible=False, yaxis_visible=False, **LAYOUT)
    fig.update_layout(meta={"empty": why, "title": title})
    return fig


def empty_reason(fig: go.Figure) -> str | None:
    """ "Per-replica breakdown: run in replicated or sharded mode to see replicas" for a chart
    made by `empty`, else None."""
    meta = fig.layout.meta
    if isinstance(meta, dict) and meta.get("empty"):
        return f"{meta.get('title', '')}: {meta['empty']}"
    return None
