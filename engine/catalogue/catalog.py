"""The catalogue: which strategies exist (registered `StrategyInfo`s), looked up by name or
variant, and each one's code to copy, read from its kernel's file without importing it.

The CLI's `strategies` command, config validation, the planner, the memory estimate, the
executors and the dashboard all read these descriptions; none of them compares strategy names.
Adding a strategy is one kernel function plus one `register(StrategyInfo(...))` call
(docs/adding-a-strategy.md).
"""

from __future__ import annotations

import ast
import functools

from engine.catalogue.strategy_info import (
    JAX_INSTALL_HINT,
    ONE_THREAD,
    PEER_INSTALL_HINT,
    TORCH_INSTALL_HINT,
    Distribution,
    Framework,
    FrameworkInfo,
    FrameworkMissing,
    Kind,
    StrategyInfo,
    declared_call,
    framework_info,
    framework_installed,
    frameworks,
    import_kernel,
    module_file,
    run_framework,
)

__all__ = [
    "JAX_INSTALL_HINT",
    "ONE_THREAD",
    "PEER_INSTALL_HINT",
    "TORCH_INSTALL_HINT",
    "Distribution",
    "Framework",
    "FrameworkInfo",
    "FrameworkMissing",
    "Kind",
    "StrategyInfo",
    "declared_call",
    "framework_info",
    "framework_installed",
    "frameworks",
    "import_kernel",
    "install_hint",
    "run_framework",
]


def sampling_process(variant: str) -> str:
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


_REGISTRY: dict[str, StrategyInfo] = {}


def register(info: StrategyInfo) -> StrategyInfo:
    """Add a strategy to the catalogue (or replace one of the same name)."""
    if "+" in info.name or "," in info.name or not info.name:
        raise ValueError(f"strategy name {info.name!r} may not be empty or contain '+' or ','")
    if info.framework not in {f.name for f in frameworks()}:
        known = ", ".join(f.name for f in frameworks())
        raise ValueError(
            f"framework {info.framework!r} of {info.name!r} has no folder in engine/backends/ "
            f"(known: {known})"
        )
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
    """The dashboard's pre-selected set: cheap enough at 3000x100x100 for a quick answer,
    of the frameworks installed here. Without the run's own framework (TensorFlow: a GPU box,
    Colab's TPU runtime), each installed framework's own pair (`without_run_framework`)."""
    run = run_framework()
    if run is not None and not run.installed:
        return without_run_framework()
    return tuple(s.name for s in _REGISTRY.values() if s.interactive and s.installed)


def run_framework_problem() -> str | None:
    """Why the framework that runs the run (TensorFlow) cannot run here, in a few words (its
    folder's own check); None when it can. Without one declared, that says so."""
    lead = run_framework()
    return lead.problem() if lead is not None else "no framework here runs the run's own process"


def without_run_framework() -> tuple[str, ...]:
    """What a run measures by default where the run's own framework is not installed: each
    installed framework's declared pair of a fast and a slower kernel (`calibration`)."""
    return tuple(
        name
        for f in frameworks()
        if f.process != "run" and f.installed
        for name in f.calibration
        if name in _REGISTRY
    )


def default_strategies(declared: tuple[str, ...]) -> tuple[tuple[str, ...], str | None]:
    """The strategies of a run that named none: the field's default (`declared`) where its
    frameworks are installed; else `without_run_framework`, with the sentence that says so."""
    if all(strategy_info(name).installed for name in declared if is_known(name)):
        return declared, None
    chosen = without_run_framework()
    missing = sorted({framework_info(strategy_info(n).framework).label for n in declared})
    return chosen, (
        f"no --strategy given and {', '.join(missing)} is not installed here, so this run "
        f"measures {', '.join(chosen)} (each installed framework's own); --strategy all "
        "measures every installed strategy"
    )


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
    return strategy_info(name).framework_info.label


def install_hint(framework: str, device_kind: str = "") -> str:
    """How to install a framework that is missing or broken here, in its folder's words: for
    this device kind where the folder says what fits which (TensorFlow's builds)."""
    info = framework_info(framework)
    if device_kind and info.device_hint:
        return str(declared_call(info.device_hint, device_kind))
    return info.install_hint


def not_installed_note(requested: tuple[str, ...]) -> str | None:
    """What `--strategy all` left out and why: every framework whose catalogue strategies are
    not installed here, with how many, when the run asked for every installed one (None
    otherwise, or when nothing is missing)."""
    wanted = set(installed_strategy_names())
    if not wanted or not wanted <= set(requested):
        return None
    counts: dict[str, int] = {}
    for info in _REGISTRY.values():
        if not info.installed and not info.search_only and not info.user:
            counts[info.framework] = counts.get(info.framework, 0) + 1
    if not counts:
        return None
    told = "; ".join(
        f"{framework_info(name).label} ({count} strategies): {install_hint(name)}"
        for name, count in counts.items()
    )
    return f"not installed here, so not in this run: {told}"


def missing_frameworks() -> tuple[str, ...]:
    """Frameworks with strategies in the catalogue that are not installed here, the run's
    own (TensorFlow) included: a page offers only what is installed and names the rest."""
    found = {s.framework for s in _REGISTRY.values() if not s.installed and not s.user}
    return tuple(f.name for f in frameworks() if f.name in found)


def install_hints(names: tuple[str, ...], device_kind: str = "") -> list[tuple[str, str]]:
    """(labels, hint) for frameworks `names`, those that share a hint together: [("JAX,
    PyTorch", "install the peers with ..."), ("CuPy", "CuPy runs on an NVIDIA GPU only ...")];
    each hint for `device_kind` where the framework's build depends on it."""
    grouped: dict[str, list[str]] = {}
    for name in names:
        grouped.setdefault(install_hint(name, device_kind), []).append(framework_info(name).label)
    return [(", ".join(labels), hint) for hint, labels in grouped.items()]


def variant_name(strategy: str, option: str = "") -> str:
    """Options: "xla" (jit_compile=True), "from_function" (dataset through
    distribute_datasets_from_function rather than experimental_distribute_dataset)."""
    return f"{strategy}+{option}" if option else strategy


def split_variant(variant: str) -> tuple[str, str]:
    base, _, option = variant.partition("+")
    return base, option


def _clear_source_cache() -> None:
    _kernel_sources.cache_clear()


@functools.cache
def _kernel_sources() -> dict[str, str]:
    found: dict[str, str] = {}
    parsed: dict[str, tuple[str, ast.Module]] = {}
    for info in _REGISTRY.values():
        if info.user:
            continue  # read from the user's kernel record (kernel_source)
        module, _, function = info.kernel.partition(":")
        if module not in parsed:
            path = module_file(module)
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


def code_to_copy(name: str) -> str | None:
    """The kernel's source with the wrapper the engine puts around it, so it runs as timed."""
    source = kernel_source(name)
    if source is None:
        return None
    info = strategy_info(name)
    base, option = split_variant(name)
    if option == ONE_THREAD:
        return info.framework_info.one_thread_setup + code_to_copy(base)
    return info.framework_info.wrapper(info, option) + source


def _register_declared() -> None:
    """Every framework folder's strategies, in the catalogue's order: each framework's own
    (by rank), then the points only a search tries at full precision, then those that trade
    precision for speed, then the frameworks that need an accelerator, so a machine without
    one sees the same places (and colours) whether or not they are declared."""
    anywhere = [f for f in frameworks() if not f.accelerator_only]
    for info in (
        *(s for f in anywhere for s in f.strategies),
        *(s for f in anywhere for s in f.search_points if not s.storage),
        *(s for f in anywhere for s in f.search_points if s.storage),
        *(s for f in frameworks() if f.accelerator_only for s in (*f.strategies, *f.search_points)),
    ):
        register(info)


_register_declared()
