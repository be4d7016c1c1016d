"""How long a two-thread kernel stays slow after the machine did other work: one process.

A plain loop, no engine: TensorFlow's batched matmul at the seed's size runs at its steady
speed for 0.6 s, then one thread spins (what an eager Python loop or a one-thread NumPy call
leaves: one core busy, the other idle) or the process sleeps, for a set time; then single
calls are timed, one by one, for about 0.45 s. The conditions are shuffled and repeated; per
condition, the median call time by how long after the break it started. On a machine whose
idle cores come back at once every row reads like `none`.

    python -m benchmarks.idle_recovery [--matrices 3000] [--dim 100] [--repeats 10]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import tensorflow as tf

BREAKS = {
    "none": ("spin", 0.0),
    "spin 0.02 s": ("spin", 0.02),
    "spin 0.05 s": ("spin", 0.05),
    "spin 0.15 s": ("spin", 0.15),
    "spin 0.5 s": ("spin", 0.5),
    "sleep 0.3 s": ("sleep", 0.3),
}
WINDOWS_MS = ((0, 50), (50, 100), (100, 200), (200, 300), (300, 450))


def run_for(seconds: float, work: Callable[[], object] = lambda: None) -> None:
    """`work` again and again for `seconds` (the default spins one thread)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        work()


def take_a_break(kind: str, seconds: float) -> None:
    (time.sleep if kind == "sleep" else run_for)(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matrices", type=int, default=3000)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    shape = (args.matrices, args.dim, args.dim)
    a = tf.constant(rng.standard_normal(shape, dtype=np.float32))
    x = tf.constant(rng.standard_normal((args.matrices, args.dim, 1), dtype=np.float32))

    def call() -> None:
        tf.linalg.matmul(a, x).numpy()  # .numpy() waits for the result

    run_for(1.0, call)
    timed: dict[str, list[np.ndarray]] = {name: [] for name in BREAKS}
    for _ in range(args.repeats):
        for name in rng.permutation(list(BREAKS)).tolist():
            run_for(0.6, call)
            take_a_break(*BREAKS[name])
            starts, times, start = [], [], time.perf_counter()
            while time.perf_counter() - start < 0.45:
                began = time.perf_counter()
                call()
                starts.append(began - start)
                times.append(time.perf_counter() - began)
            timed[name].append(np.array([starts, times]))
    header = " · ".join(f"{lo}-{hi} ms" for lo, hi in WINDOWS_MS)
    print(f"median call time (ms) by when it started after the break: {header}")
    for name, runs in timed.items():
        starts = np.concatenate([r[0] for r in runs]) * 1e3
        times = np.concatenate([r[1] for r in runs]) * 1e3
        cells = [np.median(times[(starts >= lo) & (starts < hi)]) for lo, hi in WINDOWS_MS]
        print(f"  {name:<12} " + "  ".join(f"{c:5.2f}" for c in cells))


if __name__ == "__main__":
    main()
