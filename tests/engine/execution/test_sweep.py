"""A real sweep, killed halfway and then resumed: every finished point is kept."""

import json
import os
import signal
import subprocess
import sys

import pytest

from engine.execution.run.sweep import eta_s
from engine.storage.history import History
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # real engine processes


def test_eta():
    assert eta_s(0.0, 0, 10) is None


def sweep_command(history_path, *extra):
    return [
        sys.executable,
        "-m",
        "engine",
        "sweep",
        "--matrices",
        "8,16,32,64,128,256",
        "--dim",
        "4",
        "--strategy",
        "python_loop",
        "--strategy",
        "einsum",
        "--repeats",
        "25",
        "--warmup",
        "0",
        "--history",
        str(history_path),
        *extra,
    ]


def test_a_killed_sweep_keeps_its_points_and_resumes(tmp_path):
    history_path = tmp_path / "h.sqlite3"
    worker = subprocess.Popen(
        sweep_command(history_path, "--progress", "jsonl"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
        start_new_session=True,
    )
    sweep_id = None
    for line in worker.stdout:
        event = json.loads(line)
        if event["event"] == "sweep":
            sweep_id = event["sweep_id"]
        if event["event"] == "sweep_point" and event["index"] == 3:
            break  # three points are stored
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait()
    kept = History(history_path).done_points(sweep_id)
    assert 3 <= len(kept) < 6

    done = subprocess.run(
        sweep_command(history_path, "--progress", "none", "--json", str(tmp_path / "s.json")),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert done.returncode == 0, done.stderr
    assert f"ran {6 - len(kept)}, {len(kept)} already done" in done.stdout
    stored = History(history_path).list_runs()
    assert len(stored) == 6 and stored["sweep_id"].eq(sweep_id).all()
    payload = json.loads((tmp_path / "s.json").read_text())
    assert sorted(r["config"]["matrices"] for r in payload["runs"]) == [8, 16, 32, 64, 128, 256]


def test_a_sweep_point_the_history_measured_before_learns_from_it(tmp_path):
    """A second sweep over points a first one stored (another sweep: its label differs)
    confirms the eager loop at each point with one block, as a run does."""
    from engine.execution.run.sweep import run_sweep
    from engine.run_settings.sweep import SweepSpec

    history = History(tmp_path / "h.sqlite3")
    raw = {"matrices": "300,400", "dim": 16, "strategy": "python_loop,numpy", "warmup": 1}
    run_sweep(SweepSpec.from_raw({**raw, "label": "first"}), history)
    second = SweepSpec.from_raw({**raw, "label": "second"})
    run_sweep(second, history)
    for run in history.sweep_runs(second.sweep_id):
        loop = next(r for r in run.results if r.variant == "python_loop")
        assert run.sampling["priors"]["python_loop"]["confirmed"] is True
        assert loop.stop_reason == "eliminated" and len(loop.samples_s) == 1


def test_a_sweeps_point_learns_from_its_point_of_fewer_matrices(tmp_path):
    """One sweep, points in the order given: 600 matrices learns nothing, 300 nothing (fewer
    than any point before it), 1,200 learns from 600 (the largest point below it) and confirms
    the eager loop with one block, its note saying where that came from."""
    from engine.execution.run.sweep import run_sweep
    from engine.run_settings.sweep import SweepSpec

    history = History(tmp_path / "h.sqlite3")
    spec = SweepSpec.from_raw(
        {"matrices": "600,300,1200", "dim": 16, "strategy": "python_loop,numpy", "warmup": 1}
    )
    run_sweep(spec, history)
    runs = {run.config.matrices: run for run in history.sweep_runs(spec.sweep_id)}
    assert "priors" not in runs[600].sampling and "priors" not in runs[300].sampling
    judged = runs[1200].sampling["priors"]["python_loop"]
    assert judged["matrices"] == 600 and judged["confirmed"] is True
    loop = next(r for r in runs[1200].results if r.variant == "python_loop")
    assert loop.stop_reason == "eliminated" and len(loop.samples_s) == 1
    assert any(note.startswith("from this sweep: at least") for note in loop.notes)
    assert not any("from history" in note for note in loop.notes)


def test_a_resumed_sweep_learns_from_the_points_it_stored_before():
    """The points a sweep stored before it was stopped teach its later points as its own
    points of this invocation do; another problem (another dim) teaches nothing."""
    from engine.execution.plan.run_plan import RunPlan
    from engine.execution.run.sweep import SmallerPoints
    from engine.run_settings.config import BenchConfig
    from tests.factories import make_run

    stored = make_run({"numpy": [0.01] * 6, "python_loop": [1.5] * 6}, matrices=300, dim=16)
    measured = SmallerPoints([stored])
    same = BenchConfig.from_raw({**stored.config.to_dict(), "matrices": 1200})
    taught = measured.teach(RunPlan(same))
    assert set(taught.priors) == {"python_loop"} and taught.priors["python_loop"].matrices == 300
    other = BenchConfig.from_raw({**stored.config.to_dict(), "matrices": 1200, "dim": 32})
    assert measured.teach(RunPlan(other)).priors == {}


def test_a_sweep_keeps_one_process_per_peer_framework_for_its_points(tmp_path):
    """Three points with a JAX variant: one JAX process serves them all (its environment
    counts the runs it served before), and it ends with the sweep."""
    from engine.catalogue.catalog import strategy_info
    from engine.execution.peers import pool as peer_pool
    from engine.execution.run.sweep import run_sweep
    from engine.process.children import live_children
    from engine.run_settings.sweep import SweepSpec

    if not strategy_info("jax_einsum").installed:
        pytest.skip("jax is not installed (requirements-peers.txt)")
    history = History(tmp_path / "h.sqlite3")
    spec = SweepSpec.from_raw(
        {"matrices": "100,200,300", "dim": 8, "strategy": "jax_einsum,numpy", "warmup": 1}
    )
    before = set(live_children())
    run_sweep(spec, history)
    runs = sorted(history.sweep_runs(spec.sweep_id), key=lambda run: run.config.matrices)
    served = [run.environment.frameworks["jax"]["process"]["runs_before"] for run in runs]
    assert served == [0, 1, 2]
    for run in runs:
        jax = next(r for r in run.results if r.variant == "jax_einsum")
        assert jax.status == "ok" and jax.correct
    assert set(live_children()) <= before and not peer_pool._kept  # ended with the sweep
