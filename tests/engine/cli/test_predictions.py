"""The answer before measuring, through the command line: said before the samples, kept
apart from the measured record with its outcome, and counted per machine by `history
predictions`; a store of the first version gets the record's columns when a writer opens it."""

from __future__ import annotations

import json
import sqlite3

from engine.storage.history import History
from engine.storage.schema import SCHEMA_VERSION, SQLITE, TABLES
from tests.cli import run_cli
from tests.factories import make_run

SMALL = ("--matrices", "200", "--dim", "12", "--strategy", "numpy,numpy_einsum")
SMALL += ("--repeats", "6", "--time-budget", "2", "--progress", "none")


def test_a_run_says_the_historys_prediction_and_keeps_it_apart_from_its_measurements(tmp_path):
    history = ("--history", str(tmp_path / "h.sqlite3"))
    first = run_cli("run", *SMALL, *history, "--json", str(tmp_path / "a.json"))
    assert first.returncode == 0, first.stderr
    assert "no prediction: no run of this kind" in first.stdout
    for name in ("b.json", "c.json"):
        again = run_cli("run", *SMALL, *history, "--json", str(tmp_path / name))
        assert again.returncode == 0, again.stderr
    assert "predicted from this machine's history, not measured: " in again.stdout
    data = json.loads((tmp_path / "c.json").read_text())
    found = data["prediction"]
    assert found["winner"] in {"numpy", "numpy_einsum"} and found["source"].startswith("exact")
    assert set(found["outcome"]) == {
        "confirmed",
        "measured_winner",
        "time_error",
        "within_interval",
    }
    assert found["outcome"]["measured_winner"] == data["winner"]["variant"]
    assert all("prediction" not in entry for entry in data["results"])  # never a measurement
    record = json.loads(run_cli("history", "predictions", *history, "--json").stdout)
    assert [(r["made"], r["device_kind"]) for r in record] == [(2, "CPU")]
    said = run_cli("history", "predictions", *history).stdout
    assert "of 2 predictions confirmed" in said


def test_an_imported_files_prediction_counts_for_nothing(tmp_path):
    run = make_run()
    run.prediction = {"winner": "einsum", "outcome": {"confirmed": True, "time_error": 0.0}}
    run.measured_here = False  # a file that does not verify here
    store = History(tmp_path / "h.sqlite3")
    store.add_run(run)
    assert store.prediction_records() == []


def test_a_first_version_store_gets_the_records_columns_when_a_writer_opens_it(tmp_path):
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:
        for table, _, columns in TABLES:
            kept = [c for c in columns if not c[0].startswith("prediction_")]
            body = ", ".join(
                f"{name} {getattr(SQLITE, kind)} {rule.format(now=SQLITE.now)}"
                for name, kind, rule in kept
            )
            conn.execute(f"CREATE TABLE {table} ({body})")
        conn.execute("PRAGMA user_version = 1")
    store = History(path)
    store.add_run(make_run())
    with sqlite3.connect(path) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    assert {"prediction_confirmed", "prediction_error"} <= columns and version == SCHEMA_VERSION


def test_a_first_version_team_store_is_migrated_once(postgres_url):
    import psycopg

    History(postgres_url)  # made at this version, then taken back to the first
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE runs DROP COLUMN prediction_confirmed")
        conn.execute("ALTER TABLE runs DROP COLUMN prediction_error")
        conn.execute("DELETE FROM matvec_schema WHERE version > 1")
    store = History(postgres_url)
    store.add_run(make_run())
    with psycopg.connect(postgres_url) as conn:
        versions = [row[0] for row in conn.execute("SELECT version FROM matvec_schema")]
    assert versions == [1, 2] and store.prediction_records() == []


GRID = ("--matrices", "50,100,200", "--dim", "8", "--strategy", "numpy,numpy_einsum")
GRID += ("--repeats", "5", "--time-budget", "1", "--progress", "none")


def test_a_sweep_that_fills_gaps_runs_only_the_points_the_history_predicts_least(tmp_path):
    history = ("--history", str(tmp_path / "h.sqlite3"))
    refused = run_cli("sweep", *GRID, *history, "--fill-gaps", "0")
    assert refused.returncode == 2 and "fill-gaps" in refused.stderr.strip().splitlines()[-1]
    first = run_cli(
        "sweep", *GRID, *history, "--fill-gaps", "2", "--json", str(tmp_path / "a.json")
    )
    assert first.returncode == 0, first.stderr
    assert "ran 2, 0 already done, 1 left for later (the history predicts" in first.stdout
    ran = {r["config"]["matrices"] for r in json.loads((tmp_path / "a.json").read_text())["runs"]}
    # nothing predicted yet: the grid's order; the remaining point lies outside the range
    # the two measured span, so nothing predicts it and it comes next
    assert ran == {50, 100}
    rest = run_cli("sweep", *GRID, *history, "--fill-gaps", "2", "--json", str(tmp_path / "b.json"))
    assert rest.returncode == 0, rest.stderr
    data = json.loads((tmp_path / "b.json").read_text())
    assert sorted(r["config"]["matrices"] for r in data["runs"]) == [50, 100, 200]
