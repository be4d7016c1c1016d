"""NumPy's declaration: the host, no device. In mode single beside TensorFlow it runs inside
TensorFlow's process (it shares the host inputs that process holds); otherwise, and in modes
replicated and sharded (its batch split over threads), in a process of its own. Imports
nothing but the engine's descriptions."""

from __future__ import annotations

from engine.catalogue.strategy_info import (
    SEARCH_ONLY,
    FrameworkInfo,
    StrategyInfo,
)

STRATEGIES: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "numpy",
        "host",
        "NumPy matmul on the host: the reference peer.",
        "engine.backends.numpy.kernels:numpy",
        framework="numpy",
        launches="one",
        baseline=True,
        simplicity=2,
        simplicity_reason="one NumPy call on the host, no TensorFlow",
        expression="matmul",
        compiler="none",
    ),
)

SEARCH_POINTS: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "numpy_einsum",
        "host",
        "NumPy: np.einsum('bij,bj->bi', A, x).",
        "engine.backends.numpy.kernels:numpy_einsum",
        framework="numpy",
        simplicity=3,
        simplicity_reason="one NumPy call, with the index notation to read",
        expression="einsum",
        compiler="none",
        **SEARCH_ONLY,
    ),
    StrategyInfo(
        "numpy_broadcast",
        "host",
        "NumPy: (A * x[:, None, :]).sum(-1).",
        "engine.backends.numpy.kernels:numpy_broadcast",
        framework="numpy",
        simplicity=4,
        simplicity_reason="one line of element-wise arithmetic",
        expression="broadcast multiply and reduce",
        compiler="none",
        **SEARCH_ONLY,
    ),
    StrategyInfo(
        "numpy_split2",
        "host",
        "NumPy: the batch in two halves, each matmul on its own thread (NumPy releases the GIL).",
        "engine.backends.numpy.kernels:numpy_split2",
        framework="numpy",
        simplicity=6,
        simplicity_reason="two threads and an output written in place",
        why="Each half runs on its own core with its own BLAS call, so both cores stream "
        "memory at once.",
        expression="matmul",
        compiler="none",
        chunks=2,
        **SEARCH_ONLY,
    ),
)

FRAMEWORK = FrameworkInfo(
    name="numpy",
    label="NumPy",
    module="numpy",
    install_hint='NumPy comes with the tool (`pip install "numpy>=1.26"`)',
    rank=1,
    process="host",
    strategies=STRATEGIES,
    search_points=SEARCH_POINTS,
    one_thread_setup=(
        "from threadpoolctl import threadpool_limits\n\nthreadpool_limits(1)  # once\n\n"
    ),
    user_kind="host",
    calibration=("numpy", "numpy_einsum"),
)
