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
import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # after the log level is set

from benchmarks.block_after import FAST_NEIGHBOUR_S, add_flags, ask, drawn_inputs, run_for


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_flags(parser)
    args = parser.parse_args()
    matrices, vectors = drawn_inputs(args)
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
    neighbours = {"the fast kernel": fast_neighbour, "the eager loop": eager_loop}
    what = f"numpy matmul {matrices.shape}"
    ask(args, numpy_call, neighbours, what, "the fast kernel", "the eager loop")


if __name__ == "__main__":
    main()
