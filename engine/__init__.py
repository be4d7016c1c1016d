"""Batched MatVec Profiler engine: configure, run and serialise honest batched-matvec timings.

`import engine` stays TensorFlow-free (the dashboard imports it); TensorFlow loads on `run`.
The layers and where TensorFlow starts are described in docs/architecture.md.
"""

from __future__ import annotations

from typing import Any

from engine.measure.memory import PreflightError
from engine.results.events import Progress
from engine.results.model import StrategyResult
from engine.results.reader import ResultsRejected
from engine.results.run_result import RunResult
from engine.spec.catalog import StrategyInfo, register, strategies, strategy_names
from engine.spec.config import BenchConfig
from engine.spec.fields import ConfigError

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


def run(config: BenchConfig, progress: Progress | None = None, **options: Any) -> RunResult:
    """Run `config` in this process (TensorFlow is imported on first use)."""
    from engine.execution.runner import run_benchmark

    return run_benchmark(config, progress=progress, **options)
