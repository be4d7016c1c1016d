"""JAX's multi-process path: which process of how many this is, and where the coordinator is.

Read from the environment, as TensorFlow's multi-worker path reads `TF_CONFIG`: start the same
command on every host (or twice on one, as the tests do), each with its own process id:

    JAX_COORDINATOR_ADDRESS=host0:29871 MATVEC_JAX_PROCESSES=2 MATVEC_JAX_PROCESS_ID=0 \\
        python -m engine run --mode sharded --replicas 2 --strategy jax_einsum ...

`JAX_COORDINATOR_ADDRESS` is JAX's own variable (`jax.distributed.initialize` reads it); the
count and the id are the engine's, since JAX finds them only on the clusters it knows (SLURM,
Open MPI, Cloud TPU). No JAX import here: the command's door checks these before any work,
and the processes of one run skip the machine-wide queue (they wait for each other).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

COORDINATOR = "JAX_COORDINATOR_ADDRESS"
PROCESSES = "MATVEC_JAX_PROCESSES"
PROCESS_ID = "MATVEC_JAX_PROCESS_ID"
ADDRESS = re.compile(r"^\[?[\w.:-]+\]?:\d{1,5}$")


class ClusterError(ValueError):
    """A malformed cluster variable; `field` names it (the command's door reports it)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


@dataclass(frozen=True)
class Cluster:
    """This process's place among the run's JAX processes."""

    coordinator: str
    processes: int
    process_id: int


def _count(env: Mapping[str, str], name: str, low: int, high: int | None) -> int:
    raw = env.get(name, "").strip()
    digits = raw.isascii() and raw.isdigit()  # "²".isdigit() is True, and int() refuses it
    if not digits or int(raw) < low or (high is not None and int(raw) > high):
        bound = f"{low} to {high}" if high is not None else f"{low} or more"
        raise ClusterError(name, f"expected a whole number from {bound}, got {raw!r}")
    return int(raw)


def cluster_from_environment(env: Mapping[str, str] | None = None) -> Cluster | None:
    """The cluster the environment describes; None when it describes none (neither the count
    nor the coordinator is set). Raises ClusterError naming the variable that is wrong."""
    env = os.environ if env is None else env
    coordinator = env.get(COORDINATOR, "").strip()
    if not coordinator and not env.get(PROCESSES, "").strip():
        return None
    if not ADDRESS.match(coordinator) or not 1 <= int(coordinator.rpartition(":")[2]) <= 65535:
        raise ClusterError(
            COORDINATOR, f"expected host:port (port 1 to 65535) of process 0, got {coordinator!r}"
        )
    processes = _count(env, PROCESSES, 1, None)
    process_id = _count(env, PROCESS_ID, 0, processes - 1)
    return Cluster(coordinator, processes, process_id)


def jax_processes() -> int:
    """JAX processes the environment asks for (1 without a cluster, or when it is malformed:
    the door says what is wrong)."""
    try:
        cluster = cluster_from_environment()
    except ClusterError:
        return 1
    return cluster.processes if cluster else 1


def check_layout(mode: str, replicas: int) -> None:
    """A run's layout against the cluster the environment describes: malformed variables, or
    a layout the processes cannot share out (ClusterError naming the field)."""
    cluster = cluster_from_environment()
    if cluster is None or cluster.processes == 1:
        return
    if mode == "single":
        raise ClusterError(
            "mode",
            f"{cluster.processes} JAX processes share a batch: pass --mode sharded or "
            "--mode replicated",
        )
    if replicas % cluster.processes:
        raise ClusterError(
            "replicas",
            f"{replicas} replicas do not share out over {cluster.processes} JAX processes: "
            f"pass a multiple of {cluster.processes}",
        )
