"""RunResult -> the Why section's frames: each variant's profile, and its top ops."""

from __future__ import annotations

import pandas as pd

from engine.measure.memory import format_bytes
from engine.results.formatting import format_number, format_seconds
from engine.results.model import RunResult

PROFILE_COLUMNS = (
    "variant",
    "status",
    "ops_per_call",
    "op_time_s",
    "host_time_s",
    "wall_s",
    "op_share",
    "tracing_count",
    "retraced",
    "peak_memory_bytes",
    "first_call",
    "note",
)


def profiles(result: RunResult) -> pd.DataFrame:
    """One row per variant that has a profile (any status)."""
    rows = []
    for entry in result.results:
        profile = entry.profile
        if profile is None:
            continue
        wall = (profile.op_time_s or 0.0) + (profile.host_time_s or 0.0)
        share = profile.op_time_s / wall if profile.op_time_s is not None and wall else None
        rows.append(
            {
                "variant": entry.variant,
                "status": profile.status,
                "ops_per_call": profile.ops_per_call,
                "op_time_s": profile.op_time_s,
                "host_time_s": profile.host_time_s,
                "wall_s": profile.wall_s,
                "op_share": share,
                "tracing_count": profile.tracing_count,
                "retraced": profile.retraced,
                "peak_memory_bytes": profile.peak_memory_bytes,
                "first_call": first_call_text(profile.first_call),
                "note": profile.error
                or ("traced again while profiled" if profile.retraced else "")
                or profile.memory_note
                or "",
            }
        )
    return pd.DataFrame(rows, columns=list(PROFILE_COLUMNS))


def first_call_text(split: dict[str, float] | None) -> str:
    """ "62 ms: tracing 5 ms · compiling 51 ms · running 6 ms" (empty when not measured)."""
    if not split:
        return ""
    return (
        f"{format_seconds(split['total_s'])}: tracing {format_seconds(split['tracing_s'])} · "
        f"compiling {format_seconds(split['compile_s'])} · "
        f"running {format_seconds(split['execution_s'])}"
    )


def top_ops(result: RunResult) -> pd.DataFrame:
    rows = [
        {
            "variant": entry.variant,
            "op": op.name,
            "type": op.type,
            "per call": format_number(op.count_per_call, ",.0f"),
            "self time per call": format_seconds(op.self_s_per_call),
        }
        for entry in result.results
        if entry.profile is not None
        for op in entry.profile.top_ops
    ]
    return pd.DataFrame(rows, columns=["variant", "op", "type", "per call", "self time per call"])


def display_profiles(frame: pd.DataFrame) -> pd.DataFrame:
    if frame.empty:
        return frame
    return pd.DataFrame(
        {
            "strategy": frame["variant"],
            "profile": frame["status"],
            "ops per call": [format_number(v, ",.0f") for v in frame["ops_per_call"]],
            "in ops": [format_seconds(v) for v in frame["op_time_s"]],
            "outside ops": [format_seconds(v) for v in frame["host_time_s"]],
            "share in ops": [format_number(v, ".0%") for v in frame["op_share"]],
            "tracings": [format_number(v, ".0f") for v in frame["tracing_count"]],
            "peak memory": [
                "-" if pd.isna(v) else format_bytes(int(v)) for v in frame["peak_memory_bytes"]
            ],
            "first call (fresh copy)": frame["first_call"],
            "note": frame["note"],
        }
    )
