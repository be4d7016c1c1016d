"""Is one untimed call enough after a neighbour about as fast? Blocks compared within a run.

The re-warm before a block depends on what ran just before it (`Sampler.rewarm`): 0.12 s of
the variant's own calls after a neighbour more than twice as slow per call, one call after one
about as fast. Comparing fresh processes cannot show a 5% bias on a host whose medians move
more than that between processes; comparing blocks of one run can: both kinds of block are
interleaved through the same run, so a slow phase of the machine falls on both alike.

Each of `--runs` fresh processes samples the dashboard's default set with fixed sampling and
`--repeats` blocks each; every block of a fast variant is classed by its predecessor (the
recorded order, `sampling.rounds`): after a fast neighbour (one-call re-warm) or after a slow
one (the full re-warm). Per run, the ratio of the two medians; over the runs, the geometric
mean with its 95% interval (Student's t, SciPy). No bias: the interval holds 1.

    python -m benchmarks.predecessors [--runs 5] [--repeats 40]
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
from engine.measure.timing import AS_FAST

STRATEGIES = (
    "python_loop",
    "while_loop",
    "map_fn",
    "vectorized_map",
    "batched_matvec",
    "einsum",
    "numpy",
)
FAST = ("vectorized_map", "batched_matvec", "einsum", "numpy")


def by_predecessor(data: dict) -> dict[str, dict[str, list[float]]]:
    """Each fast variant's samples after a fast and after a slow neighbour."""
    variants = data["sampling"]["variants"]
    results = {r["variant"]: r for r in data["results"]}
    per_call = {v: results[v]["median_s"] for v in variants}
    taken = {v: 0 for v in variants}
    found: dict[str, dict[str, list[float]]] = {v: {"fast": [], "slow": []} for v in FAST}
    previous = None
    for index in (i for round_ in data["sampling"]["rounds"] for i in round_):
        variant = variants[index]
        sample = results[variant]["samples_s"][taken[variant]]
        taken[variant] += 1
        if variant in FAST and previous is not None and previous != variant:
            kind = "fast" if per_call[previous] <= AS_FAST * per_call[variant] else "slow"
            found[variant][kind].append(sample)
        previous = variant
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=40)
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="matvec-predecessors-")) / "run.json"
    logs: dict[str, list[float]] = {v: [] for v in FAST}
    for run in range(args.runs):
        engine(
            "run",
            f"--strategy={','.join(STRATEGIES)}",
            "--sampling=fixed",
            f"--repeats={args.repeats}",
            f"--seed={run}",
            "--no-history",
            "--progress=none",
            f"--json={out}",
            quiet=True,
        )
        cells = []
        for variant, kinds in by_predecessor(json.loads(out.read_text())).items():
            if not kinds["fast"] or not kinds["slow"]:
                continue
            fast, slow = float(np.median(kinds["fast"])), float(np.median(kinds["slow"]))
            logs[variant].append(math.log(fast / slow))
            cells.append(
                f"{variant} {slow * 1e3:.2f} ({len(kinds['slow'])}) -> "
                f"{fast * 1e3:.2f} ms ({len(kinds['fast'])})"
            )
        print(f"run {run + 1}: after slow -> after fast: " + " · ".join(cells), flush=True)
    print("after a fast neighbour / after a slow one: geometric mean over the runs [95% CI]")
    for variant, values in logs.items():
        if values:
            print(f"  {variant:<15} {summary(values).replace('pairs', 'runs')}")


if __name__ == "__main__":
    main()
