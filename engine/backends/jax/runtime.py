"""JAX on its default device: TPU when there is one, else GPU, else the CPU.

Set before JAX starts (the peer worker imports this module only after limiting the CPU
affinity, which is how JAX sizes its CPU thread pool): no GPU memory preallocation, so the
TensorFlow run that follows gets the device back. Matmul precision is "highest": on TPU the
default float32 matmul uses bfloat16 passes, which would be faster and fail the float32 check.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

from engine.harness.runtime import ArraysSayWhere
from engine.machine.settings import seconds_from_environment

# isort: split
import jax  # after the environment above
import jax.numpy as jnp
import jaxlib
import numpy as np

from engine.machine.jax_cluster import Cluster, cluster_from_environment

KINDS = {"cpu": "CPU", "gpu": "GPU", "cuda": "GPU", "rocm": "GPU", "tpu": "TPU"}
PRECISION = "highest"
JOIN_VARIABLE = "MATVEC_JAX_JOIN_S"
DEFAULT_JOIN_S = 30.0  # every process must have started by then, or each says it could not join


def join_limit_s() -> int:
    """Seconds a JAX process waits for the others to join ($MATVEC_JAX_JOIN_S, default 30)."""
    return max(1, round(seconds_from_environment(JOIN_VARIABLE, DEFAULT_JOIN_S)))


class JaxRuntime(ArraysSayWhere):
    framework = "jax"
    array_types: tuple[type, ...] = (jax.Array,)  # what a user kernel must return

    def __init__(self, dtype: str, threads: int) -> None:
        jax.config.update("jax_default_matmul_precision", PRECISION)
        if dtype == "float64":
            jax.config.update("jax_enable_x64", True)  # else float64 is silently float32
        self.cluster = cluster_from_environment()
        if self.processes > 1:
            join(self.cluster)  # type: ignore[arg-type]
        self.device = jax.local_devices()[0]
        self.device_kind = KINDS.get(self.device.platform, self.device.platform.upper())
        self.threads = threads

    @property
    def processes(self) -> int:
        """JAX processes in this run (1 without a cluster)."""
        return self.cluster.processes if self.cluster else 1

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

    def store(self, placed: tuple[Any, Any], dtype: str) -> tuple[Any, Any]:
        """The placed inputs narrowed to `dtype` on the device (a reduced-precision point's)."""
        narrowed = tuple(array.astype(jnp.dtype(dtype)) for array in placed)
        jax.block_until_ready(narrowed)
        return narrowed  # type: ignore[return-value]

    def sync(self, output: Any) -> None:
        output.block_until_ready()

    def profile(self, call: Callable[[int], Any], calls: int) -> Any:
        """A `ProfileSummary` of `calls` more calls (`jax.profiler`, read in the process)."""
        from engine.backends.jax.profile import profile_kernel

        return profile_kernel(call, self.sync, calls, self.device)

    def to_host(self, output: Any) -> np.ndarray:
        """The whole output on this host; laid out over other processes' devices too, it is
        gathered from all of them (a collective: every process checks at the same point)."""
        if getattr(output, "is_fully_addressable", True):
            return np.asarray(output)
        from jax.experimental import multihost_utils

        return np.asarray(multihost_utils.process_allgather(output, tiled=True))

    def replica_devices(self, count: int) -> list[Any] | None:
        """`count` devices of the run's platform to lay replicas over (None: fewer here).
        Across processes: every process's devices, in process order, and exactly `count` of
        them (a replica on no device of a process would leave that process nothing to time)."""
        found = sorted(
            (d for d in jax.devices() if d.platform == self.device.platform),
            key=lambda d: (d.process_index, d.id),
        )
        if self.processes > 1:
            return found if len(found) == count else None
        return found[:count] if len(found) >= count else None

    def is_local(self, device: Any) -> bool:
        """Whether `device` belongs to this process (only those can be timed here)."""
        return device.process_index == jax.process_index()

    def every_process(self, values: list[float | None]) -> np.ndarray:
        """Every process's `values`, one row per process (None as NaN): a collective."""
        mine = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
        if self.processes == 1:
            return mine[None, :]
        from jax.experimental import multihost_utils

        return np.asarray(multihost_utils.process_allgather(mine))

    def gather_floats(self, values: list[float | None]) -> list[float | None]:
        """Each position's largest value among the processes that have one (the others give
        None): every process's per-replica times in one list, or each block's slowest."""
        if self.processes == 1:
            return values
        columns = [col[~np.isnan(col)] for col in self.every_process(values).T]
        return [float(col.max()) if col.size else None for col in columns]

    def barrier(self, name: str) -> None:
        """Wait until every process is here (a probe all of them make at once)."""
        if self.processes > 1:
            from jax.experimental import multihost_utils

            multihost_utils.sync_global_devices(name)

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
        layout = jax.sharding.NamedSharding(mesh, spec)
        if self.processes > 1:  # every process holds the same inputs (one seed): each
            # places the rows of its own devices from its host copy
            hosts = (np.asarray(a), np.asarray(x))
            placed = tuple(
                jax.make_array_from_callback(h.shape, layout, lambda index, h=h: h[index])
                for h in hosts
            )
        else:
            placed = jax.device_put((a, x), layout)
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
        """A float32 buffer on the device, for the read probe (`peers/device_probes.py`)."""
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
            **(
                {
                    "processes": self.processes,
                    "process_id": jax.process_index(),
                    "local_devices": len(jax.local_devices()),
                    "coordinator": self.cluster.coordinator,
                }
                if self.cluster
                else {}
            ),
            "matmul_precision": PRECISION,
            "x64": bool(jax.config.jax_enable_x64),
            "threads": self.threads,
            "thread_control": "CPU affinity (JAX sizes its CPU thread pool from it)",
        }


def one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:200]


def join(cluster: Cluster) -> None:
    """This process joins the run's JAX processes (before any device is touched); on a CPU
    host their collectives go over gloo."""
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(
        coordinator_address=cluster.coordinator,
        num_processes=cluster.processes,
        process_id=cluster.process_id,
        initialization_timeout=join_limit_s(),
    )
    try:
        counted = jax.process_count()  # the first touch of the backend: the others answer
        local, total = jax.local_device_count(), jax.device_count()
    except RuntimeError as error:  # the coordinator went away while this one started
        raise RuntimeError(
            f"process {cluster.process_id} of {cluster.processes} could not start with the JAX "
            f"processes coordinated at {cluster.coordinator} ({one_line(error)}): another "
            "process ended first or never came; check that every process was started with the "
            "same MATVEC_JAX_PROCESSES and --replicas"
        ) from None
    if counted != cluster.processes:  # each process says its own count; the coordinator's wins
        raise RuntimeError(
            f"MATVEC_JAX_PROCESSES is {cluster.processes} in process {cluster.process_id}, but "
            f"the coordinator at {cluster.coordinator} counts {counted} processes: give every "
            "process the same MATVEC_JAX_PROCESSES"
        )
    if total != local * counted:  # another process split its replicas another way
        raise RuntimeError(
            f"the {counted} JAX processes at {cluster.coordinator} show {total} devices in all, "
            f"not {local} here x {counted}: another process was given another "
            "MATVEC_JAX_PROCESSES or --replicas; give every process the same ones"
        )


def make_runtime(dtype: str, threads: int) -> JaxRuntime:
    return JaxRuntime(dtype, threads)
