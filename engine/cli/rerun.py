"""`compare --rerun N`: every side measured again, N runs each, alternated in fresh processes.

A stored baseline and a later candidate were measured in different windows, and this host's
speed drifts between windows (1.6x on a bad hour), so a comparison of runs made apart in time
carries that drift (`analysis.compare.windows_apart`) and more runs cannot shrink it. Runs of
both sides alternated in one window (pyperf's interleaving: A B, B A, A B, ...) carry none, and
N is what the comparison's own advice asks for ("needs about N runs per side, alternated with
the other side's"). Only a side that can be measured again here is re-measured: made on this
machine, its strategies installed here; any other is refused before any work, naming it.

A results file is data. A user's kernel named in it (its path, its hash) is never imported,
run or even opened: whoever hands over a crafted file must not run code here. A kernel is
measured again only from a `--kernel PATH.py:FUNCTION` the user gives on the command line,
whose SHA-256 matches the one the side stored; without one, that variant is "not
re-measured" and the side's other variants run again.
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.catalogue.catalog import is_known, strategy_info
from engine.cli.repetitions import run_fresh
from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig
from engine.run_settings.fields import ConfigError
from engine.run_settings.user_kernels import UserKernel, kernel_name

NOT_REMEASURED = (
    "not re-measured: a kernel is measured again only from a --kernel PATH.py:FUNCTION given "
    "on the command line, never from the path a results file names"
)


@dataclass(frozen=True)
class RerunPlan:
    """What one side is measured again with: its settings (kernels only from the command
    line) and the kernels it measured that will not be measured again."""

    config: BenchConfig
    not_remeasured: tuple[str, ...]


def stored_kernel_hashes(run: RunResult) -> dict[str, str]:
    """name -> SHA-256 of each user kernel the run's results record (text, never a file)."""
    return {
        str(r.user_kernel.get("name", "")): str(r.user_kernel.get("sha256", ""))
        for r in run.results
        if r.user_kernel
    }


def plan_side(runs: Sequence[RunResult], given: Mapping[str, UserKernel], index: int) -> RerunPlan:
    """The settings to measure side `index` again with: its stored settings, its kernels
    replaced by those `given` on the command line (same name, same SHA-256), the others
    left out and named. Refused (`kernel`) when a given kernel is not the one measured, or
    when nothing would be left to measure."""
    stored = runs[0].config
    hashes = stored_kernel_hashes(runs[0])
    specs, left_out = [], []
    for name in (kernel_name(spec) for spec in stored.kernels):
        kernel = given.get(name)
        if kernel is None:
            left_out.append(name)
            continue
        if hashes.get(name) != kernel.sha256:
            raise ConfigError(
                "kernel",
                f"{Path(kernel.path).name}:{name} is not the kernel side {index} measured "
                f"(its SHA-256 is {kernel.sha256[:12]}…, the side stored "
                f"{(hashes.get(name) or 'none')[:12]}…): the kernel changed since; compare "
                "the stored runs without --rerun, or measure the new kernel with run",
            )
        specs.append(kernel.spec)
    strategies = [name for name in stored.strategies if name not in left_out]
    if not strategies:
        raise ConfigError(
            "kernel",
            f"side {index} measured only kernels not given with --kernel "
            f"({', '.join(left_out)}): nothing would be measured again; give each as "
            "--kernel PATH.py:FUNCTION",
        )
    values = {**stored.to_dict(), "kernels": specs, "strategies": strategies}
    return RerunPlan(BenchConfig.from_raw(values), tuple(left_out))


def plan_rerun(
    sides: Sequence[Sequence[RunResult]], given: Sequence[UserKernel]
) -> list[RerunPlan]:
    """Each side's `RerunPlan`; a given kernel that no side measured is refused."""
    by_name = {kernel.name: kernel for kernel in given}
    stored = {kernel_name(spec) for runs in sides for spec in runs[0].config.kernels}
    unknown = sorted(set(by_name) - stored)
    if unknown:
        raise ConfigError(
            "kernel", f"{', '.join(unknown)} is not a kernel of any side; nothing to measure it"
        )
    return [plan_side(runs, by_name, index) for index, runs in enumerate(sides)]


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
    configs: Sequence[BenchConfig],
    count: int,
    args: argparse.Namespace,
    say: Callable[[str], None],
) -> list[list[RunResult]]:
    """Each side's settings (its `RerunPlan`'s) run `count` times in fresh processes, the
    sides alternated and the order turned each round (A B, B A, ...); each side's new runs
    one group. A failure ends it (`RepetitionFailed`); every run that finished is in the
    history already."""
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
