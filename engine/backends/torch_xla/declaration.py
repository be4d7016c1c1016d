"""PyTorch/XLA's declaration: a process of its own (a TPU has one owner at a time, and its
runtime starts its own thread pools); its kernels are PyTorch's, traced lazily and compiled by
XLA when the step is synced. Mode single only for now: its replicas (SPMD over a device mesh)
are not built. Imports no framework."""

from __future__ import annotations

from engine.catalogue.strategy_info import FrameworkInfo, StrategyInfo, kernel_in

INSTALL_HINT = (
    "install PyTorch/XLA with the PyTorch it was built for, e.g. "
    "`pip install torch==2.9.0 torch_xla==2.9.0` (Colab's TPU runtime has both); on a machine "
    "without a TPU it runs on the CPU"
)
WHY = (
    "PyTorch/XLA records the call lazily and XLA compiles the traced graph once, so the "
    "whole batch runs as one compiled program per step."
)

STRATEGIES: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "torch_xla_bmm",
        "jit",
        "PyTorch/XLA: torch.bmm(A, x[..., None])[..., 0] on the XLA device, one sync per step.",
        kernel_in(__package__, "torch_xla_bmm"),
        framework="torch_xla",
        launches="one",
        interactive=False,
        simplicity=4,
        simplicity_reason="one batched call, with a reshape on either side, on the XLA device",
        why=WHY,
        expression="matmul",
        compiler="xla (lazy tensors)",
    ),
    StrategyInfo(
        "torch_xla_einsum",
        "jit",
        "PyTorch/XLA: torch.einsum('bij,bj->bi', A, x) on the XLA device, one sync per step.",
        kernel_in(__package__, "torch_xla_einsum"),
        framework="torch_xla",
        launches="one",
        interactive=False,
        simplicity=3,
        simplicity_reason="one call, with the index notation to read, on the XLA device",
        why=WHY,
        expression="einsum",
        compiler="xla (lazy tensors)",
    ),
)

FRAMEWORK = FrameworkInfo(
    name="torch_xla",
    label="PyTorch/XLA",
    module="torch_xla",
    install_hint=INSTALL_HINT,
    rank=4,
    replicas="none",
    strategies=STRATEGIES,
    # Lazy tensors run when the step is synced: the code to copy says where the sync goes.
    wrappers={
        ("jit", ""): (
            "# A and x on torch_xla.device(); call torch_xla.sync() after each call (the step\n"
            "# runs then), xm.wait_device_ops() to wait for it, as the timing does\n"
        )
    },
    capabilities=("device_ceiling",),
)
