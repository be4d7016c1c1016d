"""Inputs and the float64 reference check, in NumPy only.

The check covers every y[i]: the output is copied into a NaN-poisoned buffer, so a strategy that
leaves vectors unwritten (the classic while_loop that keeps only the last result) or returns the
wrong shape is caught, not averaged away.
"""

from __future__ import annotations

import functools
import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

# NumPy's own dtypes; bfloat16 is ml_dtypes', imported on first use (its import takes 0.7 s,
# which every command would otherwise pay at start).
NUMPY_DTYPES: dict[str, Any] = {
    "float16": np.float16,
    "float32": np.float32,
    "float64": np.float64,
}


@functools.cache
def host_dtype(name: str) -> Any:
    """The host (NumPy) dtype of one of the tool's dtypes."""
    if name == "bfloat16":
        import ml_dtypes

        return ml_dtypes.bfloat16
    return NUMPY_DTYPES[name]


@functools.cache
def epsilon(name: str) -> float:
    """Machine epsilon of one of the tool's dtypes (unit-roundoff sized)."""
    if name == "bfloat16":
        import ml_dtypes

        return float(ml_dtypes.finfo(ml_dtypes.bfloat16).eps)
    return float(np.finfo(NUMPY_DTYPES[name]).eps)


# Rows of the reference computed at once, so float64 copies never double the memory footprint.
REFERENCE_CHUNK_ELEMENTS = 1_000_000


CHECK_STREAM = 1_000_003  # a stream no timed input set uses: fresh inputs for the check


def check_stream(user_kernel: bool) -> int:
    """The input set a run's correctness check reads. The catalogue's strategies are this
    tool's own code, with nothing that could keep a result between calls: their check reads
    the timed set itself (stream 0), so a run draws, places and holds one set fewer (at
    10000x256x256 float32 that set is 2.6 GB of first-touched memory: docs/timing.md,
    "Figures behind the code"). Where a user's kernel is in the run, the check reads a set
    no timed call has seen (`CHECK_STREAM`), as its fresh vectors per block do
    (harness/untrusted.py)."""
    return CHECK_STREAM if user_kernel else 0


# Inputs are drawn in blocks of this many elements, each from its own generator
# ([seed, stream, part, block]): the values depend on the seed alone, never on the thread count,
# and the blocks fill in parallel (NumPy's generators release the GIL while they fill).
DRAW_BLOCK_ELEMENTS = 1 << 20


def draw_threads() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _uniform(rng: np.random.Generator, out: np.ndarray) -> None:
    """`out` filled with values uniform on [-1, 1): every one exact in its dtype (k / 2^24 for
    float32, doubled and shifted exactly), and drawn 5x faster than normals (0.04 s against
    0.19 s for 15 M float32 here), which every fresh run's inputs and every sweep point wait for."""
    rng.random(out.size, dtype=out.dtype, out=out)
    out *= 2
    out -= 1


# TensorFlow's CPU kernels read a tensor in place only at Eigen's alignment (one off it aborts
# the process), and NumPy aligns a large array to 16 bytes. Inputs are drawn into memory aligned
# to it, so a CPU run's tensors can be the drawn arrays themselves rather than copies
# (`backends/tensorflow/placement.py`).
ALIGN_BYTES = 64


def aligned_empty(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """An uninitialised C-contiguous array whose data starts on an `ALIGN_BYTES` boundary."""
    kind = np.dtype(dtype)
    nbytes = math.prod(shape) * kind.itemsize
    raw = np.empty(nbytes + ALIGN_BYTES, dtype=np.uint8)
    offset = -raw.ctypes.data % ALIGN_BYTES
    return raw[offset : offset + nbytes].view(kind).reshape(shape)


def _draw(shape: tuple[int, ...], dtype: str, key: tuple[int, int, int]) -> np.ndarray:
    """Values uniform on [-1, 1) of `shape` written straight into a `dtype` array (aligned to
    `ALIGN_BYTES`), block by block."""
    out = aligned_empty(shape, host_dtype(dtype))
    flat = out.reshape(-1)
    draw = np.float64 if dtype == "float64" else np.float32
    direct = flat.dtype == np.dtype(draw)
    starts = range(0, flat.size, DRAW_BLOCK_ELEMENTS)

    def fill_block(start: int) -> None:
        stop = min(flat.size, start + DRAW_BLOCK_ELEMENTS)
        rng = np.random.default_rng([*key, start // DRAW_BLOCK_ELEMENTS])
        if direct:
            _uniform(rng, flat[start:stop])
        else:  # float16/bfloat16: drawn in float32 one block at a time, rounded into place
            block = np.empty(stop - start, dtype=draw)
            _uniform(rng, block)
            flat[start:stop] = block

    threads = min(draw_threads(), len(starts))
    if threads <= 1:
        for start in starts:
            fill_block(start)
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            list(pool.map(fill_block, starts))
    return out


def make_inputs(
    matrices: int, rows: int, cols: int, dtype: str, seed: int, stream: int
) -> tuple[np.ndarray, np.ndarray]:
    """A (B, m, n) and x (B, n) uniform on [-1, 1) in `dtype`; `stream` separates input sets."""
    a = _draw((matrices, rows, cols), dtype, (seed, stream, 0))
    x = _draw((matrices, cols), dtype, (seed, stream, 1))
    return a, x


def reference(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """y = A @ x in float64 from the exact (already rounded) inputs, in chunks.

    The float64 copies of a chunk go into one pair of buffers reused for every chunk, small
    enough to stay in cache: a fresh allocation per chunk costs page faults that take longer
    than the arithmetic.
    """
    matrices, rows, cols = a.shape
    out = np.empty((matrices, rows), dtype=np.float64)
    step = max(1, min(matrices, REFERENCE_CHUNK_ELEMENTS // max(1, rows * cols)))
    a64 = np.empty((step, rows, cols), dtype=np.float64)
    x64 = np.empty((step, cols, 1), dtype=np.float64)
    y64 = np.empty((step, rows, 1), dtype=np.float64)
    for start in range(0, matrices, step):
        count = min(matrices, start + step) - start
        np.copyto(a64[:count], a[start : start + count], casting="unsafe")
        np.copyto(x64[:count, :, 0], x[start : start + count], casting="unsafe")
        np.matmul(a64[:count], x64[:count], out=y64[:count])
        out[start : start + count] = y64[:count, :, 0]
    return out


def tolerance(dtype: str, cols: int) -> float:
    """Allowed error relative to the largest |y|: rounding grows about like sqrt(n)·eps."""
    return 4.0 * math.sqrt(cols) * epsilon(dtype) + 2.0 * epsilon(dtype)


@dataclass(frozen=True)
class Check:
    max_rel_error: float  # max |y - ref| / max |ref|, over every element of every y[i]
    rel_error_norm: float  # ||y - ref||_F / ||ref||_F
    max_abs_error: float
    tolerance: float
    correct: bool
    message: str | None


def poisoned_output(matrices: int, rows: int) -> np.ndarray:
    return np.full((matrices, rows), np.nan, dtype=np.float64)


def fill(buffer: np.ndarray, output: Any, rows: slice = slice(None)) -> str | None:
    """Copy `output` into `buffer[rows]`; a shape mismatch is reported, never broadcast."""
    values = np.asarray(output)
    target = buffer[rows]
    if values.shape != target.shape:
        return f"output shape {values.shape}, expected {target.shape}"
    target[...] = values.astype(np.float64)
    return None


def check(result: np.ndarray, ref: np.ndarray, dtype: str, cols: int) -> Check:
    tol = tolerance(dtype, cols)
    unwritten = int(np.count_nonzero(~np.isfinite(result)))
    diff = np.abs(result - ref)
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    scale = scale if scale > 0 else 1.0
    max_abs = float(np.nanmax(diff)) if unwritten < diff.size else math.inf
    norm_ref = float(np.linalg.norm(ref)) or 1.0
    if unwritten:
        return Check(
            math.inf,
            math.inf,
            math.inf,
            tol,
            False,
            f"{unwritten} of {result.size} output elements are NaN/inf or were never written",
        )
    max_rel = max_abs / scale
    rel_norm = float(np.linalg.norm(result - ref)) / norm_ref
    correct = max_rel <= tol and rel_norm <= tol
    message = None if correct else f"max relative error {max_rel:.3g} exceeds tolerance {tol:.3g}"
    return Check(max_rel, rel_norm, max_abs, tol, correct, message)
