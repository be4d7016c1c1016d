"""Thread counts, set alike for TensorFlow and NumPy's BLAS, so runs compare like with like.

TensorFlow's thread pools are fixed when its context initialises: this must run before the
first op (the CLI's worker process guarantees that); called later it records why it could not.
"""

from __future__ import annotations

from typing import Any

from threadpoolctl import threadpool_info, threadpool_limits

from engine.backends.tensorflow.loader import tf

_LIMITS: list[Any] = []  # keeps the BLAS limit in force for the life of the process
_APPLIED: list[int] = []  # the count TensorFlow took, so a warm worker's next run can match it


def configure_threads(threads: int | None) -> str | None:
    """Apply `threads` (None: leave every default); returns a warning when it could not."""
    if threads is None:
        return None
    if _APPLIED and _APPLIED[-1] == threads:
        return None  # a warm worker's later run: already in force
    _LIMITS.append(threadpool_limits(limits=threads, user_api="blas"))
    try:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    except RuntimeError as error:
        return f"threads={threads} not applied to TensorFlow (already initialised): {error}"
    _APPLIED.append(threads)
    return None


def thread_settings(requested: int | None) -> dict[str, Any]:
    """What each framework runs with: the `environment.threads` object."""
    blas = [
        {"library": p.get("internal_api"), "threads": p.get("num_threads")}
        for p in threadpool_info()
        if p.get("user_api") == "blas"
    ]
    return {
        "requested": requested,
        "intra_op": tf.config.threading.get_intra_op_parallelism_threads(),
        "inter_op": tf.config.threading.get_inter_op_parallelism_threads(),
        "numpy_blas": blas,
        "note": "0 means TensorFlow picks (usually one per core)",
    }
