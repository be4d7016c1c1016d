"""Does a fast variant's time depend on which variants share the run? Pairs, back to back.

For each slow neighbour (python_loop, while_loop, map_fn), two fresh runs back to back: the
fast set alone, and the fast set with the neighbour (interleaved, fixed sampling so both take
the same samples). Prints each fast variant's median alone and beside the neighbour, and the
ratio; the goal is within 5%.

    python -m benchmarks.neighbours [--matrices 3000] [--dim 100] [--pairs 2]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

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
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="matvec-neighbours-")) / "run.json"
    worst = 0.0
    for neighbour in NEIGHBOURS:
        for pair in range(args.pairs):
            alone = medians(FAST, args, out)
            beside = medians((*FAST, neighbour), args, out)
            cells = []
            for variant in FAST:
                ratio = beside[variant] / alone[variant]
                worst = max(worst, abs(ratio - 1))
                cells.append(
                    f"{variant} {alone[variant] * 1e3:.2f} -> {beside[variant] * 1e3:.2f} ms "
                    f"({ratio:.3f})"
                )
            print(f"+{neighbour:<11} pair {pair + 1}: " + " · ".join(cells), flush=True)
    print(f"largest change beside a neighbour: {worst:.1%} (goal: within 5%)")


if __name__ == "__main__":
    main()
