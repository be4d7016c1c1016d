"""Batched MatVec Profiler engine: configure, run and serialise honest batched-matvec timings.

`import engine` stays TensorFlow-free (the dashboard imports it); TensorFlow loads on `run`.
The names below load on first use, so a process that needs one module of the engine (a
framework's worker, the TensorFlow import check) does not pay for the rest (SciPy, ml_dtypes).
The layers and where TensorFlow starts are described in docs/architecture.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from engine.catalogue.strategy_info import declare_with


def _declare_frameworks() -> None:
    """The framework folders declare themselves to the catalogue (`engine.backends`), the
    first time it is asked for them: the console script's first module stays this light."""
    import engine.backends  # noqa: F401


declare_with(_declare_frameworks)

if TYPE_CHECKING:
    from engine.catalogue.catalog import StrategyInfo, register, strategies, strategy_names
    from engine.measure.memory import PreflightError
    from engine.results.events import Progress
    from engine.results.model import StrategyResult
    from engine.results.reader import ResultsRejected
    from engine.results.run_result import RunResult
    from engine.run_settings.config import BenchConfig
    from engine.run_settings.fields import ConfigError

_WHERE = {
    "BenchConfig": "engine.run_settings.config",
    "ConfigError": "engine.run_settings.fields",
    "PreflightError": "engine.measure.memory",
    "ResultsRejected": "engine.results.reader",
    "RunResult": "engine.results.run_result",
    "StrategyInfo": "engine.catalogue.catalog",
    "StrategyResult": "engine.results.model",
    "register": "engine.catalogue.catalog",
    "strategies": "engine.catalogue.catalog",
    "strategy_names": "engine.catalogue.catalog",
}

__all__ = [
    "BenchConfig",
    "ConfigError",
    "PreflightError",
    "ResultsRejected",
    "RunResult",
    "StrategyInfo",
    "StrategyResult",
    "register",
    "run",
    "strategies",
    "strategy_names",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'engine' has no attribute {name!r}")


def run(config: BenchConfig, progress: Progress | None = None, **options: Any) -> RunResult:
    """Run `config` in this process (TensorFlow, when usable, is imported on first use)."""
    from engine.execution.run.orchestrator import run_benchmark

    return run_benchmark(config, progress=progress, **options)
