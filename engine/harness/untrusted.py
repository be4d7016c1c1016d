"""Timing a kernel the harness does not trust (a user's): every timed call computes, or fails.

A kernel may keep what it returned and hand it back when it sees the same inputs again (by
their identity, or a hash of a few of their values), or ignore some of its inputs. So each
block of a user's kernel runs on vectors drawn fresh for that block, one per call (the matrices
are the run's own, rotated through its cold-cache copies), and after the block one of its
calls, picked only then, is checked against float64 on a sample of its rows. A result kept from
an earlier call, or one that ignores x, is wrong for the new vectors and fails the variant; a
result that is not the framework's own array is refused. Blocks hold at most
`MAX_CALLS_PER_BLOCK` calls, so a block never has to reuse a vector.

The drawing, the transfers and the check run outside the clock (`Kernel.before_block` and
`Kernel.after_block`). What is not closed here (a kernel that reads the harness's memory, or
patches NumPy, in its own process) is in docs/user-kernels.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine.harness.runtime import Runtime
from engine.measure.correctness import check, host_dtype, reference
from engine.measure.timing import Kernel

MAX_CALLS_PER_BLOCK = 64
CHECKED_ROWS = 64  # rows of the picked call compared with float64: a kept result fails them all


class WrongTimedOutput(Exception):
    """A timed call of a user's kernel returned something other than y = A·x for its inputs."""


class FreshInputs:
    """The untrusted kernel's blocks: fresh vectors in, one sampled call checked out."""

    def __init__(
        self,
        runtime: Runtime,
        kernel: Callable[..., Any],
        placed_matrices: Sequence[Any],
        host_matrices: Sequence[np.ndarray],
        dtype: str,
        refuse: Callable[[Any], None],
    ) -> None:
        self.runtime, self.kernel, self.dtype, self.refuse = runtime, kernel, dtype, refuse
        self.placed_matrices, self.host_matrices = placed_matrices, host_matrices
        # Unpredictable to the kernel: which values come, which call and rows are checked.
        self.rng = np.random.default_rng(int.from_bytes(os.urandom(8), "little"))
        self.vectors: list[Any] = []
        self.host_vectors = np.empty((0,), dtype=np.float32)
        self.outputs: list[tuple[int, int, Any]] = []  # (matrix set, vector slot, output)

    def as_kernel(self) -> Kernel:
        return Kernel(
            call=self.call,
            sync=self.runtime.sync,
            before_block=self.before_block,
            after_block=self.after_block,
            max_calls=MAX_CALLS_PER_BLOCK,
        )

    def before_block(self, calls: int) -> None:
        """One new vector per call of the coming block, on the kernel's device."""
        matrices, _, cols = self.host_matrices[0].shape
        slots = min(calls, MAX_CALLS_PER_BLOCK)
        drawn = self.rng.standard_normal((slots, matrices, cols), dtype=np.float32)
        self.host_vectors = drawn.astype(host_dtype(self.dtype))
        self.vectors = [self.runtime.put_array(x) for x in self.host_vectors]
        self.outputs = []

    def call(self, index: int) -> Any:
        matrix_set = index % len(self.placed_matrices)
        slot = len(self.outputs) % len(self.vectors)
        output = self.kernel(self.placed_matrices[matrix_set], self.vectors[slot])
        self.outputs.append((matrix_set, slot, output))
        return output

    def after_block(self) -> None:
        """Check one call of the block, picked now, on a sample of its rows."""
        if not self.outputs:
            return
        matrix_set, slot, output = self.outputs[int(self.rng.integers(len(self.outputs)))]
        self.outputs = []
        self.refuse(output)
        a = self.host_matrices[matrix_set]
        matrices, rows_per_matrix, cols = a.shape
        host = np.asarray(self.runtime.to_host(output))
        if host.shape != (matrices, rows_per_matrix):
            raise WrongTimedOutput(
                f"a timed call returned shape {host.shape}, expected {(matrices, rows_per_matrix)}"
            )
        rows = np.sort(self.rng.choice(matrices, min(CHECKED_ROWS, matrices), replace=False))
        expected = reference(a[rows], self.host_vectors[slot][rows])
        found = check(host[rows].astype(np.float64), expected, self.dtype, cols)
        if not found.correct:
            raise WrongTimedOutput(
                "a timed call's output is not A·x for the inputs it was given "
                f"({found.message}): it was kept from an earlier call or computed from "
                "something else"
            )
