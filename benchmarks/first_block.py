"""NumPy's first block after a fast TensorFlow kernel or after an eager loop: the engine left out.

`benchmarks.predecessors` classes a run's blocks by the block before them; with 3–9 blocks of
each kind a run, and NumPy's time moving between two levels within one run, its per-run ratios
are noisy. This is the same question asked a second way, in one plain process: many times, in
a shuffled order, a neighbour (TensorFlow's batched matvec for 0.1 s on both threads, or a
Python loop of one eager matvec per matrix), then `--rewarm` seconds of untimed NumPy calls
(the run's re-warm is 0.12 s), then three timed blocks of NumPy's `matmul` of about 20 ms each.
Per re-warm: the median first block after each neighbour, their ratio with a Mann–Whitney p
(SciPy), and the same for the later two blocks. No neighbour effect: ratios near 1.

    python -m benchmarks.first_block [--rewarm 0,0.12] [--reps 25] [--matrices 3000] [--dim 100]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import time
from collections.abc import Callable

import numpy as np
from scipy import stats

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # after the log level is set

BLOCK_S = 0.02  # a timed block lasts about this long, as the run's do
FAST_NEIGHBOUR_S = 0.1  # the fast neighbour's block


def run_for(call: Callable[[], object], seconds: float) -> None:
    """Call until `seconds` have passed (at least once)."""
    began = time.perf_counter()
    call()
    while time.perf_counter() - began < seconds:
        call()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rewarm", default="0,0.12", help="re-warm seconds to compare")
    parser.add_argument("--reps", type=int, default=25, help="per neighbour and re-warm")
    parser.add_argument("--matrices", type=int, default=3000)
    parser.add_argument("--dim", type=int, default=100)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    shape = (args.matrices, args.dim, args.dim)
    matrices = rng.standard_normal(shape, dtype=np.float32)
    vectors = rng.standard_normal((args.matrices, args.dim), dtype=np.float32)
    tf_matrices, tf_vectors = tf.constant(matrices), tf.constant(vectors)
    batched = tf.function(tf.linalg.matvec)

    def numpy_call() -> None:
        np.matmul(matrices, vectors[..., None])

    def fast_neighbour() -> None:
        run_for(lambda: batched(tf_matrices, tf_vectors).numpy(), FAST_NEIGHBOUR_S)

    def eager_loop() -> None:
        for i in range(args.matrices):
            tf.linalg.matvec(tf_matrices[i], tf_vectors[i])

    run_for(numpy_call, 0.5)
    fast_neighbour()
    began = time.perf_counter()
    numpy_call()
    calls = max(1, math.ceil(BLOCK_S / (time.perf_counter() - began)))

    def block() -> float:
        began = time.perf_counter()
        for _ in range(calls):
            numpy_call()
        return (time.perf_counter() - began) / calls

    rewarms = [float(r) for r in args.rewarm.split(",")]
    neighbours = {"fast TensorFlow kernel": fast_neighbour, "eager loop": eager_loop}
    order = [(n, r) for n in neighbours for r in rewarms] * args.reps
    random.Random(1).shuffle(order)
    first: dict[tuple[str, float], list[float]] = {}
    later: dict[tuple[str, float], list[float]] = {}
    for name, rewarm in order:
        neighbours[name]()
        if rewarm:
            run_for(numpy_call, rewarm)
        first.setdefault((name, rewarm), []).append(block())
        later.setdefault((name, rewarm), []).extend([block(), block()])
    print(f"numpy matmul {shape}, {calls} calls a block, {args.reps} of each (ms, medians)")
    fast, slow = neighbours
    for rewarm in rewarms:
        cells = []
        for label, found in (("first block", first), ("later blocks", later)):
            after_fast, after_slow = found[(fast, rewarm)], found[(slow, rewarm)]
            ratio = statistics.median(after_fast) / statistics.median(after_slow)
            p_value = stats.mannwhitneyu(after_fast, after_slow).pvalue
            cells.append(
                f"{label} after the fast kernel {statistics.median(after_fast) * 1e3:.2f}, "
                f"after the eager loop {statistics.median(after_slow) * 1e3:.2f}: "
                f"ratio {ratio:.3f} (p = {p_value:.2g})"
            )
        print(f"re-warm {rewarm:g} s: " + "; ".join(cells))


if __name__ == "__main__":
    main()
