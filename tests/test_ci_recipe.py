"""docs/ci.md's script, run as written: main measured as a group, a change measured and
gated against it, the markdown summary, the history's changes and the published site."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.conftest import ROOT


def recipe() -> str:
    text = (ROOT / "docs" / "ci.md").read_text()
    (script,) = re.findall(r"```bash\n(.+?)\n```", text, flags=re.S)
    return script


def test_the_ci_recipe_runs_end_to_end(tmp_path):
    bin_dir = tmp_path / "bin"  # `matvec-profiler` as the installed command would be
    bin_dir.mkdir()
    command = bin_dir / "matvec-profiler"
    command.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m engine "$@"\n')
    command.chmod(0o755)
    out = tmp_path / "out"
    done = subprocess.run(
        ["bash", "-c", recipe()],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,  # from any folder, as a CI job's checkout would be
        env={
            **os.environ,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(ROOT),
            "MATVEC_HISTORY": str(tmp_path / "history.sqlite3"),
            "MATVEC_QUEUE_DIR": str(tmp_path / "queue"),
            "MATRICES": "40",
            "DIM": "8",
            "STRATEGIES": "numpy,numpy_einsum",
            "REPETITIONS": "3",
            "GATE": "10",
            "OUT": str(out),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
            "TF_CPP_MIN_LOG_LEVEL": "3",
        },
    )
    # The same code twice: no confirmed slowdown, so the gate passes.
    assert done.returncode == 0, done.stderr[-3000:]
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("**Comparison**") and "| numpy |" in summary.replace("  ", " ")
    assert (out / "main.json").is_file() and (out / "change.json").is_file()
    assert (out / "site" / "index.html").is_file()
    assert "no step" in done.stdout  # history changes: three runs a series, nothing to find
