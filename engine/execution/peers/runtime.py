"""A peer process's framework: its cores, and its runtime made once (kept in a kept process)."""

from __future__ import annotations

import importlib
import os

from engine.catalogue.strategy_info import framework_info
from engine.execution.peers.kept import KEPT
from engine.harness import capabilities
from engine.harness.runtime import Runtime


def limit_cpus(threads: int) -> int:
    """Keep this process on `threads` of the cores it may use; returns how many it has."""
    if not hasattr(os, "sched_getaffinity"):
        return threads
    allowed = sorted(os.sched_getaffinity(0))
    if threads < len(allowed):
        os.sched_setaffinity(0, allowed[:threads])
    return len(os.sched_getaffinity(0))


def load_runtime(framework: str, dtype: str, threads: int) -> Runtime:
    """The framework's runtime, refused if it lacks a capability its framework declares (a kept
    process's earlier one for this dtype and thread count)."""

    def make() -> Runtime:
        module = importlib.import_module(f"engine.backends.{framework}.runtime")
        declared = framework_info(framework).capabilities
        return capabilities.checked(module.make_runtime(dtype, threads), framework, declared)

    return KEPT.runtime((framework, dtype, threads), make)
