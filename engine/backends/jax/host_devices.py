"""On a CPU host, XLA shows as many devices as the run's replicas: the flag must be in
`XLA_FLAGS` before JAX starts, so this module sets it when it is first imported, and the
runtime and the kernels import it before JAX. (Not the package's `__init__`: every process
imports the package to read its declaration, long before a worker knows its replicas.)

A run in mode replicated or sharded sets `MATVEC_REPLICAS` in the worker before its runtime is
loaded; each replica is one of these devices (`runtime.JaxRuntime.place_over`). Across JAX
processes (`machine/jax_cluster.py`) the replicas are shared out: each process shows its own
part of them.
"""

import os

from engine.machine.jax_cluster import cluster_from_environment


def _local_replicas() -> int:
    raw = os.environ.get("MATVEC_REPLICAS", "").strip()
    replicas = int(raw) if raw.isascii() and raw.isdigit() and int(raw) > 0 else 1
    try:
        cluster = cluster_from_environment()
    except ValueError:  # ClusterError: the command's door names it; the runtime again
        cluster = None
    if cluster is not None and cluster.processes > 1:
        return max(1, replicas // cluster.processes)
    return replicas


_LOCAL = _local_replicas()
if _LOCAL > 1 and "force_host_platform" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = " ".join(
        [os.environ.get("XLA_FLAGS", ""), f"--xla_force_host_platform_device_count={_LOCAL}"]
    ).strip()
