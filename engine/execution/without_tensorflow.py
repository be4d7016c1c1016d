"""A run on a machine without a usable TensorFlow: every other installed framework is measured.

Colab's TPU runtimes ship JAX and no TensorFlow; GPU boxes usually have PyTorch, JAX and CuPy
and no TensorFlow; a laptop may have NumPy alone. TensorFlow's strategies are then
`unsupported`, with what to install for the hardware found, and NumPy and the peers run
exactly as they do beside TensorFlow: each framework in a process of its own
(`processes.py`), through the one prepare -> sample -> check path (`peer_worker.py`), the same
inputs, sampler, race and float64 check. This module never imports TensorFlow.

The ceiling is NumPy's threaded read of host memory, before and after the variants: the
device every framework here ran on when the host is a CPU. A framework that ran on an
accelerator says so in its result, and its roofline fraction is then against the host's peak.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

from engine.analysis.ceiling import run_ceiling
from engine.execution.peers import run_peers
from engine.execution.plan import plan_variants
from engine.execution.recording import blank_result, interrupted_warning
from engine.execution.sampling import SamplingRecord, race_plan
from engine.machine.accelerators import probe_kind
from engine.machine.frameworks import tensorflow_install_hint
from engine.machine.host import host_facts, last_level_cache_bytes
from engine.machine.load import LoadMonitor
from engine.measure import memory
from engine.measure.host_bandwidth import WARM, host_buffer, host_probe
from engine.measure.timing import PhaseClock
from engine.measure.uncertainty import NoiseFloor
from engine.results.codec import result_to_dict
from engine.results.events import (
    Done,
    Phase,
    Progress,
    Started,
    VariantDone,
    VariantResult,
    silent,
)
from engine.results.model import StrategyResult
from engine.results.parts import Environment
from engine.results.run_result import RunInterrupted, RunResult
from engine.spec.catalog import strategy_info, variant_name
from engine.spec.config import BenchConfig
from engine.spec.fields import ConfigError

HOST_DEVICE = "host CPU (NumPy threads)"


def check_runnable(config: BenchConfig, problem: str) -> None:
    """Modes other than single distribute with tf.distribute: refused before any work."""
    if config.mode != "single":
        raise ConfigError("mode", f"mode {config.mode} needs TensorFlow ({problem})")


def environment(kind: str, llc_bytes: int, llc_source: str, frameworks: dict) -> Environment:
    return Environment(
        device_kind=kind,
        devices=(HOST_DEVICE,),
        available_devices=(HOST_DEVICE,),
        replicas=1,
        tensorflow=None,
        **host_facts(llc_bytes, llc_source),
        device_notes=("no usable TensorFlow: NumPy and the peer frameworks ran",),
        frameworks=frameworks,
    )


def run_without_tensorflow(
    config: BenchConfig,
    problem: str,
    progress: Progress | None = None,
    floor: NoiseFloor | None = None,
    estimate: memory.MemoryEstimate | None = None,
) -> RunResult:
    """Measure every variant whose framework is here; TensorFlow's say why they did not run.
    `estimate`: the caller's memory preflight, else it is made here."""
    check_runnable(config, problem)
    emit = progress or silent
    floor = floor or NoiseFloor()
    clock = PhaseClock()
    monitor = LoadMonitor().start()
    llc_bytes, llc_source = last_level_cache_bytes()
    kind = probe_kind()
    variants = plan_variants(config, kind)
    emit(Started(tuple(variant_name(s, o) for s, o in variants)))
    estimate = estimate or memory.preflight(config, kind, llc_bytes)
    copies = memory.cold_copies(config, llc_bytes)
    hint = tensorflow_install_hint(kind)
    skipped: dict[tuple[str, str], StrategyResult] = {}
    for strategy, option in variants:
        if strategy_info(strategy).framework == "tensorflow":
            result = blank_result(config, strategy, option, "unsupported")
            result.error = f"{problem}; {hint}"
            skipped[(strategy, option)] = result
    clock.lap("startup_s")
    emit(Phase("peak bandwidth"))
    buffer = host_buffer(memory.bandwidth_buffer_bytes(llc_bytes))
    probes = host_probe(buffer, "before")
    clock.lap("peak_s")
    outcome = run_peers(
        config,
        [v for v in variants if v not in skipped],
        copies=copies,
        device_kind=kind,
        emit=emit,
        floor=floor,
        tensorflow_here=False,
    )
    for result in outcome.results.values():  # each on the page as soon as its process ends
        emit(VariantDone(result.variant, result.status))
        emit(VariantResult(result_to_dict(result, None)))
    clock.lap("variants_s")
    if not outcome.interrupted:  # no second probe when the run was asked to stop
        emit(Phase("peak bandwidth (again)"))
        probes += host_probe(buffer, "after", WARM)
    results = [skipped.get(v) or outcome.results[v] for v in variants]
    peak, ceiling_notes = run_ceiling(
        probes,
        HOST_DEVICE,
        results,
        config,
        llc_bytes,
        reprobe=None if outcome.interrupted else lambda: host_probe(buffer, "check", WARM),
        device_probes=outcome.device_probes(),
    )
    clock.lap("peak_s")
    emit(Done())
    load = monitor.stop()
    warnings = [w for w in (load.warning, *ceiling_notes) if w]
    if outcome.interrupted:
        warnings.append(interrupted_warning(results))
    if kind != "CPU":
        warnings.append(
            f"the ceiling is the host's memory read; this machine has a {kind}, and each "
            "framework that ran on it says so in its result"
        )
    plan = race_plan(config, floor)
    result = RunResult(
        run_id=uuid.uuid4().hex,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        environment=environment(kind, llc_bytes, llc_source, outcome.environments),
        config=config,
        peak=peak,
        results=results,
        warnings=warnings,
        cold_copies=copies,
        memory=estimate,
        sampling={
            # No process of its own sampled here: each framework's rounds are in `peers`.
            **SamplingRecord.for_plan(config.order, config.seed, [], plan).to_dict(),
            **({"peers": outcome.sampling} if outcome.sampling else {}),
        },
        machine_load=load,
        noise_floor=floor,
        timings=clock.timings(),
    )
    if outcome.interrupted:
        raise RunInterrupted(result)
    return result
