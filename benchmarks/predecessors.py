"""Does a block's time depend on which neighbour ran just before it? Compared within a run.

Every block that follows another variant's is preceded by 0.12 s of the variant's own untimed
calls (`Sampler.rewarm`), so a fast kernel's block should read the same after a slow eager
neighbour as after a fast one. Comparing fresh processes cannot show a 5% bias on a host whose
medians move more than that between processes; comparing the blocks of one run can: both kinds
of block are interleaved through the same run, so a slow phase of the machine falls on both.

Each of `--runs` fresh processes samples the dashboard's default set with fixed sampling and
`--repeats` blocks each; every block of a fast variant is classed by its predecessor (the
recorded order, `sampling.rounds`): a neighbour about as fast (at most twice its time per call)
or a slower one. Per run, the ratio of the two medians; over the runs, the geometric mean with
its 95% interval (Student's t, SciPy). No bias: the interval holds 1. The runs are kept, and
the medians after each named neighbour are printed too.

With turns of several blocks (`sampling.TURN_BLOCKS`), each fast variant's first block of a
turn (after another variant and a re-warm) is also compared with the later blocks of the same
turn (after its own): the re-warm leaves nothing when the two read alike.

    python -m benchmarks.predecessors [--runs 5] [--repeats 40]
    python -m benchmarks.predecessors --kept DIR   # both comparisons of the runs kept in DIR
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.engine_cli import engine
from benchmarks.neighbours import summary
from benchmarks.racing import BATCHED, DEFAULT_SET
from engine.measure.neighbours import after_each_block, blocks_by_neighbour

FAST = BATCHED  # the fast variants of the default set


def by_predecessor(data: dict) -> dict[str, dict[str, list[float]]]:
    """Each fast variant's samples by the variant whose block ran just before."""
    variants, samples, sequence = recorded(data)
    found: dict[str, dict[str, list[float]]] = {v: {} for v in FAST}
    for previous, current, sample in after_each_block(sequence, samples):
        variant = variants[current]
        if variant in FAST and previous >= 0 and previous != current:
            found[variant].setdefault(variants[previous], []).append(sample)
    return found


def recorded(data: dict) -> tuple[list[str], dict[int, list[float]], list[int]]:
    """A run's variants, each one's samples by index, and its blocks in the order they ran."""
    variants = data["sampling"]["variants"]
    by_name = {r["variant"]: r["samples_s"] for r in data["results"]}
    samples = {i: by_name[v] for i, v in enumerate(variants)}
    sequence = [i for round_ in data["sampling"]["rounds"] for i in round_]
    return variants, samples, sequence


def by_speed(data: dict, variant: str) -> dict[str, list[float]]:
    """Samples after a neighbour about as fast, and after a slower one: the split the run's
    own neighbour check makes (`engine.measure.neighbours`)."""
    variants, samples, sequence = recorded(data)
    slow, fast = blocks_by_neighbour(variants.index(variant), sequence, samples)
    return {"fast": fast, "slow": slow}


def by_turn(data: dict, variant: str) -> dict[str, list[float]]:
    """Samples that began a turn (after another variant's block and a re-warm) and samples
    that followed the variant's own block in the same turn: if the re-warm left anything of
    the neighbour, the first read slower than the rest."""
    variants, samples, sequence = recorded(data)
    index = variants.index(variant)
    found: dict[str, list[float]] = {"first": [], "own": []}
    for previous, current, sample in after_each_block(sequence, samples):
        if current == index and previous >= 0:
            found["own" if previous == index else "first"].append(sample)
    return found


def turn_summary(paths: list[Path]) -> None:
    """Over the runs: each fast variant's first-of-turn median over its within-turn median."""
    logs: dict[str, list[float]] = {v: [] for v in FAST}
    for path in paths:
        data = json.loads(path.read_text())
        for variant in FAST:
            kinds = by_turn(data, variant)
            if kinds["first"] and kinds["own"]:
                ratio = float(np.median(kinds["first"])) / float(np.median(kinds["own"]))
                logs[variant].append(math.log(ratio))
    print("first block of a turn (after a neighbour and a re-warm) / the turn's later blocks")
    for variant, values in logs.items():
        if values:
            print(f"  {variant:<15} {summary(values).replace('pairs', 'runs')}")


def neighbour_ratios(data: dict) -> dict[str, float]:
    """Per fast variant of one run: its median after a neighbour about as fast over its median
    after a slower one (only where both kinds of block ran)."""
    found = {}
    for variant in FAST:
        kinds = by_speed(data, variant)
        if kinds["fast"] and kinds["slow"]:
            found[variant] = float(np.median(kinds["fast"])) / float(np.median(kinds["slow"]))
    return found


def neighbour_summary(paths: list[Path]) -> None:
    """Over the runs: each fast variant's geometric mean ratio with its 95% interval."""
    logs: dict[str, list[float]] = {v: [] for v in FAST}
    for path in paths:
        for variant, ratio in neighbour_ratios(json.loads(path.read_text())).items():
            logs[variant].append(math.log(ratio))
    print("after a neighbour about as fast / after a slower one, over the runs [95% CI]")
    for variant, values in logs.items():
        if values:
            print(f"  {variant:<15} {summary(values).replace('pairs', 'runs')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=40)
    parser.add_argument("--kept", type=Path, help="only summarise the runs kept here")
    args = parser.parse_args()
    if args.kept:
        kept = sorted(args.kept.glob("run*.json"))
        neighbour_summary(kept)
        turn_summary(kept)
        return
    scratch = Path(tempfile.mkdtemp(prefix="matvec-predecessors-"))
    print(f"runs kept in {scratch}", flush=True)
    for run in range(args.runs):
        out = scratch / f"run{run + 1}.json"
        engine(
            "run",
            f"--strategy={','.join(DEFAULT_SET)}",
            "--sampling=fixed",
            f"--repeats={args.repeats}",
            f"--seed={run}",
            "--no-history",
            "--progress=none",
            f"--json={out}",
            quiet=True,
        )
        cells, named = [], []
        data = json.loads(out.read_text())
        for variant, after in by_predecessor(data).items():
            named.append(
                f"  {variant:<15} after "
                + ", ".join(f"{p} {np.median(s) * 1e3:.2f}" for p, s in sorted(after.items()))
            )
            kinds = by_speed(data, variant)
            if kinds["fast"] and kinds["slow"]:
                fast, slow = float(np.median(kinds["fast"])), float(np.median(kinds["slow"]))
                cells.append(
                    f"{variant} {slow * 1e3:.2f} ({len(kinds['slow'])}) -> "
                    f"{fast * 1e3:.2f} ms ({len(kinds['fast'])})"
                )
        print(f"run {run + 1}: after slow -> after fast: " + " · ".join(cells), flush=True)
        print("\n".join(named), flush=True)
    runs = sorted(scratch.glob("run*.json"))
    neighbour_summary(runs)
    turn_summary(runs)


if __name__ == "__main__":
    main()
