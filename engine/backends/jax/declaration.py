"""JAX's declaration: always in a process of its own (it preallocates a GPU's memory, and a
TPU has one owner at a time); its kernels compiled by jax.jit; its replicas devices of one
`NamedSharding` (`execution/replicas/device.py`). Imports no framework."""

from __future__ import annotations

from engine.catalogue.strategy_info import (
    JAX_INSTALL_HINT,
    SEARCH_ONLY,
    FrameworkInfo,
    StrategyInfo,
    kernel_in,
)

STRATEGIES: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "jax_vmap",
        "jit",
        "JAX: jax.jit(jax.vmap(jnp.matmul))(A, x), synced with block_until_ready.",
        kernel_in(__package__, "jax_vmap"),
        framework="jax",
        launches="one",
        simplicity=3,
        interactive=False,
        simplicity_reason="one vmapped call, compiled by jax.jit",
        why="JAX traces it once and XLA compiles the whole batch into one fused program.",
        expression="vmap of a dot",
        compiler="jit",
    ),
    StrategyInfo(
        "jax_einsum",
        "jit",
        "JAX: jax.jit(lambda A, x: jnp.einsum('bij,bj->bi', A, x)).",
        kernel_in(__package__, "jax_einsum"),
        framework="jax",
        launches="one",
        simplicity=3,
        interactive=False,
        simplicity_reason="one call, with the index notation to read, compiled by jax.jit",
        why="JAX traces it once and XLA compiles the whole batch into one fused program.",
        expression="einsum",
        compiler="jit",
    ),
)

SEARCH_POINTS: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "jax_broadcast",
        "jit",
        "JAX: jax.jit(lambda A, x: (A * x[:, None, :]).sum(-1)).",
        kernel_in(__package__, "jax_broadcast"),
        framework="jax",
        simplicity=4,
        simplicity_reason="one line of element-wise arithmetic, compiled by jax.jit",
        expression="broadcast multiply and reduce",
        compiler="jit",
        **SEARCH_ONLY,
    ),
    StrategyInfo(
        "jax_einsum_bf16",
        "jit",
        "JAX: jnp.einsum('bij,bj->bi', A, x, preferred_element_type=float32), bfloat16 inputs.",
        kernel_in(__package__, "jax_einsum_bf16"),
        framework="jax",
        simplicity=6,
        simplicity_reason="inputs kept in bfloat16: a different accuracy",
        why="Half the bytes of float32 to read, for an error of bfloat16's size.",
        expression="einsum",
        compiler="jit",
        storage="bfloat16",
        **SEARCH_ONLY,
    ),
)

FRAMEWORK = FrameworkInfo(
    name="jax",
    label="JAX",
    module="jax",
    install_hint=JAX_INSTALL_HINT,
    rank=2,
    strategies=STRATEGIES,
    search_points=SEARCH_POINTS,
    one_thread_setup=(
        "# before importing jax: os.sched_setaffinity(0, {0}) (XLA's CPU threads follow)\n\n"
    ),
    wrappers={("jit", ""): "@jax.jit\n"},
    user_kind="jit",
    calibration=("jax_vmap",),
    lay_out_replicas="engine.backends.jax.host_devices:show_replicas",
    capabilities=("device_ceiling", "replica_devices", "profile"),
)
