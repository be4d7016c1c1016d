"""TensorFlow as the run's own process (`orchestrator.OwnProcess`): its devices and warm state,
its read probes, its inputs, and its variants prepared by the executor of their mode.

The executor of each variant is picked from a table by the mode and the strategy's own
description (how it distributes). Each variant is prepared inside its own try: a strategy that
fails (out of memory, dtype unsupported on the device, an XLA compile error) is recorded with
its status and message, and the others go on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any

from engine.backends.tensorflow.bandwidth import ceiling_warning, probe_round
from engine.backends.tensorflow.build import Builder, builder_with
from engine.backends.tensorflow.context import Executor, Prepared, RunContext, blank_result
from engine.backends.tensorflow.dataset import run_dataset
from engine.backends.tensorflow.devices import DeviceSetup
from engine.backends.tensorflow.environment import capture
from engine.backends.tensorflow.errors import classify, one_line
from engine.backends.tensorflow.loader import tf
from engine.backends.tensorflow.placement import keeps_host_inputs
from engine.backends.tensorflow.profile_after_samples import profile_variant
from engine.backends.tensorflow.replica_modes import run_distributed
from engine.backends.tensorflow.replica_steps import make_strategy
from engine.backends.tensorflow.single import run_single
from engine.backends.tensorflow.warm import WarmState
from engine.backends.tensorflow.warnings import as_note, tensorflow_warnings
from engine.catalogue.catalog import split_variant, strategy_info, variant_name
from engine.harness.recording import WHILE_PREPARED, Preparing, mark_tpu_padding, not_started
from engine.machine.accelerators import probe_kind
from engine.machine.cluster import worker_count
from engine.measure import memory
from engine.measure.peak import Peak, Probe
from engine.results.events import Phase, Progress, VariantStarted
from engine.results.parts import Environment
from engine.run_settings.config import BenchConfig

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


KEPT_FUNCTION = (
    "first call: its function was traced and compiled earlier in this warm worker (by a run of "
    "the same problem and device, or by its prewarm for the page's settings), so this run's "
    "first call is a warm call"
)


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


class TensorflowProcess:
    """The run's own process with TensorFlow: `state` is what a long-lived worker keeps
    between runs (devices, probe buffers, inputs); a fresh one starts from nothing, as a fresh
    process does. `setup`: a device layout made already (the notebook's). One instance may
    serve many runs (a sweep's points)."""

    framework_here = True
    absent = None

    def __init__(
        self,
        state: WarmState | None = None,
        setup: DeviceSetup | None = None,
        builders: Mapping[str, Builder] | None = None,
        replicas: int | None = None,
    ) -> None:
        self.state = state or WarmState()
        self.warm_start = self.state.warm
        self.setup = setup
        self.builders = builders
        self.replicas = replicas  # a layout fixed for every run (a sweep's), else each run's
        known = setup or self.state.setup
        self.kind = known.kind if known else probe_kind()
        self.probed_kind = self.kind  # its probe reads the device its variants run on
        self.distributed: Any = None
        self.ctx: RunContext | None = None
        self.inputs_reused = False

    def preflight(self, config: BenchConfig, llc_bytes: int) -> memory.MemoryEstimate:
        known = self.setup or self.state.setup
        first_device = known.devices[0] if known else None
        return self.state.preflight(config, self.kind, llc_bytes, first_device)

    def start(self, config: BenchConfig) -> list[str]:
        warnings = [w for w in [self.state.threads(config.threads)] if w]
        self.warm_start, self.distributed = self.state.warm, None  # each run its own strategy
        if config.mode != "single" and worker_count() > 1:
            # Collectives must be configured before TensorFlow initialises its context.
            self.distributed = tf.distribute.MultiWorkerMirroredStrategy()
        self.setup = self.setup or self.state.devices(self.replicas or config.replicas)
        if config.mode != "single" and self.distributed is None:
            self.distributed = make_strategy(self.setup)
        return warnings

    @property
    def device(self) -> str:
        assert self.setup is not None
        return self.setup.devices[0]

    def environment(
        self, config: BenchConfig, llc_bytes: int, llc_source: str, frameworks: dict
    ) -> Environment:
        assert self.setup is not None
        found = capture(self.setup, llc_bytes, llc_source, config.threads)
        return dataclasses.replace(found, frameworks={**found.frameworks, **frameworks})

    def probe(self, when: str, llc_bytes: int) -> list[Probe]:
        assert self.setup is not None
        buffers, effort = self.state.probe_buffers(self.device, self.setup.kind, llc_bytes)
        return probe_round(buffers, when, effort)

    def place_inputs(self, config: BenchConfig, copies: int, emit: Progress) -> None:
        assert self.setup is not None
        emit(Phase("inputs"))
        keep_host = keeps_host_inputs(config)
        inputs, self.inputs_reused = self.state.inputs_for(config, self.device, copies, keep_host)
        build = builder_with(self.builders)
        if self.builders is None:  # a test's builders are made afresh each run
            build = self.state.kept_builder(build, config, self.device)
        self.ctx = RunContext(config, self.setup, inputs, build, emit, self.distributed)

    def prepare(self, asked: Preparing) -> tuple[list[Prepared], bool]:
        """Every variant prepared (or a peer's, measured already); SIGINT while one is
        prepared stops there: it and the variants not reached say so. A confirming variant
        (the history shows it far slower than the best here) is prepared at its first turn."""
        assert self.ctx is not None
        config, variants, ready = asked.config, asked.variants, asked.ready
        self.ctx.confirming = asked.confirming
        prepared: list[Prepared] = []
        for index, variant in enumerate(variants):
            try:
                if variant in ready:
                    prepared.append(ready[variant])
                elif variant_name(*variant) in self.ctx.confirming and config.mode == "single":
                    later = blank_result(config, *variant, "ok")
                    prepared.append(Prepared(later, deferred=lambda v=variant: self.prepared(v)))
                else:
                    prepared.append(self.prepared(variant))
            except KeyboardInterrupt:
                prepared.append(not_started(config, variant, WHILE_PREPARED))
                rest = variants[index + 1 :]
                prepared += [ready.get(v) or not_started(config, v) for v in rest]
                return prepared, True
        return prepared, False

    def prepared(self, variant: tuple[str, str]) -> Prepared:
        """One variant prepared now, saying when its function was kept from an earlier run."""
        assert self.ctx is not None
        found = prepare_variant(self.ctx, *variant)
        if variant_name(*variant) in self.state.reused:
            found.result.notes.append(KEPT_FUNCTION)
        return found

    def sampling_place(self) -> AbstractContextManager[Any]:
        return tf.device(self.device)

    def classify(self, error: BaseException) -> str:
        return classify(error)

    def profile(self, prepared: list[Prepared], run_id: str) -> None:
        assert self.ctx is not None
        for item in prepared:
            if item.elsewhere:
                continue  # a peer's: profiled in its own process, by its own framework
            fresh = fresh_first_call(self.ctx, item.result.variant)
            item.result.profile = profile_variant(item, self.device, run_id, fresh)

    def release(self) -> None:
        self.ctx = None  # the inputs go (unless the warm state keeps them)
        self.state.runs += 1

    def warnings(self, config: BenchConfig, peak: Peak) -> list[str]:
        found = ceiling_warning(peak)
        return [found] if found else []

    def sampling_extra(self) -> dict[str, Any]:
        return {
            "worker": {
                "warm": self.warm_start,
                "runs_before": self.state.runs - 1,
                "inputs_reused": self.inputs_reused,
            }
        }


def make_process(
    state: WarmState | None = None,
    setup: DeviceSetup | None = None,
    builders: Mapping[str, Builder] | None = None,
    replicas: int | None = None,
) -> TensorflowProcess:
    """The run's own process, as the orchestrator asks every "run" framework's folder."""
    return TensorflowProcess(state, setup, builders, replicas)


def make_warm_state() -> WarmState:
    """What a long-lived worker keeps between runs (its inputs too)."""
    return WarmState(keep_inputs=True)


def describe_devices() -> dict[str, Any]:
    """What `devices` shows of this machine through TensorFlow (`cli/listing.py` asks every
    "run" framework's folder)."""
    from engine.backends.tensorflow.devices import describe_devices as described

    return described()


def layout(replicas: int) -> DeviceSetup:
    """The device layout a notebook's runs use, made once before the first (TensorFlow fixes
    its logical devices when it starts): `notebook.devices(replicas)`."""
    from engine.backends.tensorflow.availability import check_tensorflow
    from engine.backends.tensorflow.devices import setup_devices

    check_tensorflow()
    return setup_devices(replicas)
