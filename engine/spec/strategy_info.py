"""What a strategy is and can do (`StrategyInfo`), and the frameworks it may be written with,
described without importing any framework. The catalogue (`catalog.py`) holds the registered
ones; `builtin_strategies.py` and `search_points.py` declare the engine's own.
"""

from __future__ import annotations

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


ONE_THREAD_SETUP = {
    "numpy": "from threadpoolctl import threadpool_limits\n\nthreadpool_limits(1)  # once\n\n",
    "torch": "torch.set_num_threads(1)  # once, before the first call\n\n",
    "jax": "# before importing jax: os.sched_setaffinity(0, {0}) (XLA's CPU threads follow)\n\n",
}


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
    def distributable(self) -> bool:
        """Runs in modes replicated and sharded: TensorFlow's through tf.distribute (its
        `distribution`), every other framework's catalogue kernel by splitting the batch over
        replicas in its own process (`execution/host_replicas.py`). A user's kernel runs in
        mode single, where every timed call gets fresh inputs."""
        if self.framework == "tensorflow":
            return self.distribution is not None
        return not self.user

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


def module_file(module: str) -> Path | None:
    """Where a module's source is, found without executing the module itself."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec and spec.origin else None


def framework_installed(framework: str) -> bool:
    """Whether `framework` can be imported here, found without importing it."""
    module = FRAMEWORK_MODULES.get(framework)
    return module is None or module_file(module) is not None


def tf_kernel(function: str) -> str:
    """A TensorFlow kernel's "module:function"."""
    return f"{TF_KERNELS}:{function}"


def peer_kernel(framework: str, function: str) -> str:
    """A peer framework's kernel's "module:function"."""
    return f"engine.backends.{framework}.kernels:{function}"
