"""Files that cannot be used are one line naming the flag, before any work: the history for
every command that reads it, and `compare --json`."""

from __future__ import annotations

import pytest

from engine.cli.main import main
from engine.storage.history import History
from engine.storage.history_file import HistoryUnavailable
from tests.factories import make_run


@pytest.fixture(params=["corrupt", "directory", "not sqlite"])
def bad_history(request, tmp_path):
    path = tmp_path / "history.sqlite3"
    if request.param == "directory":
        path.mkdir()
    elif request.param == "not sqlite":
        path.write_text("just some text, not a database\n" * 50)
    else:  # a real database with its pages overwritten in the middle
        History(path).add_run(make_run())
        data = bytearray(path.read_bytes())
        data[100:4000] = b"\xff" * 3900
        path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize(
    "command",
    [
        ["history"],
        ["history", "--json"],
        ["compare", "a.json", "b.json"],
        ["import", "nothing.json"],
    ],
)
def test_a_history_that_cannot_be_used_is_one_line_naming_it(command, bad_history, capsys):
    assert main([*command, "--history", str(bad_history)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("error: history: ")
    assert "internal error" not in error


def test_history_unavailable_is_raised_by_every_reader(bad_history):
    with pytest.raises(HistoryUnavailable, match="history: "):
        History(bad_history).list_runs()


def test_compare_refuses_an_output_it_cannot_write_before_any_work(tmp_path, capsys):
    sides = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.json"
        path.write_text(make_run().to_json())
        sides.append(str(path))
    for target in ("/proc/x.json", str(tmp_path)):
        assert main(["compare", *sides, "--json", target]) == 2
        captured = capsys.readouterr()
        assert captured.err.startswith("error: json: ") and captured.err.count("\n") == 1
        assert captured.out == ""  # refused before the table


def test_fail_if_slower_is_called_a_percentage(capsys, tmp_path):
    path = tmp_path / "a.json"
    path.write_text(make_run().to_json())
    assert main(["compare", str(path), str(path), "--fail-if-slower", "lots"]) == 2
    error = capsys.readouterr().err
    assert "fail-if-slower: must be a percentage" in error and "seconds" not in error


@pytest.mark.parametrize(
    "message", ["attempt to write a readonly database", "database or disk is full"]
)
def test_a_read_only_or_full_history_is_one_line_too(message, tmp_path, monkeypatch, capsys):
    """A read-only mount and a full disk answer SQLite's writes with these errors (root ignores
    file modes here, so the errors are injected where SQLite would raise them). Listing such a
    store writes nothing and works (tests/engine/storage/test_history.py)."""
    import sqlite3

    import engine.storage.history_file as storage

    path = tmp_path / "history.sqlite3"
    History(path).add_run(make_run())
    real = sqlite3.connect

    class Failing:
        def __init__(self, conn):
            self.conn = conn

        def execute(self, sql, *args):
            if sql.lstrip().upper().startswith(("INSERT", "CREATE", "PRAGMA JOURNAL")):
                raise sqlite3.OperationalError(message)
            return self.conn.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self.conn, name)

    results = tmp_path / "run.json"
    make_run().write_json(results)
    monkeypatch.setattr(storage.sqlite3, "connect", lambda *a, **k: Failing(real(*a, **k)))
    assert main(["import", str(results), "--history", str(path)]) == 2  # a command that writes
    error = capsys.readouterr().err
    assert error.startswith("error: history: ") and message in error and error.count("\n") == 1
