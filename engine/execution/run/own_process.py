"""The run's own process (`OwnProcess`): that of the framework whose folder declares it runs
the run (`FrameworkInfo.process == "run"`: TensorFlow's `backends/tensorflow/process.py`) when
it is usable here, else the host's (`run/host_process.py`), chosen once per process; and what a
long-lived worker keeps between runs. Names no framework, imports none."""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from engine.catalogue.catalog import is_known, run_framework, strategy_info
from engine.harness.recording import Prepared, Preparing
from engine.measure import memory
from engine.measure.peak import Peak, Probe
from engine.results.events import Progress
from engine.results.parts import Environment
from engine.run_settings.config import BenchConfig

Variant = tuple[str, str]


class OwnProcess(Protocol):
    """The run's own process as a runtime: what it measures and how it reads its device."""

    framework_here: bool  # whether it measures the run framework's variants (TensorFlow's)
    absent: str | None  # a framework whose variants run nowhere here ("tensorflow"), or None
    kind: str  # CPU | GPU | TPU: the device kind the run is planned for
    probed_kind: str  # the kind whose memory `probe` reads (the host's CPU for the host's)

    def preflight(self, config: BenchConfig, llc_bytes: int) -> memory.MemoryEstimate: ...

    def start(self, config: BenchConfig) -> list[str]:
        """Take the devices (after the peers ended); returns warnings."""
        ...

    @property
    def device(self) -> str: ...

    def environment(
        self, config: BenchConfig, llc_bytes: int, llc_source: str, frameworks: dict
    ) -> Environment: ...

    def probe(self, when: str, llc_bytes: int) -> list[Probe]: ...

    def place_inputs(self, config: BenchConfig, copies: int, emit: Progress) -> None: ...

    def prepare(self, asked: Preparing) -> tuple[list[Prepared], bool]:
        """Every variant it measures prepared, the others taken from `asked.ready`; True when
        SIGINT stopped it (the variants not reached say so). `asked.confirming`: those the
        history shows far slower than the best here, prepared for one confirming block."""
        ...

    def sampling_place(self) -> AbstractContextManager[Any]: ...

    def classify(self, error: BaseException) -> str: ...

    def profile(self, prepared: list[Prepared], run_id: str) -> None: ...

    def release(self) -> None:
        """Free the inputs (unless kept between runs) before the last probe."""
        ...

    def warnings(self, config: BenchConfig, peak: Peak) -> list[str]: ...

    def sampling_extra(self) -> dict[str, Any]: ...


def run_framework_process() -> tuple[Any, str | None]:
    """The folder module (`process.py`) of the framework that runs the run (TensorFlow), or
    None with why not: a framework that is missing, too old, or whose import raises, exits or
    hangs is not installed, as far as a run is concerned."""
    lead = run_framework()
    if lead is None:
        return None, "no framework here runs the run's own process"
    problem = lead.problem()
    if problem is not None:
        return None, problem
    try:
        return importlib.import_module(f"{lead.package}.process"), None
    except (Exception, SystemExit) as error:  # noqa: BLE001 - any failure makes it unusable
        return None, lead.import_failure(error)


def needs_run_framework(strategies: Iterable[str]) -> bool:
    """Whether any of `strategies` is the run framework's (TensorFlow's)."""
    lead = run_framework()
    return lead is not None and any(
        is_known(name) and strategy_info(name).framework == lead.name for name in strategies
    )


def own_process(
    state: Any = None,
    setup: Any = None,
    builders: Any = None,
    replicas: int | None = None,
    strategies: Iterable[str] | None = None,
) -> OwnProcess:
    """The run framework's (TensorFlow's) when it is usable here (`state`, `setup`,
    `builders` are its; `replicas`: the device layout every run of this process uses, a
    sweep's), else the host's, carrying why not. A fresh process (no `state`) whose run's
    `strategies` hold none of the run framework's gets the host's without starting it:
    TensorFlow's import (seconds: docs/timing.md) would buy a NumPy, JAX or PyTorch run
    nothing, and every framework's variants then run in processes of their own, as on a machine
    without TensorFlow. A warm worker has started it already, and keeps its inputs and probe
    buffers for any run."""
    fresh = state is None and setup is None and builders is None
    if fresh and strategies is not None and not needs_run_framework(strategies):
        from engine.execution.run.host_process import HostProcess

        return HostProcess("")
    module, problem = run_framework_process()
    if module is not None:
        return module.make_process(state, setup, builders, replicas)
    from engine.execution.run.host_process import HostProcess

    return HostProcess(problem or "")


def warm_state() -> Any:
    """What a long-lived worker keeps between runs (devices, probe buffers, inputs) for the
    run framework's process; None when it cannot be used here (each request then reports
    that through the run's own checks)."""
    module, _ = run_framework_process()
    return module.make_warm_state() if module is not None else None
