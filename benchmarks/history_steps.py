"""A real history with a known change, and what `history changes` finds in it.

`--runs` fresh runs with one thread (`--threads 1`), then as many with two, of one problem,
one after another, stored in a history of their own (printed first); then `history changes`
over it, as a user would run it. The step in each variant's series should be found at the
first two-thread run, and its environment diff should name the thread setting.

    python -m benchmarks.history_steps [--runs 8] [--matrices 3000] [--dim 100]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from benchmarks.engine_cli import engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--matrices", type=int, default=3000)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--strategy", default="batched_matvec,numpy")
    args = parser.parse_args()
    history = Path(tempfile.mkdtemp(prefix="history_steps_")) / "history.sqlite3"
    print(f"history in {history}")
    os.environ["MATVEC_HISTORY"] = str(history)
    for threads in (1, 2):
        for index in range(args.runs):
            engine(
                "run",
                f"--matrices={args.matrices}",
                f"--dim={args.dim}",
                f"--strategy={args.strategy}",
                f"--threads={threads}",
                "--progress=none",
                quiet=True,
            )
            print(f"  {threads} thread(s): run {index + 1}/{args.runs}", flush=True)
    engine("history", "changes")


if __name__ == "__main__":
    main()
