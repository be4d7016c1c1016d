"""`compare --rerun N`: every side measured again, N runs each, alternated in fresh processes.

A stored baseline and a later candidate were measured in different windows, and this host's
speed drifts between windows (1.6x on a bad hour), so a comparison of runs made apart in time
carries that drift (`analysis.compare.windows_apart`) and more runs cannot shrink it. Runs of
both sides alternated in one window (pyperf's interleaving: A B, B A, A B, ...) carry none, and
N is what the comparison's own advice asks for ("needs about N runs per side, alternated with
the other side's"). Only a side that can be measured again here is re-measured: made on this
machine, its strategies installed here, its kernel files unchanged; any other is refused
before any work, naming it.
"""

from __future__ import annotations

import argparse
import hashlib
import platform
import tempfile
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from engine.cli.repetitions import run_fresh
from engine.results.run_result import RunResult
from engine.spec.catalog import is_known, strategy_info
from engine.spec.fields import ConfigError
from engine.spec.user_kernels import read_source


def file_sha256(path: str) -> str | None:
    """The kernel file's hash now, read as a run reads it (`read_source`: a regular file of
    bounded size, never a FIFO or a device), or None when it cannot be read so."""
    try:
        return hashlib.sha256(read_source(Path(path))).hexdigest()
    except ConfigError:
        return None


def why_not_rerunnable(runs: Sequence[RunResult], host: str) -> str | None:
    """Why this side cannot be measured again here, or None."""
    first = runs[0]
    if any(run.config.to_dict() != first.config.to_dict() for run in runs[1:]):
        return "its runs have different settings"
    made_on = first.environment.hostname if first.environment else None
    if made_on != host:
        return f"it was measured on {made_on or 'an unnamed host'}, not on this machine ({host})"
    missing = [
        name
        for name in first.config.strategies
        if is_known(name) and not strategy_info(name).installed
    ]
    if missing:
        return f"{', '.join(missing)} cannot run here (not installed)"
    for result in first.results:
        kernel = result.user_kernel
        if kernel and file_sha256(kernel.get("path", "")) != kernel.get("sha256"):
            return f"its kernel file {kernel.get('path')} changed since, or is gone"
    return None


def check_rerunnable(sides: Sequence[Sequence[RunResult]], names: Sequence[str]) -> None:
    """Refuse, naming the side, any side that cannot be measured again here."""
    host = platform.node()
    for index, (runs, name) in enumerate(zip(sides, names, strict=True)):
        problem = why_not_rerunnable(runs, host)
        if problem:
            raise ConfigError(
                "rerun", f"side {index} ({name[:80]}) cannot be re-measured: {problem}"
            )


def rerun_sides(
    sides: Sequence[Sequence[RunResult]],
    count: int,
    args: argparse.Namespace,
    say: Callable[[str], None],
) -> list[list[RunResult]]:
    """Each side's settings run `count` times in fresh processes, the sides alternated and
    the order turned each round (A B, B A, ...); each side's new runs one group. A failure
    ends it (`RepetitionFailed`); every run that finished is in the history already."""
    configs = [runs[0].config for runs in sides]
    groups = [uuid.uuid4().hex for _ in configs]
    found: list[list[RunResult]] = [[] for _ in configs]
    with tempfile.TemporaryDirectory(prefix="matvec-rerun-") as scratch:
        for round_index in range(count):
            turn = round_index % len(configs)
            for side in [*range(turn, len(configs)), *range(turn)]:
                what = f"side {side}'s run {round_index + 1} of {count}"
                say(f"re-measuring: {what} (fresh process)...")
                out = Path(scratch) / f"side{side}-run{round_index}.json"
                found[side].append(
                    run_fresh(configs[side], out, groups[side], args, what, found[side])
                )
    return found
