"""JAX as a peer framework: kernels and the runtime the peer worker drives (in its own process);
`declaration.py` says what it is to the engine, `host_devices.py` how many devices XLA shows
on a CPU host (set before JAX starts)."""
