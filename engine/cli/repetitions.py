"""Repeating a whole measurement in fresh processes: `run --repetitions R` and `calibrate`.

One process's samples cannot show how much a fresh process would have moved its medians
(placement, allocation, frequency, neighbours). Repetitions measure exactly that: each is the
same `run` in a new process, all share a `group_id`, and the parent holds the machine-wide queue
for the whole group so nothing else runs in between.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import tempfile
import uuid
from pathlib import Path

from engine.cli.flags import cli_args
from engine.process.children import ENGINE_ROOT, Child, engine_command, engine_environment
from engine.results.parse import read_results_file
from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig

CHILD_TIMEOUT_S = 24 * 3600
# A run that finished and wrote its JSON: 0, or 3 when no variant was correct (its results
# still say why each failed, and the group keeps it).
FINISHED_CODES = (0, 3)


class RepetitionFailed(RuntimeError):
    """A repetition's process failed; `str()` says which and why. The repetitions that did
    finish are kept in `runs` (with their `group_id`): a finished measurement is never lost."""

    def __init__(self, message: str, group_id: str = "", runs: list[RunResult] | None = None):
        super().__init__(message)
        self.group_id = group_id
        self.runs = list(runs or [])


def why_it_ended(code: int, child: Child) -> str:
    if code < 0:
        return f"died ({signal.Signals(-code).name})"
    return f"failed (exit code {code}): {child.last_line()}"


def run_fresh(
    config: BenchConfig,
    out: Path,
    group_id: str,
    args: argparse.Namespace,
    what: str,
    finished: list[RunResult],
) -> RunResult:
    """One `python -m engine run` of `config` in a fresh process, a child of this one (a stop
    signal to this process ends it too), its results read from `out`; `RepetitionFailed`
    (saying `what` failed, and why, and carrying the group's `finished` runs) when it does
    not end well."""
    command = engine_command(
        "run",
        *cli_args(config),
        "--no-queue",  # the parent holds the queue for the whole group
        "--progress=none",
        f"--json={out}",
        f"--group-id={group_id}",
    )
    if getattr(args, "history", None):
        command.append(f"--history={args.history}")
    if getattr(args, "no_history", False):
        command.append("--no-history")
    if getattr(args, "no_ceiling", False):
        command.append("--no-ceiling")
    child = Child(command, stdout=subprocess.DEVNULL, env=engine_environment(), cwd=ENGINE_ROOT)
    code = child.wait_or_end(CHILD_TIMEOUT_S).code
    if code not in FINISHED_CODES:
        raise RepetitionFailed(f"{what} {why_it_ended(code, child)}", group_id, finished)
    return read_results_file(out)


def run_repetitions(
    config: BenchConfig, count: int, args: argparse.Namespace, say: object = print
) -> tuple[str, list[RunResult]]:
    """Run `config` `count` times, each in a fresh `python -m engine run`; returns the group."""
    group_id = uuid.uuid4().hex
    runs: list[RunResult] = []
    with tempfile.TemporaryDirectory(prefix="matvec-group-") as scratch:
        for index in range(count):
            say(f"repetition {index + 1} of {count} (fresh process)...")  # type: ignore[operator]
            out = Path(scratch) / f"run{index}.json"
            what = f"repetition {index + 1} of {count}"
            runs.append(run_fresh(config, out, group_id, args, what, runs))
    return group_id, runs
