"""What a TensorFlow profile says about one variant: ops per call, time in ops vs the rest.

Input: the trace viewer events xprof converts a captured XSpace into (Chrome trace format),
over `calls` calls, each inside a step marker named `STEP_NAME` on the Python thread.

- An **op event** is a TensorFlow kernel the executor ran: an event with a `long_name`
  argument ("MatVec/MatMul:BatchMatMulV2"; with oneDNN on, "MatVec/MatMul:_MklBatchMatMulV2",
  the same op type, its name marked "[oneDNN]"), or an `ExecutorState::Process` step — the
  executor runs inexpensive ops (the body of a `while_loop`) inline and records one such
  step for each, without a kernel event of their own.
- **Op time** is the time during which at least one op event was running on any of
  TensorFlow's compute threads, inside the step windows (a union of intervals, so two
  threads of one kernel are not counted twice and op time never exceeds the wall time).
- An **eager op** is one op Python dispatched by itself (`EagerLocalExecute: MatMul`), on the
  Python thread; its time includes TensorFlow's C++ dispatch of that op, not the Python around
  it. Function calls (`__inference_*`) are not ops: their contents are.
- An **XLA op** is an HLO instruction of a compiled cluster (an event with an `hlo_module`
  argument), wherever it runs: XLA on the CPU runs its program on the calling thread.
- On a GPU or TPU the device tracer adds processes named `/device:GPU:n` / `/device:TPU:n`
  whose events are the device's kernels: op time is then the time the device was busy.
- **Host time** is the rest of the wall time: Python, dispatch, the executor's scheduling and
  idle waiting.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

STEP_NAME = "matvec_call"
# Enough profiled calls for an interval of their median (nine: its order statistics' 95%
# reach is the 2nd to the 8th), fewer for slow variants: a profile's size grows with its ops.
PROFILE_CALLS = 9
PROFILE_BUDGET_S = 0.3
EXECUTOR_STEP = "ExecutorState::Process"
TOP_OPS = 8
HOST_SOURCE = "TensorFlow profiler: the time some op ran on a compute thread"
DEVICE_SOURCE = "TensorFlow profiler (device tracer): the time the device was busy"


def profile_calls(median_s: float | None) -> int:
    """How many calls a profile takes, in any framework: a few, fewer for a slow variant (one
    call of a Python loop is 10^5 events)."""
    if not median_s:
        return PROFILE_CALLS
    return max(1, min(PROFILE_CALLS, int(PROFILE_BUDGET_S / median_s)))


@dataclass(frozen=True)
class OpSummary:
    name: str
    type: str
    count_per_call: float
    self_s_per_call: float


@dataclass(frozen=True)
class TraceSummary:
    calls: int
    ops_per_call: float
    op_time_s: float  # per call
    host_time_s: float  # per call
    wall_s: float  # per call, from the step markers
    top_ops: tuple[OpSummary, ...]
    tracing_count: int | None  # the tf.function's tracing count, as the profiler saw it
    retraced: bool  # a profiled call traced the function again
    # Each profiled call's op time and wall time, in the order called: the intervals of
    # `measure/host_and_device.py` are over these.
    op_samples_s: tuple[float, ...] = ()
    wall_samples_s: tuple[float, ...] = ()
    op_source: str = ""  # which time `op_time_s` is: the device's, or ops on host threads


def _device_processes(events: Iterable[Mapping[str, Any]]) -> set[Any]:
    return {
        e.get("pid")
        for e in events
        if e.get("ph") == "M"
        and e.get("name") == "process_name"
        and str(e.get("args", {}).get("name", "")).startswith(("/device:GPU", "/device:TPU"))
    }


def _threads(events: Iterable[Mapping[str, Any]]) -> dict[tuple[Any, Any], str]:
    return {
        (e.get("pid"), e.get("tid")): str(e.get("args", {}).get("name", ""))
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name"
    }


def _union_length(intervals: list[tuple[float, float]]) -> float:
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop <= end:
            continue
        total += stop - max(start, end)
        end = stop
    return total


def _span(event: Mapping[str, Any]) -> tuple[float, float]:
    return float(event["ts"]), float(event["ts"]) + float(event["dur"])


def _clip(
    start: float, stop: float, windows: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    return [(max(start, a), min(stop, b)) for a, b in windows if min(stop, b) > max(start, a)]


EAGER_PREFIX = "EagerLocalExecute: "
# oneDNN (on by default on x86 CPUs) runs some ops through kernels of its own, named with these
# prefixes ("_MklBatchMatMulV2"): the same op, so the type is the op's and the name says oneDNN.
ONEDNN_PREFIXES = ("_MklNative", "_MklFused", "_Mkl")
ONEDNN_MARK = " [oneDNN]"


def canonical_op_type(kind: str) -> tuple[str, bool]:
    """The op type without oneDNN's kernel prefix, and whether it had one."""
    for prefix in ONEDNN_PREFIXES:
        if kind.startswith(prefix) and len(kind) > len(prefix):
            return kind[len(prefix) :], True
    return kind, False


NOT_OPS = ("__inference", "__forward", "__backward", "SyncDevice")  # function calls, our sync
PYTHON_THREAD_OPS = ("XLA op", "eager op")


def _op_identity(event: Mapping[str, Any]) -> tuple[str, str] | None:
    name = str(event.get("name", ""))
    if "hlo_module" in event.get("args", {}):
        return name, "XLA op"
    if name.startswith(EAGER_PREFIX):
        op = name[len(EAGER_PREFIX) :]
        return None if op.startswith(NOT_OPS) else (op, "eager op")
    long_name = event.get("args", {}).get("long_name")
    if long_name:
        name, _, kind = str(long_name).partition(":")
        kind, by_onednn = canonical_op_type(kind or str(event.get("name", "")))
        return (name + ONEDNN_MARK if by_onednn else name), kind
    if event.get("name") == EXECUTOR_STEP:
        return "(inline ops)", "executor step"
    return None


def _self_times(events: list[Mapping[str, Any]]) -> dict[int, float]:
    """Each event's duration minus its directly nested children's, per thread."""
    own: dict[int, float] = {}
    by_thread: dict[tuple[Any, Any], list[Mapping[str, Any]]] = defaultdict(list)
    for event in events:
        by_thread[(event.get("pid"), event.get("tid"))].append(event)
    for thread_events in by_thread.values():
        stack: list[Mapping[str, Any]] = []
        for event in sorted(thread_events, key=lambda e: (e["ts"], -e["dur"])):
            start = float(event["ts"])
            while stack and float(stack[-1]["ts"]) + float(stack[-1]["dur"]) <= start:
                stack.pop()
            own[id(event)] = float(event["dur"])
            if stack:  # only the part inside the parent is the parent's nested time
                parent_end = float(stack[-1]["ts"]) + float(stack[-1]["dur"])
                own[id(stack[-1])] -= min(parent_end, start + float(event["dur"])) - start
            stack.append(event)
    return own


def _top_ops(ops: list[Mapping[str, Any]], calls: int) -> tuple[OpSummary, ...]:
    """The ops that took the most self time, per call, with how often each ran per call."""
    own = _self_times(ops)
    counts: Counter[tuple[str, str]] = Counter()
    self_us: Counter[tuple[str, str]] = Counter()
    for event in ops:
        key = _op_identity(event)
        assert key is not None
        counts[key] += 1
        self_us[key] += max(0.0, own[id(event)])
    return tuple(
        OpSummary(name, kind, counts[(name, kind)] / calls, self_us[(name, kind)] / calls / 1e6)
        for name, kind in sorted(counts, key=lambda k: -self_us[k])[:TOP_OPS]
    )


def summarize(events: list[Mapping[str, Any]]) -> TraceSummary:
    """The profile of the calls marked by `STEP_NAME` steps; raises ValueError without any."""
    threads = _threads(events)
    complete = [e for e in events if e.get("ph") == "X" and "dur" in e and "ts" in e]
    steps = [
        e
        for e in complete
        if str(e.get("name", "")).startswith(STEP_NAME) and "step_num" in e.get("args", {})
    ]
    if not steps:
        raise ValueError(f"the profile has no {STEP_NAME!r} steps")
    windows = sorted(_span(e) for e in steps)
    calls = len(steps)
    wall_us = sum(b - a for a, b in windows)

    ops = []
    for event in complete:
        where = threads.get((event.get("pid"), event.get("tid")), "")
        identity = _op_identity(event)
        # On the Python thread only eager ops and XLA's own ops count: the rest there is
        # dispatch (and the XLA launch op, which contains the XLA ops).
        if identity is None or (where == "python" and identity[1] not in PYTHON_THREAD_OPS):
            continue
        if _clip(float(event["ts"]), float(event["ts"]) + float(event["dur"]), windows):
            ops.append(event)
    devices = _device_processes(events)
    on_device = [e for e in complete if e.get("pid") in devices]
    busy = on_device or ops
    per_call_us = [  # the windows never overlap: each call's union is its own
        min(_union_length([part for e in busy for part in _clip(*_span(e), [w])]), w[1] - w[0])
        for w in windows
    ]
    op_us = sum(per_call_us)

    top = _top_ops(ops, calls)
    tracing = [e.get("args", {}) for e in complete if "tf_function_call" in e.get("args", {})]
    counts_seen = [
        int(a["tracing_count"]) for a in tracing if str(a.get("tracing_count", "")).isdigit()
    ]
    retraced = any(str(a["tf_function_call"]).startswith("traced") for a in tracing)
    return TraceSummary(
        calls=calls,
        ops_per_call=len(ops) / calls,
        op_time_s=op_us / calls / 1e6,
        host_time_s=max(0.0, wall_us - op_us) / calls / 1e6,
        wall_s=wall_us / calls / 1e6,
        top_ops=top,
        tracing_count=max(counts_seen) if counts_seen else None,
        retraced=retraced,
        op_samples_s=tuple(us / 1e6 for us in per_call_us),
        wall_samples_s=tuple((b - a) / 1e6 for a, b in windows),
        op_source=DEVICE_SOURCE if on_device else HOST_SOURCE,
    )


FIRST_CALL_STEP = "matvec_first_call"
TRACING_EVENT = "tf.function-graph_building"
COMPILE_MARK = "Compiler::Run"  # CpuCompiler::RunBackend, GpuCompiler::RunHloPasses, ...


@dataclass(frozen=True)
class FirstCallSplit:
    total_s: float
    tracing_s: float  # Python -> graph (tf.function tracing)
    compile_s: float  # XLA compilation (+xla variants)
    execution_s: float  # the rest: running it, dispatch included


def first_call_split(events: list[Mapping[str, Any]]) -> FirstCallSplit:
    """A fresh function's first call, marked by a `FIRST_CALL_STEP` step, taken apart."""
    complete = [e for e in events if e.get("ph") == "X" and "dur" in e and "ts" in e]
    steps = [e for e in complete if str(e.get("name", "")).startswith(FIRST_CALL_STEP)]
    if not steps:
        raise ValueError(f"the profile has no {FIRST_CALL_STEP!r} step")
    window = [(float(steps[0]["ts"]), float(steps[0]["ts"]) + float(steps[0]["dur"]))]

    def covered(match: Any) -> float:
        parts = [
            part
            for e in complete
            if match(str(e.get("name", "")))
            for part in _clip(float(e["ts"]), float(e["ts"]) + float(e["dur"]), window)
        ]
        return _union_length(parts)

    total = window[0][1] - window[0][0]
    tracing = covered(lambda name: name == TRACING_EVENT)
    compiling = covered(lambda name: COMPILE_MARK in name)
    rest = max(0.0, total - tracing - compiling)
    return FirstCallSplit(total / 1e6, tracing / 1e6, compiling / 1e6, rest / 1e6)
