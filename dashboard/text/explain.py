"""Plain-language reasons a strategy wins, computed from the run's own numbers."""

from __future__ import annotations

import math

import pandas as pd

from engine.measure.memory import format_bytes
from engine.measure.roofline import arithmetic_intensity
from engine.spec.catalog import baseline_strategies, is_known, split_variant, strategy_info
from engine.spec.config import BenchConfig

WHY_BY_KIND = {
    "graph": (
        "It runs as one TensorFlow graph, so Python is out of the loop: "
        "the whole batch is dispatched once instead of once per matrix."
    ),
    "eager": (
        "It is driven from Python op by op, so every matrix (or batch) pays a Python and "
        "dispatch round trip."
    ),
    "host": "It runs NumPy on the host CPU, with no TensorFlow dispatch at all.",
}


def times(ratio: float) -> str:
    return f"{ratio:,.0f}×" if ratio >= 100 else f"{ratio:.2g}×"


def fastest_way(winner: pd.Series, config: BenchConfig, peak_bytes_per_s: float | None) -> str:
    """Markdown subset (**bold**, `code`): what won, by how much, and why for this shape.

    Only engine-written text goes in here: strategy names come from the catalogue."""
    strategy, option = split_variant(winner["variant"])
    lines = [f"**{winner['variant']}** is the fastest correct strategy in this run."]
    speedups = [
        f"{times(winner[f'speedup_vs_{base}'])} faster than `{base}`"
        for base in baseline_strategies()
        if f"speedup_vs_{base}" in winner
        and winner[f"speedup_vs_{base}"] == winner[f"speedup_vs_{base}"]  # not NaN
        and base != strategy
    ]
    if speedups:
        lines.append("It is " + " and ".join(speedups) + ".")
    if is_known(strategy):
        info = strategy_info(strategy)
        lines.append(WHY_BY_KIND[info.kind])
        if info.launches == "one":
            lines.append(
                f"It computes all {config.matrices:,} matrix-vector products in a single "
                "batched kernel launch, which keeps every core streaming through memory."
            )
    if option == "xla":
        lines.append("XLA compiled the graph into fused machine code for this exact shape.")
    intensity = arithmetic_intensity(config.rows, config.columns, config.itemsize)
    lines.append(
        f"A matvec does only {intensity:.2f} FLOP per byte moved, far below any device's "
        "ridge point, so it is **memory-bound**: the time is set by the bytes read, "
        f"{format_bytes(winner['bytes'])} per call here."
    )
    fraction = winner.get("roofline_fraction")
    if peak_bytes_per_s and fraction is not None and not math.isnan(fraction):
        lines.append(
            f"It moved {winner['gbytes_per_s']:.1f} GB/s, {fraction:.0%} of the "
            f"{peak_bytes_per_s / 1e9:.1f} GB/s peak measured on this device in the same run."
        )
        if fraction > 1.0:
            lines.append(
                "Above 100% means the inputs were served from cache, not DRAM: "
                "try cache = cold for the DRAM-bound figure."
            )
    return "\n\n".join(lines)
