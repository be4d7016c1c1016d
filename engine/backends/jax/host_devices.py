"""On a CPU host, XLA shows as many devices as the run's replicas: the flag must be in
`XLA_FLAGS` before JAX starts. A run in mode replicated or sharded calls `show_replicas` in
its JAX process before the runtime is loaded (JAX's declaration names it, `lay_out_replicas`;
the count comes with the process's request, as data); each replica is one of these devices
(`runtime.JaxRuntime.place_over`). Across JAX processes (`machine/jax_cluster.py`) the
replicas are shared out: each process shows its own part of them.
"""

from __future__ import annotations

import os
import sys

from engine.machine.jax_cluster import cluster_from_environment


def local_replicas(replicas: int) -> int:
    """This process's part of the run's `replicas`."""
    try:
        cluster = cluster_from_environment()
    except ValueError:  # ClusterError: the command's door names it; the runtime again
        cluster = None
    if cluster is not None and cluster.processes > 1:
        return max(1, replicas // cluster.processes)
    return max(1, replicas)


def show_replicas(replicas: int) -> None:
    """XLA's host platform with one device per local replica; before JAX starts (after, the
    flag would be read by nobody: refused, so a run never measures fewer devices than it
    says)."""
    if "jax" in sys.modules:
        raise RuntimeError("show_replicas must be called before JAX is imported")
    local = local_replicas(replicas)
    if local > 1 and "force_host_platform" not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = " ".join(
            [os.environ.get("XLA_FLAGS", ""), f"--xla_force_host_platform_device_count={local}"]
        ).strip()
