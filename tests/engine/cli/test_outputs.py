"""Bad outputs are refused before any work; a finished measurement is never lost."""

import json

import pytest

from engine.results.files import check_output_file, write_text_atomically
from engine.run_settings.fields import ConfigError
from tests.cli import engine_process, run_cli

SMALL = ("run", "--matrices", "8", "--dim", "4")


@pytest.fixture
def places(tmp_path):
    read_only = tmp_path / "read-only.json"
    read_only.write_text("keep me")
    read_only.chmod(0o444)
    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("not a database")
    corrupt = tmp_path / "corrupt.sqlite3"
    corrupt.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "elsewhere.json")
    return {
        "directory": ["--json", str(tmp_path)],
        "proc": ["--json", "/proc/matvec-results.json"],
        "device": ["--json", "/dev/null"],
        "read-only": ["--json", str(read_only)],
        "symlink": ["--json", str(link)],
        "missing folder": ["--json", str(tmp_path / "no" / "such" / "out.json")],
        "history directory": ["--history", str(tmp_path)],
        "history not sqlite": ["--history", str(not_sqlite)],
        "history corrupt": ["--history", str(corrupt)],
    }


@pytest.mark.parametrize(
    "case",
    [
        "directory",
        "proc",
        "device",
        "read-only",
        "symlink",
        "missing folder",
        "history directory",
        "history not sqlite",
        "history corrupt",
    ],
)
def test_a_bad_output_is_refused_before_any_work(places, case, tmp_path):
    done = run_cli(*SMALL, *places[case])
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    flag = "history" if case.startswith("history") else "json"
    assert line.startswith(f"error: {flag}: ")
    assert "Traceback" not in done.stderr and "TensorFlow" not in done.stderr
    assert not list(tmp_path.glob(".*.tmp")) and not list(tmp_path.glob(".*.check"))
    assert (tmp_path / "read-only.json").read_text() == "keep me"


def test_a_real_process_refuses_a_bad_output_in_one_line(tmp_path):
    done = engine_process(*SMALL, "--json", str(tmp_path), timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: json: ")


def test_atomic_write_keeps_permissions_and_leaves_nothing_behind(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    target.chmod(0o640)
    write_text_atomically(target, "new")
    assert target.read_text() == "new" and target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
    assert check_output_file("json", target) == target
    with pytest.raises(ConfigError, match=r"json: .* is a directory"):
        check_output_file("json", tmp_path)


def test_a_write_that_fails_at_the_end_keeps_the_measurement(tmp_path, monkeypatch, capsys):
    from engine.cli import main as cli

    def broken(path, text):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("engine.cli.run.write_text_atomically", broken)
    monkeypatch.setattr("engine.results.files.platformdirs.user_data_dir", lambda _n: str(tmp_path))
    code = cli.main(
        [
            "run",
            "--matrices",
            "8",
            "--dim",
            "4",
            "--repeats",
            "2",
            "--warmup",
            "0",
            "--progress",
            "none",
            "--no-history",
            "--json",
            str(tmp_path / "out.json"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "error: json: could not write" in err and "No space left" in err
    kept = next((tmp_path / "unsaved").glob("matvec-*.json"))
    assert json.loads(kept.read_text())["schema_version"] == 1
    assert str(kept) in err
