"""JAX as a peer framework: kernels and the runtime the peer worker drives (in its own process)."""
