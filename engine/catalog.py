"""What strategies exist, described without importing TensorFlow.

The CLI's `strategies` command, config validation and the dashboard all need the list; none of
them should pay TensorFlow's import time (or, for the dashboard, import it at all) to get it.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Kind = Literal["eager", "graph", "host"]

KERNELS_FILE = Path(__file__).with_name("kernels.py")


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    kind: Kind  # eager: Python drives TF op by op; graph: one tf.function; host: NumPy
    summary: str

    @property
    def supports_xla(self) -> bool:
        return self.kind == "graph"

    @property
    def distributable(self) -> bool:
        """Can run under tf.distribute (replicated / sharded modes)."""
        return self.kind == "graph" or self.name == "dataset"


STRATEGIES: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "python_loop", "eager", "Eager Python loop: one tf.linalg.matvec per matrix, stacked."
    ),
    StrategyInfo(
        "while_loop", "graph", "tf.function + tf.while_loop writing every y[i] to a TensorArray."
    ),
    StrategyInfo("map_fn", "graph", "tf.map_fn over (A[i], x[i]) inside a tf.function."),
    StrategyInfo(
        "vectorized_map", "graph", "tf.vectorized_map over (A[i], x[i]): auto-vectorised."
    ),
    StrategyInfo("batched_matvec", "graph", "tf.linalg.matvec(A, x): one batched kernel."),
    StrategyInfo("batched_matmul", "graph", "tf.matmul(A, x[..., None])[..., 0]."),
    StrategyInfo("einsum", "graph", "tf.einsum('bij,bj->bi', A, x)."),
    StrategyInfo(
        "dataset", "eager", "tf.data slices batched and iterated in Python, one step per batch."
    ),
    StrategyInfo("numpy", "host", "NumPy matmul on the host: the reference peer."),
)

STRATEGY_NAMES: tuple[str, ...] = tuple(s.name for s in STRATEGIES)
_BY_NAME = {s.name: s for s in STRATEGIES}

# The default set a user gets from "all": every strategy.
DEFAULT_STRATEGIES = STRATEGY_NAMES
# Cheap enough for an interactive default at 3000x100x100 (python_loop and dataset are
# the slow classics and stay available, just not pre-selected in the dashboard).
FAST_STRATEGIES: tuple[str, ...] = (
    "while_loop",
    "map_fn",
    "vectorized_map",
    "batched_matvec",
    "batched_matmul",
    "einsum",
    "numpy",
)


def strategy_info(name: str) -> StrategyInfo:
    return _BY_NAME[name]


def variant_name(strategy: str, option: str = "") -> str:
    """Options: "xla" (jit_compile=True), "from_function" (dataset through
    distribute_datasets_from_function rather than experimental_distribute_dataset)."""
    return f"{strategy}+{option}" if option else strategy


def split_variant(variant: str) -> tuple[str, str]:
    base, _, option = variant.partition("+")
    return base, option


@functools.cache
def _kernel_sources() -> dict[str, str]:
    source = KERNELS_FILE.read_text(encoding="utf-8")
    tree = ast.parse(source)
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in _BY_NAME:
            found[node.name] = ast.get_source_segment(source, node) or ""
    return found


def kernel_source(name: str) -> str:
    """The kernel's real source, read from engine/kernels.py without importing TensorFlow."""
    base, _ = split_variant(name)
    return _kernel_sources()[base]
