"""What strategies exist and what each can do, described without importing any framework.

The CLI's `strategies` command, config validation, the planner, the memory estimate, the
executors and the dashboard all read these descriptions; none of them compares strategy names.
Adding a strategy is one kernel function plus one `register(StrategyInfo(...))` call
(docs/adding-a-strategy.md).
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Kind = Literal["eager", "graph", "host", "jit"]
Framework = Literal["tensorflow", "numpy", "jax", "torch", "cupy"]
# Peers run in a process of their own (started by the run), never beside TensorFlow: JAX
# preallocates most of a GPU, and two frameworks' thread pools in one process fight.
PEER_FRAMEWORKS: dict[str, str] = {"jax": "jax", "torch": "torch", "cupy": "cupy"}
# Every framework's import name: a strategy is installed when its framework can be imported.
FRAMEWORK_MODULES: dict[str, str] = {
    "tensorflow": "tensorflow",
    "numpy": "numpy",
    **PEER_FRAMEWORKS,
}
FRAMEWORK_LABELS: dict[str, str] = {
    "tensorflow": "TensorFlow",
    "numpy": "NumPy",
    "jax": "JAX",
    "torch": "PyTorch",
    "cupy": "CuPy",
}
PEER_INSTALL_HINT = (
    "install the peers with `pip install -r requirements-peers.txt` (CPU-only machines: "
    "`pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu` avoids "
    "the several-GB CUDA build)"
)
CUPY_INSTALL_HINT = (
    "CuPy runs on an NVIDIA GPU only: install the build for its CUDA, e.g. "
    "`pip install cupy-cuda12x`"
)


def install_hint(framework: str) -> str:
    """How to install a peer framework that is missing or broken here."""
    return CUPY_INSTALL_HINT if framework == "cupy" else PEER_INSTALL_HINT


# How a strategy runs under tf.distribute: "graph" (strategy.run of its kernel), "dataset"
# (a tf.data pipeline split across replicas), or None (mode single only).
Distribution = Literal["graph", "dataset"] | None

TF_KERNELS = "engine.backends.tensorflow.kernels"
# The thread-count axis of a search: a point run again in a process held to one core, beside
# the same point on every core the run gives its frameworks (`+1thread`).
ONE_THREAD = "1thread"


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    # eager: Python drives ops one by one; graph: one tf.function; host: NumPy; jit: a peer
    # framework's own compiler (jax.jit)
    kind: Kind
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
    why: str = ""  # why it is fast or slow, when the kind's general reason does not fit
    # The implementation space (docs/search.md): where this point sits on its axes, whether a
    # search tries it, whether only a search does (not in `all`), and the option its runtime
    # builds it with ("compile": torch.compile).
    expression: str = ""
    compiler: str = ""
    chunks: int = 1
    searchable: bool = True
    search_only: bool = False
    build: str = ""
    # Reduced precision, an accuracy class of its own: the dtype its inputs are stored in
    # (the requested float32 narrowed on the device, outside the timing); it sums in float32.
    # Checked against the storage dtype's tolerance, never a candidate for the answer.
    storage: str = ""
    # The user's own kernel (`--kernel`, spec/user_kernels.py): `kernel` is "path.py:function"
    # and `source` the function's source, as read when its config was parsed.
    user: bool = False
    source: str = ""

    @property
    def supports_xla(self) -> bool:
        """TensorFlow graph kernels can be compiled with jit_compile=True (the +xla variant)."""
        return self.kind == "graph" and self.framework == "tensorflow"

    @property
    def in_own_process(self) -> bool:
        """A peer framework or a user's kernel: its variants run in a process of their own
        (execution/peers.py); a user's kernel in one of its own, so a hang fails it alone."""
        return self.user or self.framework in PEER_FRAMEWORKS

    @property
    def process(self) -> str:
        """The process of its own it runs in: its framework's, or a user kernel's alone
        ("numpy:mine")."""
        return f"{self.framework}:{self.name}" if self.user else self.framework

    @property
    def installed(self) -> bool:
        """Its framework can be imported here (found without importing it)."""
        return framework_installed(self.framework)

    @property
    def runs_on_host(self) -> bool:
        """Takes NumPy arrays on the host instead of device tensors."""
        return self.kind == "host"

    @property
    def accuracy_class(self) -> str | None:
        """None for the requested dtype's class; else what the point trades for speed."""
        return f"{self.storage} storage, float32 accumulation" if self.storage else None

    @property
    def has_thread_axis(self) -> bool:
        """Its thread count can be set for its own process alone: a searched point of a
        framework other than TensorFlow (whose threads are the run's) that does not split
        the batch on threads by itself."""
        return (
            self.searchable
            and not self.user
            and self.framework in ONE_THREAD_SETUP  # NumPy, JAX, PyTorch: CPU thread pools
            and self.chunks == 1
        )

    @property
    def extra_variants(self) -> dict[str, tuple[str, ...]]:
        """Options beyond +xla that a mode adds (sharded dataset: both tf.data APIs)."""
        return {"sharded": ("from_function",)} if self.distribution == "dataset" else {}


def import_kernel(info: StrategyInfo) -> Callable[..., Any]:
    """The kernel function a catalogue entry names ("module:function"), imported now: the one
    place a strategy's code is loaded, whichever process or framework runs it."""
    module, _, name = info.kernel.partition(":")
    return getattr(importlib.import_module(module), name)


def own_process(variant: str) -> str:
    """The process of its own a variant's samples are taken in ("" for the run's own): its
    peer framework's ("torch"), a user kernel's alone ("numpy:mine"), or its framework's held
    to one core ("torch@1thread"). Results compare samples across processes with the
    between-process floor."""
    strategy, option = split_variant(variant)
    if strategy not in _REGISTRY:
        return ""
    info = _REGISTRY[strategy]
    if option == ONE_THREAD:
        return f"{info.framework}@{ONE_THREAD}"
    return info.process if info.in_own_process else ""


def framework_installed(framework: str) -> bool:
    """Whether `framework` can be imported here, found without importing it."""
    module = FRAMEWORK_MODULES.get(framework)
    return module is None or _module_file(module) is not None


def _tf(function: str) -> str:
    return f"{TF_KERNELS}:{function}"


def _peer(framework: str, function: str) -> str:
    return f"engine.backends.{framework}.kernels:{function}"


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


def installed_strategy_names() -> tuple[str, ...]:
    """What `--strategy all` means: every strategy whose framework is installed here (the
    points only a search tries are not in it)."""
    return tuple(s.name for s in _REGISTRY.values() if s.installed and not s.search_only)


def search_strategy_names() -> tuple[str, ...]:
    """What `--search` tries: every searchable point whose framework is installed here."""
    return tuple(s.name for s in _REGISTRY.values() if s.installed and s.searchable)


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


def framework_label(name: str) -> str:
    """ "JAX", "PyTorch"... for a strategy or variant name; "unknown" for a name from elsewhere."""
    if not is_known(name):
        return "unknown"
    framework = strategy_info(name).framework
    return FRAMEWORK_LABELS.get(framework, framework)


def missing_frameworks() -> tuple[str, ...]:
    """Frameworks with strategies in the catalogue that are not installed here."""
    found = {s.framework for s in _REGISTRY.values() if not s.installed}
    return tuple(f for f in PEER_FRAMEWORKS if f in found)


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
        if info.user:
            continue  # read from the user's kernel record (kernel_source)
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
    if base in _REGISTRY and _REGISTRY[base].user:
        return _REGISTRY[base].source or None
    return _kernel_sources().get(base)


ONE_THREAD_SETUP = {
    "numpy": "from threadpoolctl import threadpool_limits\n\nthreadpool_limits(1)  # once\n\n",
    "torch": "torch.set_num_threads(1)  # once, before the first call\n\n",
    "jax": "# before importing jax: os.sched_setaffinity(0, {0}) (XLA's CPU threads follow)\n\n",
}


def code_to_copy(name: str) -> str | None:
    """The kernel's source with the wrapper the engine puts around it, so it runs as timed."""
    source = kernel_source(name)
    if source is None:
        return None
    info = strategy_info(name)
    if split_variant(name)[1] == ONE_THREAD:
        return ONE_THREAD_SETUP.get(info.framework, "") + code_to_copy(split_variant(name)[0])
    if info.supports_xla:
        xla = split_variant(name)[1] == "xla"
        return ("@tf.function(jit_compile=True)\n" if xla else "@tf.function\n") + source
    if info.kind == "jit":
        return "@jax.jit\n" + source
    if info.build == "compile":
        return "@torch.compile\n" + source
    return source


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
        expression="python loop",
        compiler="eager",
        searchable=False,
    ),
    StrategyInfo(
        "while_loop",
        "graph",
        "tf.function + tf.while_loop writing every y[i] to a TensorArray.",
        _tf("while_loop"),
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
        _tf("map_fn"),
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
        _tf("vectorized_map"),
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
        _tf("batched_matvec"),
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
        _tf("batched_matmul"),
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
        _tf("einsum"),
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
        _tf("dataset"),
        distribution="dataset",
        interactive=False,
        options=("batch_size",),
        simplicity=8,
        simplicity_reason="a tf.data pipeline",
        expression="tf.data",
        compiler="eager",
        searchable=False,
    ),
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
    StrategyInfo(
        "jax_vmap",
        "jit",
        "JAX: jax.jit(jax.vmap(jnp.matmul))(A, x), synced with block_until_ready.",
        _peer("jax", "jax_vmap"),
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
        _peer("jax", "jax_einsum"),
        framework="jax",
        launches="one",
        simplicity=3,
        interactive=False,
        simplicity_reason="one call, with the index notation to read, compiled by jax.jit",
        why="JAX traces it once and XLA compiles the whole batch into one fused program.",
        expression="einsum",
        compiler="jit",
    ),
    StrategyInfo(
        "torch_bmm",
        "eager",
        "PyTorch: torch.bmm(A, x[..., None])[..., 0], eager.",
        _peer("torch", "torch_bmm"),
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
        _peer("torch", "torch_einsum"),
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

SEARCH_ONLY = dict(interactive=False, search_only=True, launches="one")
SEARCH_POINTS: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "broadcast_reduce",
        "graph",
        "tf.reduce_sum(A * x[:, None, :], -1): broadcast multiply, then reduce.",
        _tf("broadcast_reduce"),
        distribution="graph",
        simplicity=4,
        simplicity_reason="one line of element-wise arithmetic",
        why="No matmul kernel at all: for small matrices the fused multiply-and-reduce "
        "avoids the per-matrix overhead of a batched matmul.",
        expression="broadcast multiply and reduce",
        compiler="graph",
        **SEARCH_ONLY,
    ),
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
    StrategyInfo(
        "jax_broadcast",
        "jit",
        "JAX: jax.jit(lambda A, x: (A * x[:, None, :]).sum(-1)).",
        _peer("jax", "jax_broadcast"),
        framework="jax",
        simplicity=4,
        simplicity_reason="one line of element-wise arithmetic, compiled by jax.jit",
        expression="broadcast multiply and reduce",
        compiler="jit",
        **SEARCH_ONLY,
    ),
    StrategyInfo(
        "torch_broadcast",
        "eager",
        "PyTorch: (A * x[:, None, :]).sum(-1), eager.",
        _peer("torch", "torch_broadcast"),
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
        _peer("torch", "torch_bmm"),
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
        _peer("torch", "torch_broadcast"),
        framework="torch",
        simplicity=5,
        simplicity_reason="one line of arithmetic, compiled (the first call compiles for seconds)",
        why="torch.compile fuses the multiply and the reduction into one loop over memory.",
        expression="broadcast multiply and reduce",
        compiler="torch.compile",
        build="compile",
        **SEARCH_ONLY,
    ),
    # Reduced precision: the same fused forms reading bfloat16 (half the bytes), summing in
    # float32. They run only when float32 was asked for, and are never the answer to it.
    StrategyInfo(
        "broadcast_reduce_bf16",
        "graph",
        "tf.reduce_sum(A * x[:, None, :], -1) over bfloat16 inputs widened to float32.",
        _tf("broadcast_reduce_bf16"),
        simplicity=6,
        simplicity_reason="inputs kept in bfloat16: a different accuracy",
        why="Half the bytes of float32 to read, for an error of bfloat16's size.",
        expression="broadcast multiply and reduce",
        compiler="graph",
        storage="bfloat16",
        **SEARCH_ONLY,
    ),
    StrategyInfo(
        "jax_einsum_bf16",
        "jit",
        "JAX: jnp.einsum('bij,bj->bi', A, x, preferred_element_type=float32), bfloat16 inputs.",
        _peer("jax", "jax_einsum_bf16"),
        framework="jax",
        simplicity=6,
        simplicity_reason="inputs kept in bfloat16: a different accuracy",
        why="Half the bytes of float32 to read, for an error of bfloat16's size.",
        expression="einsum",
        compiler="jit",
        storage="bfloat16",
        **SEARCH_ONLY,
    ),
    StrategyInfo(
        "torch_broadcast_bf16_compiled",
        "eager",
        "PyTorch: (A.float() * x.float()[:, None, :]).sum(-1) under torch.compile, bfloat16 "
        "inputs.",
        _peer("torch", "torch_broadcast_bf16"),
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

# The loops are points of the space too, but a search does not try them: they lose by
# construction (`searchable=False`).
# CuPy: NumPy's interface on an NVIDIA GPU (GPU machines only), after the others so every
# earlier point keeps its place (and its colour) in the catalogue's order.
CUPY_POINTS: tuple[StrategyInfo, ...] = (
    StrategyInfo(
        "cupy_matmul",
        "eager",
        "CuPy: cp.matmul(A, x[..., None])[..., 0] on the GPU.",
        _peer("cupy", "cupy_matmul"),
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
        _peer("cupy", "cupy_einsum"),
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

for _info in (*BUILTIN, *SEARCH_POINTS, *CUPY_POINTS):
    register(_info)
