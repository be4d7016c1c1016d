"""The engine's CLI in a fresh process, as the benchmarks run it: from the repository root,
TensorFlow's logs quiet, failing loudly."""

from __future__ import annotations

import subprocess

from engine.process.children import ENGINE_ROOT, Child, engine_command, engine_environment

ROOT = ENGINE_ROOT


def engine(*args: str, quiet: bool = False) -> None:
    """`python -m engine ARGS` in a process of its own; `quiet` drops its stdout. Raises
    `CalledProcessError` when it fails (its stderr passes through)."""
    command = engine_command(*args)
    child = Child(
        command,
        stdout=subprocess.DEVNULL if quiet else None,
        stderr="inherit",
        env=engine_environment(TF_CPP_MIN_LOG_LEVEL="3"),
        cwd=ENGINE_ROOT,
    )
    code = child.wait_or_end(None).code
    if code != 0:
        raise subprocess.CalledProcessError(code, command)
