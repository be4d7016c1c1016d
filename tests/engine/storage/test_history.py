"""The history for real, on both stores (an SQLite file and a PostgreSQL server the tests
start, `store_location`): transactions, concurrent writers, a writer killed mid-way; and what
is the file's own (WAL, names, permissions, another program's database)."""

import json
import multiprocessing
import os
import signal
import sqlite3
import time

import pytest

from engine.storage.history import History
from engine.storage.run_rows import RunFilter
from tests.factories import make_run


def test_add_get_list_delete(store_location):
    history = History(store_location)
    run = make_run(label="laptop <b>", device_kind="CPU")
    assert history.add_run(run) is True
    assert history.add_run(run) is False  # same run_id: recognised, not duplicated
    assert history.count() == 1
    again = history.get_run(run.run_id)
    assert again.to_dict() == run.to_dict()
    listing = history.list_runs()
    assert list(listing["run_id"]) == [run.run_id]
    assert listing.loc[0, "best_variant"] == "einsum"
    assert history.delete_run(run.run_id) and history.count() == 0
    assert history.get_run(run.run_id) is None


def test_filters_by_device_label_and_date(store_location):
    history = History(store_location)
    history.add_run(
        make_run(label="Colab TPU", device_kind="TPU", created_at="2026-11-01T10:00:00+00:00")
    )
    history.add_run(
        make_run(label="laptop", device_kind="CPU", created_at="2026-11-20T10:00:00+00:00")
    )
    assert list(history.list_runs(RunFilter(device_kind="TPU"))["label"]) == ["Colab TPU"]
    assert list(history.list_runs(RunFilter(label_contains="LAP"))["label"]) == ["laptop"]
    assert history.list_runs(RunFilter(label_contains="%")).empty  # a character, not a pattern
    assert list(history.list_runs(RunFilter(since="2026-11-10"))["label"]) == ["laptop"]
    assert list(history.list_runs(RunFilter(until="2026-11-01"))["label"]) == ["Colab TPU"]
    assert history.device_kinds() == ["CPU", "TPU"]


def test_database_uses_wal(tmp_path):
    History(tmp_path / "h.sqlite3")
    with sqlite3.connect(tmp_path / "h.sqlite3") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def write_many(path, count, tag):
    history = History(path)
    for _ in range(count):
        history.add_run(make_run(label=tag))


def test_two_processes_writing_at_once_lose_nothing(store_location):
    path = store_location
    History(path)
    ctx = multiprocessing.get_context("spawn")
    writers = [ctx.Process(target=write_many, args=(path, 150, tag)) for tag in ("a", "b")]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(120)
        assert writer.exitcode == 0
    listing = History(path).list_runs()
    assert len(listing) == 300
    assert sorted(listing["label"].value_counts().to_dict().items()) == [("a", 150), ("b", 150)]


def test_a_writer_killed_mid_write_leaves_the_database_consistent(store_location):
    path = store_location
    History(path)
    ctx = multiprocessing.get_context("spawn")
    writer = ctx.Process(target=write_many, args=(path, 100_000, "x"))
    writer.start()
    deadline = time.monotonic() + 60
    while History(path).count() < 30 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(writer.pid, signal.SIGKILL)
    writer.join()
    if not path.startswith("postgresql://"):
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    history = History(path)
    stored = history.list_runs()
    assert len(stored) >= 30
    for run_id in stored["run_id"]:  # every stored run is whole, its ceilings with it
        assert history.get_run(run_id).results[0].variant == "einsum"
    ceilings = history.machine_ceilings("test-host", "CPU", 10**6)
    assert sum(map(len, ceilings.values())) == len(stored)


def test_the_listed_best_is_the_runs_own_winner(store_location):
    history = History(store_location)
    run = make_run({"einsum": [0.00201, 0.00199] * 10, "numpy": [0.002, 0.0021] * 10})
    run.results[0].correct = True
    history.add_run(run)
    chosen = run.winner()
    row = history.list_runs().iloc[0]
    assert row["best_variant"] == chosen.variant
    winner = next(r for r in run.results if r.variant == chosen.variant)
    assert row["best_median_s"] == winner.median_s


@pytest.mark.parametrize("name", ["h%20.sqlite3", "h#1.sqlite3", "h?mode=rw.sqlite3", "%.db"])
def test_any_file_name_works_for_the_history(tmp_path, name):
    """A path is a name, never URI syntax: the second run is not refused, no stray file."""
    from engine.storage.history_file import check_history_path

    path = tmp_path / name
    for run_id in ("a1", "a2"):
        History(check_history_path(path)).add_run(make_run(run_id=run_id))
    assert History(path).count() == 2
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm"))) == [
        name
    ]


def test_a_read_only_history_can_be_listed_and_compared(tmp_path):
    from tests.cli import run_cli

    path = tmp_path / "h.sqlite3"
    store = History(path)
    store.add_run(make_run(run_id="r1"))
    store.add_run(make_run(run_id="r2"))
    for extra in tmp_path.glob("h.sqlite3-*"):
        extra.unlink()  # closed: its WAL is checkpointed
    path.chmod(0o444)
    before = path.read_bytes()
    listed = run_cli("history", "--history", str(path))
    compared = run_cli("compare", "r1", "r2", "--history", str(path))
    assert listed.returncode == 0 and "einsum" in listed.stdout, listed.stderr
    assert compared.returncode == 0, compared.stderr
    assert path.read_bytes() == before  # opened read-only: not a byte written


def test_a_database_of_another_program_is_refused_before_any_work(tmp_path):
    """It was accepted at the start and failed only when storing, the measurement kept."""
    from tests.cli import run_cli

    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER, total REAL)")
    done = run_cli("run", "--strategy=numpy", "--matrices=8", "--dim=4", "--history", str(other))
    assert done.returncode == 2 and done.stdout == ""
    assert "another program (tables: invoices)" in done.stderr
    with sqlite3.connect(other) as conn:  # not a table added to it
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert names == {"invoices"}
    listed = run_cli("history", "--history", str(other))
    assert listed.returncode == 2 and "another program" in listed.stderr


def test_a_store_of_a_newer_version_is_refused_naming_both(tmp_path):
    from engine.run_settings.fields import ConfigError
    from engine.storage.history_file import check_history_path

    path = tmp_path / "h.sqlite3"
    History(path).add_run(make_run())
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(ConfigError, match=r"newer matvec-profiler .*version 99"):
        check_history_path(path)


def test_a_long_listing_says_how_many_it_left_out(tmp_path):
    from tests.cli import run_cli

    path = tmp_path / "h.sqlite3"
    store = History(path)
    for index in range(5):
        store.add_run(make_run(run_id=f"r{index}"))
    done = run_cli("history", "--history", str(path), "--limit", "3")
    assert done.returncode == 0
    assert "showing the newest 3 of 5 matching runs; --limit 5 shows them all" in done.stderr
    whole = run_cli("history", "--history", str(path), "--json")
    assert whole.stderr == "" and len(json.loads(whole.stdout)) == 5


def test_a_store_is_chosen_once_by_its_urls_scheme(tmp_path):
    """`open_store`: a path is an SQLite file; a known scheme picks its kind from
    `STORE_KINDS` (a new kind is one entry there and one class)."""
    from engine.storage import store

    opened = store.open_store(tmp_path / "h.sqlite3")
    assert type(opened).__name__ == "SqliteStore" and opened.dialect.name == "sqlite"
    made: list[tuple[str, bool]] = []

    class Recorded:
        dialect = store.SQLITE
        read_only = False

        def __init__(self, url: str, read_only: bool) -> None:
            made.append((url, read_only))
            self.name = url

        def connect(self):
            return store.EmptyStore(self.name).connect()

    original = dict(store.STORE_KINDS)
    store.STORE_KINDS["postgresql"] = Recorded
    try:
        found = History("postgresql://bob@db/matvec", read_only=True)
    finally:
        store.STORE_KINDS.clear()
        store.STORE_KINDS.update(original)
    assert made == [("postgresql://bob@db/matvec", True)]
    assert found.count() == 0 and found.name == "postgresql://bob@db/matvec"
