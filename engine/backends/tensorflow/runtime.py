"""TensorFlow as a runtime for a process of its own: the user's TensorFlow kernels (`--kernel
f.py:f@tensorflow`) go through the same prepare -> sample -> check path as every framework.

The catalogue's TensorFlow strategies keep the run's own process (its distributed and dataset
executors). A user kernel's process starts before the run's TensorFlow takes the device, and
ends before it; its kernel runs as a `tf.function` (the +xla variant with `jit_compile=True`),
synchronised with `sync_devices`, as the catalogue's graph strategies are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine.backends.tensorflow.loader import tf
from engine.backends.tensorflow.sync import sync_all

DTYPES = {
    "float16": tf.float16,
    "bfloat16": tf.bfloat16,
    "float32": tf.float32,
    "float64": tf.float64,
}


class TensorflowRuntime:
    framework = "tensorflow"

    def __init__(self, dtype: str, threads: int) -> None:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
        gpus = tf.config.list_physical_devices("GPU")
        for gpu in gpus:  # this process ends before the run's own TensorFlow starts
            tf.config.experimental.set_memory_growth(gpu, True)
        self.device = "/GPU:0" if gpus else "/CPU:0"
        self.device_kind = "GPU" if gpus else "CPU"
        self.dtype = DTYPES[dtype]
        self.threads = threads

    def unsupported(self, dtype: str) -> str | None:
        return None

    def put(self, host: tuple[np.ndarray, np.ndarray]) -> tuple[Any, Any]:
        with tf.device(self.device):
            placed = tuple(self._tensor(array) for array in host)
        sync_all(placed)
        return placed  # type: ignore[return-value]

    def _tensor(self, array: np.ndarray) -> Any:
        if self.dtype == tf.bfloat16:  # NumPy has no bfloat16: widen, then narrow exactly
            return tf.cast(tf.constant(array.astype(np.float32)), tf.bfloat16)
        return tf.identity(tf.constant(array))

    def build(self, function: Callable[..., Any], option: str) -> Callable[..., Any]:
        if option not in ("", "xla"):
            raise ValueError(f"TensorFlow kernels have no {option!r} variant")
        compiled = tf.function(function, jit_compile=option == "xla")

        def on_device(*args: Any) -> Any:
            with tf.device(self.device):
                return compiled(*args)

        return on_device

    def sync(self, output: Any) -> None:
        sync_all(output)

    def to_host(self, output: Any) -> np.ndarray:
        if output.dtype == tf.bfloat16:
            output = tf.cast(output, tf.float32)  # exact: every bfloat16 is a float32
        return output.numpy()

    def environment(self) -> dict[str, Any]:
        return {
            "version": tf.__version__,
            "device": self.device,
            "device_kind": self.device_kind,
            "threads": self.threads,
            "thread_control": "tf.config.threading and CPU affinity",
        }


def make_runtime(dtype: str, threads: int) -> TensorflowRuntime:
    return TensorflowRuntime(dtype, threads)
