"""Run a BenchConfig: devices, preflight, peak bandwidth, inputs, then every strategy variant.

The executor of each variant is picked from a table by the mode and the strategy's own
description (how it distributes). Every variant is prepared first (first call, warm-up,
autorange, check), then the samples of all of them are taken (interleaved by default, see
`sampling.py`), then each is finished. Each step of each variant runs inside its own try: a
strategy that fails (out of memory, dtype unsupported on the device, an XLA compile error) is
recorded with its status and message, and the others go on.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any

from engine.analysis.ceiling import run_ceiling
from engine.backends.tensorflow.bandwidth import ceiling_warning, probe_round
from engine.backends.tensorflow.build import Builder, builder_with
from engine.backends.tensorflow.devices import DeviceSetup
from engine.backends.tensorflow.distribute import make_strategy
from engine.backends.tensorflow.environment import capture
from engine.backends.tensorflow.errors import classify, one_line
from engine.backends.tensorflow.loader import tf
from engine.backends.tensorflow.warnings import as_note, tensorflow_warnings
from engine.execution.base import Executor, Prepared, RunContext, blank_result, record_timing
from engine.execution.dataset import run_dataset
from engine.execution.distributed import run_distributed
from engine.execution.peers import run_peers
from engine.execution.plan import plan_variants
from engine.execution.profiling import profile_variant
from engine.execution.recording import (
    WHILE_PREPARED,
    interrupted_warning,
    mark_tpu_padding,
    not_started,
    stop_unfinished,
)
from engine.execution.sampling import SamplingRecord, fixed_plan, race_plan, take_samples
from engine.execution.single import run_single
from engine.execution.variant import failing_sample
from engine.execution.warm import WarmState
from engine.machine.accelerators import probe_kind
from engine.machine.cluster import worker_count
from engine.machine.host import last_level_cache_bytes
from engine.machine.load import LoadMonitor
from engine.measure import memory
from engine.measure.peak import Peak
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
    VariantStarted,
    silent,
)
from engine.results.model import StrategyResult
from engine.results.run_result import RunInterrupted, RunResult
from engine.spec.catalog import split_variant, strategy_info, variant_name
from engine.spec.config import BenchConfig

# Modes other than single, by how the strategy distributes (its catalogue `distribution`).
DISTRIBUTED_EXECUTORS: dict[str, Executor] = {"graph": run_distributed, "dataset": run_dataset}


def run_not_distributable(ctx: RunContext, strategy: str, option: str) -> Prepared:
    result = blank_result(ctx.config, strategy, option, "skipped")
    result.error = f"{strategy} has no tf.distribute form; run it in mode single"
    return Prepared(result)


def executor_for(config: BenchConfig, strategy: str) -> Executor:
    if config.mode == "single":
        return run_single
    how = strategy_info(strategy).distribution
    return DISTRIBUTED_EXECUTORS.get(how or "", run_not_distributable)


def prepare_variant(ctx: RunContext, strategy: str, option: str) -> Prepared:
    """A TensorFlow variant prepared by its mode's executor, with what TensorFlow warned."""
    ctx.emit(VariantStarted(variant_name(strategy, option)))
    with tensorflow_warnings() as warned:
        try:
            prepared = executor_for(ctx.config, strategy)(ctx, strategy, option)
        except Exception as error:  # noqa: BLE001 - one strategy's failure keeps the others
            result = blank_result(ctx.config, strategy, option, classify(error))  # type: ignore[arg-type]
            result.error = one_line(error)
            prepared = Prepared(result)
    prepared.result.notes.extend(as_note(message) for message in warned)
    if ctx.setup.kind == "TPU" and prepared.result.status == "ok":
        mark_tpu_padding(prepared.result, ctx.config)  # the distributed executors' results too
    return prepared


def finish_variant(config: BenchConfig, emit: Progress, item: Prepared) -> StrategyResult:
    """Record a variant's timing once its sampling ended, and put its result on the page
    (unless it was there already: a peer's, shown before TensorFlow started)."""
    result = item.result
    if item.sampler is not None and item.finish is not None:
        timing = item.sampler.timing(config.repeats, result.stop_reason)
        try:
            item.finish(timing)
        except Exception as error:  # noqa: BLE001 - the samples are kept whatever the context
            if not result.samples_s:
                record_timing(result, timing, 0.0)
            result.warnings.append(f"context after sampling failed: {one_line(error)}")
    if not item.shown:
        emit(VariantDone(result.variant, result.status))
        emit(VariantResult(result_to_dict(result, None)))
        item.shown = True
    return result


def prepare_all(
    ctx: RunContext, variants: list[tuple[str, str]], ready: Mapping[tuple[str, str], Prepared]
) -> tuple[list[Prepared], bool]:
    """Every variant prepared (or a peer's, measured already); SIGINT while one is prepared
    stops there: it and the variants not reached say so, and the run is interrupted."""
    prepared: list[Prepared] = []
    for index, variant in enumerate(variants):
        try:
            prepared.append(ready.get(variant) or prepare_variant(ctx, *variant))
        except KeyboardInterrupt:
            prepared.append(not_started(ctx.config, variant, WHILE_PREPARED))
            rest = variants[index + 1 :]
            prepared += [ready.get(v) or not_started(ctx.config, v) for v in rest]
            return prepared, True
    return prepared, False


def fresh_first_call(ctx: RunContext, variant: str) -> Callable[[], Any] | None:
    """A new copy of a single-mode variant's function, called once on the first input set:
    its profile splits a first call into tracing, compilation and execution."""
    strategy, option = split_variant(variant)
    if ctx.config.mode != "single" or strategy_info(strategy).kind != "graph":
        return None

    def call() -> Any:
        fn = ctx.build(strategy, xla=option == "xla", dataset_batch=ctx.config.dataset_batch)
        return fn(*ctx.inputs.timed[0])

    return call


def run_warnings(config: BenchConfig, estimate: memory.MemoryEstimate, llc_bytes: int) -> list[str]:
    found = []
    if estimate.limit_bytes is None:
        found.append(f"memory preflight could not check the limit: {estimate.limit_source}")
    set_bytes = memory.input_set_bytes(config)
    if config.cache == "warm" and set_bytes < llc_bytes:
        found.append(
            f"warm cache: the inputs ({memory.format_bytes(set_bytes)}) fit in the last-level "
            f"cache ({memory.format_bytes(llc_bytes)}), so rates above the DRAM roofline are "
            "possible; use cache=cold for DRAM-bound numbers"
        )
    return found


def run_benchmark(
    config: BenchConfig,
    progress: Progress | None = None,
    builders: Mapping[str, Builder] | None = None,
    setup: DeviceSetup | None = None,
    peak: Peak | None = None,
    state: WarmState | None = None,
    floor: NoiseFloor | None = None,
    estimate: memory.MemoryEstimate | None = None,
) -> RunResult:
    """Measure every variant of `config`; raises PreflightError/DeviceError before any work.

    `state` is what a long-lived worker keeps between runs (devices, probe buffers, inputs);
    without one, the run starts from nothing, as a fresh process does. `floor`: this machine's
    noise floor (calibrated, else the default), used by the race and for ties. `estimate`: the
    memory preflight the caller already made (the CLI's, before TensorFlow's import); without
    one it is made here, once, before any process starts.
    """
    floor = floor or NoiseFloor()
    emit = progress or silent
    state = state or WarmState()
    warm_start = state.warm
    run_id = uuid.uuid4().hex
    clock = PhaseClock()
    monitor = LoadMonitor().start()
    llc_bytes, llc_source = last_level_cache_bytes()
    warnings = [w for w in [state.threads(config.threads)] if w]
    kind = setup.kind if setup else (state.setup.kind if state.setup else probe_kind())
    variants = plan_variants(config, kind)
    emit(Started(tuple(variant_name(s, x) for s, x in variants)))
    copies = memory.cold_copies(config, llc_bytes)
    known = setup or state.setup
    first_device = known.devices[0] if known else None
    if estimate is None:  # refused before any process starts
        estimate = state.preflight(config, kind, llc_bytes, first_device)
    # Peers first, each in its own process, before TensorFlow holds the device.
    clock.lap("startup_s")
    plan = race_plan(config, floor)
    peers = run_peers(
        config,
        variants if config.mode == "single" else (),
        copies=copies,
        device_kind=kind,
        emit=emit,
        floor=floor,
    )
    measured_by_peers = {}
    for variant, result in peers.results.items():  # on the page before TensorFlow starts
        emit(VariantDone(result.variant, result.status))
        emit(VariantResult(result_to_dict(result, None)))
        measured_by_peers[variant] = Prepared(result, shown=True, elsewhere=True)
    clock.lap("peers_s")
    distributed = None
    if config.mode != "single" and worker_count() > 1:
        # Collectives must be configured before TensorFlow initialises its context.
        distributed = tf.distribute.MultiWorkerMirroredStrategy()
    setup = setup or state.devices(config.replicas)
    if config.mode != "single" and distributed is None:
        distributed = make_strategy(setup)
    environment = capture(setup, llc_bytes, llc_source, config.threads)
    environment = dataclasses.replace(environment, frameworks=peers.environments)

    device = setup.devices[0]
    probes = []
    interrupted = peers.interrupted  # then nothing more is measured: what finished is saved
    clock.lap("startup_s")
    ctx: RunContext | None = None
    inputs_reused = False
    try:  # SIGINT from here to the sampling: the peers' results are kept, the rest skipped
        if peak is None and not interrupted:
            emit(Phase("peak bandwidth"))
            buffers, effort = state.probe_buffers(device, setup.kind, llc_bytes)
            probes = probe_round(buffers, "before", effort)
        clock.lap("peak_s")
        if not interrupted:
            emit(Phase("inputs"))
            keep_host = any(strategy_info(name).runs_on_host for name in config.strategies)
            inputs, inputs_reused = state.inputs_for(config, device, copies, keep_host)
            clock.lap("inputs_s")
            ctx = RunContext(config, setup, inputs, builder_with(builders), emit, distributed)
            del inputs
    except KeyboardInterrupt:
        interrupted = True
    if ctx is None:  # interrupted before the inputs were ready
        interrupted = True
        prepared = [measured_by_peers.get(v) or not_started(config, v) for v in variants]
    else:
        prepared, interrupted = prepare_all(ctx, variants, measured_by_peers)
    finished: dict[int, StrategyResult] = {}

    def finish(item: Prepared) -> None:
        finished[id(item)] = finish_variant(config, emit, item)  # at its last sample: shown

    sampled_plan = plan if worker_count() <= 1 else fixed_plan(config)
    record = SamplingRecord.for_plan(config.order, config.seed, [], sampled_plan)
    if not interrupted:
        emit(Phase(f"sampling ({config.order})"))
        with tf.device(device):
            try:
                record = take_samples(
                    [item for item in prepared if not item.elsewhere],  # peers: in their own
                    plan=sampled_plan,
                    order=config.order,
                    seed=config.seed,
                    emit=emit,
                    on_failure=failing_sample(classify),
                    on_done=finish,
                )
            except KeyboardInterrupt:  # SIGINT: what was measured is kept, saved by the caller
                interrupted = True
    for item in prepared:
        if interrupted and id(item) not in finished:
            stop_unfinished(item)
    results = [finished.get(id(item)) or finish_variant(config, emit, item) for item in prepared]
    clock.lap("variants_s")
    if config.profile and not interrupted and ctx is not None:
        emit(Phase("profiles"))
        for item in prepared:
            if item.elsewhere:
                continue  # a peer's: profiled in its own process, by its own framework
            fresh = fresh_first_call(ctx, item.result.variant)
            item.result.profile = profile_variant(item, device, run_id, fresh)
    clock.lap("profile_s")
    del ctx, prepared  # free the inputs (unless the worker keeps them) before the probe
    ceiling_notes: list[str] = []
    if peak is None and interrupted:  # no second probe: the run was asked to stop
        peak, ceiling_notes = run_ceiling(
            probes, device, results, config, llc_bytes, None, peers.device_probes()
        )
    elif peak is None:
        emit(Phase("peak bandwidth (again)"))
        buffers, effort = state.probe_buffers(device, setup.kind, llc_bytes)
        probes += probe_round(buffers, "after", effort)
        peak, ceiling_notes = run_ceiling(
            probes,
            device,
            results,
            config,
            llc_bytes,
            reprobe=lambda: probe_round(buffers, "check", effort),
            device_probes=peers.device_probes(),
        )
    clock.lap("peak_s")
    emit(Done())
    state.runs += 1
    load = monitor.stop()
    warnings += run_warnings(config, estimate, llc_bytes)
    warnings += [w for w in (ceiling_warning(peak), load.warning, *ceiling_notes) if w]
    if interrupted:
        warnings.append(interrupted_warning(results))
    result = RunResult(
        run_id=run_id,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        environment=environment,
        config=config,
        peak=peak,
        results=results,
        warnings=warnings,
        cold_copies=copies,
        memory=estimate,
        sampling={
            **record.to_dict(),
            **({"peers": peers.sampling} if peers.sampling else {}),
            "worker": {
                "warm": warm_start,
                "runs_before": state.runs - 1,
                "inputs_reused": inputs_reused,
            },
        },
        machine_load=load,
        noise_floor=floor,
        timings=clock.timings(),
    )
    if interrupted:
        raise RunInterrupted(result)
    return result
