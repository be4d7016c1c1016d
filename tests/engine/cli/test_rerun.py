"""`compare --rerun N`: every side measured again, alternated in fresh processes, and those
runs compared; a side that cannot be measured again here is refused before any work."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import platform
import subprocess
import sys

import pytest

from engine.cli import rerun
from engine.cli.repetitions import RepetitionFailed
from engine.run_settings.config import BenchConfig
from engine.run_settings.fields import ConfigError
from engine.storage.history import History
from tests.cli import engine_process, run_cli
from tests.conftest import ROOT
from tests.factories import make_run

SMALL = {"matrices": 40, "dim": 6, "repeats": 3, "warmup": 1}


def stored_side(tmp_path, name, strategies=("numpy",), host=None, **config):
    run = make_run({s: [0.001] * 3 for s in strategies})
    run.config = BenchConfig(**{**SMALL, **config}, strategies=tuple(strategies))
    run.environment = dataclasses.replace(run.environment, hostname=host or platform.node())
    path = tmp_path / f"{name}.json"
    run.write_json(path)
    return path


def test_sides_alternate_and_the_order_turns_each_round(tmp_path, monkeypatch):
    made = []

    def fake_run(config, out, group_id, args, what, finished):
        made.append((config.label, group_id))
        found = make_run({"numpy": [0.001] * 3}, label=config.label)
        found.group_id = group_id
        return found

    monkeypatch.setattr(rerun, "run_fresh", fake_run)
    configs = [BenchConfig(**SMALL, label=label) for label in ("a", "b", "c")]
    again = rerun.rerun_sides(configs, 3, None, lambda _text: None)
    assert [label for label, _ in made] == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert [[run.config.label for run in side] for side in again] == [
        ["a"] * 3,
        ["b"] * 3,
        ["c"] * 3,
    ]
    groups = [{run.group_id for run in side} for side in again]
    assert all(len(group) == 1 for group in groups) and len(set.union(*groups)) == 3


def test_a_failed_run_ends_the_rerun_keeping_what_finished(tmp_path, monkeypatch):
    calls = []

    def fake_run(config, out, group_id, args, what, finished):
        calls.append(what)
        if len(calls) == 3:
            raise RepetitionFailed(f"{what} failed (exit code 1): boom", group_id, finished)
        return make_run()

    monkeypatch.setattr(rerun, "run_fresh", fake_run)
    with pytest.raises(RepetitionFailed) as failure:
        rerun.rerun_sides([BenchConfig(**SMALL)] * 2, 2, None, lambda _text: None)
    assert "side 1's run 2 of 2 failed" in str(failure.value)
    assert len(failure.value.runs) == 1  # side 1's first run, kept


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"host": "elsewhere"}, "measured on elsewhere, not on this machine"),
        ({"strategies": ("numpy", "cupy_matmul")}, "cupy_matmul cannot run here"),
    ],
)
def test_a_side_that_cannot_be_measured_again_is_refused_in_one_line(tmp_path, change, said):
    base = stored_side(tmp_path, "base")
    other = stored_side(tmp_path, "other", **change)
    history = tmp_path / "h.sqlite3"
    done = run_cli("compare", str(base), str(other), "--rerun", "2", "--history", str(history))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "side 1" in done.stderr and said in done.stderr
    assert History(history).count() == 0  # nothing ran


MARKER_KERNEL = """\
import pathlib
pathlib.Path({marker!r}).write_text("imported")

def evil(a, x):
    return (a @ x[..., None])[..., 0]
"""


def crafted_side(tmp_path, name="crafted"):
    """A results file whose author named a kernel file that writes a marker when imported,
    with that file's true hash: the hash proves nothing, since the author wrote both."""
    marker = tmp_path / "marker"
    kernel = tmp_path / "evil.py"
    kernel.write_text(MARKER_KERNEL.format(marker=str(marker)))
    path = stored_side(tmp_path, name)
    data = json.loads(path.read_text())
    spec = f"{kernel}:evil@numpy"
    data["config"]["kernels"] = [spec]
    data["config"]["strategies"] = ["numpy", "evil"]
    entry = json.loads(json.dumps(data["results"][0]))
    entry["strategy"] = entry["variant"] = "evil"
    entry["user_kernel"] = {
        "name": "evil",
        "path": str(kernel),
        "function": "evil",
        "framework": "numpy",
        "sha256": hashlib.sha256(kernel.read_bytes()).hexdigest(),
        "source": "def evil(a, x): ...",
    }
    data["results"].append(entry)
    path.write_text(json.dumps(data))
    return path, kernel, marker


def test_a_kernel_named_in_a_file_is_never_planned_for_a_rerun(tmp_path):
    path, _kernel, marker = crafted_side(tmp_path)
    from engine.results.parse import read_results_file

    side = [read_results_file(path)]
    [plan] = rerun.plan_rerun([side], [])
    assert plan.not_remeasured == ("evil",)
    assert plan.config.kernels == () and plan.config.strategies == ("numpy",)
    assert not marker.exists()


def test_a_kernel_given_on_the_command_line_must_be_the_one_measured(tmp_path):
    path, kernel, marker = crafted_side(tmp_path)
    from engine.results.parse import read_results_file
    from engine.run_settings.user_kernels import parse_kernel_spec

    side = [read_results_file(path)]
    given = parse_kernel_spec(f"{kernel}:evil@numpy")  # read as text, never imported
    [plan] = rerun.plan_rerun([side], [given])
    assert plan.not_remeasured == () and "evil" in plan.config.strategies
    kernel.write_text(kernel.read_text() + "\n# changed\n")
    changed = parse_kernel_spec(f"{kernel}:evil@numpy")
    with pytest.raises(ConfigError, match="kernel changed"):
        rerun.plan_rerun([side], [changed])
    assert not marker.exists()


def test_a_side_of_kernels_alone_is_refused_without_them(tmp_path):
    path, _, marker = crafted_side(tmp_path)
    data = json.loads(path.read_text())
    data["config"]["strategies"] = ["evil"]
    data["results"] = [r for r in data["results"] if r["strategy"] == "evil"]
    path.write_text(json.dumps(data))
    done = run_cli(
        "compare", str(path), str(path), "--rerun", "2", "--history", str(tmp_path / "h")
    )
    assert done.returncode == 2 and "nothing would be measured again" in done.stderr
    assert not marker.exists()


@pytest.mark.slow  # two real runs, each a fresh process
def test_a_crafted_file_runs_no_code_on_any_command(tmp_path):
    """The marker kernel's file is never imported: not by a rerun, an import, a listing, a
    comparison or a report; the rerun measures the rest and says what it left out."""
    crafted, _, marker = crafted_side(tmp_path)
    other = stored_side(tmp_path, "other")
    history, out = str(tmp_path / "h.sqlite3"), tmp_path / "compare.json"
    done = engine_process(
        "compare", str(crafted), str(other), "--rerun", "2", "--history", history,
        "--json", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "not re-measured" in done.stdout
    assert json.loads(out.read_text())["not_remeasured"] == [["evil"], []]
    for command in (
        ["import", str(crafted), "--history", history],
        ["history", "--history", history],
        ["compare", str(crafted), str(other), "--history", history],
    ):
        assert run_cli(*command).returncode == 0
    report = subprocess.run(
        [sys.executable, "-m", "dashboard.report", str(crafted), "-o", str(tmp_path / "r.html")],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert report.returncode == 0, report.stderr
    assert not marker.exists()


@pytest.mark.parametrize("count", ["1", "101", "two"])
def test_a_rerun_count_out_of_range_is_refused_in_one_line(tmp_path, count):
    base, other = stored_side(tmp_path, "base"), stored_side(tmp_path, "other")
    done = run_cli("compare", str(base), str(other), "--rerun", count)
    assert done.returncode == 2 and "rerun" in done.stderr and len(done.stderr.splitlines()) == 1


@pytest.mark.slow  # four real runs, each a fresh process
def test_compare_rerun_measures_both_sides_again_in_one_window(tmp_path):
    """NumPy's two kernels: what is under test is the rerun's orchestration, and runs with no
    TensorFlow strategy start no TensorFlow (four imports of it were most of this test)."""
    strategies = ("numpy", "numpy_einsum")
    base = stored_side(tmp_path, "base", strategies=strategies)
    other = stored_side(tmp_path, "other", strategies=strategies, label="candidate")
    history, out = tmp_path / "h.sqlite3", tmp_path / "compare.json"
    done = engine_process(
        "compare", str(base), str(other), "--rerun", "2", "--history", str(history),
        "--json", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "side 0: 2 runs measured again, alternated" in done.stdout
    assert done.stderr.count("(fresh process)") == 4
    stored = History(history)
    assert stored.count() == 4  # every run kept, as each finished
    rows = json.loads(out.read_text())["rows"]
    assert {row["run"] for row in rows}.isdisjoint({"base", "other"})
    measured = [row for row in rows if not row["baseline"] and row["verdict"] != "absent"]
    assert measured and all(row["window_log_sd"] == 0 for row in measured)  # one window
