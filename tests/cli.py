"""Running the command line in tests, two ways.

`run_cli` calls `engine.cli.main.main` in the test's own process with its output captured: the
same parser, checks, messages and exit codes, without a new interpreter's start (each `python
-m engine` costs a second or more, several when TensorFlow loads). `engine_process` starts the
real `python -m engine`: kept for what only a process shows (the exit path, signals, what
reaches the terminal from native code), one check per command.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from dataclasses import dataclass

from tests.conftest import ROOT


@dataclass(frozen=True)
class CliOutcome:
    """What a command left: its exit code and the text it wrote (as `CompletedProcess`)."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str) -> CliOutcome:
    """`python -m engine ARGS`, in this process."""
    from engine.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return CliOutcome(code, out.getvalue(), err.getvalue())


def engine_process(
    *args: str, timeout: float = 300, env: dict[str, str] | None = None, cwd=ROOT
) -> subprocess.CompletedProcess:
    """`python -m engine ARGS` as a real process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", **(env or {})},
    )
