"""What a strategy is and can do (`StrategyInfo`) and what a framework is to the engine
(`FrameworkInfo`), described without importing any framework.

A framework is one folder, `engine/backends/<name>/`: its `declaration.py` says what it is (its
strategies, its code to copy, install hint, thread setup and process policy) and imports no
framework; its `runtime.py` and `kernels.py` are loaded only by the process that runs them.
`engine.backends` declares each folder here (`declare`) when `engine` is imported, so adding a
framework is adding a folder; the catalogue (`catalog.py`) registers their strategies.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Kind = Literal["eager", "graph", "host", "jit"]
Framework = str  # a framework folder's name: "tensorflow", "numpy", "jax", "torch", ...
# Where a framework's variants run:
# - "run": the run's own process, with its devices, probes and distributed executors
#   (TensorFlow);
# - "host": inside the run's own process when that process is a framework's and the mode is
#   single (it needs no device and shares the host inputs that process holds); else in a
#   process of its own (NumPy);
# - "own": always a process of its own, started before the run's framework takes the device
#   (JAX preallocates a GPU; a TPU has one owner at a time; two thread pools in one process
#   fight).
ProcessPolicy = Literal["run", "host", "own"]
# How a framework runs modes replicated and sharded: "distribution" (its own distribution
# API, for the strategies that declare one: TensorFlow's tf.distribute), "split" (the engine
# splits the batch over its devices or threads, `execution/replicas/host.py`,
# `execution/replicas/device.py`) or "none" (mode single only, and the run says so).
ReplicaPolicy = Literal["distribution", "split", "none"]
# The capabilities a framework may declare (`harness/capabilities.py` holds their protocols).
CAPABILITY_NAMES = (
    "profile",
    "device_ceiling",
    "l2_ceiling",
    "replica_gpus",
    "replica_devices",
    "compiler_preload",
    "device_time",
)

# Install hints name each package with the version the numbers here were measured with
# (requirements*.txt; tests/test_project.py keeps them equal), so a hint works wherever the
# tool came from: a clone, a wheel, a notebook cell.
JAX_INSTALL_HINT = (
    "`pip install jax==0.10.2 jaxlib==0.10.2` (on a GPU or TPU, keep the JAX built for it "
    "that is there)"
)
TORCH_INSTALL_HINT = (
    "`pip install torch==2.13.0` (on a Linux machine without an NVIDIA GPU, take PyTorch's "
    "CPU build instead of the several-GB CUDA one: `pip install torch==2.13.0 --index-url "
    "https://download.pytorch.org/whl/cpu`)"
)
PEER_INSTALL_HINT = f"JAX: {JAX_INSTALL_HINT}; PyTorch: {TORCH_INSTALL_HINT}"
# What a search-only point is (docs/search.md): never pre-selected, not in `all`, one launch.
SEARCH_ONLY: dict[str, Any] = dict(interactive=False, search_only=True, launches="one")

# How a strategy runs under tf.distribute: "graph" (strategy.run of its kernel), "dataset"
# (a tf.data pipeline split across replicas), or None (mode single only).
Distribution = Literal["graph", "dataset"] | None

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
    framework: Framework  # its folder in engine/backends/: every strategy names its own
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
    # The user's own kernel (`--kernel`, run_settings/user_kernels.py): `kernel` is
    # "path.py:function" and `source` the function's source, as read when its config was parsed.
    user: bool = False
    source: str = ""

    @property
    def framework_info(self) -> FrameworkInfo:
        return framework_info(self.framework)

    @property
    def supports_xla(self) -> bool:
        """Its framework compiles this kind with XLA as an option (TensorFlow's graph kernels,
        jit_compile=True: the +xla variant)."""
        return self.kind in self.framework_info.xla_kinds

    @property
    def distributable(self) -> bool:
        """Runs in modes replicated and sharded: TensorFlow's through tf.distribute (its
        `distribution`), every other framework's catalogue kernel by splitting the batch over
        replicas in its own process (`execution/replicas/host.py`). A user's kernel runs in
        mode single, where every timed call gets fresh inputs."""
        policy = self.framework_info.replicas
        if policy == "distribution":
            return self.distribution is not None
        return policy == "split" and not self.user

    @property
    def in_own_process(self) -> bool:
        """A peer framework or a user's kernel: its variants run in a process of their own
        (execution/peers/parent.py); a user's kernel in one of its own, so a hang fails it alone."""
        return self.user or self.framework_info.process == "own"

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
            and bool(self.framework_info.one_thread_setup)  # a CPU thread pool of its own
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
    """Whether `framework` can be imported here, found without importing it (a name no folder
    declares counts as installed: there is nothing to import)."""
    found = _frameworks().get(framework)
    return found is None or found.installed


class FrameworkMissing(Exception):
    """A framework a command needs is missing or too old; `str()` is the one line to show,
    `reason` the short why ("TensorFlow is not installed here")."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class FrameworkInfo:
    """What one framework folder declares (`engine/backends/<name>/declaration.py`)."""

    name: str  # its folder's name, the `framework` of its strategies
    label: str  # as people write it: "PyTorch"
    module: str  # the import name that says it is installed
    install_hint: str
    rank: int  # its place in the catalogue's order (and so its strategies' colours)
    process: ProcessPolicy = "own"
    replicas: ReplicaPolicy = "split"
    strategies: tuple[StrategyInfo, ...] = ()
    search_points: tuple[StrategyInfo, ...] = ()  # the points only a search tries
    accelerator_only: bool = False  # runs on a GPU or TPU only (CuPy): last in the catalogue
    # Code that holds its CPU thread pool to one core, shown before a `+1thread` point's code;
    # "" where the framework has no thread pool of its own to hold.
    one_thread_setup: str = ""
    # What a strategy's code is wrapped in to run as timed, by (kind, option or build):
    # ("graph", "") -> "@tf.function\n".
    wrappers: dict[tuple[str, str], str] = field(default_factory=dict)
    xla_kinds: tuple[str, ...] = ()  # kinds with an "+xla" variant (compiled with XLA)
    # A user's kernel written with it runs as this kind (None: no user kernels with it).
    user_kind: Kind | None = None
    # What `calibrate` repeats by default: for the "run" framework when it is usable, its
    # own set; otherwise every installed framework's, together.
    calibration: tuple[str, ...] = ()
    # For the framework whose process runs the run ("run"): "module:function" that says why it
    # cannot be used here (a str), or None when it can; its folder's `process.py` then makes
    # the run's own process (`make_process`) and a worker's warm state (`make_warm_state`).
    usable: str = ""
    # "module:function" of the install hint for a device kind ("CPU", "GPU", "TPU"), where
    # which build to install depends on it (TensorFlow's); else `install_hint` for every kind.
    device_hint: str = ""
    # "module:function" run before a command that loaded it ends at once (`os._exit`), where
    # its own teardown at exit is slow and has nothing left to do but this (TensorFlow's:
    # AutoGraph's generated sources); "" where a normal exit is fine.
    at_exit: str = ""
    # "module:function" called with the run's replica count in its process before its
    # runtime is loaded, in modes replicated and sharded, where the framework must lay out its
    # devices before it starts (JAX's host devices); "" where nothing is needed.
    lay_out_replicas: str = ""
    # What its runtime can do beyond the core, by name (`harness/capabilities.py`: a protocol
    # each); checked when the runtime is made, and against its class by the layering test.
    capabilities: tuple[str, ...] = ()
    # Its folder's package ("engine.backends.jax"), where its `process.py` and kernels are.
    package: str = ""

    def __post_init__(self) -> None:
        unknown = sorted(set(self.capabilities) - set(CAPABILITY_NAMES))
        if unknown:
            raise ValueError(
                f"framework {self.name!r} declares unknown capabilities {unknown}; "
                f"known: {', '.join(CAPABILITY_NAMES)}"
            )

    @property
    def installed(self) -> bool:
        return module_file(self.module) is not None

    def import_failure(self, error: BaseException) -> str:
        """Why it is unusable when its import raised or exited, in the words every strategy
        of it and `devices` show."""
        words = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
        return f"{self.label} cannot be imported here ({type(error).__name__}: {words})"

    def problem(self) -> str | None:
        """Why it cannot run here (missing, too old, an import that fails or hangs), from its
        declared `usable` check; None when it can (or declares no check)."""
        if not self.usable:
            return None
        found = declared_call(self.usable)
        return str(found) if found else None

    def wrapper(self, info: StrategyInfo, option: str) -> str:
        return self.wrappers.get((info.kind, option or info.build), "")


def frameworks() -> tuple[FrameworkInfo, ...]:
    """Every framework folder's declaration, in the catalogue's order."""
    return tuple(_frameworks().values())


def framework_info(name: str) -> FrameworkInfo:
    """The declaration of framework `name` (KeyError: no folder declares it)."""
    return _frameworks()[name]


def declared_call(reference: str, *args: Any) -> Any:
    """Call what a declaration names as "module:function" (imported now)."""
    module, _, function = reference.partition(":")
    return getattr(importlib.import_module(module), function)(*args)


def run_framework() -> FrameworkInfo | None:
    """The framework whose process runs the run when it is usable (TensorFlow), if declared."""
    return next((f for f in _frameworks().values() if f.process == "run"), None)


def framework_label(framework: str) -> str:
    found = _frameworks().get(framework)
    return found.label if found else framework


_DECLARED: dict[str, FrameworkInfo] = {}
_DECLARERS: list[Callable[[], None]] = []  # run once, on the first question about frameworks


def declare_with(declarer: Callable[[], None]) -> None:
    """Have `declarer` declare the frameworks (`engine` gives `engine.backends`'s import)
    the first time the catalogue is asked for them; this layer never reaches up itself."""
    _DECLARERS.append(declarer)


def declare(info: FrameworkInfo) -> None:
    """Add a framework's declaration: each folder of `engine/backends/` is declared by that
    package when `engine` is imported (nothing here reaches up to find them)."""
    folder = info.package.rpartition(".")[2]
    if folder != info.name:
        raise ValueError(f"{info.package} declares {info.name!r}, not its folder's name")
    _DECLARED[info.name] = info


def _frameworks() -> dict[str, FrameworkInfo]:
    """Every declared framework, in the catalogue's order (by rank)."""
    while _DECLARERS:
        _DECLARERS.pop(0)()
    return {f.name: f for f in sorted(_DECLARED.values(), key=lambda f: (f.rank, f.name))}


def kernel_in(package: str, function: str) -> str:
    """A framework folder's kernel as "module:function" (`package`: the folder's, as its
    declaration knows it: `__package__`)."""
    return f"{package}.kernels:{function}"
