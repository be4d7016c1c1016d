"""NumPy on the host as a runtime: the same prepare -> sample -> check path as every framework.

Used when NumPy's strategy runs in a process of its own, which is when TensorFlow is not here
to host it (`engine.execution.placement`). Its arrays are the engine's own (copied, so a
kernel cannot change the inputs the others read); a call returns when it is done, so `sync`
has nothing to wait for.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from typing import Any

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from engine.harness.runtime import ArraysSayWhere

_LIMITS: list[Any] = []  # keeps the BLAS thread limit in force for the life of the process


class NumpyRuntime(ArraysSayWhere):
    framework = "numpy"
    device_kind = "CPU"
    array_types: tuple[type, ...] = (np.ndarray,)  # what a user kernel must return

    def __init__(self, dtype: str, threads: int) -> None:
        _LIMITS.append(threadpool_limits(limits=threads, user_api="blas"))
        self.threads = threads

    def unsupported(self, dtype: str) -> str | None:
        return None

    def put(self, host: tuple[np.ndarray, np.ndarray]) -> tuple[Any, Any]:
        return tuple(np.array(array, copy=True) for array in host)  # type: ignore[return-value]

    def put_array(self, array: np.ndarray) -> Any:
        return np.array(array, copy=True)

    def store(self, placed: tuple[Any, Any], dtype: str) -> tuple[Any, Any]:
        """NumPy has no bfloat16 arithmetic: its points keep the requested dtype."""
        raise ValueError(f"NumPy has no {dtype} storage point")

    def build(self, function: Callable[..., Any], option: str) -> Callable[..., Any]:
        if option:
            raise ValueError(f"NumPy kernels have no {option!r} variant")
        return function

    def sync(self, output: Any) -> None:
        return None  # NumPy returns when the work is done

    def to_host(self, output: Any) -> np.ndarray:
        return np.asarray(output)

    def memory_stats(self) -> None:
        return None  # the host's memory: the preflight's estimate covers it

    def environment(self) -> dict[str, Any]:
        blas = [
            {"library": p.get("internal_api"), "threads": p.get("num_threads")}
            for p in threadpool_info()
            if p.get("user_api") == "blas"
        ]
        return {
            "version": np.__version__,
            "device": "host",
            "device_kind": self.device_kind,
            "device_name": platform.processor() or None,
            "threads": self.threads,
            "blas": blas,
            "thread_control": "threadpoolctl (BLAS) and CPU affinity",
        }


def make_runtime(dtype: str, threads: int) -> NumpyRuntime:
    return NumpyRuntime(dtype, threads)
