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
from collections.abc import Callable

import numpy as np

from benchmarks.block_after import FAST_NEIGHBOUR_S, add_flags, ask, drawn_inputs, run_for

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
    add_flags(parser)
    args = parser.parse_args()
    matrices, vectors = drawn_inputs(args)
    kernel, eager_loop = FRAMEWORKS[args.framework](matrices, vectors)
    run_for(kernel, 0.5)
    eager_loop()
    run_for(kernel, 0.5)
    neighbours = {"itself": lambda: run_for(kernel, FAST_NEIGHBOUR_S), "the eager loop": eager_loop}
    what = f"{args.framework} batched matvec {args.matrices}x{args.dim}x{args.dim}"
    ask(args, kernel, neighbours, what, "the eager loop", "itself")


if __name__ == "__main__":
    main()
