"""A run learns from its history (`analysis/history_prior.py`): with real TensorFlow, a
second run of the same problem confirms the eager loop the first one measured far slower with
one block, says so, and names the same winner-or-tie set; `--no-history` reads nothing."""

from __future__ import annotations

import json

from tests.cli import run_cli

ARGS = ("run", "--matrices", "400", "--dim", "16", "--strategy", "python_loop,einsum,numpy")
ARGS += ("--progress", "none", "--no-queue")


def run_json(tmp_path, name, *extra):
    out = tmp_path / f"{name}.json"
    outcome = run_cli(*ARGS, "--json", str(out), *extra)
    assert outcome.returncode == 0, outcome.stderr
    return json.loads(out.read_text())


def by_variant(run):
    return {r["variant"]: r for r in run["results"]}


def test_a_second_run_confirms_the_eager_loop_with_one_block(tmp_path):
    history = str(tmp_path / "history.db")
    first = run_json(tmp_path, "first", "--history", history)
    assert "priors" not in first["sampling"]  # nothing stored yet: measured in full
    second = run_json(tmp_path, "second", "--history", history)
    loop = by_variant(second)["python_loop"]
    prior = second["sampling"]["priors"]["python_loop"]
    assert prior["confirmed"] is True and prior["runs"] == 1 and prior["ratio"] >= 2.5
    assert loop["stop_reason"] == "eliminated" and len(loop["samples_s"]) == 1
    assert loop["correct"] is True and loop["max_rel_error"] is not None  # checked all the same
    assert any(note.startswith("from history: at least") for note in loop["notes"])
    assert any(note.startswith("eliminated after 1 sample: ") for note in loop["notes"])
    # the history's ratio is words, never a sample: the one sample is this run's block
    assert loop["median_s"] == loop["samples_s"][0]
    assert {r["variant"] for r in second["results"]} == {"python_loop", "einsum", "numpy"}


def test_without_the_history_nothing_is_read(tmp_path):
    history = str(tmp_path / "history.db")
    run_json(tmp_path, "first", "--history", history)
    again = run_json(tmp_path, "again", "--no-history")
    assert "priors" not in again["sampling"]
    assert len(by_variant(again)["python_loop"]["samples_s"]) >= 1
    assert not any("from history" in n for n in by_variant(again)["python_loop"]["notes"])
