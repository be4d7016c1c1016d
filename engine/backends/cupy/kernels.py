"""CuPy kernels: y[i] = A[i] @ x[i] on the GPU. Called as they are (CuPy has no tracing
compiler); the body is the code the dashboard shows to copy."""

from __future__ import annotations

import cupy as cp


def cupy_matmul(A: cp.ndarray, x: cp.ndarray) -> cp.ndarray:
    return cp.matmul(A, x[..., None])[..., 0]


def cupy_einsum(A: cp.ndarray, x: cp.ndarray) -> cp.ndarray:
    return cp.einsum("bij,bj->bi", A, x)
