"""`run --repetitions R`: a repetition that dies keeps the finished ones and names why; a stop
signal to the parent ends the repetition it is running and leaves nothing behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import engine.cli.repetitions as repetitions
from engine.cli.main import main
from tests.conftest import ROOT
from tests.engine.process.test_children import alive, wait_until
from tests.factories import make_run

ARGS = ["--matrices", "8", "--dim", "4", "--strategy", "numpy", "--progress", "none"]


def fake_children(monkeypatch, good: Path, dies_at: int) -> list[list[str]]:
    """Repetitions that copy a finished result into place, except the `dies_at`-th (1-based),
    which is killed outright."""
    calls: list[list[str]] = []
    real = repetitions.Child

    def child(command, **options):
        calls.append(command)
        out = next(a.split("=", 1)[1] for a in command if a.startswith("--json="))
        if len(calls) == dies_at:
            script = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
        else:
            script = f"import shutil; shutil.copy({str(good)!r}, {out!r})"
        return real([sys.executable, "-c", script], **options)

    monkeypatch.setattr(repetitions, "Child", child)
    return calls


def test_a_killed_repetition_keeps_the_finished_ones_and_names_why(tmp_path, monkeypatch, capsys):
    good = tmp_path / "good.json"
    good.write_text(make_run().to_json())
    calls = fake_children(monkeypatch, good, dies_at=2)
    out = tmp_path / "group.json"
    code = main(["run", "--repetitions", "3", *ARGS, "--json", str(out), "--no-history"])
    assert code == 1 and len(calls) == 2  # the third never started
    error = capsys.readouterr().err
    assert "repetition 2 of 3 died (SIGKILL)" in error
    assert "the 1 finished repetition(s) are kept in" in error and str(out) in error
    group = json.loads(out.read_text())
    assert len(group["runs"]) == 1 and group["group_id"] in error


def test_without_json_the_finished_repetitions_go_to_a_fallback_file(tmp_path, monkeypatch, capsys):
    good = tmp_path / "good.json"
    good.write_text(make_run().to_json())
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    fake_children(monkeypatch, good, dies_at=3)
    assert main(["run", "--repetitions", "3", *ARGS, "--no-history"]) == 1
    error = capsys.readouterr().err
    kept = Path(error.split("are kept in ")[1].split(" (group")[0])
    assert len(json.loads(kept.read_text())["runs"]) == 2


def test_a_first_repetition_that_fails_is_an_error_with_its_reason(tmp_path, monkeypatch, capsys):
    fake_children(monkeypatch, tmp_path / "unused.json", dies_at=1)
    assert main(["run", "--repetitions", "2", *ARGS, "--no-history"]) == 1
    assert "repetition 1 of 2 died (SIGKILL)" in capsys.readouterr().err


def children_of(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def test_sigterm_to_the_parent_ends_the_running_repetition_and_its_scratch(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    parent = subprocess.Popen(
        [sys.executable, "-m", "engine", "run", "--repetitions", "3", *ARGS, "--no-history"],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(scratch), "TF_CPP_MIN_LOG_LEVEL": "3"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert wait_until(lambda: children_of(parent.pid), timeout_s=60), "no repetition started"
    child = children_of(parent.pid)[0]
    time.sleep(0.3)
    parent.send_signal(signal.SIGTERM)
    assert parent.wait(timeout=60) == 128 + signal.SIGTERM
    assert wait_until(lambda: not alive(child))
    assert not list(scratch.glob("matvec-group-*"))  # the temp folder went with it
    assert "Traceback" not in parent.stderr.read()


def test_each_repetition_probes_nothing_when_the_run_asked_for_no_ceiling(tmp_path):
    out = tmp_path / "group.json"
    flags = ["--json", str(out), "--no-history", "--no-ceiling"]
    assert main(["run", "--repetitions", "2", *ARGS, *flags]) == 0
    runs = json.loads(out.read_text())["runs"]
    assert len(runs) == 2
    assert all(run["peak"]["bandwidth_bytes_per_s"] is None for run in runs)
    assert all(run["results"][0]["correct"] for run in runs)
