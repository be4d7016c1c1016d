"""One run's measuring, phase by phase (`Measuring`, which `orchestrator.measure` walks):
the peers' processes, the run's own process started, its probes, inputs and variants
prepared, the sampling, each variant finished, the probes again and the ceiling settled, and
the run's record. What each phase leaves for the next is held on the object."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from engine.analysis.ceiling import run_ceiling
from engine.analysis.prediction import prediction_words
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
from engine.execution.sampling.confirmation import samples_of
from engine.execution.sampling.loop import SamplingRecord, fixed_plan, race_plan, take_samples
from engine.harness.recording import (
    Prepared,
    Preparing,
    interrupted_warning,
    not_started,
    record_timing,
    stop_unfinished,
)
from engine.harness.variant import failing_sample
from engine.machine.caches import cache_levels
from engine.machine.cluster import worker_count
from engine.machine.host import last_level_cache_bytes
from engine.machine.load import LoadMonitor
from engine.measure import memory
from engine.measure.cache_ceilings import LevelProber
from engine.measure.peak import Peak, Probe
from engine.measure.run_clock import PhaseClock
from engine.results.codec import result_to_dict
from engine.results.events import (
    Done,
    Phase,
    Predicted,
    Progress,
    Started,
    VariantDone,
    VariantResult,
)
from engine.results.formatting import one_line
from engine.results.model import StrategyResult
from engine.results.run_result import RunResult
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


class Measuring:
    """One run of `measure`, phase by phase: what each phase leaves for the next is held here
    (its clock, its order of phases, whether SIGINT stopped it)."""

    def __init__(self, plan: RunPlan, own: OwnProcess, emit: Progress) -> None:
        config = self.config = plan.config
        self.plan, self.own, self.emit = plan, own, emit
        self.run_id = uuid.uuid4().hex
        self.clock = PhaseClock()
        self.monitor = LoadMonitor().start()
        self.llc_bytes, self.llc_source = last_level_cache_bytes()
        self.variants = plan_variants(config, own.kind)
        emit(Started(tuple(variant_name(s, x) for s, x in self.variants)))
        if plan.prediction is not None:  # before any sample: the history's word, said so
            emit(Predicted(prediction_words(plan.prediction)))
        self.copies = memory.cold_copies(config, self.llc_bytes)
        self.estimate = plan.estimate
        if self.estimate is None:  # refused before any process starts
            self.estimate = own.preflight(config, self.llc_bytes)
        self.clock.lap("startup_s")
        self.sampling = race_plan(config, plan.floor)
        adaptive_here = self.sampling.adaptive and worker_count() <= 1
        self.priors = plan.priors if adaptive_here else None
        self.confirming = {name: prior.median_s for name, prior in (self.priors or {}).items()}
        self.order = PhaseOrder()  # the one order every process kind follows
        self.interrupted = False
        self.probes: list[Probe] = []
        self.levels: LevelProber | None = None

    def measure_peers(self) -> None:
        """Every other framework's variants, each framework in its process, measured first:
        their results on the page as each process ended."""
        own, config = self.own, self.config
        self.peers = run_peers(
            config,
            # TensorFlow's stay in this process (or run nowhere); every other framework's in
            # its own
            [v for v in self.variants if strategy_info(v[0]).framework != own.absent],
            copies=self.copies,
            device_kind=own.probed_kind,  # the kind the run's peak reads: a fraction's ceiling
            emit=self.emit,
            floor=self.plan.floor,
            run_framework_here=own.framework_here,
            priors=self.priors,
            machine_kind=own.kind,
        )
        self.measured_by_peers = {}
        for variant, result in self.peers.results.items():
            self.emit(VariantDone(result.variant, result.status))
            self.emit(VariantResult(result_to_dict(result, None)))
            self.measured_by_peers[variant] = Prepared(result, shown=True, elsewhere=True)
        self.clock.lap("peers_s")
        self.elsewhere = samples_of(self.peers.results.values())
        here_names = {variant_name(*v) for v in self.variants if v not in self.peers.results}
        if not self.elsewhere and here_names <= set(self.confirming):
            self.confirming = {}  # nothing here to judge a confirming block against

    def start_own(self) -> None:
        """The run's own process takes its devices (after the peers ended)."""
        own, config = self.own, self.config
        self.order.enter("start")
        self.warnings = own.start(config)
        self.environment = own.environment(
            config, self.llc_bytes, self.llc_source, self.peers.environments
        )
        self.interrupted = self.peers.interrupted  # then nothing more is measured
        if self.plan.peak is None:  # the host's levels beside the host's memory probe
            self.levels = LevelProber(own.probed_kind, *cache_levels())
        self.clock.lap("startup_s")

    def prepare(self) -> list[Prepared]:
        """The probes before, the inputs, every variant prepared; SIGINT from here to the
        sampling keeps the peers' results and skips the rest."""
        own, config, emit = self.own, self.config, self.emit
        prepared: list[Prepared] | None = None
        try:
            if self.plan.peak is None and not self.interrupted:
                self.order.enter("probe")
                emit(Phase("peak bandwidth"))
                self.probes = own.probe("before", self.llc_bytes)
                if self.levels:
                    self.levels.probe("before")
            self.clock.lap("peak_s")
            if not self.interrupted:
                self.order.enter("place")
                own.place_inputs(config, self.copies, emit)
                self.clock.lap("inputs_s")
                self.order.enter("prepare")
                asked = Preparing(
                    config, self.variants, self.measured_by_peers, emit, self.confirming
                )
                prepared, self.interrupted = own.prepare(asked)
        except KeyboardInterrupt:
            self.interrupted = True
        if prepared is None:  # interrupted before the variants were prepared
            self.interrupted = True
            ready = self.measured_by_peers
            prepared = [ready.get(v) or not_started(config, v) for v in self.variants]
        return prepared

    def sample(self, prepared: list[Prepared]) -> tuple[SamplingRecord, list[StrategyResult]]:
        """The variants measured here, sampled (the peers' in their own processes), each
        finished and shown at its last sample; their results, in the variants' order."""
        config, emit = self.config, self.emit
        finished: dict[int, StrategyResult] = {}

        def finish(item: Prepared) -> None:
            finished[id(item)] = finish_variant(config, emit, item)  # at its last sample: shown

        sampled_plan = self.sampling if worker_count() <= 1 else fixed_plan(config)
        record = SamplingRecord.for_plan(config.order, config.seed, [], sampled_plan)
        here = [item for item in prepared if not item.elsewhere]
        if here and not self.interrupted:
            self.order.enter("sample")
            emit(Phase(f"sampling ({config.order})"))
            with self.own.sampling_place():
                try:
                    record = take_samples(
                        here,
                        plan=sampled_plan,
                        order=config.order,
                        seed=config.seed,
                        emit=emit,
                        on_failure=failing_sample(self.own.classify),
                        on_done=finish,
                        priors=self.priors,
                        elsewhere=self.elsewhere,
                        announce=True,
                    )
                except KeyboardInterrupt:  # what was measured is kept, and saved by the caller
                    self.interrupted = True
        self.order.enter("finish")
        for item in prepared:
            if self.interrupted and id(item) not in finished:
                stop_unfinished(item)
        results = [
            finished.get(id(item)) or finish_variant(config, emit, item) for item in prepared
        ]
        self.clock.lap("variants_s")
        return record, results

    def record(self, record: SamplingRecord, results: list[StrategyResult]) -> RunResult:
        """The probes again, the ceiling settled, the run's warnings and its record."""
        config, own, plan = self.config, self.own, self.plan
        if plan.peak is None and self.probes and not self.interrupted:
            self.order.enter("probe again")
        peak, ceiling_notes = settled_peak(
            own,
            plan.peak,
            (self.probes, self.levels),
            (config, results, self.peers),
            self.llc_bytes,
            self.interrupted,
            self.emit,
            plan.earlier_ceilings,
        )
        self.clock.lap("peak_s")
        self.emit(Done())
        load = self.monitor.stop()
        warnings = self.warnings + run_warnings(config, self.estimate, self.llc_bytes, peak)
        left_out = not_installed_note(config.strategies)
        warnings += [left_out] if left_out else []
        own_load = (load.warning, load.tool_note)  # other processes' load, the tool's apart
        warnings += [w for w in (*own.warnings(config, peak), *own_load, *ceiling_notes) if w]
        if self.interrupted:
            warnings.append(interrupted_warning(results))
        self.order.enter("record")
        peers = self.peers
        return RunResult(
            run_id=self.run_id,
            created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            environment=self.environment,
            config=config,
            peak=peak,
            results=results,
            warnings=warnings,
            cold_copies=self.copies,
            memory=self.estimate,
            sampling={
                **record.to_dict(),
                **({"peers": peers.sampling} if peers.sampling else {}),
                **own.sampling_extra(),
                "phases": self.order.to_list(),
            },
            machine_load=load,
            noise_floor=plan.floor,
            timings={**self.clock.timings(), **time_split(results)},
            measured_here=True,
            prediction=dict(plan.prediction) if plan.prediction is not None else None,
        )


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
