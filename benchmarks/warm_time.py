"""A warm worker's measuring time: this checkout against an earlier one, alternated in one window.

The dashboard's path: one `serve` worker per checkout (its framework up, functions and inputs
kept between runs) takes `--requests` runs of the dashboard's default set at the seed size,
3000×100×100 float32, after one run that starts its history (not counted), as the page's
repeated clicks do. `--rounds` workers a side, the order alternating round by round, each with
a fresh history. Reports each run's measuring time (`timings.variants_s`), each side's median
and their ratio, and how often the two sides' runs gave the same answer (each winner inside
the other's winner-or-tie set, by this checkout's winner rule, run i against run i).

    git worktree add /tmp/earlier <commit>
    python -m benchmarks.warm_time --earlier /tmp/earlier [--rounds 4] [--requests 4] [--search]

`--search`: `run --search` at the seed size instead of the default set; its peer frameworks'
processes (`peers_s`) are most of a search, so the whole run (`total_s`) is the figure to read.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.engine_cli import ROOT
from benchmarks.time_to_answer import ARGS, SEARCH_ARGS, summarise
from dashboard.services.job_status import event_of_line
from engine.process.children import Child, engine_environment
from engine.results.events import Exit
from engine.results.run_result import RunResult


def worker_runs(
    checkout: Path, folder: Path, requests: int, problem: tuple[str, ...] = ARGS
) -> list[RunResult]:
    """`requests` runs (after one that starts the history) by one `serve` of `checkout`."""
    history = folder / "history.db"
    child = Child(
        [sys.executable, "-m", "engine", "serve"],
        stdin=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=checkout,
        env={**engine_environment(TF_CPP_MIN_LOG_LEVEL="3"), "PYTHONPATH": str(checkout)},
    )
    runs = []
    try:
        for index in range(requests + 1):
            out = folder / f"run-{index}.json"
            run = [*problem, "--history", str(history), "--progress", "none", "--json", str(out)]
            assert child.process.stdin is not None and child.process.stdout is not None
            child.process.stdin.write(json.dumps({"run": run}) + "\n")
            child.process.stdin.flush()
            ended = next(
                (e for line in child.process.stdout if isinstance(e := event_of_line(line), Exit)),
                None,
            )
            if ended is None or ended.code != 0:
                raise RuntimeError(f"{checkout}: request {index} ended: {ended}")
            if index:
                runs.append(RunResult.from_json(out.read_text()))
    finally:
        if child.process.stdin is not None:
            child.process.stdin.close()  # end of input: the worker ends on its own
        child.wait_or_end(60.0)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--earlier", type=Path, required=True, help="a checkout to compare with")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--requests", type=int, default=4)
    parser.add_argument("--search", action="store_true", help="`run --search` instead")
    args = parser.parse_args()
    problem = SEARCH_ARGS if args.search else ARGS
    sides = {"earlier": args.earlier.resolve(), "this": ROOT}
    runs: dict[str, list[RunResult]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory() as scratch:
        for round_index in range(args.rounds):
            order = list(sides) if round_index % 2 == 0 else list(sides)[::-1]
            for side in order:
                folder = Path(scratch) / f"{side}-{round_index}"
                folder.mkdir()
                found = worker_runs(sides[side], folder, args.requests, problem)
                runs[side] += found
                times = ", ".join(f"{r.timings['variants_s']:.2f}" for r in found)
                whole = ", ".join(f"{r.timings['total_s']:.2f}" for r in found)
                print(
                    f"round {round_index + 1}, {side}: measuring {times} s; whole run {whole} s",
                    flush=True,
                )
    summarise(runs)


if __name__ == "__main__":
    main()
