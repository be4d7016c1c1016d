"""Does the engine's own overhead show in its numbers? Engine median vs a plain timeit.

Runs `batched_matvec` (3000 x 100 x 100 float32 by default) through the engine, interleaved
with `einsum` (the default sampling order), then times the same tf.function on the same kind of
inputs with `timeit` (k calls, then one sync), alternating the two methods several times so
machine noise hits both alike. Prints both medians and their ratio.

    python -m benchmarks.overhead [--matrices 3000] [--dim 100] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import timeit

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf

from engine import BenchConfig, run
from engine.backends.tensorflow.kernels import batched_matvec


def plain_timeit(matrices: int, dim: int, calls: int, repeats: int) -> float:
    a = tf.random.normal((matrices, dim, dim))
    x = tf.random.normal((matrices, dim))
    fn = tf.function(batched_matvec)
    fn(a, x)

    def block() -> None:
        for _ in range(calls):
            fn(a, x)
        tf.test.experimental.sync_devices()

    return statistics.median(timeit.repeat(block, number=1, repeat=repeats)) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matrices", type=int, default=3000)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    engine_s, plain_s = [], []
    for _ in range(args.rounds):
        config = BenchConfig(
            matrices=args.matrices,
            dim=args.dim,
            strategies=("batched_matvec", "einsum"),
            repeats=20,
            order="interleaved",
        )
        entry = run(config).results[0]
        engine_s.append(entry.measurement.median_s)
        plain_s.append(
            plain_timeit(args.matrices, args.dim, entry.calls_per_sample or 1, repeats=20)
        )
    engine_median = statistics.median(engine_s)
    plain_median = statistics.median(plain_s)
    print(
        f"engine median  {engine_median * 1e3:.3f} ms  (per round: "
        f"{', '.join(f'{s * 1e3:.3f}' for s in engine_s)})"
    )
    print(
        f"timeit median  {plain_median * 1e3:.3f} ms  (per round: "
        f"{', '.join(f'{s * 1e3:.3f}' for s in plain_s)})"
    )
    print(f"engine / timeit = {engine_median / plain_median:.3f}")


if __name__ == "__main__":
    main()
