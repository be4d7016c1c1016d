"""A read file's claims are checked, and a run not measured here says whose word it is."""

from __future__ import annotations

import json
import subprocess
import sys

from engine.results.formatting import winner_line
from engine.results.run_result import RunResult
from tests.cli import run_cli
from tests.conftest import ROOT
from tests.factories import make_run

BIG = {"matrices": 3000, "dim": 100}  # 120 MB of inputs: no cache holds them


def written(run: RunResult) -> dict:
    return json.loads(run.to_json())


def forged(tmp_path, edit) -> tuple:
    """A real run's file, edited by hand as a hostile or careless author would."""
    run = make_run({"einsum": [0.010] * 5, "numpy": [0.011] * 5}, **BIG, peak=20e9)
    run.environment = __import__("dataclasses").replace(
        run.environment, last_level_cache_bytes=32 << 20, cpu_count=2
    )
    data = written(run)
    edit(data)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(data))
    return path, data


def make_wrong_claim_correct(data):
    entry = next(r for r in data["results"] if r["strategy"] == "numpy")
    entry["max_rel_error"], entry["tolerance"], entry["correct"] = 0.42, 2.9e-06, True
    entry["samples_s"] = [s / 2 for s in entry["samples_s"]]  # and faster than the rest


def divide_samples_by_ten(data):
    entry = next(r for r in data["results"] if r["strategy"] == "einsum")
    entry["samples_s"] = [s / 10 for s in entry["samples_s"]]


def test_correct_is_rederived_from_the_error_in_the_file(tmp_path):
    path, _ = forged(tmp_path, make_wrong_claim_correct)
    run = RunResult.from_json(path.read_text())
    wrong = next(r for r in run.results if r.strategy == "numpy")
    assert wrong.correct is False
    assert any("checked on reading" in w and "0.42" in w for w in wrong.warnings)
    assert run.winner_dict()["variant"] == "einsum"


def test_a_rate_above_the_runs_own_ceiling_is_refused(tmp_path):
    path, _ = forged(tmp_path, divide_samples_by_ten)
    run = RunResult.from_json(path.read_text())
    einsum = next(r for r in run.results if r.strategy == "einsum")
    assert einsum.status == "failed" and "ImplausibleThroughput" in einsum.error
    assert run.winner_dict()["variant"] != "einsum"


def test_a_genuine_run_reads_back_measured_here_with_nothing_changed():
    run = make_run({"einsum": [0.010] * 5, "numpy": [0.02] * 5}, **BIG)
    again = RunResult.from_json(run.to_json())
    assert again.measured_here and again.reported_by is None
    assert [r.correct for r in again.results] == [True, True]
    assert "reported_by" not in again.winner_dict()


def test_an_edited_or_foreign_file_is_a_report_not_a_measurement(tmp_path):
    path, data = forged(tmp_path, lambda d: d["config"].update(label="edited"))
    run = RunResult.from_json(path.read_text())
    assert not run.measured_here and run.reported_by == "test-host"
    winner = run.winner_dict()
    assert winner["reported_by"] == "test-host"
    assert winner_line(winner).startswith("reported by test-host, not measured here: ")
    del data["attestation"]
    assert RunResult.from_dict(data).reported_by == "test-host"


def test_a_report_of_a_forged_file_never_calls_its_claim_the_fastest(tmp_path):
    path, _ = forged(tmp_path, make_wrong_claim_correct)
    out = tmp_path / "report.html"
    done = subprocess.run(
        [sys.executable, "-m", "dashboard.report", str(path), "-o", str(out)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    assert "not measured here" in page
    assert "is the fastest correct strategy" not in page


def test_an_imported_forged_file_is_stored_with_its_claims_checked(tmp_path):
    path, _ = forged(tmp_path, make_wrong_claim_correct)
    history = str(tmp_path / "h.sqlite3")
    assert run_cli("import", str(path), "--history", history).returncode == 0
    listed = json.loads(run_cli("history", "--history", history, "--json").stdout)
    assert [row["best_variant"] for row in listed] == ["einsum"]
