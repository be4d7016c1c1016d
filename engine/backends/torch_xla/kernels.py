"""PyTorch/XLA kernels: PyTorch's own calls on tensors that live on the XLA device. The call
only records the graph; the runtime's sync runs it (`runtime.TorchXlaRuntime.sync`)."""

from __future__ import annotations

import torch


def torch_xla_bmm(A: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return torch.bmm(A, x[..., None])[..., 0]


def torch_xla_einsum(A: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return torch.einsum("bij,bj->bi", A, x)
