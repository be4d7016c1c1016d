"""RunResult -> the Why section's frames: each variant's profile, and its top ops."""

from __future__ import annotations

import pandas as pd

from engine.measure.memory import format_bytes
from engine.results.formatting import format_number, format_seconds, with_interval
from engine.results.parts import ProfileSummary
from engine.results.run_result import RunResult

WHICH_TIME_IS_WHICH = (
    "A few more calls of each variant after its samples, under its framework's profiler: the "
    "sampled timings are not perturbed by it. Timed median is the sampled call, the time the "
    "verdict judges (what a loop that calls the kernel pays). Call (wall), in ops and "
    "the rest are medians over the profiled calls, each with its 95% interval, taken call by "
    "call: in ops is the time some op ran on any thread (TensorFlow, JAX), PyTorch's "
    "operators' self time; the rest is launch, dispatch, synchronisation and Python. The "
    "profiled calls run slower under the profiler. On a GPU the device's own time (CUDA "
    "events) splits the timed blocks themselves."
)

PROFILE_COLUMNS = (
    "variant",
    "status",
    "ops_per_call",
    "op_time_s",
    "host_time_s",
    "op_ci_s",
    "host_ci_s",
    "wall_s",
    "wall_ci_s",
    "median_s",
    "op_share",
    "tracing_count",
    "retraced",
    "peak_memory_bytes",
    "first_call",
    "note",
)


def profiles(result: RunResult) -> pd.DataFrame:
    """One row per variant that has a profile (any status) or its device's own time (a GPU's
    CUDA events, with or without a profile)."""
    rows = []
    for entry in result.results:
        profile = entry.profile or (
            ProfileSummary("ok", op_source=entry.device_timer) if entry.device_samples_s else None
        )
        if profile is None:
            continue
        split = entry.time_split()
        if split is not None:  # call by call, with intervals
            op, rest, wall = split.op_s, split.overhead_s, split.host_s
            op_ci, rest_ci, wall_ci = [
                list(i) for i in (split.op_ci_s, split.overhead_ci_s, split.host_ci_s)
            ]
        else:  # a profile from before the split: the profiled calls' means
            op, rest, wall = profile.op_time_s, profile.host_time_s, profile.wall_s
            op_ci, rest_ci, wall_ci = None, None, None
        share = op / wall if op is not None and wall else None
        rows.append(
            {
                "variant": entry.variant,
                "status": profile.status,
                "ops_per_call": profile.ops_per_call,
                "op_time_s": op,
                "host_time_s": rest,
                "op_ci_s": op_ci,
                "host_ci_s": rest_ci,
                "wall_s": wall,
                "wall_ci_s": wall_ci,
                "median_s": entry.median_s,
                "op_share": share,
                "tracing_count": profile.tracing_count,
                "retraced": profile.retraced,
                "peak_memory_bytes": profile.peak_memory_bytes,
                "first_call": first_call_text(profile.first_call),
                "note": profile.error
                or ("traced again while profiled" if profile.retraced else "")
                or profiled_slower_note(wall, entry.median_s)
                or profile.memory_note
                or "",
            }
        )
    return pd.DataFrame(rows, columns=list(PROFILE_COLUMNS))


def profiled_slower_note(wall_s: float | None, median_s: float | None) -> str:
    """The profiled calls are separate calls, slower under the profiler and on a busy
    machine: say so when it shows, so their split is not read against the timed median."""
    if not wall_s or not median_s or wall_s <= 1.2 * median_s:
        return ""
    return (
        f"the profiled call took {wall_s / median_s:.1f}× the timed median (profiler "
        "overhead, or a busy moment); its split is of the profiled call"
    )


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
            "timed median": [format_seconds(v) for v in frame["median_s"]],
            "call (wall)": [
                with_interval(v, i) for v, i in zip(frame["wall_s"], frame["wall_ci_s"])
            ],
            "in ops": [with_interval(v, i) for v, i in zip(frame["op_time_s"], frame["op_ci_s"])],
            "the rest": [
                with_interval(v, i) for v, i in zip(frame["host_time_s"], frame["host_ci_s"])
            ],
            "share in ops": [format_number(v, ".0%") for v in frame["op_share"]],
            "tracings": [format_number(v, ".0f") for v in frame["tracing_count"]],
            "peak memory": [
                "-" if pd.isna(v) else format_bytes(int(v)) for v in frame["peak_memory_bytes"]
            ],
            "first call (fresh copy)": frame["first_call"],
            "note": frame["note"],
        }
    )
