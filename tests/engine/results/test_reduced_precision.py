"""Reduced precision is an accuracy class of its own: never the answer for the requested dtype,
always shown beside it with its time ratio and both errors; stored and read back."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.catalogue.catalog import strategy_info
from engine.results.run_result import RunResult
from engine.results.summary import summary_table
from engine.run_settings.config import BenchConfig
from engine.run_settings.fields import ConfigError
from tests.conftest import ROOT
from tests.factories import make_run

REDUCED = "broadcast_reduce_bf16"
CLASS = "bfloat16 storage, float32 accumulation"


def run_with_a_fast_reduced_point() -> RunResult:
    run = make_run(
        {
            "einsum": [0.0040, 0.0041, 0.0039, 0.0040] * 3,
            "numpy": [0.0060, 0.0061, 0.0059, 0.0060] * 3,
            REDUCED: [0.0020, 0.0021, 0.0019, 0.0020] * 3,
        }
    )
    reduced = next(r for r in run.results if r.variant == REDUCED)
    reduced.accuracy_class, reduced.max_rel_error = CLASS, 2.5e-3
    return run


def test_the_answer_is_the_requested_dtypes_and_the_trade_is_beside_it():
    run = run_with_a_fast_reduced_point()
    assert run.winner().variant == "einsum"
    record = run.reduced_precision()
    assert record["variant"] == REDUCED and record["winner"] == "einsum"
    assert record["accuracy_class"] == CLASS
    assert 0.45 < record["ratio_to_winner"] < 0.55
    low, high = record["ratio_ci"]
    assert low <= record["ratio_to_winner"] <= high < 1
    assert record["max_rel_error"] == 2.5e-3 and record["winner_max_rel_error"] == 1e-7


def test_it_is_stored_read_back_and_said_in_words():
    run = run_with_a_fast_reduced_point()
    data = run.to_dict()
    assert data["winner"]["variant"] == "einsum"
    assert data["reduced_precision"]["variant"] == REDUCED
    again = RunResult.from_json(json.dumps(data))
    assert next(r for r in again.results if r.variant == REDUCED).accuracy_class == CLASS
    assert again.reduced_precision() == run.reduced_precision()
    assert "reduced_precision" not in again.extra  # derived, not carried as an extra
    table = summary_table(run)
    assert f"reduced precision, not the answer for float32: {REDUCED} ({CLASS}) takes" in table
    assert "use it only where that error is acceptable" in table


def test_without_a_reduced_point_there_is_no_trade_to_show():
    run = make_run()
    assert run.reduced_precision() is None and "reduced_precision" not in run.to_dict()
    assert "reduced precision" not in summary_table(run)


def test_a_search_tries_reduced_precision_only_for_float32():
    assert strategy_info(REDUCED).accuracy_class == CLASS
    assert REDUCED in BenchConfig(search=True).strategies
    assert REDUCED not in BenchConfig(search=True, dtype="float64").strategies
    with pytest.raises(ConfigError, match="strategy: broadcast_reduce_bf16 stores float32"):
        BenchConfig.from_raw({"strategies": [REDUCED], "dtype": "float16"})


def test_a_real_run_narrows_on_the_device_checks_against_bfloat16_and_never_answers(tmp_path):
    out = tmp_path / "run.json"
    command = [sys.executable, "-m", "engine", "run", f"--strategy=einsum,{REDUCED}"]
    command += ["--matrices=300", "--dim=64", "--repeats=5", "--warmup=1", "--time-budget=3"]
    command += [f"--json={out}", "--no-history", "--progress=none"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(out.read_text())
    by_name = {entry["variant"]: entry for entry in data["results"]}
    reduced, plain = by_name[REDUCED], by_name["einsum"]
    assert reduced["status"] == "ok" and reduced["correct"], reduced
    assert reduced["accuracy_class"] == CLASS and plain.get("accuracy_class") is None
    # Its error is bfloat16's, far above float32's tolerance: the class is real.
    assert reduced["max_rel_error"] > 20 * plain["tolerance"]
    assert reduced["tolerance"] > plain["tolerance"]
    # It reads half the bytes of A and x (and writes the same float32 y).
    assert reduced["bytes"] == 300 * ((64 * 64 + 64) * 2 + 64 * 4)
    assert plain["bytes"] == 300 * (64 * 64 + 2 * 64) * 4
    assert data["winner"]["variant"] == "einsum" and not data["winner"]["tied_with"]
    assert data["reduced_precision"]["variant"] == REDUCED
    assert any("reduced precision" in note for note in reduced["notes"])
