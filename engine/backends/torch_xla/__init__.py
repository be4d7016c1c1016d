"""PyTorch/XLA: PyTorch's lazy tensors compiled by XLA, the way PyTorch runs on a TPU (and on
any PJRT device: a GPU, or the CPU when `PJRT_DEVICE=CPU` or no accelerator is found)."""
