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


def test_a_claim_is_held_to_physics_not_to_the_files_own_words(tmp_path):
    """A million cores and picosecond samples: refused on reading, naming the sample; a
    forged 1 PB/s-plus rate with nanosecond samples fails its variant whatever the cores."""
    import pytest

    from engine.results.reader import ResultsRejected

    def picoseconds(data):
        data["environment"]["cpu_count"] = 1_000_000
        for entry in data["results"]:
            entry["samples_s"] = [1e-12] * 5

    path, _ = forged(tmp_path, picoseconds)
    with pytest.raises(ResultsRejected, match=r"results\[0\]\.samples_s\[0\]: must be a number"):
        RunResult.from_json(path.read_text())

    def nanoseconds(data):
        data["environment"]["cpu_count"] = 1_000_000
        data["peak"]["levels"] = []
        for entry in data["results"]:
            entry["samples_s"] = [2e-9] * 5  # 120 MB in 2 ns: 60 PB/s

    path, _ = forged(tmp_path, nanoseconds)
    run = RunResult.from_json(path.read_text())
    assert all(r.status == "failed" and "ImplausibleThroughput" in r.error for r in run.results)
    assert run.winner_dict() is None


def test_a_cache_slower_than_memory_is_left_out_and_said(tmp_path):
    def one_byte_cache(data):
        data["peak"]["levels"] = [
            {"level": "L2", "bytes": 1 << 30, "bandwidth_bytes_per_s": 1.0, "probes": []},
            {"level": "memory", "bytes": None, "bandwidth_bytes_per_s": 20e9, "probes": []},
        ]

    path, _ = forged(tmp_path, one_byte_cache)
    run = RunResult.from_json(path.read_text())
    assert run.peak.levels == ()
    assert any("L2 ceiling" in w and "left out" in w for w in run.warnings)
    derived = json.loads(run.to_json())["results"][0]
    assert derived["ceiling_level"] == "memory" and derived["ceiling_fraction"] < 10


def test_a_date_in_the_future_or_a_number_as_text_is_refused(tmp_path):
    import pytest

    from engine.results.reader import ResultsRejected

    path, _ = forged(tmp_path, lambda d: d.update(created_at="2099-01-01T00:00:00+00:00"))
    with pytest.raises(ResultsRejected, match=r"created_at: 2099-01-01T00:00:00.00:00 is in the"):
        RunResult.from_json(path.read_text())
    path, _ = forged(tmp_path, lambda d: d["config"].update(matrices="200"))
    with pytest.raises(ResultsRejected, match=r"config\.matrices: must be an integer, got '200'"):
        RunResult.from_json(path.read_text())


def test_a_report_is_said_to_be_one_in_every_view_and_never_joins_the_gate(tmp_path):
    """An edited file (not attested here): the listing, compare, `history changes` and the
    published site introduce it as reported; its series is its own, and a slowdown in it
    never fails `history changes --fail-if-slower`."""
    from dashboard.report.publish import publish
    from engine.storage.history import History
    from tests.engine.analysis.test_change_points import runs_with_a_step

    history = tmp_path / "h.sqlite3"
    store = History(history)
    for run in runs_with_a_step():
        run.measured_here = False  # as read from a file that does not verify
        store.add_run(run)
    listed = run_cli("history", "--history", str(history))
    assert "reported by test-host, not measured here" in listed.stdout, listed.stdout
    changes = run_cli("history", "changes", "--history", str(history), "--fail-if-slower", "5")
    assert changes.returncode == 0, changes.stderr  # the reported slowdown is not judged
    assert "reported by test-host, not measured here" in changes.stdout
    assert "x slower from run" in changes.stdout
    site = publish(store.all_runs(), tmp_path / "site")
    assert "reported by test-host, not measured here" in site.written[0].read_text()
    path, _ = forged(tmp_path, lambda d: d["config"].update(label="edited"))
    compared = run_cli("compare", str(path), str(path), "--history", str(history))
    assert "reported by test-host, not measured here" in compared.stdout, compared.stdout
