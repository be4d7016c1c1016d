"""`--profile` on real TensorFlow: known kernels' op counts, a trace that opens, a profiler
failure that keeps the timings, and no change at all to the timed results when it is off."""

from __future__ import annotations

import gzip
import json
import logging
import statistics
import subprocess
import sys

import pytest

import engine.backends.tensorflow.profile_after_samples as profiling
from engine import BenchConfig, run
from engine.backends.tensorflow.warnings import as_note, tensorflow_warnings
from engine.measure.trace_analysis import canonical_op_type
from engine.results.run_result import RunResult
from engine.storage.profiles import profile_root, stored_trace
from tests.conftest import ROOT

B = 200
SMALL = {"matrices": B, "dim": 8, "cols": 6, "warmup": 1, "repeats": 3, "time_budget_s": 30}
NAMES = ("while_loop", "batched_matvec", "numpy")


@pytest.fixture(scope="module")
def profiled():
    return run(BenchConfig(**SMALL, strategies=NAMES, xla=True, profile=True))


def read_trace(path) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def by_variant(result: RunResult) -> dict:
    return {r.variant: r for r in result.results}


def test_known_kernels_report_their_op_counts_and_time_split(profiled):
    found = by_variant(profiled)
    loop, batched = found["while_loop"].profile, found["batched_matvec"].profile
    assert loop.status == "ok" and batched.status == "ok", (loop.error, batched.error)
    assert loop.ops_per_call >= B  # a step per matrix, at least
    assert 1 <= batched.ops_per_call <= 5  # one batched kernel, a handful of steps
    for profile in (loop, batched):
        assert profile.calls == 9 and 0 <= profile.op_time_s <= profile.wall_s
        assert len(profile.op_samples_s) == len(profile.wall_samples_s) == 9
        assert all(
            0 <= op <= wall for op, wall in zip(profile.op_samples_s, profile.wall_samples_s)
        )
        assert profile.op_time_s + profile.host_time_s == pytest.approx(profile.wall_s)
        assert profile.tracing_count == 1 and not profile.retraced
        # The CPU allocator keeps statistics only with oneDNN on (TensorFlow's x86 default):
        # either a real peak, or no number and the reason.
        if profile.peak_memory_bytes is None:
            assert "not reported" in profile.memory_note
        else:
            assert profile.peak_memory_bytes > 0 and profile.memory_note is None
    assert any(op.type == "BatchMatMulV2" for op in batched.top_ops)
    for entry in profiled.to_dict()["results"]:
        if entry["profile"]["status"] == "ok":
            assert entry["profile"]["op_source"].startswith("TensorFlow profiler")
            assert_time_split(entry)
    xla = found["batched_matvec+xla"].profile
    assert xla.status == "ok" and any(op.type == "XLA op" for op in xla.top_ops)
    assert found["numpy"].profile.status == "unsupported"


def test_a_fresh_first_call_is_split_into_tracing_compiling_and_running(profiled):
    found = by_variant(profiled)
    plain, xla = (
        found["batched_matvec"].profile.first_call,
        found["batched_matvec+xla"].profile.first_call,
    )
    for split in (plain, xla):
        parts = split["tracing_s"] + split["compile_s"] + split["execution_s"]
        assert parts == pytest.approx(split["total_s"]) and split["tracing_s"] > 0
    assert plain["compile_s"] == 0 and xla["compile_s"] > 0  # only +xla compiles
    assert found["numpy"].profile.first_call is None


def test_the_trace_file_is_valid_and_names_the_kernels_ops(profiled):
    path = stored_trace(profiled.run_id, "batched_matvec")
    assert path is not None and path.is_relative_to(profile_root())
    trace = read_trace(path)
    names = {e.get("args", {}).get("long_name", "") for e in trace["traceEvents"]}
    kernels = {
        (name, canonical_op_type(kind)[0])
        for name, _, kind in (n.partition(":") for n in names if n)
    }
    assert ("MatVec/MatMul", "BatchMatMulV2") in kernels  # "_MklBatchMatMulV2" with oneDNN
    board = path.parent / "plugins" / "profile"
    assert list(board.glob("*/*.xplane.pb"))  # TensorBoard's profile plugin reads this
    assert stored_trace(profiled.run_id, "../../etc") is None  # never a path from a file


def test_the_profile_round_trips_through_the_json(profiled):
    data = json.loads(profiled.to_json())
    assert RunResult.from_dict(data).to_dict() == data
    assert data["results"][0]["profile"]["status"] == "ok"


def test_a_profiler_failure_keeps_the_timings(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("profiler session already active")

    monkeypatch.setattr(profiling, "profile_kernel", broken)
    result = run(BenchConfig(**SMALL, strategies=("einsum",), profile=True))
    (entry,) = result.results
    assert entry.status == "ok" and entry.correct and len(entry.samples_s) == 3
    assert entry.profile.status == "failed"
    assert "RuntimeError: profiler session already active" in entry.profile.error


def test_profile_off_changes_nothing_in_the_timed_results(profiled):
    plain = run(BenchConfig(**SMALL, strategies=NAMES, xla=True))
    assert all(r.profile is None for r in plain.results)
    assert not (profile_root() / plain.run_id).exists()
    # The same seeded rounds, the same variants, the same number of samples: the profile
    # comes after every sample and adds nothing to any of them.
    assert plain.sampling["rounds"] == profiled.sampling["rounds"]
    assert [(r.variant, len(r.samples_s), r.status) for r in plain.results] == [
        (r.variant, len(r.samples_s), r.status) for r in profiled.results
    ]
    data = json.loads(plain.to_json())
    assert all(entry["profile"] is None for entry in data["results"])


def test_the_cli_copies_the_traces_beside_the_json(tmp_path):
    out = tmp_path / "run.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine",
            "run",
            "--matrices",
            "50",
            "--dim",
            "4",
            "--repeats",
            "2",
            "--warmup",
            "0",
            "--strategy",
            "einsum",
            "--profile",
            "--json",
            str(out),
            "--no-history",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    entry = json.loads(out.read_text())["results"][0]
    assert entry["profile"]["trace_file"] == "run.profiles/einsum/trace.json.gz"
    assert read_trace(tmp_path / entry["profile"]["trace_file"])["traceEvents"]


def test_tensorflows_vectorized_map_fallback_warning_is_kept_as_a_note():
    with tensorflow_warnings() as warned:
        logging.getLogger("tensorflow").warning(
            "Using a while_loop for converting MatrixSolve cause there is no registered "
            "converter for this op."
        )
        logging.getLogger("tensorflow").info("not a warning")
    assert [as_note(m) for m in warned] == [
        "vectorized_map fell back to a while_loop: Using a while_loop for converting "
        "MatrixSolve cause there is no registered converter for this op."
    ]


def test_slow_variants_are_profiled_over_fewer_calls():
    from engine.measure.trace_analysis import profile_calls

    assert profile_calls(None) == 9 and profile_calls(0.001) == 9
    assert profile_calls(0.06) == 5 and profile_calls(1.7) == 1


def test_an_eager_loop_counts_each_op_it_dispatches():
    result = run(
        BenchConfig(**{**SMALL, "matrices": 20}, strategies=("python_loop",), profile=True)
    )
    profile = result.results[0].profile
    assert profile.status == "ok" and profile.ops_per_call >= 20  # an op (or more) per matrix
    assert {op.type for op in profile.top_ops} == {"eager op"}


def test_pytorch_variants_are_profiled_by_pytorch_in_their_own_process(tmp_path):
    """A peer's profile is its own framework's (torch.profiler), taken in its process: the
    batched call is one aten::bmm; the broadcast form a multiply and a sum."""
    pytest.importorskip("torch")
    data = profiled_run(tmp_path, "torch_bmm,torch_broadcast")
    profiles = {entry["variant"]: entry["profile"] for entry in data["results"]}
    for variant, ops in (
        ("torch_bmm", {"aten::bmm"}),
        ("torch_broadcast", {"aten::mul", "aten::sum"}),
    ):
        found = profiles[variant]
        assert found["status"] == "ok", found
        names = {op["name"] for op in found["top_ops"]}
        assert ops <= names, names
        assert found["calls"] >= 1 and found["ops_per_call"] >= len(ops)
        assert 0 < found["op_time_s"] <= found["wall_s"]
        assert found["host_time_s"] == pytest.approx(found["wall_s"] - found["op_time_s"])
        assert "not reported on the CPU" in found["memory_note"]
        assert found["op_source"].startswith("PyTorch profiler")
        assert_time_split(next(e for e in data["results"] if e["variant"] == variant))
    again = RunResult.from_dict(data)  # the profile reads back, the split derived again
    assert again.to_dict()["results"][0]["time_split"] == data["results"][0]["time_split"]


def assert_time_split(entry: dict) -> None:
    """Host time, op time and their difference, each inside its 95% interval, the op time
    never above the host time."""
    split, profile = entry["time_split"], entry["profile"]
    assert split["host_s"] == statistics.median(profile["wall_samples_s"])
    assert split["calls"].startswith("the profiled calls")
    for name in ("host", "op", "overhead"):
        low, high = split[f"{name}_ci_s"]
        assert 0 <= low <= split[f"{name}_s"] <= high, (name, split)
    assert 0 <= split["op_s"] <= split["host_s"]
    assert split["count"] == profile["calls"]


def test_jax_variants_are_profiled_by_jax_in_their_own_process(tmp_path):
    """A JAX variant's profile is `jax.profiler`'s, read in its process: XLA's ops (whatever
    this XLA names them: a `dot`, a fusion) inside each call, the split with its intervals."""
    pytest.importorskip("jax")
    data = profiled_run(tmp_path, "jax_vmap,jax_broadcast")
    for entry in data["results"]:
        found = entry["profile"]
        assert found["status"] == "ok", found
        assert found["top_ops"] and all(op["type"] == "XLA op" for op in found["top_ops"])
        assert found["ops_per_call"] >= 1 and found["calls"] >= 1
        assert 0 < found["op_time_s"] <= found["wall_s"]
        assert found["op_source"] == "JAX profiler: XLA's ops on its CPU threads"
        assert_time_split(entry)


def profiled_run(tmp_path, strategies: str) -> dict:
    """A small `run --profile` of `strategies` in a fresh process: its results file."""
    out = tmp_path / "run.json"
    command = [sys.executable, "-m", "engine", "run", f"--strategy={strategies}"]
    command += ["--matrices=64", "--dim=8", "--repeats=5", "--time-budget=2", "--profile"]
    done = subprocess.run(
        [*command, f"--json={out}", "--no-history", "--progress=none"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())
