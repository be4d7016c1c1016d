"""The profile reader on synthetic traces with known answers."""

from __future__ import annotations

import pytest

from engine.measure.trace_analysis import EXECUTOR_STEP, STEP_NAME, summarize

PY, COMPUTE_A, COMPUTE_B = 1, 2, 3


def meta(tid, name):
    return {"ph": "M", "name": "thread_name", "pid": 7, "tid": tid, "args": {"name": name}}


def event(name, ts, dur, tid=COMPUTE_A, pid=7, **args):
    return {"ph": "X", "name": name, "ts": ts, "dur": dur, "pid": pid, "tid": tid, "args": args}


def step(index, ts, dur):
    return event(f"{STEP_NAME} {index}", ts, dur, tid=PY, step_num=str(index))


BASE = [meta(PY, "python"), meta(COMPUTE_A, "tf_Compute/1"), meta(COMPUTE_B, "tf_Compute/2")]


def test_ops_and_their_time_are_counted_inside_the_steps_only():
    events = [
        *BASE,
        step(0, 0, 100),
        step(1, 200, 100),
        event("BatchMatMulV2", 10, 40, long_name="MatVec/MatMul:BatchMatMulV2"),
        event("BatchMatMulV2", 210, 40, long_name="MatVec/MatMul:BatchMatMulV2"),
        event("BatchMatMulV2", 500, 40, long_name="outside:BatchMatMulV2"),  # between calls
        event(
            "batched_matvec", 5, 90, tid=PY, tf_function_call="notTraced-nonXla", tracing_count="1"
        ),
    ]
    summary = summarize(events)
    assert summary.calls == 2 and summary.ops_per_call == 1
    assert summary.op_time_s == pytest.approx(40e-6) and summary.wall_s == pytest.approx(100e-6)
    assert summary.host_time_s == pytest.approx(60e-6)
    assert summary.tracing_count == 1 and not summary.retraced
    (op,) = summary.top_ops
    assert (op.name, op.type, op.count_per_call) == ("MatVec/MatMul", "BatchMatMulV2", 1)


def test_two_threads_of_one_kernel_are_not_counted_twice_and_nesting_is_self_time():
    events = [
        *BASE,
        step(0, 0, 100),
        event(EXECUTOR_STEP, 0, 60, tid=COMPUTE_A),
        event(EXECUTOR_STEP, 10, 20, tid=COMPUTE_A),  # inline, nested in the first
        event(EXECUTOR_STEP, 30, 50, tid=COMPUTE_B),  # overlaps on another thread
    ]
    summary = summarize(events)
    assert summary.ops_per_call == 3
    assert summary.op_time_s == pytest.approx(80e-6)  # union of [0, 60] and [30, 80]
    assert summary.op_time_s <= summary.wall_s
    (inline,) = summary.top_ops
    assert inline.type == "executor step"
    assert inline.self_s_per_call == pytest.approx(110e-6)  # 40 + 20 + 50: nesting once


def test_xla_ops_count_on_the_python_thread_but_dispatch_does_not():
    events = [
        *BASE,
        step(0, 0, 100),
        event("__inference_f_1", 5, 80, tid=PY, long_name="__inference_f_1:__inference_f_1"),
        event("dot", 20, 30, tid=PY, hlo_module="a_inference_f_1"),
        event("EagerExecute", 2, 90, tid=PY),
    ]
    summary = summarize(events)
    assert summary.ops_per_call == 1 and summary.top_ops[0].type == "XLA op"
    assert summary.op_time_s == pytest.approx(30e-6)


def test_on_a_device_the_op_time_is_the_devices_busy_time():
    device = {"ph": "M", "name": "process_name", "pid": 9, "args": {"name": "/device:GPU:0"}}
    events = [
        *BASE,
        device,
        step(0, 0, 100),
        event("BatchMatMulV2", 10, 5, long_name="MatVec/MatMul:BatchMatMulV2"),  # the launch
        event("gemv_kernel", 20, 50, pid=9, tid=1),  # the kernel on the GPU
    ]
    summary = summarize(events)
    assert summary.ops_per_call == 1 and summary.op_time_s == pytest.approx(50e-6)


def test_a_retrace_is_seen_and_a_trace_without_steps_is_refused():
    events = [
        *BASE,
        step(0, 0, 100),
        event("f", 0, 90, tid=PY, tf_function_call="traced-nonXla", tracing_count="2"),
    ]
    summary = summarize(events)
    assert summary.retraced and summary.tracing_count == 2 and summary.ops_per_call == 0
    with pytest.raises(ValueError, match="no 'matvec_call' steps"):
        summarize(BASE)


def test_a_first_call_splits_into_tracing_compiling_and_the_rest():
    from engine.measure.trace_analysis import FIRST_CALL_STEP, first_call_split

    events = [
        *BASE,
        event(f"{FIRST_CALL_STEP} 0", 0, 1000, tid=PY, step_num="0"),
        event("tf.function-graph_building", 10, 200, tid=PY),
        event("CpuCompiler::RunHloPasses", 300, 100, tid=PY),
        event("CpuCompiler::RunBackend", 350, 450, tid=COMPUTE_A),  # overlaps the passes
        event("CpuCompiler::RunBackend", 2000, 50, tid=PY),  # after the call: not counted
    ]
    split = first_call_split(events)
    assert split.total_s == pytest.approx(1000e-6) and split.tracing_s == pytest.approx(200e-6)
    assert split.compile_s == pytest.approx(500e-6)  # the union of [300, 400] and [350, 800]
    assert split.execution_s == pytest.approx(300e-6)
    with pytest.raises(ValueError, match="first_call"):
        first_call_split(BASE)


@pytest.mark.parametrize(
    "kernel", ["_MklBatchMatMulV2", "_MklNativeBatchMatMulV2", "_MklFusedBatchMatMulV2"]
)
def test_onednn_kernels_count_as_their_op_and_say_so(kernel):
    """With oneDNN on (TensorFlow's x86 default), the same op runs as "_Mkl..." kernels."""
    events = [
        *BASE,
        step(0, 0, 100),
        event(kernel, 10, 40, long_name=f"MatVec/MatMul:{kernel}"),
    ]
    (op,) = summarize(events).top_ops
    assert (op.name, op.type) == ("MatVec/MatMul [oneDNN]", "BatchMatMulV2")


def test_a_plain_op_name_is_left_alone():
    from engine.measure.trace_analysis import canonical_op_type

    assert canonical_op_type("BatchMatMulV2") == ("BatchMatMulV2", False)
    assert canonical_op_type("_Mkl") == ("_Mkl", False)
