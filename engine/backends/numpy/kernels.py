"""The NumPy kernel: the reference peer, on the host.

Its body is what the dashboard shows users as "the code to copy", so keep it plain.
"""

from __future__ import annotations

import threading

import numpy as np


def numpy(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.matmul(A, x[..., None])[..., 0]


def numpy_einsum(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.einsum("bij,bj->bi", A, x)


def numpy_broadcast(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    return (A * x[:, None, :]).sum(axis=-1)


def numpy_split2(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    y = np.empty(A.shape[:2], dtype=np.result_type(A.dtype, x.dtype))
    half = A.shape[0] // 2

    def part(lo: int, hi: int) -> None:  # NumPy releases the GIL inside matmul
        y[lo:hi] = np.matmul(A[lo:hi], x[lo:hi, :, None])[..., 0]

    helper = threading.Thread(target=part, args=(0, half))
    helper.start()
    part(half, A.shape[0])
    helper.join()
    return y
