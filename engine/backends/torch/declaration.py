"""PyTorch's declaration: always in a process of its own; eager kernels, and the search's
points under torch.compile. Imports no framework."""

from __future__ import annotations

from engine.catalogue.strategy_info import (
    SEARCH_ONLY,
    TORCH_INSTALL_HINT,
    FrameworkInfo,
    StrategyInfo,
    kernel_in,
)

STRATEGIES: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "torch_bmm",
        "eager",
        "PyTorch: torch.bmm(A, x[..., None])[..., 0], eager.",
        kernel_in(__package__, "torch_bmm"),
        framework="torch",
        launches="one",
        simplicity=4,
        interactive=False,
        simplicity_reason="one batched call, with a reshape on either side",
        why="PyTorch dispatches one batched matrix multiply for the whole batch.",
        expression="matmul",
        compiler="eager",
    ),
    StrategyInfo(
        "torch_einsum",
        "eager",
        "PyTorch: torch.einsum('bij,bj->bi', A, x), eager.",
        kernel_in(__package__, "torch_einsum"),
        framework="torch",
        launches="one",
        interactive=False,
        simplicity=3,
        simplicity_reason="one call, with the index notation to read",
        why="PyTorch lowers the einsum to one batched matrix multiply for the whole batch.",
        expression="einsum",
        compiler="eager",
    ),
)

SEARCH_POINTS: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "torch_broadcast",
        "eager",
        "PyTorch: (A * x[:, None, :]).sum(-1), eager.",
        kernel_in(__package__, "torch_broadcast"),
        framework="torch",
        simplicity=4,
        simplicity_reason="one line of element-wise arithmetic",
        expression="broadcast multiply and reduce",
        compiler="eager",
        **SEARCH_ONLY,
    ),
    StrategyInfo(
        "torch_bmm_compiled",
        "eager",
        "PyTorch: torch.bmm under torch.compile.",
        kernel_in(__package__, "torch_bmm"),
        framework="torch",
        simplicity=5,
        simplicity_reason="one batched call, compiled (the first call compiles for seconds)",
        why="torch.compile generates one fused kernel for this exact shape.",
        expression="matmul",
        compiler="torch.compile",
        build="compile",
        **SEARCH_ONLY,
    ),
    StrategyInfo(
        "torch_broadcast_compiled",
        "eager",
        "PyTorch: (A * x[:, None, :]).sum(-1) under torch.compile.",
        kernel_in(__package__, "torch_broadcast"),
        framework="torch",
        simplicity=5,
        simplicity_reason="one line of arithmetic, compiled (the first call compiles for seconds)",
        why="torch.compile fuses the multiply and the reduction into one loop over memory.",
        expression="broadcast multiply and reduce",
        compiler="torch.compile",
        build="compile",
        **SEARCH_ONLY,
    ),
    StrategyInfo(
        "torch_broadcast_bf16_compiled",
        "eager",
        "PyTorch: (A.float() * x.float()[:, None, :]).sum(-1) under torch.compile, bfloat16 "
        "inputs.",
        kernel_in(__package__, "torch_broadcast_bf16"),
        framework="torch",
        simplicity=7,
        simplicity_reason="inputs kept in bfloat16: a different accuracy, compiled",
        why="torch.compile widens each bfloat16 in registers inside one fused loop: half the "
        "bytes of float32 to read.",
        expression="broadcast multiply and reduce",
        compiler="torch.compile",
        build="compile",
        storage="bfloat16",
        **SEARCH_ONLY,
    ),
)

FRAMEWORK = FrameworkInfo(
    name="torch",
    label="PyTorch",
    module="torch",
    install_hint=TORCH_INSTALL_HINT,
    rank=3,
    strategies=STRATEGIES,
    search_points=SEARCH_POINTS,
    one_thread_setup="torch.set_num_threads(1)  # once, before the first call\n\n",
    wrappers={("eager", "compile"): "@torch.compile\n"},
    user_kind="eager",
    calibration=("torch_bmm",),
    capabilities=(
        "profile",
        "device_ceiling",
        "l2_ceiling",
        "replica_gpus",
        "compiler_preload",
        "device_time",
    ),
)
