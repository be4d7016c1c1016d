"""CuPy's declaration: NumPy's interface on an NVIDIA GPU, in a process of its own; its
kernels last in the catalogue, so every earlier point keeps its place (and its colour) on a
machine without a GPU. Imports no framework."""

from __future__ import annotations

from engine.catalogue.strategy_info import FrameworkInfo, StrategyInfo, kernel_in

CUPY_INSTALL_HINT = (
    "CuPy runs on an NVIDIA GPU only: install the build for its CUDA, e.g. "
    "`pip install cupy-cuda12x`"
)

STRATEGIES: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "cupy_matmul",
        "eager",
        "CuPy: cp.matmul(A, x[..., None])[..., 0] on the GPU.",
        kernel_in(__package__, "cupy_matmul"),
        framework="cupy",
        launches="one",
        interactive=False,
        simplicity=2,
        simplicity_reason="one NumPy-style call, on the GPU",
        why="One batched GEMM call (cuBLAS) for the whole batch.",
        expression="matmul",
        compiler="none",
    ),
    StrategyInfo(
        "cupy_einsum",
        "eager",
        "CuPy: cp.einsum('bij,bj->bi', A, x) on the GPU.",
        kernel_in(__package__, "cupy_einsum"),
        framework="cupy",
        launches="one",
        interactive=False,
        simplicity=3,
        simplicity_reason="one call, with the index notation to read, on the GPU",
        why="CuPy maps the contraction onto one batched cuBLAS or cuTENSOR call.",
        expression="einsum",
        compiler="none",
    ),
)

FRAMEWORK = FrameworkInfo(
    name="cupy",
    label="CuPy",
    module="cupy",
    install_hint=CUPY_INSTALL_HINT,
    rank=9,
    accelerator_only=True,
    strategies=STRATEGIES,
    user_kind="eager",
    capabilities=("device_ceiling", "l2_ceiling", "replica_gpus", "device_time"),
)
