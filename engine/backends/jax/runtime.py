"""JAX on its default device: TPU when there is one, else GPU, else the CPU.

Set before JAX starts (the peer worker imports this module only after limiting the CPU
affinity, which is how JAX sizes its CPU thread pool): no GPU memory preallocation, so the
TensorFlow run that follows gets the device back. Matmul precision is "highest": on TPU the
default float32 matmul uses bfloat16 passes, which would be faster and fail the float32 check.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import jax  # after the environment above
import jax.numpy as jnp
import jaxlib
import numpy as np

from engine.results.formatting import classify_error

KINDS = {"cpu": "CPU", "gpu": "GPU", "cuda": "GPU", "rocm": "GPU", "tpu": "TPU"}
PRECISION = "highest"


class JaxRuntime:
    framework = "jax"
    array_types: tuple[type, ...] = (jax.Array,)  # what a user kernel must return

    def __init__(self, dtype: str, threads: int) -> None:
        jax.config.update("jax_default_matmul_precision", PRECISION)
        if dtype == "float64":
            jax.config.update("jax_enable_x64", True)  # else float64 is silently float32
        self.device = jax.devices()[0]
        self.device_kind = KINDS.get(self.device.platform, self.device.platform.upper())
        self.threads = threads

    def unsupported(self, dtype: str) -> str | None:
        if dtype == "float64" and self.device_kind == "TPU":
            return "float64 is not supported by JAX on TPU"
        return None

    def put(self, host: tuple[np.ndarray, np.ndarray]) -> tuple[Any, Any]:
        placed = jax.device_put(host, self.device)
        jax.block_until_ready(placed)
        return placed[0], placed[1]

    def put_array(self, array: np.ndarray) -> Any:
        placed = jax.device_put(array, self.device)
        jax.block_until_ready(placed)
        return placed

    def build(self, function: Callable[..., Any], option: str) -> Callable[..., Any]:
        if option:
            raise ValueError(f"JAX kernels have no {option!r} variant")
        return jax.jit(function)

    def placement(self) -> contextlib.nullcontext[None]:
        return contextlib.nullcontext()  # its arrays say where they live

    def classify(self, error: BaseException) -> str:
        return classify_error(error)

    def store(self, placed: tuple[Any, Any], dtype: str) -> tuple[Any, Any]:
        """The placed inputs narrowed to `dtype` on the device (a reduced-precision point's)."""
        narrowed = tuple(array.astype(jnp.dtype(dtype)) for array in placed)
        jax.block_until_ready(narrowed)
        return narrowed  # type: ignore[return-value]

    def sync(self, output: Any) -> None:
        output.block_until_ready()

    def to_host(self, output: Any) -> np.ndarray:
        return np.asarray(output)

    def replica_devices(self, count: int) -> list[Any] | None:
        """`count` devices of the run's platform to lay replicas over (None: fewer here)."""
        found = [d for d in jax.devices() if d.platform == self.device.platform]
        return found[:count] if len(found) >= count else None

    def place_over(
        self, pair: tuple[Any, Any], devices: list[Any], mode: str
    ) -> tuple[tuple[Any, Any], int]:
        """The pair laid out over `devices` with a `NamedSharding`: along the batch, padded
        with zero rows to equal shards (dropped after), or whole on each (replicated).
        Returns the placed pair and the padding rows."""
        mesh = jax.sharding.Mesh(np.array(devices), ("replicas",))
        a, x = pair
        padding = -len(a) % len(devices) if mode == "sharded" else 0
        if padding:
            a = jnp.concatenate([a, jnp.zeros((padding, *a.shape[1:]), a.dtype)])
            x = jnp.concatenate([x, jnp.zeros((padding, *x.shape[1:]), x.dtype)])
        spec = jax.sharding.PartitionSpec("replicas" if mode == "sharded" else None)
        placed = jax.device_put((a, x), jax.sharding.NamedSharding(mesh, spec))
        jax.block_until_ready(placed)
        return (placed[0], placed[1]), padding

    def put_on(self, pair: tuple[Any, Any], device: Any) -> tuple[Any, Any]:
        """The pair on one device (a replica timed alone)."""
        placed = jax.device_put(pair, device)
        jax.block_until_ready(placed)
        return placed[0], placed[1]

    def device_parts(self, output: Any) -> list[np.ndarray]:
        """Each device's copy or slice of an output, on the host, in batch order."""
        shards = sorted(output.addressable_shards, key=lambda s: s.index[0].start or 0)
        return [np.asarray(shard.data) for shard in shards]

    def probe_buffer(self, elements: int) -> Any:
        """A float32 buffer on the device, for the read probe (`peer_worker.device_probes`)."""
        buffer = jax.device_put(np.ones(elements, dtype=np.float32), self.device)
        buffer.block_until_ready()
        return buffer

    def probe_read(self) -> Callable[[Any], Any]:
        """A read of every element: a jitted sum, which XLA streams from device memory."""
        return jax.jit(lambda buffer: buffer.sum())

    def memory_stats(self) -> dict[str, int] | None:
        """The device's memory in use and its peak (None on the CPU, which keeps none)."""
        stats = self.device.memory_stats() if hasattr(self.device, "memory_stats") else None
        if not stats:
            return None
        return {
            "bytes_in_use": int(stats.get("bytes_in_use", 0)),
            "peak_bytes_in_use": int(stats.get("peak_bytes_in_use", 0)),
        }

    def environment(self) -> dict[str, Any]:
        return {
            "version": jax.__version__,
            "jaxlib": jaxlib.__version__,
            "device": str(self.device),
            "device_kind": self.device_kind,
            "device_name": getattr(self.device, "device_kind", None),
            "devices": len(jax.devices()),
            "matmul_precision": PRECISION,
            "x64": bool(jax.config.jax_enable_x64),
            "threads": self.threads,
            "thread_control": "CPU affinity (JAX sizes its CPU thread pool from it)",
        }


def make_runtime(dtype: str, threads: int) -> JaxRuntime:
    return JaxRuntime(dtype, threads)
