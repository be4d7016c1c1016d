"""A run interrupted while its variants are sampled keeps what was measured: the JSON and the
history get every variant with the samples it had, marked interrupted, and the process exits
130 as an interrupted command does."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from engine.results.run_result import RunResult
from engine.storage.history import History
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # a real engine process


def test_sigint_while_sampling_saves_the_samples_taken_and_exits_130(tmp_path):
    out, history = tmp_path / "run.json", tmp_path / "h.sqlite3"
    command = [sys.executable, "-m", "engine", "run", "--strategy=numpy,einsum"]
    command += ["--matrices=40", "--dim=6", "--sampling=fixed", "--repeats=100000"]
    command += ["--time-budget=600", "--progress=jsonl", f"--json={out}", f"--history={history}"]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "MATVEC_QUEUE_DIR": str(tmp_path)}
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        sampled: dict[str, int] = {}
        for line in process.stdout:  # until both variants have a few samples
            event = json.loads(line)
            if event["event"] == "sample":
                sampled[event["variant"]] = event["sample"]
            if len(sampled) == 2 and min(sampled.values()) >= 3:
                break
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, stderr[-2000:]
    assert "interrupted; what was measured was saved to" in stderr
    run = RunResult.from_json(out.read_text())
    assert sorted(r.variant for r in run.results) == ["einsum", "numpy"]
    for entry in run.results:
        assert entry.status == "ok" and entry.correct and entry.stop_reason == "interrupted"
        assert len(entry.samples_s) >= 3
    assert any(w.startswith("interrupted (SIGINT) while sampling") for w in run.warnings)
    assert History(history).get_run(run.run_id) is not None
