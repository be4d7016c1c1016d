"""What strategies exist and what each can do, described without importing any framework.

The CLI's `strategies` command, config validation, the planner, the memory estimate, the
executors and the dashboard all read these descriptions; none of them compares strategy names.
Adding a strategy is one kernel function plus one `register(StrategyInfo(...))` call
(docs/adding-a-strategy.md).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Kind = Literal["eager", "graph", "host"]
Framework = Literal["tensorflow", "numpy"]
# How a strategy runs under tf.distribute: "graph" (strategy.run of its kernel), "dataset"
# (a tf.data pipeline split across replicas), or None (mode single only).
Distribution = Literal["graph", "dataset"] | None

TF_KERNELS = "engine.backends.tensorflow.kernels"


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    kind: Kind  # eager: Python drives ops one by one; graph: one tf.function; host: NumPy
    summary: str
    kernel: str  # "module:function" of the kernel, imported only when a run builds it
    framework: Framework = "tensorflow"
    launches: Literal["one", "many"] = "many"  # device launches per call for the whole batch
    distribution: Distribution = None
    baseline: bool = False  # speedups are shown against it
    interactive: bool = True  # pre-selected in the dashboard (cheap at the default size)
    options: tuple[str, ...] = ()  # extra keyword options the kernel accepts, e.g. batch_size
    # Among tied strategies the simplest is the one to copy: lower is simpler.
    simplicity: int = 5
    simplicity_reason: str = ""

    @property
    def supports_xla(self) -> bool:
        """Graph kernels can be compiled with jit_compile=True (the +xla variant)."""
        return self.kind == "graph"

    @property
    def runs_on_host(self) -> bool:
        """Takes NumPy arrays on the host instead of device tensors."""
        return self.kind == "host"

    @property
    def extra_variants(self) -> dict[str, tuple[str, ...]]:
        """Options beyond +xla that a mode adds (sharded dataset: both tf.data APIs)."""
        return {"sharded": ("from_function",)} if self.distribution == "dataset" else {}


def _tf(function: str) -> str:
    return f"{TF_KERNELS}:{function}"


_REGISTRY: dict[str, StrategyInfo] = {}


def register(info: StrategyInfo) -> StrategyInfo:
    """Add a strategy to the catalogue (or replace one of the same name)."""
    if "+" in info.name or "," in info.name or not info.name:
        raise ValueError(f"strategy name {info.name!r} may not be empty or contain '+' or ','")
    _REGISTRY[info.name] = info
    _clear_source_cache()
    return info


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)
    _clear_source_cache()


def strategies() -> tuple[StrategyInfo, ...]:
    """Every registered strategy, in registration order (the catalogue order)."""
    return tuple(_REGISTRY.values())


def strategy_names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def interactive_strategies() -> tuple[str, ...]:
    """The dashboard's pre-selected set: cheap enough at 3000x100x100 for a quick answer."""
    return tuple(s.name for s in _REGISTRY.values() if s.interactive)


def baseline_strategies() -> tuple[str, ...]:
    return tuple(s.name for s in _REGISTRY.values() if s.baseline)


def strategy_info(name: str) -> StrategyInfo:
    """The description of strategy `name` (or of the strategy of variant `name`)."""
    return _REGISTRY[split_variant(name)[0]]


def is_known(name: str) -> bool:
    return split_variant(name)[0] in _REGISTRY


def variant_name(strategy: str, option: str = "") -> str:
    """Options: "xla" (jit_compile=True), "from_function" (dataset through
    distribute_datasets_from_function rather than experimental_distribute_dataset)."""
    return f"{strategy}+{option}" if option else strategy


def split_variant(variant: str) -> tuple[str, str]:
    base, _, option = variant.partition("+")
    return base, option


def _clear_source_cache() -> None:
    _kernel_sources.cache_clear()


def _module_file(module: str) -> Path | None:
    """Where a module's source is, found without executing the module itself."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec and spec.origin else None


@functools.cache
def _kernel_sources() -> dict[str, str]:
    found: dict[str, str] = {}
    parsed: dict[str, tuple[str, ast.Module]] = {}
    for info in _REGISTRY.values():
        module, _, function = info.kernel.partition(":")
        if module not in parsed:
            path = _module_file(module)
            if path is None or not path.is_file():
                continue
            text = path.read_text(encoding="utf-8")
            parsed[module] = (text, ast.parse(text))
        text, tree = parsed[module]
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == function:
                found[info.name] = ast.get_source_segment(text, node) or ""
    return found


def kernel_source(name: str) -> str | None:
    """The kernel's real source, read from its file without importing it (None: unknown)."""
    base, _ = split_variant(name)
    return _kernel_sources().get(base)


BUILTIN: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "python_loop",
        "eager",
        "Eager Python loop: one tf.linalg.matvec per matrix, stacked.",
        _tf("python_loop"),
        baseline=True,
        interactive=False,
        simplicity=9,
        simplicity_reason="a Python loop",
    ),
    StrategyInfo(
        "while_loop",
        "graph",
        "tf.function + tf.while_loop writing every y[i] to a TensorArray.",
        _tf("while_loop"),
        distribution="graph",
        simplicity=7,
        simplicity_reason="an explicit loop with a TensorArray",
    ),
    StrategyInfo(
        "map_fn",
        "graph",
        "tf.map_fn over (A[i], x[i]) inside a tf.function.",
        _tf("map_fn"),
        distribution="graph",
        simplicity=6,
        simplicity_reason="a per-matrix function run in a graph loop",
    ),
    StrategyInfo(
        "vectorized_map",
        "graph",
        "tf.vectorized_map over (A[i], x[i]): auto-vectorised.",
        _tf("vectorized_map"),
        launches="one",
        distribution="graph",
        simplicity=5,
        simplicity_reason="a per-matrix function that TensorFlow vectorises",
    ),
    StrategyInfo(
        "batched_matvec",
        "graph",
        "tf.linalg.matvec(A, x): one batched kernel.",
        _tf("batched_matvec"),
        launches="one",
        distribution="graph",
        simplicity=1,
        simplicity_reason="one library call that says what it does",
    ),
    StrategyInfo(
        "batched_matmul",
        "graph",
        "tf.matmul(A, x[..., None])[..., 0].",
        _tf("batched_matmul"),
        launches="one",
        distribution="graph",
        simplicity=4,
        simplicity_reason="one call, with a reshape on either side",
    ),
    StrategyInfo(
        "einsum",
        "graph",
        "tf.einsum('bij,bj->bi', A, x).",
        _tf("einsum"),
        launches="one",
        distribution="graph",
        simplicity=3,
        simplicity_reason="one call, with the index notation to read",
    ),
    StrategyInfo(
        "dataset",
        "eager",
        "tf.data slices batched and iterated in Python, one step per batch.",
        _tf("dataset"),
        distribution="dataset",
        interactive=False,
        options=("batch_size",),
        simplicity=8,
        simplicity_reason="a tf.data pipeline",
    ),
    StrategyInfo(
        "numpy",
        "host",
        "NumPy matmul on the host: the reference peer.",
        _tf("numpy"),
        framework="numpy",
        launches="one",
        baseline=True,
        simplicity=2,
        simplicity_reason="one NumPy call on the host, no TensorFlow",
    ),
)

for _info in BUILTIN:
    register(_info)
