"""`compare --rerun N`: every side measured again, alternated in fresh processes, and those
runs compared; a side that cannot be measured again here is refused before any work."""

from __future__ import annotations

import dataclasses
import json
import os
import platform

import pytest

from engine.cli import rerun
from engine.cli.repetitions import RepetitionFailed
from engine.spec.config import BenchConfig
from engine.storage.history import History
from tests.cli import engine_process, run_cli
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
    sides = [[make_run(label=label)] for label in ("a", "b", "c")]
    again = rerun.rerun_sides(sides, 3, None, lambda _text: None)
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
        rerun.rerun_sides([[make_run()], [make_run()]], 2, None, lambda _text: None)
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


def test_a_side_whose_kernel_file_changed_is_not_measured_again(tmp_path):
    kernel = tmp_path / "kernel.py"
    kernel.write_text("def matvec(a, x):\n    return (a @ x[..., None])[..., 0]\n")
    run = make_run({"numpy": [0.001] * 3})
    run.environment = dataclasses.replace(run.environment, hostname=platform.node())
    run.results[0].user_kernel = {"path": str(kernel), "sha256": "0" * 64}
    assert "kernel file" in rerun.why_not_rerunnable([run], platform.node())
    fifo = tmp_path / "kernel_now_a_fifo.py"  # read as a run reads it: never blocks on it
    os.mkfifo(fifo)
    run.results[0].user_kernel = {"path": str(fifo), "sha256": "0" * 64}
    assert "kernel file" in rerun.why_not_rerunnable([run], platform.node())
    run.results[0].user_kernel = None
    assert rerun.why_not_rerunnable([run], platform.node()) is None


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
