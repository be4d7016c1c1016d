"""JAX as a peer framework: kernels and the runtime the peer worker drives (in its own process).

A run in mode replicated or sharded sets `MATVEC_REPLICAS` in the worker before JAX is
imported; on a CPU host XLA's host platform then shows that many devices (the flag must be in
`XLA_FLAGS` before JAX starts, so it is set here, when the package is first imported), and
each replica is one of them (`runtime.JaxRuntime.place_over`).
"""

import os

_REPLICAS = os.environ.get("MATVEC_REPLICAS", "")
if (
    _REPLICAS.isdigit()
    and int(_REPLICAS) > 1
    and "force_host_platform" not in os.environ.get("XLA_FLAGS", "")
):
    os.environ["XLA_FLAGS"] = " ".join(
        [os.environ.get("XLA_FLAGS", ""), f"--xla_force_host_platform_device_count={_REPLICAS}"]
    ).strip()
