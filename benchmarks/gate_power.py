"""The regression gate's power with the repetitions the tool itself recommends (issue: a gate
that can see 1.5x), quiet and under the on/off load generator.

1. A pilot: one baseline run and one run of 1.5x the work (`--matrices` x 1.5), each a fresh
   process, compared as `compare` compares them (the floor from a scratch history of this
   benchmark's runs, as the CLI's history gives it). The tool's own advice is read from that
   comparison: the runs per side each variant needs to see a slowdown of `--percent` (what
   `compare --fail-if-slower PCT` prints, `sensitivity.sensitivities`); the largest is R (1 where
   the pilot already sees it).
2. `--trials` trials of R baseline and R candidate runs, alternated in fresh processes
   (baseline, candidate, baseline, ...: pyperf's interleaving, so a slow phase of the host
   falls on both sides). Each trial's candidate side against its baseline side: the rows called
   `slower` (power at 1.5x), and the rows a gate of `--gate` percent fails on (the interval's
   low end above it: `confirmed_slowdowns`). Each trial's baseline side against the next
   trial's: the rows called `faster` or `slower` (A/A, false calls).
   `--prime K` first stores K baseline runs in that history, as a CI job's store holds them
   after a few nightly runs: the floor, and so the advice, is then this machine's own.
3. `--load`: the same again with the load generator of `benchmarks/racing.py` (one core busy
   half the time), its pilot and its R its own.

    python -m benchmarks.gate_power [--trials 8] [--percent 50] [--load]
    python -m benchmarks.gate_power --rejudge DIR   # the runs an earlier invocation kept
    python -m benchmarks.gate_power --trials 0 --load --quiet-skip   # the loaded advice alone
    python -m benchmarks.gate_power --strategy einsum --prime 8 --trials 20   # one variant

Every run is kept as JSON in a scratch folder (printed first), so the verdicts can be judged
again by a later checkout's code.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
from collections import Counter
from pathlib import Path

import pandas as pd

from benchmarks.engine_cli import engine
from benchmarks.racing import BATCHED, load_generator, tally
from engine.analysis.compare import (
    compare_runs,
    confirmed_slowdowns,
    floor_for,
    sides_of,
)
from engine.analysis.sensitivity import run_seconds, sensitivities
from engine.results.run_result import RunResult
from engine.storage.history import History


def one_run(matrices: int, args: argparse.Namespace, path: Path) -> RunResult:
    engine(
        "run",
        f"--matrices={matrices}",
        f"--dim={args.dim}",
        f"--strategy={args.strategy}",
        "--no-history",
        "--progress=none",
        f"--json={path}",
        quiet=True,
    )
    return RunResult.from_json(path.read_text())


def judged(sides: list[list[RunResult]], history: History) -> pd.DataFrame:
    """`sides[1]` against `sides[0]`, with the floor the history gives them (as `compare`
    does)."""
    return compare_runs(sides, floor=floor_for(sides_of(sides), history.floor_of))


def recommended_runs(
    baseline: RunResult, candidate: RunResult, history: History, percent: float
) -> tuple[int, list[str]]:
    """R: the most runs per side any variant needs to see `percent`, as the tool advises it
    after one run per side; and the advice, as lines."""
    frame = judged([[baseline], [candidate]], history)
    found = sensitivities(frame, run_seconds([baseline, candidate]), percent)
    needed = [s.runs_needed for s in found if s.runs_needed is not None]
    lines = [
        f"  {s.variant}: detectable {s.detectable:.2f}x with 1 run per side"
        + (f"; {s.asked:.2f}x needs {s.runs_needed} per side" if s.runs_needed else "")
        for s in found
    ]
    return max(needed, default=1), lines


def condition(args: argparse.Namespace, scratch: Path, tag: str) -> None:
    """Pilot, then trials, for one condition (quiet or loaded); prints its figures."""
    history = History(scratch / f"{tag}history.sqlite3")
    bigger = args.matrices * 3 // 2
    for index in range(args.prime):  # what a CI job's store holds after a few baseline runs
        history.add_run(one_run(args.matrices, args, scratch / f"{tag}prime{index}.json"))
    pilot = [
        one_run(args.matrices, args, scratch / f"{tag}pilot-base.json"),
        one_run(bigger, args, scratch / f"{tag}pilot-candidate.json"),
    ]
    for run in pilot:
        history.add_run(run)
    runs, advice = recommended_runs(*pilot, history, args.percent)
    runs = min(runs, args.max_runs)
    print(f"{tag}the tool's advice after one run per side (--fail-if-slower {args.percent}):")
    print("\n".join(advice))
    print(f"{tag}R = {runs} runs per side (capped at {args.max_runs})", flush=True)
    trials = []
    for trial in range(args.trials):
        base, candidate = [], []
        for index in range(runs):  # interleaved: baseline, candidate, baseline, ...
            base.append(one_run(args.matrices, args, scratch / f"{tag}t{trial}-base{index}.json"))
            candidate.append(one_run(bigger, args, scratch / f"{tag}t{trial}-cand{index}.json"))
        for run in base + candidate:
            history.add_run(run)
        trials.append((base, candidate))
    if trials:  # `--trials 0`: the pilot's advice alone
        judge(trials, history, args.gate, tag)


def judge(trials, history: History, gate: float, tag: str) -> None:
    """Power (`slower`), the gate's firing at `gate` percent (`--fail-if-slower`: the ratio's
    interval above it) and A/A false calls, per variant."""
    power: Counter = Counter()
    fired: Counter = Counter()
    aa: Counter = Counter()
    for base, candidate in trials:
        frame = judged([base, candidate], history)
        confirmed = set(confirmed_slowdowns(frame, gate)["variant"])
        rows = frame[~frame["baseline"]]
        for variant, verdict in zip(rows["variant"], rows["verdict"]):
            for counts, hit in ((power, verdict == "slower"), (fired, variant in confirmed)):
                counts[(variant, "rows")] += 1
                counts[(variant, "called")] += hit
    for (first, _), (second, _) in itertools.pairwise(trials):
        rows = judged([first, second], history)
        rows = rows[~rows["baseline"]]
        for verdict, variant in zip(rows["verdict"], rows["variant"]):
            aa[(variant, "rows")] += 1
            aa[(variant, "called")] += verdict in ("faster", "slower")
    runs = [run for base, candidate in trials for run in base + candidate]
    loads = [r.machine_load.other_cpu_fraction for r in runs if r.machine_load]
    seconds = statistics.median(run_seconds([r]) for r in runs)
    print(f"{tag}1.5x the work called slower: {tally(power)}")
    print(f"{tag}the gate --fail-if-slower {gate:g} fired: {tally(fired)}")
    print(f"{tag}A/A called faster or slower: {tally(aa)}")
    print(
        f"{tag}runs: {len(runs)}, each about {seconds:.1f} s; other processes' CPU share "
        f"{min(loads):.0%}-{max(loads):.0%}",
        flush=True,
    )


def rejudge(scratch: Path, gate: float) -> None:
    for tag in ("quiet-", "loaded-"):
        trials = []
        for trial in range(1000):
            base = sorted(scratch.glob(f"{tag}t{trial}-base*.json"))
            candidate = sorted(scratch.glob(f"{tag}t{trial}-cand*.json"))
            if not base:
                break
            trials.append(
                (
                    [RunResult.from_json(p.read_text()) for p in base],
                    [RunResult.from_json(p.read_text()) for p in candidate],
                )
            )
        if trials:
            history = History(Path(tempfile.mkdtemp()) / "history.sqlite3")
            for base, candidate in trials:
                for run in base + candidate:
                    history.add_run(run)
            judge(trials, history, gate, tag)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument(
        "--percent", type=float, default=50.0, help="the slowdown to see: R is advised for it"
    )
    parser.add_argument("--gate", type=float, default=20.0, help="the gate's --fail-if-slower")
    parser.add_argument("--matrices", type=int, default=3000)
    parser.add_argument(
        "--strategy",
        default=",".join(BATCHED),
        help="the strategies of every run (default: the four batched ones)",
    )
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--max-runs", type=int, default=10, help="cap on R, for time")
    parser.add_argument(
        "--prime",
        type=int,
        default=0,
        help="baseline runs stored before the pilot, as a CI job's history holds them",
    )
    parser.add_argument("--load", action="store_true", help="also under the load generator")
    parser.add_argument("--quiet-skip", action="store_true", help="only the loaded condition")
    parser.add_argument("--rejudge", type=Path, help="judge the runs kept in this folder again")
    args = parser.parse_args()
    if args.rejudge:
        rejudge(args.rejudge, args.gate)
        return
    scratch = Path(tempfile.mkdtemp(prefix="matvec-gate-"))
    print(f"runs kept in {scratch}", flush=True)
    if not args.quiet_skip:
        condition(args, scratch, "quiet-")
    if args.load:
        with load_generator():
            condition(args, scratch, "loaded-")


if __name__ == "__main__":
    main()
