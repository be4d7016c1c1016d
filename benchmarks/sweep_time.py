"""A sweep's time: this checkout against an earlier one, alternated in one window.

The Sweeps page's default grid (matrices 10,100,1000,10000 × dim 16,64,256, float32, the
dashboard's pre-selected strategies), run `--pairs` times by each checkout as a `sweep` in a
fresh process with a fresh history, the order alternating within each pair (earlier first,
then this first), so a drift of the host falls on both. Reports each side's wall time (the
command's, from its start to its exit) and their ratio of medians, and how many cells agree:
each cell's winner inside the other side's winner-or-tie set for that cell.

    git worktree add /tmp/earlier <commit>
    python -m benchmarks.sweep_time --earlier /tmp/earlier [--pairs 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.engine_cli import ROOT
from benchmarks.time_to_answer import agree, answer
from engine.catalogue.catalog import interactive_strategies
from engine.process.children import Child, engine_environment
from engine.results.run_result import RunResult

GRID = ("--matrices", "10,100,1000,10000", "--dim", "16,64,256")


def sweep_in(checkout: Path, out: Path, history: Path) -> tuple[float, dict]:
    """One default sweep by the engine of `checkout` in a fresh process: its wall time and
    its JSON."""
    strategies = ",".join(interactive_strategies())
    command = [sys.executable, "-m", "engine", "sweep", *GRID, "--strategy", strategies]
    command += ["--history", str(history), "--progress", "none", "--json", str(out)]
    started = time.perf_counter()
    child = Child(
        command,
        cwd=checkout,
        env={**engine_environment(TF_CPP_MIN_LOG_LEVEL="3"), "PYTHONPATH": str(checkout)},
        stdout=subprocess.DEVNULL,
        stderr="inherit",
    )
    code = child.wait_or_end(None).code
    wall = time.perf_counter() - started
    if code != 0:
        raise subprocess.CalledProcessError(code, command)
    return wall, json.loads(out.read_text())


def points(payload: dict) -> dict[tuple[int, int, int], RunResult]:
    """A sweep's runs by (matrices, rows, cols)."""
    runs = (RunResult.from_dict(raw) for raw in payload["runs"])
    return {(r.config.matrices, r.config.dim, r.config.columns): r for r in runs}


def agreeing(one: dict, other: dict) -> tuple[int, int, list[str]]:
    """Cells whose winners are each in the other's winner-or-tie set (`time_to_answer.agree`),
    of the cells both have; and, for each cell that does not, both sides' answers in words."""
    mine, theirs = points(one), points(other)
    shared = sorted(set(mine) & set(theirs))
    differ = [
        f"{key[0]}x{key[1]}x{key[2]}: {answer(mine[key])} / {answer(theirs[key])}"
        for key in shared
        if not agree(mine[key], theirs[key])
    ]
    return len(shared) - len(differ), len(shared), differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--earlier", type=Path, required=True, help="a checkout to compare with")
    parser.add_argument("--pairs", type=int, default=2)
    args = parser.parse_args()
    sides = {"earlier": args.earlier.resolve(), "this": ROOT}
    walls: dict[str, list[float]] = {"earlier": [], "this": []}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for pair in range(args.pairs):
            order = ("earlier", "this") if pair % 2 == 0 else ("this", "earlier")
            payloads = {}
            for side in order:
                out, history = folder / f"{side}-{pair}.json", folder / f"{side}-{pair}.db"
                wall, payloads[side] = sweep_in(sides[side], out, history)
                walls[side].append(wall)
            same, cells, differ = agreeing(payloads["earlier"], payloads["this"])
            print(
                f"pair {pair + 1}: {walls['earlier'][-1]:.1f} s -> {walls['this'][-1]:.1f} s; "
                f"{same} of {cells} cells agree" + "".join(f"\n  differ: {d}" for d in differ),
                flush=True,
            )
    before, after = statistics.median(walls["earlier"]), statistics.median(walls["this"])
    print(f"sweep wall: median {before:.1f} s -> {after:.1f} s, ratio {after / before:.2f}")


if __name__ == "__main__":
    main()
