"""A/A: how often the regression gate fires when nothing changed, one run a side.

`--runs` fresh processes of one configuration (the dashboard's default set at the seed's size),
one after another, each kept as JSON in a scratch folder (printed first). Then every pair of
them is compared as `compare a.json b.json --fail-if-slower PCT` compares two stored runs:
the earlier the baseline, one run a side. Pairs are told apart by how far apart they ran:
neighbours (the same few minutes) and the rest (windows apart).

For each floor a comparison might use — the default (`compare_default()`), the floor the CLI takes
from a history that holds every earlier run (`History.floor_of`), and fixed candidates — the
share of pairs where any variant was called slower or faster (a false call) and where the
gate fired. A floor holds when both stay at or under 5%.

Then the paths with several runs a side, `--per-side K` (default 3): every window of 2K
consecutive runs split as `compare --rerun K` alternates them (baseline, candidate, baseline,
...: the even positions one side, the odd the other), and every pair of disjoint K-run blocks
as two stored groups compare (`compare --group A --group B`), the earlier the baseline; each
judged with the default floor and with the history's (the runs before the later side).

    python -m benchmarks.aa_gate [--runs 24] [--percent 10] [--per-side 3]
    python -m benchmarks.aa_gate --kept DIR   # judge the runs kept in DIR again
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import tempfile
from collections import Counter
from pathlib import Path

from benchmarks.engine_cli import engine
from benchmarks.racing import DEFAULT_SET
from engine.analysis.compare import compare_runs, confirmed_slowdowns, floor_for, sides_of
from engine.measure.compare_floor import compare_default
from engine.measure.uncertainty import NoiseFloor
from engine.results.run_result import RunResult
from engine.storage.history import History

CANDIDATES = (0.08, 0.16, 0.25, 0.30, 0.35, 0.45)


def make_runs(folder: Path, count: int) -> None:
    for index in range(count):
        engine(
            "run",
            f"--strategy={','.join(DEFAULT_SET)}",
            "--no-history",
            "--progress=none",
            f"--json={folder / f'run{index:02d}.json'}",
            quiet=True,
        )
        print(f"  run {index + 1}/{count}", flush=True)


def judge(runs: list[RunResult], floor_of, percent: float) -> dict[str, Counter]:
    """Per kind of pair (neighbours, apart): pairs, false calls, gate fired, and by variant."""
    tally: dict[str, Counter] = {"neighbours": Counter(), "apart": Counter()}
    for (i, a), (j, b) in itertools.combinations(enumerate(runs), 2):
        kind = "neighbours" if j - i == 1 else "apart"
        frame = compare_runs([a, b], floor=floor_of(i, j))
        calls = frame[frame["verdict"].isin(["slower", "faster"])]
        fired = confirmed_slowdowns(frame, percent)
        tally[kind]["pairs"] += 1
        tally[kind]["false call"] += int(not calls.empty)
        tally[kind]["gate fired"] += int(not fired.empty)
        for variant in calls["variant"]:
            tally[kind][f"called: {variant}"] += 1
    return tally


def judge_sides(
    pairs: list[tuple[list[RunResult], list[RunResult]]], floor_of, percent: float
) -> dict[str, Counter]:
    """As `judge`, for pairs of sides of several runs each."""
    tally: dict[str, Counter] = {"pairs": Counter()}
    for index, (a, b) in enumerate(pairs):
        frame = compare_runs([a, b], floor=floor_of(index, a, b))
        calls = frame[frame["verdict"].isin(["slower", "faster"])]
        fired = confirmed_slowdowns(frame, percent)
        tally["pairs"]["pairs"] += 1
        tally["pairs"]["false call"] += int(not calls.empty)
        tally["pairs"]["gate fired"] += int(not fired.empty)
        for variant in calls["variant"]:
            tally["pairs"][f"called: {variant}"] += 1
    return tally


def rerun_pairs(runs: list[RunResult], per_side: int) -> list[tuple[list, list]]:
    """Every window of 2K consecutive runs, alternated as `compare --rerun K` makes them."""
    width = 2 * per_side
    return [
        (runs[start : start + width : 2], runs[start + 1 : start + width : 2])
        for start in range(len(runs) - width + 1)
    ]


def group_pairs(runs: list[RunResult], per_side: int) -> list[tuple[list, list]]:
    """Every pair of disjoint blocks of K consecutive runs, as two stored groups."""
    blocks = [
        runs[start : start + per_side] for start in range(0, len(runs) - per_side + 1, per_side)
    ]
    blocks += [  # the blocks shifted by one run, so more pairs are judged
        runs[start : start + per_side] for start in range(1, len(runs) - per_side + 1, per_side)
    ]
    return [
        (a, b)
        for a, b in itertools.combinations(blocks, 2)
        if not {r.run_id for r in a} & {r.run_id for r in b}
    ]


def history_side_floors(runs: list[RunResult]):
    """The floor `compare` takes for sides whose runs are stored, from a history holding every
    run up to the later side's last (each side's runs looked up, the widest, as the CLI)."""
    order = {run.run_id: index for index, run in enumerate(runs)}
    cache: dict[int, NoiseFloor] = {}

    def floor_of(index: int, a: list[RunResult], b: list[RunResult]) -> NoiseFloor:
        if index not in cache:
            last = max(order[r.run_id] for r in (*a, *b))
            with tempfile.TemporaryDirectory() as scratch:
                history = History(Path(scratch) / "h.sqlite3")
                for run in runs[: last + 1]:
                    history.add_run(run)
                cache[index] = floor_for(sides_of([a, b]), history.floor_of)
        return cache[index]

    return floor_of


def history_floors(runs: list[RunResult]):
    """The floor `compare` takes for a pair (i, j) from a history that holds every run made
    before the later one (what a CI job's store holds): `History.floor_of` of each side,
    the widest (`floor_for`), as the CLI does."""
    with tempfile.TemporaryDirectory() as scratch:
        history = History(Path(scratch) / "h.sqlite3")
        floors: dict[tuple[int, int], NoiseFloor] = {}
        for j, later in enumerate(runs):
            for i in range(j):
                floors[(i, j)] = floor_for(sides_of([runs[i], later]), history.floor_of)
            history.add_run(later)
    return lambda i, j: floors[(i, j)]


def report(name: str, tally: dict[str, Counter]) -> None:
    for kind, counts in tally.items():
        pairs = counts["pairs"] or 1
        named = ", ".join(
            f"{key.removeprefix('called: ')} {value}"
            for key, value in counts.most_common()
            if key.startswith("called: ")
        )
        print(
            f"  {name:<28} {kind:<10} {counts['pairs']:3d} pairs: false calls "
            f"{counts['false call'] / pairs:5.1%}, gate fired {counts['gate fired'] / pairs:5.1%}"
            + (f"  ({named})" if named else "")
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=24)
    parser.add_argument("--percent", type=float, default=10.0)
    parser.add_argument("--kept", type=Path, default=None)
    parser.add_argument("--per-side", type=int, default=3)
    args = parser.parse_args()
    folder = args.kept or Path(tempfile.mkdtemp(prefix="aa_gate_"))
    print(f"runs kept in {folder}")
    if args.kept is None:
        make_runs(folder, args.runs)
    runs = [RunResult.from_json(p.read_text()) for p in sorted(folder.glob("run*.json"))]
    print(f"{len(runs)} runs; every pair compared one run a side, gate {args.percent:g}%")
    default = compare_default()  # what `compare` takes where the history knows nothing
    report("default floor", judge(runs, lambda i, j: default, args.percent))

    report("the history's floor", judge(runs, history_floors(runs), args.percent))
    for value in CANDIDATES:
        fixed = dataclasses.replace(default, between_run_log_sd=value)
        report(f"fixed {value:.2f}", judge(runs, lambda i, j, f=fixed: f, args.percent))
    k = args.per_side
    for path, pairs in (
        (f"--rerun {k}", rerun_pairs(runs, k)),
        (f"groups of {k}", group_pairs(runs, k)),
    ):
        print(f"{path}: {len(pairs)} pairs of {k} runs a side")
        report(f"{path}, default floor", judge_sides(pairs, lambda i, a, b: default, args.percent))
        floors = history_side_floors(runs)
        report(f"{path}, history's floor", judge_sides(pairs, floors, args.percent))


if __name__ == "__main__":
    main()
