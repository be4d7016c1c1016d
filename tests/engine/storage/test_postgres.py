"""A team's store on a real PostgreSQL server (started by the tests, `tests/postgres_server.py`):
the same answers as an SQLite file from the same runs, machines opening a new store at once,
the CLI and MATVEC_HISTORY taking a URL, and every refusal one line before any work, its
password never printed."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import re

import pytest

from engine.measure.uncertainty import NoiseFloor
from engine.run_settings.fields import ConfigError
from engine.storage.history import History
from engine.storage.history_file import HistoryUnavailable, check_history_path
from engine.storage.postgres import is_database_url, shown
from engine.storage.run_rows import RunFilter
from engine.storage.schema import SCHEMA_VERSION
from tests.cli import run_cli
from tests.factories import make_run


def test_a_url_names_a_server_and_its_password_is_never_shown():
    assert is_database_url("postgresql://bob@db.example/matvec")
    assert is_database_url("postgres://db/matvec")
    assert not is_database_url("postgresql.sqlite3")
    assert not is_database_url("/tmp/postgresql://x")
    assert shown("postgresql://bob:s3cret@db:5432/matvec") == "postgresql://bob:***@db:5432/matvec"
    assert "s3cret" not in shown("postgresql://bob@/matvec?host=/run/pg&password=s3cret")


def stored_runs() -> list:
    runs = []
    for index in range(6):
        run = make_run(
            {"einsum": [0.002 + index * 1e-5] * 4, "numpy": [0.003] * 4},
            run_id=f"run{index}",
            label=f"nightly {index % 2}",
            created_at=f"2026-11-{10 + index}T12:00:00+00:00",
        )
        run.group_id = "g1" if index < 3 else None
        runs.append(run)
    return runs


STORED_AT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def timeless(floor: NoiseFloor | None) -> NoiseFloor | None:
    """A floor whose words say when its calibration was stored, that time taken out: each
    store stamps it with its own clock as the row is written, and two stores filled one after
    the other can be a second apart (a comparison that failed now and then)."""
    if floor is None:
        return None
    assert STORED_AT.search(floor.source) or "calibrated" not in floor.source, floor.source
    return dataclasses.replace(floor, source=STORED_AT.sub("<stored at>", floor.source))


def everything_read(history: History) -> dict:
    """What every page and command reads from a store, in a form two stores can be compared in."""
    run = stored_runs()[0]
    listing = history.list_runs(RunFilter(label_contains="NIGHTLY 1"))
    return {
        "listing": listing.drop(columns=["sweep_id", "group_id"]).to_dict("records"),
        "count": history.count_runs(RunFilter(since="2026-11-12")),
        "kinds": history.device_kinds(),
        "all": [r.run_id for r in history.all_runs()],
        "group": [r.run_id for r in history.group_runs("g1")],
        "like": [r.run_id for r in history.like_runs(run)],
        "floor": timeless(history.floor_of(run)),
        "calibration": timeless(history.noise_floor("test-host", "CPU")),
        "ceilings": history.machine_ceilings("test-host", "CPU"),
        "sweeps": history.list_sweeps().to_dict("records"),
        "sweep": [r.run_id for r in history.sweep_runs("s1")],
        "done": history.done_points("s1"),
    }


def fill(history: History) -> None:
    for index, run in enumerate(stored_runs()):
        history.add_run(run, sweep_id="s1" if index == 5 else None, point_key="p5")
    floor = NoiseFloor(between_run_log_sd=0.05, ratio_log_sd=0.07, source="test")
    history.add_noise_floor("test-host", "CPU", floor, 5, "g1", {"matrices": 100})
    history.add_sweep("s1", "2026-11-15T12:00:00+00:00", "a sweep", {"dims": [10]}, 1)


def test_a_postgresql_store_answers_as_the_sqlite_file_does(tmp_path, postgres_url):
    """One code path: the same runs stored in both give the same listing, series, floors,
    ceilings, groups and sweeps."""
    local, team = History(tmp_path / "h.sqlite3"), History(postgres_url)
    for store in (local, team):
        fill(store)
    read_local, read_team = everything_read(local), everything_read(team)
    calibrated = {read.pop("calibration").between_run_log_sd for read in (read_local, read_team)}
    assert read_team == read_local
    assert read_team["all"] == [f"run{i}" for i in range(6)]
    assert calibrated == {0.05}


def test_a_read_only_team_store_lists_and_refuses_to_write(postgres_url):
    History(postgres_url).add_run(make_run(run_id="kept"))
    reader = History(postgres_url, read_only=True)
    assert list(reader.list_runs()["run_id"]) == ["kept"]
    with pytest.raises(HistoryUnavailable, match="read-only transaction"):
        reader.add_run(make_run(run_id="refused"))


def open_store(url: str) -> None:
    History(url).add_run(make_run())


def test_machines_opening_a_new_store_at_once_make_it_once(postgres_url):
    ctx = multiprocessing.get_context("spawn")
    openers = [ctx.Process(target=open_store, args=(postgres_url,)) for _ in range(4)]
    for opener in openers:
        opener.start()
    for opener in openers:
        opener.join(120)
        assert opener.exitcode == 0
    import psycopg

    with psycopg.connect(postgres_url) as conn:
        made = conn.execute("SELECT version FROM matvec_schema ORDER BY version").fetchall()
    assert made == [(v,) for v in range(1, SCHEMA_VERSION + 1)]  # each migration once
    assert History(postgres_url).count() == 4


def test_the_cli_and_matvec_history_take_a_url(tmp_path, postgres_url, monkeypatch):
    results = tmp_path / "a.json"
    make_run(run_id="imported", label="ci").write_json(results)
    done = run_cli("import", str(results), "--history", postgres_url)
    assert done.returncode == 0, done.stderr
    listed = run_cli("history", "--history", postgres_url, "--json")
    assert [row["run_id"] for row in json.loads(listed.stdout)] == ["imported"]
    monkeypatch.setenv("MATVEC_HISTORY", postgres_url)
    by_variable = run_cli("history", "--json")
    assert [row["run_id"] for row in json.loads(by_variable.stdout)] == ["imported"]


def test_an_unreachable_server_is_one_line_before_any_work_without_its_password(tmp_path):
    url = f"postgresql://bob:s3cret@/matvec?host={tmp_path}&connect_timeout=2"
    with pytest.raises(ConfigError, match="cannot be used") as refused:
        check_history_path(url)
    assert "s3cret" not in str(refused.value) and "\n" not in str(refused.value)
    done = run_cli("run", "--strategy=numpy", "--matrices=8", "--dim=4", "--history", url)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: history: 'postgresql://bob:***@/matvec")
    assert "s3cret" not in done.stderr and "Traceback" not in done.stderr


def test_a_store_of_a_newer_version_is_refused_naming_both(postgres_url):
    import psycopg

    History(postgres_url)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("INSERT INTO matvec_schema (version) VALUES (99)")
    with pytest.raises(ConfigError, match=r"newer matvec-profiler .*version 99"):
        check_history_path(postgres_url)


def test_a_runs_table_of_another_program_is_refused_and_left_alone(postgres_url):
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE runs (id INTEGER, athlete TEXT)")
    done = run_cli("history", "--history", postgres_url)
    assert done.returncode == 2 and "a table `runs` of another program" in done.stderr
    with psycopg.connect(postgres_url) as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchall()
    assert tables == [("runs",)]  # nothing made beside it
