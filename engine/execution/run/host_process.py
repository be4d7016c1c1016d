"""The run's own process without a usable TensorFlow (`orchestrator.OwnProcess`).

Colab's TPU runtimes ship JAX and no TensorFlow; GPU boxes usually have PyTorch, JAX and CuPy
and no TensorFlow; a laptop may have NumPy alone. Every framework then runs in a process of its
own, NumPy included, exactly as beside TensorFlow; this process measures nothing itself:
TensorFlow's strategies are `unsupported`, with what to install for the hardware found.

The ceiling is NumPy's threaded read of host memory, before and after the variants: the
device every framework here ran on when the host is a CPU. A framework that ran on an
accelerator probes its own device in its process, and its results are placed against that.
"""

from __future__ import annotations

import contextlib
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from engine.catalogue.catalog import install_hint, run_framework, strategy_info
from engine.harness.recording import Prepared, Preparing, blank_result
from engine.machine.accelerators import probe_kind
from engine.machine.host import host_facts
from engine.measure import memory
from engine.measure.host_bandwidth import FULL, WARM, host_buffer, host_probe
from engine.measure.peak import Peak, Probe
from engine.results.events import Progress
from engine.results.formatting import classify_error
from engine.results.parts import Environment
from engine.run_settings.config import BenchConfig

HOST_DEVICE = "host CPU (NumPy threads)"


class HostProcess:
    """`problem`: why the run framework (TensorFlow) is not usable here, in the words its
    strategies show."""

    framework_here = False
    device = HOST_DEVICE
    probed_kind = "CPU"  # its probe reads the host's memory, whatever the machine's device

    def __init__(self, problem: str) -> None:
        self.problem = problem
        lead = run_framework()
        self.absent = lead.name if lead else None  # its variants run nowhere here
        self.kind = probe_kind()
        self.buffer: np.ndarray | None = None

    def preflight(self, config: BenchConfig, llc_bytes: int) -> memory.MemoryEstimate:
        return memory.preflight(config, self.kind, llc_bytes)

    def start(self, config: BenchConfig) -> list[str]:
        if self.kind == "CPU":
            return []
        return [
            f"the ceiling is the host's memory read; this machine has a {self.kind}, and each "
            "framework that ran on it says so in its result"
        ]

    def environment(
        self, config: BenchConfig, llc_bytes: int, llc_source: str, frameworks: dict
    ) -> Environment:
        return Environment(
            device_kind=self.kind,
            devices=(HOST_DEVICE,),
            available_devices=(HOST_DEVICE,),
            replicas=config.replicas,
            **host_facts(llc_bytes, llc_source),
            device_notes=("no usable TensorFlow: NumPy and the peer frameworks ran",),
            frameworks=frameworks,
        )

    def probe(self, when: str, llc_bytes: int) -> list[Probe]:
        if self.buffer is None:
            self.buffer = host_buffer(memory.bandwidth_buffer_bytes(llc_bytes))
        return host_probe(self.buffer, when, FULL if when == "before" else WARM)

    def place_inputs(self, config: BenchConfig, copies: int, emit: Progress) -> None:
        return None  # every variant runs in a process of its own, with its own inputs

    def prepare(self, asked: Preparing) -> tuple[list[Prepared], bool]:
        """The peers' results; TensorFlow's variants say why they did not run (none is
        prepared here, confirming or not)."""
        config, variants, ready = asked.config, asked.variants, asked.ready
        hint = install_hint(self.absent, self.kind) if self.absent else ""
        prepared = []
        for strategy, option in variants:
            found = ready.get((strategy, option))
            if found is None or strategy_info(strategy).framework_info.process == "run":
                result = blank_result(config, strategy, option, "unsupported")
                result.error = f"{self.problem}; {hint}"
                found = Prepared(result)
            prepared.append(found)
        return prepared, False

    def sampling_place(self) -> AbstractContextManager[Any]:
        return contextlib.nullcontext()

    def classify(self, error: BaseException) -> str:
        return classify_error(error)

    def profile(self, prepared: list[Prepared], run_id: str) -> None:
        return None  # each framework profiled its variants in its own process

    def release(self) -> None:
        return None

    def warnings(self, config: BenchConfig, peak: Peak) -> list[str]:
        return []

    def sampling_extra(self) -> dict[str, Any]:
        return {}
