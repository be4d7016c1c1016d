"""Time to the answer: this checkout against an earlier one, alternated in one window.

The dashboard's default set (its seven pre-selected strategies, `interactive_strategies()`, the
same seven at 4b01d22) at the seed's size, 3000×100×100 float32, run
`--pairs` times by each checkout in fresh processes, the order alternating within each pair
(earlier first, then this first), so a drift of the host falls on both. Reports, per side, the
measuring time (`timings.variants_s`: preparing and sampling every variant, what a warm worker
spends) and the whole run (`timings.total_s`), their ratio of medians, and how often the two
gave the same answer: each side's winner inside the other's winner-or-tie set (judged by this
checkout's winner rule from the stored samples, so only the sampling differs; a side that ran
with the default noise floor is judged with this checkout's default, so a changed default is
not counted as a changed sampling). `--keep DIR` keeps the runs' JSON there.

`--history`: each side keeps a history of its own (as a user's machine does), primed with
`--prime` runs of that side before the pairs (not counted), so what a run learns from its
history (`analysis/history_prior.py`) is part of what is measured; without it every run is
`--no-history`.

    git worktree add /tmp/earlier <commit>
    python -m benchmarks.time_to_answer --earlier /tmp/earlier [--pairs 20] [--keep DIR]
        [--history [--prime 1]] [--search]

`--search`: `run --search` at the seed size instead of the default set.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.engine_cli import ROOT
from engine.catalogue.catalog import interactive_strategies
from engine.measure.uncertainty import NoiseFloor
from engine.process.children import Child, engine_environment
from engine.results.run_result import RunResult

DEFAULT_SET = ",".join(interactive_strategies())
ARGS = ("--matrices", "3000", "--dim", "100", "--strategy", DEFAULT_SET)
SEARCH_ARGS = ("--matrices", "3000", "--dim", "100", "--search")


def run_in(
    checkout: Path, out: Path, history: Path | None = None, problem: tuple[str, ...] = ARGS
) -> RunResult:
    """One `run` of the default set (or `problem`'s flags) by the engine of `checkout`, in a
    fresh process (with `history`, keeping it there)."""
    kept = ["--history", str(history)] if history else ["--no-history"]
    command = [sys.executable, "-m", "engine", "run", *problem, *kept, "--progress", "none"]
    child = Child(
        [*command, "--json", str(out)],
        cwd=checkout,
        env={**engine_environment(TF_CPP_MIN_LOG_LEVEL="3"), "PYTHONPATH": str(checkout)},
        stdout=subprocess.DEVNULL,
        stderr="inherit",
    )
    code = child.wait_or_end(None).code
    if code != 0:
        raise subprocess.CalledProcessError(code, command)
    return RunResult.from_json(out.read_text())


def judged(run: RunResult) -> RunResult:
    """`run` with this checkout's default floor where it ran with its own checkout's default."""
    if run.noise_floor.source.startswith("default"):
        return dataclasses.replace(run, noise_floor=NoiseFloor())
    return run


def answer(run: RunResult) -> tuple[str | None, set[str]]:
    found = judged(run).winner()
    return (found.variant, {found.variant, *found.tied_with}) if found else (None, set())


def agree(one: RunResult, other: RunResult) -> bool:
    """Each winner is in the other's winner-or-tie set."""
    (mine, my_set), (theirs, their_set) = answer(one), answer(other)
    return mine is not None and theirs is not None and mine in their_set and theirs in my_set


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--earlier", type=Path, required=True, help="a checkout to compare with")
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="a folder to keep every run's JSON in")
    parser.add_argument("--history", action="store_true", help="each side keeps a history")
    parser.add_argument("--prime", type=int, default=1, help="runs a side stores first")
    parser.add_argument(
        "--search", action="store_true", help="`run --search` at the seed size instead"
    )
    args = parser.parse_args()
    problem = SEARCH_ARGS if args.search else ARGS
    sides = {"earlier": args.earlier.resolve(), "this": ROOT}
    runs: dict[str, list[RunResult]] = {"earlier": [], "this": []}
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        histories = {side: folder / f"{side}-history.db" for side in sides}
        kept = histories if args.history else dict.fromkeys(sides)
        for prime in range(args.prime if args.history else 0):
            for side in sides:
                run_in(sides[side], folder / f"{side}-prime-{prime}.json", kept[side], problem)
        for pair in range(args.pairs):
            order = ("earlier", "this") if pair % 2 == 0 else ("this", "earlier")
            for side in order:
                out = folder / f"{side}-{pair}.json"
                runs[side].append(run_in(sides[side], out, kept[side], problem))
            earlier, this = runs["earlier"][-1], runs["this"][-1]
            print(
                f"pair {pair + 1}: measuring {earlier.timings['variants_s']:.1f} s -> "
                f"{this.timings['variants_s']:.1f} s, whole run {earlier.timings['total_s']:.1f}"
                f" s -> {this.timings['total_s']:.1f} s; answers {answer(earlier)[1]} / "
                f"{answer(this)[1]}",
                flush=True,
            )
    summarise(runs)


def summarise(runs: dict[str, list[RunResult]]) -> None:
    """Each side's medians of the measuring, the peers and the whole run, and their ratio; the
    split of the measuring into timed calls and re-warms where a side records it
    (`timings.timed_s`, `timings.rewarm_s`: not before ff71606); how often the answers agree."""
    for key in ("variants_s", "peers_s", "total_s"):
        before, after = (
            statistics.median(r.timings.get(key, 0.0) for r in runs[side])
            for side in ("earlier", "this")
        )
        ratio = f"{after / before:.2f}" if before else "-"
        print(f"{key}: median {before:.2f} s -> {after:.2f} s, ratio {ratio}")
    for side, found in runs.items():
        split = [r.timings for r in found if "timed_s" in r.timings and "rewarm_s" in r.timings]
        if split:
            timed = statistics.median(t["timed_s"] for t in split)
            rewarm = statistics.median(t["rewarm_s"] for t in split)
            print(f"{side}: median timed calls {timed:.2f} s, re-warms {rewarm:.2f} s")
    same = sum(agree(e, t) for e, t in zip(runs["earlier"], runs["this"]))
    pairs = len(runs["this"])
    print(f"same answer (each winner in the other's winner-or-tie set): {same} of {pairs}")


if __name__ == "__main__":
    main()
