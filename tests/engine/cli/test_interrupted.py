"""A run interrupted keeps what was measured: the JSON and the history get every variant with
the samples it had (marked interrupted) or the result its finished process reported, the rest
say they were not reached, and the process exits 130 as an interrupted command does."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.results.run_result import RunResult
from engine.storage.history import History
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "user_kernels"

pytestmark = pytest.mark.slow  # a real engine process


def interrupted_run(
    tmp_path,
    args: list[str],
    ready: Callable[[dict], bool],
    outputs: list[str] | None = None,
    **env: str,
) -> tuple[int, str, Path]:
    """`python -m engine run ARGS --progress=jsonl`, sent SIGINT at the first event for which
    `ready` is true; returns its exit code, its stderr and the history it wrote to. `outputs`:
    the output flags (default: a JSON file and a history in tmp_path)."""
    out, history = tmp_path / "run.json", tmp_path / "h.sqlite3"
    command = [sys.executable, "-m", "engine", "run", *args, "--progress=jsonl"]
    command += [f"--json={out}", f"--history={history}"] if outputs is None else outputs
    environment = {
        **os.environ,
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "MATVEC_QUEUE_DIR": str(tmp_path),
        **env,
    }
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    try:
        for line in process.stdout:
            if ready(json.loads(line)):
                break
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
    return process.returncode, stderr, history


def test_sigint_while_sampling_saves_the_samples_taken_and_exits_130(tmp_path):
    sampled: dict[str, int] = {}

    def a_few_samples_of_each(event: dict) -> bool:
        if event["event"] == "sample":
            sampled[event["variant"]] = event["sample"]
        return len(sampled) == 2 and min(sampled.values()) >= 3

    args = ["--strategy=numpy,einsum", "--matrices=40", "--dim=6", "--sampling=fixed"]
    args += ["--repeats=100000", "--time-budget=600"]
    code, stderr, history = interrupted_run(tmp_path, args, a_few_samples_of_each)
    assert code == 130, stderr[-2000:]
    assert "interrupted; what was measured was saved to" in stderr
    run = RunResult.from_json((tmp_path / "run.json").read_text())
    assert sorted(r.variant for r in run.results) == ["einsum", "numpy"]
    for entry in run.results:
        assert entry.status == "ok" and entry.correct and entry.stop_reason == "interrupted"
        assert len(entry.samples_s) >= 3
    assert any(
        w.startswith("interrupted (SIGINT): 0 of 2 variants had finished") for w in run.warnings
    )
    assert History(history).get_run(run.run_id) is not None


def test_sigint_while_a_peer_process_measures_keeps_the_processes_that_finished(tmp_path):
    """`mine` finishes in its own process, `stuck` never returns from its first call: the
    interrupt ends stuck's process, keeps mine's result, and skips what was not reached."""
    kernels = [f"--kernel={FIXTURES / 'numpy_kernels.py'}:{name}" for name in ("mine", "stuck")]
    args = ["--strategy=numpy,einsum", *kernels, "--matrices=40", "--dim=6", "--repeats=5"]
    code, stderr, history = interrupted_run(
        tmp_path,
        [*args, "--time-budget=2"],
        lambda event: event["event"] == "variant_start" and event["variant"] == "stuck",
        MATVEC_KERNEL_CALL_LIMIT_S="600",  # stuck's first call is never ended by its limit
    )
    assert code == 130, stderr[-2000:]
    run = RunResult.from_json((tmp_path / "run.json").read_text())
    found = {r.variant: r for r in run.results}
    assert found["mine"].status == "ok" and found["mine"].correct
    assert found["mine"].stop_reason not in (None, "interrupted")
    assert found["stuck"].status == "skipped"
    assert found["stuck"].error == "the run was interrupted while the numpy process measured it"
    for never in ("numpy", "einsum"):  # TensorFlow's process had not begun them
        assert found[never].status == "skipped"
        assert found[never].error == "the run was interrupted before this variant started"
    assert any(
        w.startswith("interrupted (SIGINT): 1 of 4 variants had finished") for w in run.warnings
    )
    assert History(history).get_run(run.run_id) is not None


def test_an_interrupted_run_that_saves_nowhere_says_so(tmp_path):
    """It once said "what was measured was saved" with --no-history and no --json."""
    args = ["--strategy=numpy", "--matrices=40", "--dim=6", "--sampling=fixed"]
    args += ["--repeats=100000", "--time-budget=600"]
    code, stderr, _ = interrupted_run(
        tmp_path, args, lambda event: event["event"] == "sample", outputs=["--no-history"]
    )
    assert code == 130, stderr[-2000:]
    assert "what was measured was not saved (--no-history, and no --json)" in stderr
    assert "was saved to" not in stderr


def test_an_interrupted_sweep_writes_and_names_the_points_it_kept(tmp_path):
    """It once kept its finished points in the history but said only "error: interrupted"
    and wrote no JSON."""
    out, history = tmp_path / "sweep.json", tmp_path / "h.sqlite3"
    command = [sys.executable, "-m", "engine", "sweep", "--matrices=8,16", "--dim=4"]
    command += ["--strategy=numpy", "--sampling=fixed", "--repeats=100000", "--time-budget=1"]
    command += ["--progress=jsonl", f"--json={out}", f"--history={history}"]
    env = {**os.environ, "MATVEC_QUEUE_DIR": str(tmp_path)}
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        for line in process.stdout:
            event = json.loads(line)
            if event["event"] == "sweep_point" and event["index"] == 1:
                break  # the first point is stored; the second has begun
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, stderr[-2000:]
    assert "interrupted; 1 of 2 points finished and are kept in the history" in stderr
    assert str(out) in stderr and "the same command resumes the sweep" in stderr
    written = json.loads(out.read_text())
    assert written["interrupted"] is True and len(written["runs"]) == 1
    assert History(history).count() == 1


@pytest.mark.parametrize("delay_s", [0.3, 0.6, 0.9, 1.2])
def test_ctrl_c_while_starting_ends_in_one_line_with_130(delay_s):
    """SIGINT while the CLI imports and starts: one line, exit 130, never a traceback (from
    the project's first instruction on; Python's own start-up comes before it)."""
    import time

    command = [sys.executable, "-m", "engine", "run", "--strategy=numpy,einsum"]
    command += ["--matrices=40", "--dim=6", "--sampling=fixed", "--repeats=3000", "--no-history"]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        time.sleep(delay_s)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
    finally:
        process.kill()  # never left holding the run queue, its stderr unread
    assert process.returncode == 130, stderr[-2000:]
    assert "Traceback" not in stderr and stderr.strip().splitlines()[-1].startswith("error: ")


HANGS_IN_TENSORFLOW = """
import sys, time
import engine.backends.tensorflow.kernels as kernels
import engine.cli.run as run
run.HANG_GRACE_S = 15.0  # time for JAX's process to start and finish first

def einsum(A, x):  # its trace, TensorFlow's compile of it, never returns
    time.sleep(10**6)

kernels.einsum = einsum
from engine.cli.main import main
raise SystemExit(main(sys.argv[1:]))
"""


def test_a_tensorflow_call_that_never_returns_ends_the_run_with_what_finished_saved(tmp_path):
    """TensorFlow's variants run in the run's own process, where no parent can end a call:
    a watch inside does, at the call limit, after saving what finished (exit 4)."""
    pytest.importorskip("jax")
    import json
    import os
    import subprocess
    import sys

    out, history = tmp_path / "run.json", tmp_path / "h.sqlite3"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            HANGS_IN_TENSORFLOW,
            *("run", "--matrices", "20", "--dim", "4", "--strategy", "jax_einsum,einsum,numpy"),
            *("--repeats", "3", "--progress", "none", "--json", str(out)),
            *("--history", str(history)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={
            **os.environ,
            "MATVEC_KERNEL_CALL_LIMIT_S": "1",
            "MATVEC_QUEUE_DIR": str(tmp_path / "queue"),
            "TF_CPP_MIN_LOG_LEVEL": "3",
        },
    )
    assert done.returncode == 4, done.stderr[-2000:]
    (line,) = [x for x in done.stderr.splitlines() if x.startswith("error:")]
    assert line.startswith("error: einsum made no progress for")
    assert "a framework call that never returned" in line and "Traceback" not in done.stderr
    assert f"variant(s) that finished were saved to {out} and the history" in line
    data = json.loads(out.read_text())
    found = {r["variant"]: r for r in data["results"]}
    # JAX's variant finished first, in a process of its own: kept; NumPy, in this process
    # after einsum, never started: said so
    assert found["jax_einsum"]["status"] == "ok" and found["jax_einsum"]["correct"]
    assert found["einsum"]["status"] == "failed"
    assert "made no progress" in found["einsum"]["error"]
    assert found["numpy"]["status"] == "skipped"
    assert found["numpy"]["error"] == "not measured: the run was ended when einsum hung"
