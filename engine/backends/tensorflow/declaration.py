"""TensorFlow's declaration: the seed's ways (right and wrong) and its search points. It runs
the run's own process (its devices, probes, profiles and tf.distribute executors), compiles its
graph kernels with XLA as an option, and needs its own install hint (which TensorFlow fits
which accelerator). Imports no framework: the catalogue reads it in every process."""

from __future__ import annotations

from engine.catalogue.strategy_info import SEARCH_ONLY, FrameworkInfo, StrategyInfo, kernel_in

MIN_TENSORFLOW = (2, 16)
MIN_TENSORFLOW_TEXT = ".".join(map(str, MIN_TENSORFLOW))
TENSORFLOW_PIN = "2.21.0"  # what the numbers here were measured with (requirements.txt)
INSTALL_HINT = (
    f"on a fresh machine `pip install tensorflow=={TENSORFLOW_PIN}`; elsewhere a TensorFlow "
    f">= {MIN_TENSORFLOW_TEXT} built for your accelerator (Kaggle's TPU image has one; Colab's "
    "TPU runtime has none, and the other frameworks run there without it)"
)

STRATEGIES: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "python_loop",
        "eager",
        "Eager Python loop: one tf.linalg.matvec per matrix, stacked.",
        kernel_in(__package__, "python_loop"),
        framework="tensorflow",
        baseline=True,
        interactive=False,
        simplicity=9,
        simplicity_reason="a Python loop",
        expression="python loop",
        compiler="eager",
        searchable=False,
    ),
    StrategyInfo(
        "while_loop",
        "graph",
        "tf.function + tf.while_loop writing every y[i] to a TensorArray.",
        kernel_in(__package__, "while_loop"),
        framework="tensorflow",
        distribution="graph",
        simplicity=7,
        simplicity_reason="an explicit loop with a TensorArray",
        expression="while loop",
        compiler="graph",
        searchable=False,
    ),
    StrategyInfo(
        "map_fn",
        "graph",
        "tf.map_fn over (A[i], x[i]) inside a tf.function.",
        kernel_in(__package__, "map_fn"),
        framework="tensorflow",
        distribution="graph",
        simplicity=6,
        simplicity_reason="a per-matrix function run in a graph loop",
        expression="map_fn",
        compiler="graph",
        searchable=False,
    ),
    StrategyInfo(
        "vectorized_map",
        "graph",
        "tf.vectorized_map over (A[i], x[i]): auto-vectorised.",
        kernel_in(__package__, "vectorized_map"),
        framework="tensorflow",
        launches="one",
        distribution="graph",
        simplicity=5,
        simplicity_reason="a per-matrix function that TensorFlow vectorises",
        expression="vectorized_map",
        compiler="graph",
    ),
    StrategyInfo(
        "batched_matvec",
        "graph",
        "tf.linalg.matvec(A, x): one batched kernel.",
        kernel_in(__package__, "batched_matvec"),
        framework="tensorflow",
        launches="one",
        distribution="graph",
        simplicity=1,
        simplicity_reason="one library call that says what it does",
        expression="matvec",
        compiler="graph",
    ),
    StrategyInfo(
        "batched_matmul",
        "graph",
        "tf.matmul(A, x[..., None])[..., 0].",
        kernel_in(__package__, "batched_matmul"),
        framework="tensorflow",
        launches="one",
        distribution="graph",
        simplicity=4,
        simplicity_reason="one call, with a reshape on either side",
        expression="matmul",
        compiler="graph",
    ),
    StrategyInfo(
        "einsum",
        "graph",
        "tf.einsum('bij,bj->bi', A, x).",
        kernel_in(__package__, "einsum"),
        framework="tensorflow",
        launches="one",
        distribution="graph",
        simplicity=3,
        simplicity_reason="one call, with the index notation to read",
        expression="einsum",
        compiler="graph",
    ),
    StrategyInfo(
        "dataset",
        "eager",
        "tf.data slices batched and iterated in Python, one step per batch.",
        kernel_in(__package__, "dataset"),
        framework="tensorflow",
        distribution="dataset",
        interactive=False,
        options=("batch_size",),
        simplicity=8,
        simplicity_reason="a tf.data pipeline",
        expression="tf.data",
        compiler="eager",
        searchable=False,
    ),
)

SEARCH_POINTS: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "broadcast_reduce",
        "graph",
        "tf.reduce_sum(A * x[:, None, :], -1): broadcast multiply, then reduce.",
        kernel_in(__package__, "broadcast_reduce"),
        framework="tensorflow",
        distribution="graph",
        simplicity=4,
        simplicity_reason="one line of element-wise arithmetic",
        why="No matmul kernel at all: for small matrices the fused multiply-and-reduce "
        "avoids the per-matrix overhead of a batched matmul.",
        expression="broadcast multiply and reduce",
        compiler="graph",
        **SEARCH_ONLY,
    ),
    # Reduced precision: the same fused forms reading bfloat16 (half the bytes), summing in
    # float32. They run only when float32 was asked for, and are never the answer to it.
    StrategyInfo(
        "broadcast_reduce_bf16",
        "graph",
        "tf.reduce_sum(A * x[:, None, :], -1) over bfloat16 inputs widened to float32.",
        kernel_in(__package__, "broadcast_reduce_bf16"),
        framework="tensorflow",
        simplicity=6,
        simplicity_reason="inputs kept in bfloat16: a different accuracy",
        why="Half the bytes of float32 to read, for an error of bfloat16's size.",
        expression="broadcast multiply and reduce",
        compiler="graph",
        storage="bfloat16",
        **SEARCH_ONLY,
    ),
)

FRAMEWORK = FrameworkInfo(
    name="tensorflow",
    label="TensorFlow",
    module="tensorflow",
    install_hint=INSTALL_HINT,
    rank=0,
    process="run",
    replicas="distribution",
    strategies=STRATEGIES,
    search_points=SEARCH_POINTS,
    wrappers={
        ("graph", ""): "@tf.function\n",
        ("graph", "xla"): "@tf.function(jit_compile=True)\n",
    },
    xla_kinds=("graph",),
    user_kind="graph",
    # NumPy beside it: it runs inside TensorFlow's process, so its spread is the same run's.
    calibration=("batched_matvec", "einsum", "vectorized_map", "numpy"),
    usable="engine.backends.tensorflow.availability:tensorflow_problem",
    device_hint="engine.backends.tensorflow.availability:tensorflow_install_hint",
    at_exit="engine.process.leftovers:remove_autograph_sources",
)
