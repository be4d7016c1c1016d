"""Batched MatVec Profiler engine: configure, run and serialise honest batched-matvec timings.

`import engine` stays TensorFlow-free (the dashboard imports it); TensorFlow loads on `run`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.catalog import STRATEGIES, STRATEGY_NAMES
from engine.config import BenchConfig, ConfigError
from engine.memory import PreflightError
from engine.results import RunResult, StrategyResult

if TYPE_CHECKING:
    from engine.runner import Progress

__all__ = [
    "STRATEGIES",
    "STRATEGY_NAMES",
    "BenchConfig",
    "ConfigError",
    "PreflightError",
    "RunResult",
    "StrategyResult",
    "run",
]


def run(config: BenchConfig, progress: Progress | None = None, **options: Any) -> RunResult:
    """Run `config` in this process (TensorFlow is imported on first use)."""
    from engine.runner import run_benchmark

    return run_benchmark(config, progress=progress, **options)
