"""Adaptive sampling with racing against fixed sampling: time, same answer, A/A and power.

1. Time: the dashboard's default set at the seed's size on one warm worker (`serve`), adaptive
   and fixed alternately, `--pairs` times; the measuring time of each (`timings.variants_s`)
   and whether the adaptive winner-or-tie set holds the fixed run's winner.
2. A/A with racing: `--aa` fresh adaptive runs of one configuration, every pair compared;
   power: as many runs of 1.5x the matrices, every (A/A, power) pair compared.
3. `--load`: the same with a load generator busy on one core half of the time (an on/off busy
   loop in another process, 50 ms on, 50 ms off).

4. The A/A and power rows are judged twice: with the default floor, and with the floor each
   side's history would give (`History.floor_of`: its runs stored in a scratch history, so
   the spread between them is the floor when it is wider).

    python -m benchmarks.racing [--pairs 20] [--aa 5] [--load]
    python -m benchmarks.racing --rejudge DIR   # the runs an earlier invocation kept, judged
                                                # again by this checkout's code
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import multiprocessing
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from benchmarks.engine_cli import engine
from engine.analysis.compare import compare_runs, floor_for, sides_of
from engine.measure.phases import phase_shift
from engine.process.children import ENGINE_ROOT, Child, engine_command, engine_environment
from engine.results.run_result import RunResult
from engine.results.verdict import winner_of
from engine.storage.history import History

DEFAULT_SET = (
    "python_loop",
    "while_loop",
    "map_fn",
    "vectorized_map",
    "batched_matvec",
    "einsum",
    "numpy",
)
BATCHED = ("batched_matvec", "einsum", "vectorized_map", "numpy")


@contextlib.contextmanager
def load_generator() -> Iterator[None]:
    """The on/off load generator in a process of its own for the block's duration."""
    stop = multiprocessing.Event()
    loader = multiprocessing.Process(target=busy_half_the_time, args=(stop,))
    loader.start()
    try:
        yield
    finally:
        stop.set()
        loader.join()


def busy_half_the_time(stop: multiprocessing.synchronize.Event) -> None:
    while not stop.is_set():
        end = time.perf_counter() + 0.05
        while time.perf_counter() < end:
            pass
        time.sleep(0.05)


def warm_runs(pairs: int, args: argparse.Namespace, scratch: Path) -> list[tuple[dict, dict]]:
    """Adaptive and fixed runs, alternately, on one warm worker."""
    child = Child(
        engine_command("serve", "--prewarm"),
        cwd=ENGINE_ROOT,
        env=engine_environment(TF_CPP_MIN_LOG_LEVEL="3"),
        stdin=subprocess.PIPE,
        stderr="inherit",
    )
    worker = child.process
    assert worker.stdin is not None and worker.stdout is not None
    found = []

    def one(sampling: str, index: int) -> dict:
        out = scratch / f"{sampling}{index}.json"
        request = [
            f"--matrices={args.matrices}",
            f"--dim={args.dim}",
            f"--strategy={','.join(DEFAULT_SET)}",
            f"--sampling={sampling}",
            f"--seed={index}",
            "--no-history",
            "--progress=none",
            f"--json={out}",
        ]
        worker.stdin.write(json.dumps({"run": request}) + "\n")
        worker.stdin.flush()
        for line in worker.stdout:
            if line.startswith('{"event": "exit"'):
                break
        return json.loads(out.read_text())

    one("adaptive", 999)  # the worker's first run warms TensorFlow; not counted
    for index in range(pairs):
        found.append((one("adaptive", index), one("fixed", index)))
        adaptive, fixed = found[-1]
        print(
            f"pair {index + 1}: measuring {adaptive['timings']['variants_s']:.1f} s adaptive, "
            f"{fixed['timings']['variants_s']:.1f} s fixed; winner {fixed['winner']['variant']}"
            f" (fixed), {adaptive['winner']['variant']} + {adaptive['winner']['tied_with']} "
            "(adaptive)",
            flush=True,
        )
    worker.stdin.close()
    child.wait()
    return found


def fresh_runs(count: int, matrices: int, args: argparse.Namespace, scratch: Path, tag: str):
    runs = []
    for index in range(count):
        out = scratch / f"{tag}{index}.json"
        engine(
            "run",
            f"--matrices={matrices}",
            f"--dim={args.dim}",
            f"--strategy={','.join(BATCHED)}",
            "--no-history",
            "--progress=none",
            f"--json={out}",
            quiet=True,
        )
        runs.append(RunResult.from_json(out.read_text()))
    return runs


def called_rows(
    pairs: Iterable[tuple[RunResult, RunResult]],
    verdicts: set[str],
    history: History | None = None,
) -> Counter:
    """Per variant: the rows compared, and those whose verdict is in `verdicts`; with a
    `history`, each pair is judged with the floor it gives (as `compare` does)."""
    counts: Counter = Counter()
    for a, b in pairs:
        floor = floor_for(sides_of([a, b]), history.floor_of) if history else None
        rows = compare_runs([a, b], floor=floor)
        rows = rows[~rows["baseline"]]
        for variant, verdict in zip(rows["variant"], rows["verdict"]):
            counts[(variant, "rows")] += 1
            counts[(variant, "called")] += verdict in verdicts
    return counts


def tally(counts: Counter) -> str:
    """'called of rows (share); per variant' from `called_rows`."""
    called = sum(n for (_, kind), n in counts.items() if kind == "called")
    total = sum(n for (_, kind), n in counts.items() if kind == "rows")
    each = ", ".join(
        f"{variant} {counts[(variant, 'called')]}/{n}"
        for (variant, kind), n in counts.items()
        if kind == "rows"
    )
    return f"{called} of {total} ({called / max(total, 1):.0%}; {each})"


def aa_and_power(args: argparse.Namespace, scratch: Path, tag: str) -> None:
    aa = fresh_runs(args.aa, args.matrices, args, scratch, f"{tag}aa")
    power = fresh_runs(args.aa, args.matrices * 3 // 2, args, scratch, f"{tag}power")
    judge(aa, power, scratch, tag)


def judge(aa: list[RunResult], power: list[RunResult], scratch: Path, tag: str) -> None:
    """A/A and power rows, with the default floor and with the floor their history gives."""
    history = History(scratch / f"{tag.strip() or 'runs'}-history.sqlite3")
    for run in aa + power:
        history.add_run(run)
    for floors, lookup in (("default floor", None), ("the history's floor", history)):
        aa_calls = called_rows(itertools.combinations(aa, 2), {"faster", "slower"}, lookup)
        print(f"{tag}A/A called faster/slower ({floors}): {tally(aa_calls)}")
        power_calls = called_rows(itertools.product(aa, power), {"slower"}, lookup)
        print(f"{tag}1.5x work called slower ({floors}): {tally(power_calls)}")
    loads = [r.machine_load.other_cpu_fraction for r in aa + power if r.machine_load]
    print(f"{tag}other processes' CPU share: {min(loads):.0%}-{max(loads):.0%}")


def stored(scratch: Path, prefix: str) -> list[RunResult]:
    """The runs an earlier invocation kept as `{prefix}{index}.json`, in index order."""
    found = {
        int(path.stem[len(prefix) :]): RunResult.from_json(path.read_text())
        for path in scratch.glob(f"{prefix}*.json")
        if path.stem[len(prefix) :].isdigit()
    }
    return [found[index] for index in sorted(found)]


def same_answer(pairs: list[tuple[RunResult, RunResult]]) -> int:
    """Pairs whose adaptive winner-or-tie set holds the fixed run's winner (this checkout's
    winner rule, derived from the stored samples)."""
    held = 0
    for adaptive, fixed in pairs:
        mine, theirs = adaptive.winner(), fixed.winner()
        held += bool(mine and theirs and theirs.variant in {mine.variant, *mine.tied_with})
    return held


def report_time(pairs: list[tuple[RunResult, RunResult]]) -> None:
    """Adaptive over fixed measuring time, and how often both gave the same answer."""
    ratio = [a.timings["variants_s"] / f.timings["variants_s"] for a, f in pairs]
    print(
        f"adaptive measuring time / fixed: median {statistics.median(ratio):.2f} "
        f"(range {min(ratio):.2f}-{max(ratio):.2f}); the adaptive winner-or-tie set held "
        f"the fixed winner in {same_answer(pairs)} of {len(pairs)} pairs"
    )


def phase_changes(runs: list[RunResult]) -> tuple[int, int]:
    """Runs where a variant's time changed during the run (`engine.measure.phases`), and runs
    whose ties that change altered (against the rule that sees only the noise)."""
    changed = altered = 0
    for run in runs:
        tested = len(run.results)
        changed += any(phase_shift(r.variant, r.samples_s, tested) for r in run.results)
        found = run.winner()
        noise_only = winner_of(run.results, run.effective_floor, run.config.seed)
        altered += bool(found and noise_only and found.tied_with != noise_only.tied_with)
    return changed, altered


def rejudge(scratch: Path) -> None:
    fixed = stored(scratch, "fixed")
    adaptive = stored(scratch, "adaptive")[: len(fixed)]  # not adaptive999, the warm-up run
    pairs = list(zip(adaptive, fixed, strict=True))
    for kind, runs in (("fixed", fixed), ("adaptive", adaptive)):
        if runs:
            changed, altered = phase_changes(runs)
            print(
                f"{kind} runs where the machine changed speed: {changed} of {len(runs)}; "
                f"ties those changes altered: {altered}"
            )
    if pairs:
        report_time(pairs)
    for tag in ("quiet ", "loaded "):
        aa, power = stored(scratch, f"{tag}aa"), stored(scratch, f"{tag}power")
        if aa and power:
            judge(aa, power, Path(tempfile.mkdtemp(prefix="matvec-rejudge-")), tag)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--aa", type=int, default=5)
    parser.add_argument("--matrices", type=int, default=3000)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--load", action="store_true", help="also with a load generator")
    parser.add_argument("--skip-time", action="store_true", help="only A/A and power")
    parser.add_argument("--rejudge", type=Path, help="judge the runs kept in this folder again")
    args = parser.parse_args()
    if args.rejudge:
        rejudge(args.rejudge)
        return
    scratch = Path(tempfile.mkdtemp(prefix="matvec-racing-"))
    print(f"runs kept in {scratch}", flush=True)
    if not args.skip_time and args.pairs:
        kept = warm_runs(args.pairs, args, scratch)
        report_time([(RunResult.from_dict(a), RunResult.from_dict(f)) for a, f in kept])
    if args.aa:
        aa_and_power(args, scratch, "quiet ")
        if args.load:
            with load_generator():
                aa_and_power(args, scratch, "loaded ")


if __name__ == "__main__":
    main()
