"""The NumPy kernel: the reference peer, on the host.

Its body is what the dashboard shows users as "the code to copy", so keep it plain.
"""

from __future__ import annotations

import numpy as np


def numpy(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.matmul(A, x[..., None])[..., 0]
