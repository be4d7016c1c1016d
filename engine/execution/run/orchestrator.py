"""One run of a BenchConfig, whatever is installed: the one orchestrator.

Every framework but TensorFlow runs in a process of its own (`peers/parent.py`), started first,
before TensorFlow holds the device. The run's own process is one more runtime (`OwnProcess`):
the process of the framework that declares it runs the run (`FrameworkInfo.process == "run"`:
TensorFlow's `backends/tensorflow/process.py`, its devices, warm state, probes, executors and
profiles) when it is usable here, else the host's (`run/host_process.py`: NumPy's read probe,
and that framework's strategies `unsupported` with what to install). Then, in this order: the
read probe before, the own process's variants prepared, all samples taken (interleaved by
default, `sampling/loop.py`), each variant finished, profiles, the read probe after and the
ceiling settled. The CLI, the notebook, `engine.run`, sweeps, calibration (its repetitions are
runs) and the dashboard's worker all come here. Nothing in this module imports a framework.

A failure in one variant is its own result; SIGINT at any point keeps what finished (the
caller saves it: `RunInterrupted`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from engine.analysis.ceiling import run_ceiling
from engine.analysis.session_ceiling import Earlier
from engine.catalogue.catalog import (
    not_installed_note,
    strategy_info,
    variant_name,
)
from engine.execution.peers.parent import run_peers
from engine.execution.plan.phase_order import PhaseOrder
from engine.execution.plan.run_plan import RunPlan
from engine.execution.plan.variants import plan_variants
from engine.execution.run.own_process import OwnProcess
from engine.execution.run.start import start_run
from engine.execution.sampling.confirmation import samples_of
from engine.execution.sampling.loop import SamplingRecord, fixed_plan, race_plan, take_samples
from engine.harness.recording import (
    Prepared,
    interrupted_warning,
    not_started,
    record_timing,
    stop_unfinished,
)
from engine.harness.variant import failing_sample
from engine.machine.accelerators import probe_kind
from engine.machine.caches import cache_levels
from engine.machine.cluster import worker_count
from engine.machine.host import last_level_cache_bytes
from engine.machine.load import LoadMonitor
from engine.measure import memory
from engine.measure.cache_ceilings import LevelProber
from engine.measure.peak import Peak, Probe
from engine.measure.run_clock import PhaseClock
from engine.measure.uncertainty import NoiseFloor
from engine.results.codec import result_to_dict
from engine.results.elimination import restate_eliminations
from engine.results.events import Done, Phase, Progress, Started, VariantDone, VariantResult, silent
from engine.results.formatting import one_line
from engine.results.model import StrategyResult
from engine.results.run_result import RunInterrupted, RunResult
from engine.results.time_split import time_split
from engine.run_settings.config import BenchConfig

Variant = tuple[str, str]


def finish_variant(config: BenchConfig, emit: Progress, item: Prepared) -> StrategyResult:
    """Record a variant's timing once its sampling ended, and put its result on the page
    (unless it was there already: a peer's, shown as its process ended)."""
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


def run_warnings(
    config: BenchConfig, estimate: memory.MemoryEstimate, llc_bytes: int, peak: Peak
) -> list[str]:
    found = []
    if estimate.limit_bytes is None:
        found.append(f"memory preflight could not check the limit: {estimate.limit_source}")
    set_bytes = memory.input_set_bytes(config)
    if config.cache == "warm" and set_bytes < llc_bytes:
        level = peak.ceiling_for(set_bytes)
        found.append(
            f"warm cache: the inputs ({memory.format_bytes(set_bytes)}) fit in the "
            + (
                f"{level.level} ({memory.format_bytes(level.bytes)} for the run's cores), so "
                "each variant is placed against that cache's measured ceiling as well as "
                "memory's; use cache=cold for DRAM-bound numbers"
                if level.bytes
                else f"last-level cache ({memory.format_bytes(llc_bytes)}), so rates above "
                "the DRAM roofline are possible; use cache=cold for DRAM-bound numbers"
            )
        )
    return found


def measure(plan: RunPlan, own: OwnProcess, progress: Progress | None = None) -> RunResult:
    """Measure every variant of the plan's config (`plan/run_plan.py`: its one front door);
    raises PreflightError/DeviceError before any work, RunInterrupted (carrying what
    finished) on SIGINT. The plan's `peak`: a ceiling measured already (a sweep's), else
    probed before and after the variants; `earlier_ceilings`: what this machine's runs of the
    last hour read (`analysis/session_ceiling.py`); `priors`: the variants the history shows
    far slower than the best here, each confirmed by one block (`analysis/history_prior.py`;
    adaptive single-worker runs only)."""
    config, floor, estimate, peak = plan.config, plan.floor, plan.estimate, plan.peak
    earlier_ceilings = plan.earlier_ceilings
    emit = progress or silent
    run_id = uuid.uuid4().hex
    clock = PhaseClock()
    monitor = LoadMonitor().start()
    llc_bytes, llc_source = last_level_cache_bytes()
    variants = plan_variants(config, own.kind)
    emit(Started(tuple(variant_name(s, x) for s, x in variants)))
    copies = memory.cold_copies(config, llc_bytes)
    if estimate is None:  # refused before any process starts
        estimate = own.preflight(config, llc_bytes)
    clock.lap("startup_s")
    sampling = race_plan(config, floor)
    priors = plan.priors if sampling.adaptive and worker_count() <= 1 else None
    confirming = {name: prior.median_s for name, prior in (priors or {}).items()}
    peers = run_peers(
        config,
        # TensorFlow's stay in this process (or run nowhere); every other framework's in its own
        [v for v in variants if strategy_info(v[0]).framework != own.absent],
        copies=copies,
        device_kind=own.probed_kind,  # the kind the run's peak reads: a fraction's ceiling
        emit=emit,
        floor=floor,
        run_framework_here=own.framework_here,
        priors=priors,
        machine_kind=own.kind,
    )
    measured_by_peers = {}
    for variant, result in peers.results.items():  # on the page as each process ended
        emit(VariantDone(result.variant, result.status))
        emit(VariantResult(result_to_dict(result, None)))
        measured_by_peers[variant] = Prepared(result, shown=True, elsewhere=True)
    clock.lap("peers_s")
    elsewhere = samples_of(peers.results.values())
    here_names = {variant_name(*v) for v in variants if v not in peers.results}
    if not elsewhere and here_names <= set(confirming):
        confirming = {}  # nothing here to judge a confirming block against
    order = PhaseOrder()  # the one order every process kind follows (`plan/phase_order.py`)
    order.enter("start")
    warnings = own.start(config)
    environment = own.environment(config, llc_bytes, llc_source, peers.environments)
    interrupted = peers.interrupted  # then nothing more is measured: what finished is saved
    probes: list[Probe] = []
    # the host's levels beside the host's memory probe, on a GPU machine too (NumPy there)
    levels = LevelProber(own.probed_kind, *cache_levels()) if peak is None else None
    clock.lap("startup_s")
    prepared: list[Prepared] | None = None
    try:  # SIGINT from here to the sampling: the peers' results are kept, the rest skipped
        if peak is None and not interrupted:
            order.enter("probe")
            emit(Phase("peak bandwidth"))
            probes = own.probe("before", llc_bytes)
            if levels:
                levels.probe("before")
        clock.lap("peak_s")
        if not interrupted:
            order.enter("place")
            own.place_inputs(config, copies, emit)
            clock.lap("inputs_s")
            order.enter("prepare")
            prepared, interrupted = own.prepare(
                config, variants, measured_by_peers, emit, confirming
            )
    except KeyboardInterrupt:
        interrupted = True
    if prepared is None:  # interrupted before the variants were prepared
        interrupted = True
        prepared = [measured_by_peers.get(v) or not_started(config, v) for v in variants]
    finished: dict[int, StrategyResult] = {}

    def finish(item: Prepared) -> None:
        finished[id(item)] = finish_variant(config, emit, item)  # at its last sample: shown

    sampled_plan = sampling if worker_count() <= 1 else fixed_plan(config)
    record = SamplingRecord.for_plan(config.order, config.seed, [], sampled_plan)
    here = [item for item in prepared if not item.elsewhere]  # peers: sampled in their own
    if here and not interrupted:
        order.enter("sample")
        emit(Phase(f"sampling ({config.order})"))
        with own.sampling_place():
            try:
                record = take_samples(
                    here,
                    plan=sampled_plan,
                    order=config.order,
                    seed=config.seed,
                    emit=emit,
                    on_failure=failing_sample(own.classify),
                    on_done=finish,
                    priors=priors,
                    elsewhere=elsewhere,
                    announce=True,
                )
            except KeyboardInterrupt:  # what was measured is kept, and saved by the caller
                interrupted = True
    order.enter("finish")
    for item in prepared:
        if interrupted and id(item) not in finished:
            stop_unfinished(item)
    results = [finished.get(id(item)) or finish_variant(config, emit, item) for item in prepared]
    clock.lap("variants_s")
    if config.profile and not interrupted:
        order.enter("profile")
        emit(Phase("profiles"))
        own.profile(prepared, run_id)
    clock.lap("profile_s")
    order.enter("release")
    del prepared
    own.release()
    run = (config, results, peers)
    if peak is None and probes and not interrupted:
        order.enter("probe again")
    peak, ceiling_notes = settled_peak(
        own, peak, (probes, levels), run, llc_bytes, interrupted, emit, earlier_ceilings
    )
    clock.lap("peak_s")
    emit(Done())
    load = monitor.stop()
    warnings += run_warnings(config, estimate, llc_bytes, peak)
    left_out = not_installed_note(config.strategies)
    warnings += [left_out] if left_out else []
    own_load = (load.warning, load.tool_note)  # other processes' load, and the tool's apart
    warnings += [w for w in (*own.warnings(config, peak), *own_load, *ceiling_notes) if w]
    if interrupted:
        warnings.append(interrupted_warning(results))
    order.enter("record")
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
            **own.sampling_extra(),
            "phases": order.to_list(),
        },
        machine_load=load,
        noise_floor=floor,
        timings={**clock.timings(), **time_split(results)},
        measured_here=True,
    )
    restate_eliminations(result)  # each elimination's words, true of the final record
    if interrupted:
        raise RunInterrupted(result)
    return result


def settled_peak(
    own: OwnProcess,
    given: Peak | None,
    probed: tuple[list[Probe], LevelProber | None],
    run: tuple[BenchConfig, list[StrategyResult], Any],
    llc_bytes: int,
    interrupted: bool,
    emit: Progress,
    earlier: Earlier | None = None,
) -> tuple[Peak, list[str]]:
    """The ceiling given (a sweep's), or from the probes before and after, settled against
    what the results achieved; no probe after an interrupt (the run was asked to stop).
    The cache levels' probes (`probed[1]`) are taken again after the variants too."""
    if given is not None:
        return given, []
    config, results, peers = run
    probes, levels = probed
    reprobe: Callable[[], list[Probe]] | None = None
    if probes and not interrupted:
        emit(Phase("peak bandwidth (again)"))
        probes = probes + own.probe("after", llc_bytes)
        if levels:
            levels.probe("after")
        reprobe = lambda: own.probe("check", llc_bytes)  # noqa: E731
    return run_ceiling(
        probes,
        own.device,
        results,
        config,
        llc_bytes,
        reprobe,
        peers.device_probes(),
        levels,
        earlier,
    )


def run_benchmark(
    config: BenchConfig,
    progress: Progress | None = None,
    builders: Any = None,
    setup: Any = None,
    peak: Peak | None = None,
    state: Any = None,
    floor: NoiseFloor | None = None,
    estimate: memory.MemoryEstimate | None = None,
) -> RunResult:
    """`measure` with this machine's own process, started by `start_run`: the Python door
    (`engine.run`)."""
    kind = probe_kind()
    own = start_run(config.strategies, kind, state=state, setup=setup, builders=builders).own
    plan = RunPlan(config, floor=floor or NoiseFloor(), estimate=estimate, peak=peak)
    return measure(plan, own, progress)
