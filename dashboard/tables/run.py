"""RunResult -> the tidy DataFrames the charts, tables and reports read. No Streamlit here."""

from __future__ import annotations

import math

import pandas as pd

from dashboard.text.controls import in_page_words
from engine.catalogue.catalog import baseline_strategies
from engine.results.formatting import format_entry, format_number, format_seconds, verdict
from engine.results.frames import levels_frame
from engine.results.run_result import RunResult
from engine.results.verdict import run_ratio


def summary(result: RunResult) -> pd.DataFrame:
    """One row per variant, plus verdict and speedups over the baselines present in the run."""
    frame = result.summary_frame()
    if frame.empty:
        return frame
    frame["verdict"] = [verdict(s, c) for s, c in zip(frame["status"], frame["correct"])]
    ok = set(frame.loc[frame["verdict"] == "ok", "variant"])
    for base in baseline_strategies():
        # base's time over each variant's: the run's one ratio for the pair (none for the
        # base itself: a ratio of a variant to itself is 1 by definition, not a measurement)
        ratios = [
            run_ratio(result, base, v) if base in ok and v in ok and v != base else None
            for v in frame["variant"]
        ]
        frame[f"speedup_vs_{base}"] = [r.ratio if r else math.nan for r in ratios]
        frame[f"speedup_vs_{base}_low"] = [r.low if r else math.nan for r in ratios]
        frame[f"speedup_vs_{base}_high"] = [r.high if r else math.nan for r in ratios]
    return frame


def levels(result: RunResult) -> pd.DataFrame:
    """The run's ceilings, one row a level, smallest first and memory last."""
    return levels_frame(result)


def samples(result: RunResult) -> pd.DataFrame:
    frame = result.samples_frame()
    if frame.empty:
        return frame
    frame["ms"] = frame["seconds"] * 1e3
    return frame


def replicas(result: RunResult) -> pd.DataFrame:
    """One row per (variant, replica): device, matrices held, own compute time."""
    rows = []
    for entry in result.results:
        for replica in entry.replicas:
            rows.append(
                {
                    "variant": entry.variant,
                    "mode": entry.mode,
                    "replica": replica.replica,
                    "device": replica.device,
                    "matrices": replica.matrices,
                    "median_s": replica.median_s,
                    "bytes_per_s": replica.bytes_per_s,
                }
            )
    return pd.DataFrame(rows)


def distribution(result: RunResult) -> pd.DataFrame:
    """One row per distributed variant: in-sync step, imbalance, speedup over replicated."""
    rows = []
    for entry in result.results:
        info = entry.distribution
        if info is None:
            continue
        rows.append(
            {
                "variant": entry.variant,
                "mode": entry.mode,
                "strategy": info.strategy,
                "replicas": info.replicas_in_sync,
                "shard_sizes": ", ".join(map(str, info.shard_sizes)),
                "step_s": info.step_s,
                "replicated_step_s": info.replicated_step_s,
                "speedup_over_replicated": info.speedup_over_replicated,
                "load_imbalance": info.load_imbalance,
                "padded": info.padded,
                "work_multiplier": entry.work_multiplier,
            }
        )
    return pd.DataFrame(rows)


def display_distribution(frame: pd.DataFrame) -> pd.DataFrame:
    if frame.empty:
        return frame
    return pd.DataFrame(
        {
            "strategy": frame["variant"],
            "mode": frame["mode"],
            "split over": frame["strategy"],  # tf.distribute's, host threads, a NamedSharding
            "replicas": frame["replicas"],
            "matrices per replica": frame["shard_sizes"],
            "step (in sync)": [format_seconds(v) for v in frame["step_s"]],
            "replicated step": [format_seconds(v) for v in frame["replicated_step_s"]],
            "sharded speedup": [format_number(v, ".2f") for v in frame["speedup_over_replicated"]],
            "load imbalance": [format_number(v, ".2f") for v in frame["load_imbalance"]],
            "work done": [f"{m}x" for m in frame["work_multiplier"]],
        }
    )


def winner(frame: pd.DataFrame, chosen: dict | None) -> pd.Series | None:
    """The row of the variant whose code is shown first: the fastest measured (`chosen` is
    `RunResult.winner_dict()`); in a tie the simplest follows it (`RunView.simplest_code`)."""
    if chosen is None or frame.empty:
        return None
    return frame[frame["variant"] == chosen["variant"]].iloc[0]


def _count(value: object) -> str:
    return "-" if pd.isna(value) else str(int(value))


def display_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Human-formatted summary table; failed and wrong variants stay visible with their reason."""
    rows = []
    for _, row in frame.iterrows():
        rows.append(
            {
                **format_entry(row),
                "first call": format_seconds(row["first_call_s"]),
                "calls/sample": _count(row["calls_per_sample"]),
                "note": in_page_words(
                    row["error"]
                    or "; ".join(part for part in (row["warnings"], row.get("notes")) if part)
                ),
            }
        )
    return pd.DataFrame(rows)
