"""Does a fast variant's time depend on which variants share the run? Pairs, back to back.

For each slow neighbour (python_loop, while_loop, map_fn), two fresh runs back to back: the
fast set alone, and the fast set with the neighbour (interleaved, fixed sampling so both take
the same samples). Prints each fast variant's median alone and beside the neighbour, and the
ratio; the goal is within 5%. The order within a pair alternates (alone first, then beside
first), so a drift of the machine falls on both. Between fresh processes a median moves
±10–15% here, so one pair cannot show 5%: the summary gives, per fast variant and neighbour,
the geometric mean of the ratios over the pairs with its 95% interval (Student's t on the log
ratios, SciPy): the bias a neighbour causes, with the process-to-process noise averaged out.

`--solo` makes the baseline each fast variant in a process of its own, and adds the fast set
itself as a neighbour (`+fast`): then every block of the baseline follows its own variant's,
and the rows say what sharing a run does, fast neighbours included.

    python -m benchmarks.neighbours [--matrices 3000] [--dim 100] [--pairs 2] [--solo]
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from pathlib import Path

import numpy as np
from scipy import stats

from benchmarks.engine_cli import engine

FAST = ("batched_matvec", "einsum", "numpy")
NEIGHBOURS = ("python_loop", "while_loop", "map_fn")


def medians(strategies: tuple[str, ...], args: argparse.Namespace, out: Path) -> dict:
    """One fresh `run` process; the fast variants' medians in seconds."""
    engine(
        "run",
        f"--matrices={args.matrices}",
        f"--dim={args.dim}",
        f"--strategy={','.join(strategies)}",
        "--sampling=fixed",
        "--no-history",
        "--progress=none",
        f"--json={out}",
        quiet=True,
    )
    data = json.loads(out.read_text())
    return {r["variant"]: r["median_s"] for r in data["results"] if r["variant"] in FAST}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matrices", type=int, default=3000)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--pairs", type=int, default=2, help="back-to-back pairs per neighbour")
    parser.add_argument(
        "--solo", action="store_true", help="baseline: each fast variant in a process of its own"
    )
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="matvec-neighbours-")) / "run.json"
    worst = 0.0
    logs: dict[tuple[str, str], list[float]] = {}

    def baseline() -> dict:
        if not args.solo:
            return medians(FAST, args, out)
        return {v: m for variant in FAST for v, m in medians((variant,), args, out).items()}

    neighbours = {n: (*FAST, n) for n in NEIGHBOURS}
    if args.solo:
        neighbours = {"fast": FAST, **neighbours}
    for neighbour, together in neighbours.items():
        for pair in range(args.pairs):
            if pair % 2 == 0:
                alone = baseline()
                beside = medians(together, args, out)
            else:
                beside = medians(together, args, out)
                alone = baseline()
            cells = []
            for variant in FAST:
                ratio = beside[variant] / alone[variant]
                worst = max(worst, abs(ratio - 1))
                logs.setdefault((variant, neighbour), []).append(math.log(ratio))
                cells.append(
                    f"{variant} {alone[variant] * 1e3:.2f} -> {beside[variant] * 1e3:.2f} ms "
                    f"({ratio:.3f})"
                )
            print(f"+{neighbour:<11} pair {pair + 1}: " + " · ".join(cells), flush=True)
    print(f"largest change in one pair: {worst:.1%} (process-to-process noise included)")
    print("bias beside each neighbour: geometric mean of the ratios over the pairs [95% CI]")
    for (variant, neighbour), values in logs.items():
        print(f"  {variant:<15} +{neighbour:<11} {summary(values)}")
    pooled = {v: [x for (w, _), xs in logs.items() if w == v for x in xs] for v in FAST}
    for variant, values in pooled.items():
        print(f"  {variant:<15} every neighbour {summary(values)} (goal: within 5%)")


def summary(log_ratios: list[float]) -> str:
    """The geometric mean ratio and its 95% t interval (none from a single pair)."""
    values = np.asarray(log_ratios)
    mean = float(values.mean())
    if values.size < 2:
        return f"{math.exp(mean):.3f} (one pair)"
    low, high = stats.t.interval(0.95, values.size - 1, loc=mean, scale=stats.sem(values))
    return f"{math.exp(mean):.3f} [{math.exp(low):.3f}-{math.exp(high):.3f}] ({values.size} pairs)"


if __name__ == "__main__":
    main()
