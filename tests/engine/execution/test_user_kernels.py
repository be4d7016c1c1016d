"""The user's own kernels: refused in one line before any work, measured like any strategy in
a process of their own, failing alone with their reason, and readable where the file is not."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

from engine.run_settings.config import BenchConfig
from engine.run_settings.fields import ConfigError
from tests.cli import engine_process
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "user_kernels"
FILES = ("numpy_kernels.py", "torch_kernels.py", "jax_kernels.py", "tf_kernels.py")


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.mark.parametrize(
    ("source", "spec", "message"),
    [
        (None, "missing.py:f", "cannot read"),
        ("import numpy\n", "k.py:f", "defines no top-level function 'f'"),
        ("import numpy\ndef f(A, x): return A\n", "k.py", "is not PATH.py:FUNCTION"),
        ("def f(A, x): return A\n", "k.py:f", "cannot tell the framework of k.py"),
        ("import numpy\ndef numpy(A, x): return A\n", "k.py:numpy", "name of a catalogue"),
        ("import numpy\ndef f(A, x): return A\n", "k.py:f@torch_xla", "'torch_xla' kernels cannot"),
        ("def f(:\n", "k.py:f", "is not valid Python"),
    ],
)
def test_a_bad_kernel_is_refused_in_one_line_naming_the_field(tmp_path, source, spec, message):
    if source is not None:
        (tmp_path / "k.py").write_text(source)
    with pytest.raises(ConfigError, match=message) as refused:
        BenchConfig.from_raw({"kernels": str(tmp_path / spec), "strategies": "numpy"})
    assert str(refused.value).startswith("kernel: ")


def test_a_kernel_path_that_is_no_regular_file_is_refused_without_reading_it(tmp_path):
    """A FIFO would block a plain read forever; a link to /dev/zero would fill the memory."""
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    zeros = tmp_path / "zeros.py"
    zeros.symlink_to("/dev/zero")
    huge = tmp_path / "huge.py"
    huge.write_text("import numpy\n" + "#" * 300_000 + "\ndef f(A, x): return A\n")
    for path, message in (
        (fifo, "is not a regular file"),
        (zeros, "is not a regular file"),
        (huge, "is larger than 256 KiB"),
    ):
        with pytest.raises(ConfigError, match=message):
            BenchConfig.from_raw({"kernels": f"{path}:f", "strategies": "numpy"})


def test_a_kernel_given_is_a_kernel_measured_and_its_spec_survives_a_command_line():
    from engine.cli.flags import cli_args, config_from_args
    from engine.cli.main import build_parser

    spec = f"{FIXTURES / 'numpy_kernels.py'}:mine"
    config = BenchConfig.from_raw({"kernels": [spec], "strategies": "numpy"})
    assert config.strategies == ("numpy", "mine")
    assert config.kernels == (f"{spec}@numpy",)
    again = config_from_args(build_parser().parse_args(["run", *cli_args(config)]))
    assert again == config


def test_the_browser_never_names_a_kernel():
    from dashboard.services.links import params_from_settings, settings_from_params

    parsed = settings_from_params({"kernel": "/tmp/x.py:f", "kernels": "/tmp/x.py:f"})
    assert "kernels" not in parsed.settings
    assert "Ignored unknown link parameters 'kernel', 'kernels'" in parsed.notices[0]
    assert "kernel" not in params_from_settings({**parsed.settings, "kernels": ["/tmp/x.py:f"]})


def test_notebook_kernels_are_named_by_the_file_their_function_lives_in():
    from engine.notebook import kernel_specs

    def local(A, x):
        return A

    assert kernel_specs({"local": local}) == [f"{__file__}:local"]
    assert kernel_specs(["a.py:f"]) == ["a.py:f"]
    with pytest.raises(TypeError, match="must be the function's name 'local'"):
        kernel_specs({"other": local})
    with pytest.raises(TypeError, match=r"neither 'path\.py:function'"):
        kernel_specs([print])


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """One real run: NumPy's strategy beside six user kernels (and a PyTorch, a JAX and a
    TensorFlow one when installed), each kernel in its own process; then the files are gone."""
    scratch = tmp_path_factory.mktemp("kernels")
    for name in FILES:
        shutil.copy(FIXTURES / name, scratch / name)
    numpy_file = scratch / "numpy_kernels.py"
    kernels = [f"{numpy_file}:{k}" for k in ("mine", "boom", "short", "wrong", "wide", "stuck")]
    if installed("torch"):
        kernels.append(f"{scratch / 'torch_kernels.py'}:torch_mine")
    if installed("jax"):
        kernels.append(f"{scratch / 'jax_kernels.py'}:jax_mine")
    if installed("tensorflow"):
        kernels.append(f"{scratch / 'tf_kernels.py'}:tf_mine")
    out = scratch / "run.json"
    done = subprocess.run(
        [sys.executable, "-m", "engine", "run", "--strategy", "numpy"]
        + [f"--kernel={k}" for k in kernels]
        + ["--matrices", "40", "--dim", "6", "--repeats", "5", "--warmup", "1"]
        + ["--time-budget", "2", "--json", str(out), "--no-history", "--progress", "none"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "MATVEC_KERNEL_CALL_LIMIT_S": "2", "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for name in FILES:
        (scratch / name).unlink()
    return json.loads(out.read_text()), out


def test_user_kernels_are_measured_checked_and_fail_alone(measured):
    data, _ = measured
    by_name = {entry["variant"]: entry for entry in data["results"]}
    for good in ["mine"] + [k for k in ("torch_mine", "jax_mine", "tf_mine") if k in by_name]:
        assert by_name[good]["status"] == "ok" and by_name[good]["correct"], by_name[good]
        assert len(by_name[good]["samples_s"]) >= 3
    assert by_name["boom"]["status"] == "failed"
    assert by_name["boom"]["error"] == "RuntimeError: my kernel is broken"
    assert not by_name["short"]["correct"]
    assert any("output shape (39, 6), expected (40, 6)" in w for w in by_name["short"]["warnings"])
    assert not by_name["wrong"]["correct"]
    assert not by_name["wide"]["correct"]
    assert "incorrect: it returned float64, not float32" in by_name["wide"]["warnings"]
    assert by_name["stuck"]["status"] == "failed"
    assert "did not return within 2 s" in by_name["stuck"]["error"]
    assert by_name["numpy"]["status"] == "ok" and by_name["numpy"]["correct"]
    record = by_name["mine"]["user_kernel"]
    assert record["source"].startswith("def mine(A, x):") and len(record["sha256"]) == 64
    assert record["framework"] == "numpy" and by_name["numpy"].get("user_kernel") is None


def test_a_kernel_that_hangs_in_a_timed_block_fails_alone_within_its_limit(tmp_path):
    """Right for its first second (first calls, warm-up, check), then stuck: the block it is
    stuck in is interrupted at the call limit, and the run goes on with NumPy's results."""
    out = tmp_path / "run.json"
    kernel = f"{FIXTURES / 'numpy_kernels.py'}:late_stuck"
    command = [sys.executable, "-m", "engine", "run", "--strategy=numpy", f"--kernel={kernel}"]
    # Calls of about a millisecond: 200 samples outlast the kernel's first second.
    command += ["--matrices=2000", "--dim=32", "--sampling=fixed", "--repeats=200"]
    command += ["--time-budget=60", f"--json={out}", "--no-history"]
    done = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MATVEC_KERNEL_CALL_LIMIT_S": "3"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    by_name = {entry["variant"]: entry for entry in json.loads(out.read_text())["results"]}
    assert by_name["late_stuck"]["status"] == "failed"
    assert by_name["late_stuck"]["error"] == (
        "KernelHung: a timed block did not return within 3 s"
    ), by_name["late_stuck"]
    assert by_name["numpy"]["status"] == "ok" and by_name["numpy"]["correct"]


@pytest.fixture(scope="module")
def tricks(tmp_path_factory):
    """One bfloat16 run of kernels that try what a harness must not let pass: leave a thread
    running, end their process, return an object that computes when converted, return
    float32 out of bfloat16 inputs, keep results by a few input values, ignore x, hand back
    the previous result, write a forged report on the worker's channel (each kernel in its own
    process, as always)."""
    out = tmp_path_factory.mktemp("tricks") / "run.json"
    names = ("threads_left", "quits", "deferred")
    names += ("keeps_by_a_few_values", "ignores_the_vector", "hands_back_the_last")
    names += ("forges_its_report", "exits_hard", "forges_then_works")
    kernels = [f"--kernel={FIXTURES / 'numpy_kernels.py'}:{k}" for k in names]
    if installed("torch"):
        kernels.append(f"--kernel={FIXTURES / 'torch_kernels.py'}:torch_upcast")
    sizes = ["--matrices=40", "--dim=6", "--repeats=3", "--time-budget=2", "--dtype=bfloat16"]
    outputs = [f"--json={out}", "--no-history", "--progress=none"]
    # The peer process timeout is longer than 200 s: a process a thread held would fail here.
    done = engine_process("run", "--strategy=numpy", *kernels, *sizes, *outputs, timeout=200)
    assert done.returncode == 0, done.stderr[-3000:]
    return {entry["variant"]: entry for entry in json.loads(out.read_text())["results"]}


def test_a_kernel_that_leaves_a_thread_is_said_so_and_never_holds_the_run(tricks):
    left = tricks["threads_left"]
    assert left["status"] == "ok" and left["correct"], left
    assert any("left 1 thread(s) running" in w and "kernel-helper" in w for w in left["warnings"])


def test_a_kernel_that_ends_its_process_is_named_as_the_cause(tricks):
    assert tricks["quits"]["status"] == "failed"
    assert tricks["quits"]["error"].endswith("the kernel ended the process (sys.exit(3))")
    hard = tricks["exits_hard"]  # os._exit: no `except` sees it; the docs' words all the same
    assert hard["status"] == "failed"
    assert "the kernel ended the process (with exit code 7" in hard["error"], hard["error"]


def test_lines_forged_beside_a_real_result_are_refused_and_said(tricks):
    """They were dropped without a word when the process also reported its own result."""
    honest = tricks["forges_then_works"]
    assert honest["status"] == "ok" and honest["correct"], honest
    assert any("on the harness's channel" in w and "refused" in w for w in honest["warnings"])


def test_an_output_that_is_no_array_or_of_another_dtype_is_refused(tricks):
    """An object that computes only when converted would be timed without its work; float32
    out of a bfloat16 run would be timed with twice the bytes written, unseen."""
    deferred = tricks["deferred"]
    assert deferred["status"] == "failed" and not deferred["correct"]
    assert deferred["error"].startswith("NotAnArray: returns a ")
    assert deferred["error"].endswith("._Deferred, not an array of numpy")
    if installed("torch"):
        upcast = tricks["torch_upcast"]
        assert not upcast["correct"], upcast
        assert "incorrect: it returned float32, not bfloat16" in upcast["warnings"]


def test_a_kernel_is_never_timed_on_work_it_did_not_do(tricks):
    """Every timed call gets a vector drawn for it, and a call of every block, picked after
    it ran, is checked: a kept result is wrong for the new vector, so a cache never pays."""
    kept = tricks["keeps_by_a_few_values"]
    assert kept["status"] == "ok" and kept["correct"], kept  # its cache never hit: honest
    for name in ("ignores_the_vector", "hands_back_the_last"):
        entry = tricks[name]
        assert entry["status"] == "failed" and not entry["correct"], entry
        assert entry["error"].startswith("WrongTimedOutput: a timed call's output is not A·x")


def test_a_report_the_harness_did_not_write_is_refused(tricks):
    """Every line the worker writes carries its run's token: a kernel that writes a made-up
    result on the channel it found is refused, and its variant says why."""
    forged = tricks["forges_its_report"]
    assert forged["status"] == "failed" and not forged["correct"] and not forged["samples_s"]
    assert "on the harness's channel that the harness did not write (refused)" in forged["error"]


def test_a_kernel_that_catches_its_call_limit_is_ended_from_outside(tmp_path, monkeypatch):
    """The call limit is a signal in the kernel's process, which a kernel can catch; then its
    silence ends the process from outside, with the call limit's words."""
    import engine.execution.peers.parent as peers
    import engine.execution.peers.process as peer_process

    monkeypatch.setattr(peer_process, "SILENCE_GRACE_S", 3.0)
    monkeypatch.setenv("MATVEC_KERNEL_CALL_LIMIT_S", "1")
    config = BenchConfig.from_raw(
        {
            "kernels": f"{FIXTURES / 'numpy_kernels.py'}:stubborn",
            "strategies": "numpy",
            "matrices": 8,
            "dim": 4,
            "time_budget_s": 2,
        }
    )
    outcome = peers.run_peers(
        config, [("stubborn", "")], copies=1, device_kind="CPU", emit=lambda e: None
    )
    (result,) = outcome.results.values()
    assert result.status == "failed"
    assert result.error == (
        "the process of kernel stubborn did not return from a call within 1 s "
        "and was ended from outside (the call limit for this problem; "
        "MATVEC_KERNEL_CALL_LIMIT_S sets its floor)"
    )


def test_a_run_with_user_kernels_opens_renders_and_is_stored_without_the_files(measured, tmp_path):
    _, path = measured
    script = f"""
from dashboard.report import run_report
from engine.results.run_result import RunResult
from engine.catalogue.catalog import is_known
from engine.storage.history import History

run = RunResult.from_json(open({str(path)!r}).read())
assert not is_known("mine")  # this process never saw the file
assert run.code_for("mine").startswith("def mine(A, x):")
assert "<h1>" in run_report(run)
history = History({str(tmp_path / "h.sqlite3")!r})
history.add_run(run)
assert history.get_run(run.run_id).to_dict() == run.to_dict()
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.stdout.strip() == "ok", done.stderr[-3000:]


def test_the_dashboard_command_takes_its_kernels_and_refuses_a_bad_one_in_one_line(tmp_path):
    from engine.cli.dashboard import split_kernels

    assert split_kernels(["--kernel", "a.py:f", "--server.port", "1", "--kernel=b.py:g"]) == (
        ["a.py:f", "b.py:g"],
        ["--server.port", "1"],
    )
    done = subprocess.run(
        [sys.executable, "-m", "engine", "dashboard", "--kernel", str(tmp_path / "no.py:f")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith("error: kernel: cannot read")
    assert "Traceback" not in done.stderr


def test_a_cupy_kernel_is_told_from_its_imports(tmp_path):
    """CuPy's kernels run in CuPy's process (on a GPU run by `benchmarks/gpu_check.py`); the
    file that imports it beside NumPy is CuPy's, and the refusal of an undeclared file names
    every framework a kernel may be written with."""
    from engine.run_settings.user_kernels import parse_kernel_spec

    (tmp_path / "k.py").write_text("import numpy\nimport cupy as cp\ndef f(A, x): return A\n")
    assert parse_kernel_spec(f"{tmp_path / 'k.py'}:f").framework == "cupy"
    (tmp_path / "plain.py").write_text("def f(A, x): return A\n")
    with pytest.raises(ConfigError, match="one of @tensorflow, @numpy, @jax, @torch, @cupy"):
        parse_kernel_spec(f"{tmp_path / 'plain.py'}:f")
