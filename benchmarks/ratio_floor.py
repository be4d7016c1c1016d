"""How far the ratio of two variants of one run moves between runs: the default ratio floor.

`--runs` fresh runs of the dashboard's default set (3000×100×100 float32, adaptive sampling).
For each pair of the fast variants: the standard deviation of log(median ratio) across the runs,
the part the runs' own sampling explains (each median's standard error, `log_median_se`), and
the rest, what one run cannot see (the floor `NoiseFloor.ratio_log_sd` stands for). Then the
runs judged again with each candidate floor: how many pairs of runs give the same answer (each
winner inside the other's winner-or-tie set) and how many runs tie all the fast variants.

    python -m benchmarks.ratio_floor [--runs 16]
    python -m benchmarks.ratio_floor --kept DIR   # judge the runs kept in DIR again
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import math
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.engine_cli import engine
from benchmarks.racing import BATCHED, DEFAULT_SET
from engine.measure.racing import log_median_se
from engine.measure.uncertainty import NoiseFloor
from engine.results.run_result import RunResult

FLOORS = (0.04, 0.06, 0.08, 0.10)


def spreads(runs: list[RunResult]) -> None:
    """Per pair of fast variants: the between-run spread, the sampling part, the rest."""
    logs: dict[str, list[float]] = {v: [] for v in BATCHED}
    errors: dict[str, list[float]] = {v: [] for v in BATCHED}
    for run in runs:
        usable = {e.variant: e for e in run.results if e.status == "ok" and e.correct}
        if not all(v in usable for v in BATCHED):
            continue
        for variant in BATCHED:
            logs[variant].append(math.log(usable[variant].median_s))
            errors[variant].append(log_median_se(usable[variant].samples_s) ** 2)
    print(f"log ratio between runs ({len(logs[BATCHED[0]])} runs): total, sampling, the rest")
    rests = []
    for v, w in itertools.combinations(BATCHED, 2):
        ratios = np.array(logs[v]) - np.array(logs[w])
        sampling = float(np.mean(errors[v]) + np.mean(errors[w]))
        rest = math.sqrt(max(float(ratios.var(ddof=1)) - sampling, 0.0))
        rests.append(rest)
        print(
            f"  {v}/{w}: ratio {math.exp(ratios.mean()):.3f}, total {ratios.std(ddof=1):.3f}, "
            f"sampling {math.sqrt(sampling):.3f}, rest {rest:.3f}"
        )
    print(f"  the rest, pooled: {math.sqrt(float(np.mean(np.square(rests)))):.3f}")


def answers(runs: list[RunResult]) -> None:
    """The runs judged again with each candidate floor."""
    for log_sd in FLOORS:
        found = []
        for run in runs:
            winner = dataclasses.replace(run, noise_floor=NoiseFloor(ratio_log_sd=log_sd)).winner()
            if winner is not None:
                found.append((winner.variant, {winner.variant, *winner.tied_with}))
        pairs = list(itertools.combinations(found, 2))
        same = sum(a in their and b in mine for (a, mine), (b, their) in pairs)
        every = sum(set(BATCHED) <= names for _, names in found)
        winners = {name: sum(w == name for w, _ in found) for name in BATCHED}
        print(
            f"floor {log_sd:.2f}: same answer {same} of {len(pairs)} pairs of runs; all "
            f"{len(BATCHED)} fast variants tied in {every} of {len(found)}; winners {winners}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=16)
    parser.add_argument("--kept", type=Path, help="only judge the runs kept here")
    args = parser.parse_args()
    folder = args.kept
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="matvec-ratio-floor-"))
        print(f"runs kept in {folder}", flush=True)
        for run in range(args.runs):
            engine(
                "run",
                "--matrices=3000",
                "--dim=100",
                f"--strategy={','.join(DEFAULT_SET)}",
                "--no-history",
                "--progress=none",
                f"--json={folder / f'run{run + 1}.json'}",
                quiet=True,
            )
    runs = [RunResult.from_json(p.read_text()) for p in sorted(folder.glob("run*.json"))]
    print(f"others' CPU: {max(r.machine_load.other_cpu_fraction for r in runs):.1%} at most")
    spreads(runs)
    answers(runs)


if __name__ == "__main__":
    main()
