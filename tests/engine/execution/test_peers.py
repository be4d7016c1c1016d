"""The peers (JAX, PyTorch): correct on every shape and dtype, each in a process of its own,
a failing or missing framework costing only its own variants, merged into one valid run."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import engine.catalogue.catalog as catalog
import engine.catalogue.strategy_info as info_module
from engine.catalogue.catalog import TORCH_INSTALL_HINT, strategy_info
from engine.execution.peers import parent as peers
from engine.execution.peers import process as peer_process
from engine.execution.peers.parent import peer_threads, process_words, run_peers
from engine.execution.peers.process import spawn_peer
from engine.measure.uncertainty import NoiseFloor, winner_and_ties
from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # real engine processes

FIXTURES = ROOT / "tests" / "fixtures"
PROBE = Path(__file__).with_name("peer_probe.py")
SMALL = {"matrices": 30, "dim": 5, "cols": 4, "warmup": 1, "repeats": 3, "time_budget_s": 5}
PEERS = ("jax_vmap", "jax_einsum", "torch_bmm", "torch_einsum")


def needs(framework: str) -> None:
    if not strategy_info(f"{framework}_einsum").installed:
        pytest.skip(f"{framework} is not installed (requirements-peers.txt)")


@pytest.mark.parametrize("framework", ["jax", "torch"])
def test_every_peer_kernel_is_correct_on_every_shape_and_dtype(framework):
    needs(framework)
    done = subprocess.run(
        [sys.executable, str(PROBE), framework],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    cases = json.loads(done.stdout)
    kernels = {c["name"] for c in cases}
    assert kernels == {
        s.name for s in catalog.strategies() if s.framework == framework and not s.build
    }
    assert {c["dtype"] for c in cases} == {"float32", "float16", "bfloat16", "float64"}
    assert any(c["shape"][0] == 1 for c in cases)  # B = 1
    assert any(c["shape"][1] != c["shape"][2] for c in cases)  # rectangular
    for case in cases:
        assert case["inputs_bitwise"], case  # the engine's arrays, bit for bit
        assert case.get("correct") or case.get("unsupported"), case


def peer_config(*names, **extra):
    return BenchConfig(**{**SMALL, **extra}, strategies=names)


def events_and_outcome(config, **kwargs):
    events = []
    outcome = run_peers(
        config,
        [(name, "") for name in config.strategies],
        copies=kwargs.pop("copies", 1),
        device_kind="CPU",
        emit=events.append,
    )
    return events, outcome


def test_peers_run_in_their_own_processes_and_report_threads_and_versions():
    needs("jax")
    needs("torch")
    config = peer_config(*PEERS, threads=1, cache="cold")
    events, outcome = events_and_outcome(config, copies=2)
    assert [r.variant for r in outcome.results.values()] == list(PEERS)
    for result in outcome.results.values():
        assert result.status == "ok", result.error
        assert result.correct and len(result.samples_s) == 3
        assert result.first_call_s is not None and result.calls_per_sample >= 1
    assert set(outcome.environments) == {"jax", "torch"}
    for environment in outcome.environments.values():
        assert environment["version"] and environment["threads"] == 1
        assert environment["device_kind"] == "CPU"
        assert environment["process"]["wall_s"] > 0
    assert set(outcome.sampling) == {"jax", "torch"}
    names = {type(e).__name__ for e in events}
    assert {"Phase", "VariantStarted", "Sample"} <= names


def test_one_thread_points_run_in_a_process_held_to_one_core():
    """The thread axis: the same point on two threads and, in a process of its own, on one;
    both measured and checked, the one-thread process reporting one thread."""
    needs("torch")
    config = peer_config("torch_bmm", "numpy_einsum", threads=2)
    variants = [("torch_bmm", ""), ("torch_bmm", "1thread"), ("numpy_einsum", "1thread")]
    outcome = run_peers(config, variants, copies=1, device_kind="CPU", emit=lambda e: None)
    assert sorted(outcome.results) == sorted(variants)  # numpy_einsum plain: TF's process
    for result in outcome.results.values():
        assert result.status == "ok" and result.correct, result.error
        assert len(result.samples_s) == 3
    assert outcome.results[("torch_bmm", "1thread")].variant == "torch_bmm+1thread"
    assert set(outcome.environments) == {"torch", "torch@1thread", "numpy@1thread"}
    assert outcome.environments["torch"]["threads"] == 2
    assert outcome.environments["torch@1thread"]["threads"] == 1
    assert outcome.environments["numpy@1thread"]["threads"] == 1


def test_every_framework_gets_the_same_thread_count():
    assert peer_threads(BenchConfig(threads=3)) == 3
    assert peer_threads(BenchConfig()) >= 1


def test_a_missing_framework_is_unsupported_with_the_install_hint(monkeypatch):
    real = info_module.module_file
    monkeypatch.setattr(info_module, "module_file", lambda m: None if m == "torch" else real(m))
    config = peer_config("torch_bmm", "numpy")
    _, outcome = events_and_outcome(config)
    result = outcome.results[("torch_bmm", "")]
    assert result.status == "unsupported"
    assert "torch is not installed" in result.error and TORCH_INSTALL_HINT in result.error
    assert "torch_bmm" not in BenchConfig.from_raw({"strategies": "all"}).strategies


def test_a_broken_install_is_unsupported_with_the_install_hint(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(FIXTURES / "broken_torch"))
    _, outcome = events_and_outcome(peer_config("torch_einsum"))
    result = outcome.results[("torch_einsum", "")]
    assert result.status == "unsupported", result.error
    assert "libtorch_cpu.so" in result.error and TORCH_INSTALL_HINT in result.error


def test_a_crashing_peer_process_fails_only_its_own_variants(monkeypatch):
    needs("torch")
    monkeypatch.setenv("PYTHONPATH", str(FIXTURES / "crashing_jax"))
    _, outcome = events_and_outcome(peer_config("jax_vmap", "jax_einsum", "torch_bmm"))
    for name in ("jax_vmap", "jax_einsum"):
        result = outcome.results[(name, "")]
        assert result.status == "failed" and "ended by SIGABRT" in result.error, result.error
    assert outcome.results[("torch_bmm", "")].status == "ok"


def test_a_hanging_peer_is_stopped_at_its_timeout():
    request = {"framework": "jax"}  # never read: the process is stopped first
    command = [sys.executable, "-c", "import time; time.sleep(60)"]
    payload, problem = spawn_peer(request, lambda e: None, timeout_s=0.5, command=command)
    assert payload is None and "timed out after" in problem


def test_a_whole_run_merges_the_peers_into_one_valid_json(tmp_path):
    needs("jax")
    out = tmp_path / "run.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine",
            "run",
            "--matrices",
            "30",
            "--dim",
            "5",
            "--repeats",
            "3",
            "--warmup",
            "1",
            "--strategy",
            "einsum,jax_einsum",
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
    data = json.loads(out.read_text())
    assert RunResult.from_dict(data).to_dict() == data
    assert [r["variant"] for r in data["results"]] == ["einsum", "jax_einsum"]
    assert all(r["status"] == "ok" and r["correct"] for r in data["results"])
    jax_env = data["environment"]["frameworks"]["jax"]
    assert jax_env["version"] and jax_env["threads"] >= 1
    assert data["sampling"]["variants"] == ["einsum"]
    assert data["sampling"]["peers"]["jax"]["variants"] == ["jax_einsum"]
    assert "jax_einsum" in done.stdout  # the summary table shows the peer


def test_variants_from_different_processes_carry_the_between_process_floor():
    samples = {"a": [1.0, 1.01, 0.99, 1.0, 1.02], "b": [1.2, 1.21, 1.19, 1.2, 1.22]}
    floor = NoiseFloor(between_run_log_sd=0.3, ratio_log_sd=0.01)
    together = winner_and_ties(samples, floor)
    apart = winner_and_ties(samples, floor, processes={"a": "", "b": "jax"})
    assert together.ratios["b"].low > 1.05 and not together.tied_with  # same process: a real gap
    assert apart.tied_with == ("b",)  # a fresh process could move a median this much
    assert apart.ratios["b"].ratio == pytest.approx(together.ratios["b"].ratio)


@pytest.mark.parametrize("fixture", ["raising_jax", "exiting_jax"])
def test_a_broken_jax_fails_only_the_jax_variants_of_a_whole_run(fixture, tmp_path):
    """TensorFlow imports jax itself: a jax that raises, or ends the process, on import must
    cost only the JAX variants, never TensorFlow's and NumPy's results."""
    out = tmp_path / "run.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine",
            "run",
            "--matrices",
            "20",
            "--dim",
            "4",
            "--strategy",
            "einsum,numpy,jax_vmap",
            "--repeats",
            "3",
            "--no-history",
            "--progress",
            "none",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(FIXTURES / fixture), str(ROOT)]),
            "TF_CPP_MIN_LOG_LEVEL": "3",
        },
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = {r["variant"]: r for r in json.loads(out.read_text())["results"]}
    assert found["einsum"]["correct"] and found["numpy"]["correct"]
    assert found["jax_vmap"]["status"] in ("failed", "unsupported"), found["jax_vmap"]
    assert found["jax_vmap"]["error"]


def test_a_failure_is_told_of_the_process_it_happened_in():
    """A user kernel that exits ends its own process: the message names the kernel, not the
    framework it was written with."""
    assert process_words("numpy:mine") == "the process of kernel mine"
    assert process_words("jax") == "the jax process"
    assert process_words("torch@1thread") == "the torch process"


def test_a_native_stack_frame_is_never_given_as_the_reason():
    """An abort's last line ("@ 0x7f48… PyObject_Vectorcall") once was the whole message."""
    from engine.execution.peers.process import last_words

    assert last_words("@     0x7f4501ea71f5  (unknown)") == "no message"
    assert last_words("  @ 0x7f48aa PyObject_Vectorcall") == "no message"
    assert last_words("RuntimeError: boom") == "RuntimeError: boom"


def test_a_process_of_a_jax_cluster_that_dies_says_where_it_was_joined(monkeypatch):
    from engine.execution.peers.process import cluster_hint

    monkeypatch.delenv("JAX_COORDINATOR_ADDRESS", raising=False)
    monkeypatch.delenv("MATVEC_JAX_PROCESSES", raising=False)
    assert cluster_hint() == ""
    monkeypatch.setenv("JAX_COORDINATOR_ADDRESS", "10.0.0.7:29871")
    monkeypatch.setenv("MATVEC_JAX_PROCESSES", "2")
    monkeypatch.setenv("MATVEC_JAX_PROCESS_ID", "1")
    hint = cluster_hint()
    assert "process 1 of 2 of the JAX run coordinated at 10.0.0.7:29871" in hint
    assert "MATVEC_JAX_PROCESSES" in hint


def test_the_call_limit_grows_with_the_problem_from_the_kernels_floor(monkeypatch):
    from engine.execution.peers.process import call_limit_for

    monkeypatch.delenv("MATVEC_KERNEL_CALL_LIMIT_S", raising=False)
    assert call_limit_for(BenchConfig(matrices=20, dim=4)) == 120.0
    assert call_limit_for(BenchConfig(matrices=3000, dim=100)) == pytest.approx(121.2)  # 121 MB
    huge = BenchConfig(matrices=100_000, dim=100)  # 4 GB of inputs: read at 1 GB/s, x1000
    assert call_limit_for(huge) > 3000
    monkeypatch.setenv("MATVEC_KERNEL_CALL_LIMIT_S", "5")
    assert call_limit_for(BenchConfig(matrices=20, dim=4)) == 5.0


HANGS_IN_A_CALL = """
import json, sys, time
token = json.loads(sys.stdin.readline())["token"]
print(json.dumps({"event": "variant_start", "variant": "torch_bmm", "token": token}), flush=True)
time.sleep(600)
"""


def test_a_built_in_call_that_never_returns_is_stopped_at_the_call_limit(monkeypatch):
    """A `torch.bmm` that never returns was stopped only by the whole process's limit (363 s
    for a 20x4x4 problem): every framework's process now has the kernels' call limit."""
    needs("torch")  # the variant must be installed for its process to start
    monkeypatch.setenv("MATVEC_KERNEL_CALL_LIMIT_S", "1")
    monkeypatch.setattr(peer_process, "SILENCE_GRACE_S", 0.5)
    monkeypatch.setattr(peer_process, "WORKER_COMMAND", (sys.executable, "-c", HANGS_IN_A_CALL))
    config = BenchConfig(matrices=20, dim=4, strategies=("torch_bmm",), time_budget_s=600)
    outcome = peers.run_peers(
        config, [("torch_bmm", "")], copies=1, device_kind="CPU", emit=lambda e: None
    )
    result = outcome.results[("torch_bmm", "")]
    assert result.status == "failed"
    assert "did not return from a call within 1 s and was ended from outside" in result.error
