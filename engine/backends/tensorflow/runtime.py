"""TensorFlow as a runtime: the same prepare -> sample -> check path as every framework.

Two places use it. The run's own process (`TensorflowRuntime.in_run`): the catalogue's
TensorFlow strategies in mode single, on the device the run set up, with the inputs the run
placed once. A process of its own (`make_runtime`): a user's TensorFlow kernel (`--kernel
f.py:f@tensorflow`), which starts before the run's TensorFlow takes the device and ends before
it; there its kernel runs as a `tf.function` (the +xla variant with `jit_compile=True`).
Either way a call is synchronised with `sync_devices`, as the graph strategies are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine.backends.tensorflow.errors import classify
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
    array_types: tuple[type, ...] = (tf.Tensor, tf.Variable)  # what a user kernel must return

    def __init__(self, dtype: str, device: str, device_kind: str, threads: int | None) -> None:
        self.dtype = DTYPES[dtype]
        self.device, self.device_kind, self.threads = device, device_kind, threads

    @classmethod
    def in_run(cls, dtype: str, device: str, device_kind: str) -> TensorflowRuntime:
        """The run's own TensorFlow: its devices and threads are already set up."""
        return cls(dtype, device, device_kind, None)

    def unsupported(self, dtype: str) -> str | None:
        return None  # a dtype a kernel lacks is its error, classified by `classify`

    def put(self, host: tuple[np.ndarray, np.ndarray]) -> tuple[Any, Any]:
        with tf.device(self.device):
            placed = tuple(self._tensor(array) for array in host)
        sync_all(placed)
        return placed  # type: ignore[return-value]

    def put_array(self, array: np.ndarray) -> Any:
        with tf.device(self.device):
            placed = self._tensor(array)
        sync_all((placed,))
        return placed

    def store(self, placed: tuple[Any, Any], dtype: str) -> tuple[Any, Any]:
        """The placed inputs narrowed to `dtype` on the device (a reduced-precision point's)."""
        with tf.device(self.device):
            narrowed = tuple(tf.cast(tensor, DTYPES[dtype]) for tensor in placed)
        sync_all(narrowed)
        return narrowed  # type: ignore[return-value]

    def _tensor(self, array: np.ndarray) -> Any:
        if self.dtype == tf.bfloat16:  # NumPy has no bfloat16: widen, then narrow exactly
            return tf.cast(tf.constant(array.astype(np.float32)), tf.bfloat16)
        return tf.identity(tf.constant(array))

    def build(self, function: Callable[..., Any], option: str) -> Callable[..., Any]:
        """A user's kernel as a graph (the catalogue's kernels are built by `build_kernel`,
        which knows each strategy's kind)."""
        if option not in ("", "xla"):
            raise ValueError(f"TensorFlow kernels have no {option!r} variant")
        compiled = tf.function(function, jit_compile=option == "xla")

        def on_device(*args: Any) -> Any:
            with tf.device(self.device):
                return compiled(*args)

        return on_device

    def placement(self) -> Any:
        return tf.device(self.device)

    def sync(self, output: Any) -> None:
        sync_all(output)

    def to_host(self, output: Any) -> np.ndarray:
        if isinstance(output, np.ndarray):  # a host strategy run beside TensorFlow (NumPy)
            return output
        if output.dtype == tf.bfloat16:
            output = tf.cast(output, tf.float32)  # exact: every bfloat16 is a float32
        return output.numpy()

    def classify(self, error: BaseException) -> str:
        return classify(error)

    def memory_stats(self) -> dict[str, int] | None:
        """The device's memory in use and its peak (None where it is not reported: the CPU,
        for which some versions answer zeros rather than refuse)."""
        if self.device_kind == "CPU":
            return None
        try:
            info = tf.config.experimental.get_memory_info(self.device.replace("/", "", 1))
        except (ValueError, tf.errors.OpError):
            return None
        return {"bytes_in_use": int(info["current"]), "peak_bytes_in_use": int(info["peak"])}

    def environment(self) -> dict[str, Any]:
        return {
            "version": tf.__version__,
            "device": self.device,
            "device_kind": self.device_kind,
            "threads": self.threads,
            "thread_control": "tf.config.threading and CPU affinity",
        }


def make_runtime(dtype: str, threads: int) -> TensorflowRuntime:
    """TensorFlow in a process of its own: its threads set, GPU memory grown as needed (this
    process ends before the run's own TensorFlow starts)."""
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(threads)
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    device, kind = ("/GPU:0", "GPU") if gpus else ("/CPU:0", "CPU")
    return TensorflowRuntime(dtype, device, kind, threads)
