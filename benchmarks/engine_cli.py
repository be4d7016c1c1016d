"""The engine's CLI in a fresh process, as the benchmarks run it: from the repository root,
TensorFlow's logs quiet, failing loudly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}


def engine(*args: str, quiet: bool = False) -> None:
    """`python -m engine ARGS` in a process of its own; `quiet` drops its stdout."""
    subprocess.run(
        [sys.executable, "-m", "engine", *args],
        cwd=ROOT,
        check=True,
        env=ENV,
        stdout=subprocess.DEVNULL if quiet else None,
    )
