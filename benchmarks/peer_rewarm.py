"""A peer framework's first block after an eager loop, with and without the re-warm: the
engine left out.

The run's re-warm (0.12 s of a variant's own calls before each turn that follows other work,
`measure/timing.py`) was sized on TensorFlow's two-thread kernels (docs/timing.md). A search's
peer processes (PyTorch, JAX) re-warm the same way, and their re-warms are about half of a
warm worker's search (`timings.rewarm_s`). This asks, in one plain process of that framework,
whether its batched kernel needs it: many times, in a shuffled order, a neighbour (the kernel
itself for 0.1 s: no break; or an eager loop of one matvec per matrix in the same framework),
then `--rewarm` seconds of the kernel's own untimed calls, then three timed blocks of it of
about 20 ms each. Per re-warm: the median first block after the eager loop over that after the
kernel itself, with a Mann–Whitney p (SciPy), and the same for the later two blocks. No
neighbour effect: ratios near 1.

    python -m benchmarks.peer_rewarm --framework torch [--rewarm 0,0.12] [--reps 25]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable

import numpy as np
from scipy import stats

BLOCK_S = 0.02  # a timed block lasts about this long, as the run's do (and first_block's)
FAST_NEIGHBOUR_S = 0.1  # the kernel's own running before a block, as in first_block


def run_for(call: Callable[[], object], seconds: float) -> None:
    """Call until `seconds` have passed (at least once). (first_block's, without its
    TensorFlow import: this process holds only the framework asked for.)"""
    began = time.perf_counter()
    call()
    while time.perf_counter() - began < seconds:
        call()


Calls = tuple[Callable[[], object], Callable[[], object]]  # the kernel's call, the eager loop


def torch_calls(matrices: np.ndarray, vectors: np.ndarray) -> Calls:
    import torch

    a, x = torch.from_numpy(matrices), torch.from_numpy(vectors)

    def kernel() -> object:
        return torch.bmm(a, x[..., None])

    def eager_loop() -> object:
        return [torch.mv(a[i], x[i]) for i in range(a.shape[0])]

    return kernel, eager_loop


def jax_calls(matrices: np.ndarray, vectors: np.ndarray) -> Calls:
    import jax
    import jax.numpy as jnp

    a, x = jnp.asarray(matrices), jnp.asarray(vectors)
    batched = jax.jit(lambda a, x: jnp.einsum("bij,bj->bi", a, x))
    dot = jax.jit(jnp.dot)

    def kernel() -> object:
        return batched(a, x).block_until_ready()

    def eager_loop() -> object:
        return [dot(a[i], x[i]).block_until_ready() for i in range(a.shape[0])]

    return kernel, eager_loop


FRAMEWORKS = {"torch": torch_calls, "jax": jax_calls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--framework", choices=sorted(FRAMEWORKS), default="torch")
    parser.add_argument("--rewarm", default="0,0.12", help="re-warm seconds to compare")
    parser.add_argument("--reps", type=int, default=25, help="per neighbour and re-warm")
    parser.add_argument("--matrices", type=int, default=3000)
    parser.add_argument("--dim", type=int, default=100)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    matrices = rng.standard_normal((args.matrices, args.dim, args.dim), dtype=np.float32)
    vectors = rng.standard_normal((args.matrices, args.dim), dtype=np.float32)
    kernel, eager_loop = FRAMEWORKS[args.framework](matrices, vectors)
    run_for(kernel, 0.5)
    eager_loop()
    run_for(kernel, 0.5)
    began = time.perf_counter()
    kernel()
    calls = max(1, math.ceil(BLOCK_S / (time.perf_counter() - began)))

    def block() -> float:
        began = time.perf_counter()
        for _ in range(calls):
            kernel()
        return (time.perf_counter() - began) / calls

    rewarms = [float(r) for r in args.rewarm.split(",")]
    neighbours = {"itself": lambda: run_for(kernel, FAST_NEIGHBOUR_S), "eager loop": eager_loop}
    order = [(n, r) for n in neighbours for r in rewarms] * args.reps
    random.Random(1).shuffle(order)
    first: dict[tuple[str, float], list[float]] = {}
    later: dict[tuple[str, float], list[float]] = {}
    for name, rewarm in order:
        neighbours[name]()
        if rewarm:
            run_for(kernel, rewarm)
        first.setdefault((name, rewarm), []).append(block())
        later.setdefault((name, rewarm), []).extend([block(), block()])
    print(
        f"{args.framework} batched matvec {args.matrices}x{args.dim}x{args.dim}, {calls} calls "
        f"a block, {args.reps} of each (ms, medians)"
    )
    for rewarm in rewarms:
        cells = []
        for label, found in (("first block", first), ("later blocks", later)):
            after_self, after_loop = found[("itself", rewarm)], found[("eager loop", rewarm)]
            ratio = statistics.median(after_loop) / statistics.median(after_self)
            p_value = stats.mannwhitneyu(after_loop, after_self).pvalue
            cells.append(
                f"{label} after the eager loop {statistics.median(after_loop) * 1e3:.2f}, "
                f"after itself {statistics.median(after_self) * 1e3:.2f}: ratio {ratio:.3f} "
                f"(p = {p_value:.2g})"
            )
        print(f"re-warm {rewarm:g} s: " + "; ".join(cells))


if __name__ == "__main__":
    main()
