"""PyTorch as a peer framework: kernels and the runtime the peer worker drives (own process)."""
