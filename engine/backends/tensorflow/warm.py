"""What a worker process keeps between runs: its device layout, the peak-bandwidth probe
buffers, and the last inputs with their float64 reference.

A one-shot CLI run starts with an empty state and drops it at the end; `python -m engine serve`
keeps one for its whole life, so a repeated run skips TensorFlow's start, the probe buffers'
allocation and the inputs. Nothing kept here is ever inside a timed region: inputs are reused
only between runs, never within one, with the same cold-cache rotation. A kept worker keeps
each strategy's function too (`kept_builder`), for the next run of the same problem (shape,
dtype, mode, device): its first call there does not trace or compile again, and its result
says so, since its first-call time is then a warm call's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.backends.tensorflow.bandwidth import ProbeBuffers, probe_round
from engine.backends.tensorflow.build import Builder, builder_with
from engine.backends.tensorflow.devices import DeviceSetup, setup_devices
from engine.backends.tensorflow.loader import tf
from engine.backends.tensorflow.placement import Inputs, keeps_host_inputs, prepare
from engine.backends.tensorflow.sync import sync_all
from engine.backends.tensorflow.threads import configure_threads
from engine.catalogue.catalog import strategy_info, variant_name
from engine.machine.accelerators import DeviceError
from engine.machine.caches import cache_levels
from engine.machine.host import last_level_cache_bytes
from engine.measure import memory
from engine.measure.cache_ceilings import LevelProber
from engine.measure.correctness import check_stream
from engine.measure.host_bandwidth import FULL, WARM, ProbeEffort
from engine.measure.memory import MemoryEstimate
from engine.run_settings.config import BenchConfig


@dataclass(frozen=True)
class InputsKey:
    """Everything the input values and their placement depend on."""

    matrices: int
    rows: int
    columns: int
    dtype: str
    seed: int
    copies: int
    device: str
    check: int  # the stream the check reads (the first timed set, or a fresh one)

    @classmethod
    def of(cls, config: BenchConfig, copies: int, device: str) -> InputsKey:
        shape = (config.matrices, config.dim, config.columns, config.dtype, config.seed)
        return cls(*shape, copies, device, check_stream(bool(config.kernels)))


class WarmState:
    """One worker's reusable parts; `keep_inputs=False` (the one-shot CLI) frees the inputs
    before the second bandwidth probe, exactly as a fresh process always did."""

    def __init__(self, keep_inputs: bool = False) -> None:
        self.keep_inputs = keep_inputs
        self.setup: DeviceSetup | None = None
        self.replicas: int | None = None
        self.buffers: ProbeBuffers | None = None
        self.inputs: Inputs | None = None
        self.inputs_key: InputsKey | None = None
        self.runs = 0
        self.thread_layout: tuple[int | None] | None = None  # (threads,) once TF took them
        self.functions: dict[tuple[str, tuple[tuple[str, Any], ...]], Any] = {}
        self.functions_key: tuple[Any, ...] | None = None
        self.reused: set[str] = set()  # the variants of this run whose function was kept

    @property
    def warm(self) -> bool:
        """True once a run has finished in this process (TensorFlow and the devices are up)."""
        return self.runs > 0

    def devices(self, replicas: int) -> DeviceSetup:
        """The layout is fixed when TensorFlow initialises: a later run must ask for the same."""
        if self.setup is None:
            self.setup, self.replicas = setup_devices(replicas), replicas
        elif replicas != self.replicas:
            raise DeviceError(
                f"replicas: this worker's devices are laid out for {self.replicas} replica(s); "
                f"a run with {replicas} needs a new worker process"
            )
        return self.setup

    def threads(self, threads: int | None) -> str | None:
        """Apply the thread count (TensorFlow fixes it when it starts): a later run must ask
        for the same, or it would run with the first one while its result says otherwise.
        Returns a warning when TensorFlow was already started by someone else."""
        if self.thread_layout is None:
            warning = configure_threads(threads)
            self.thread_layout = (threads,)
            return warning
        if self.thread_layout != (threads,):
            (had,) = self.thread_layout
            shown = "each framework's default" if had is None else str(had)
            raise DeviceError(
                f"threads: this worker's TensorFlow runs with {shown} threads; a run with "
                f"{threads or 'the default'} needs a new worker process"
            )
        return None

    def probe_buffers(
        self, device: str, device_kind: str, llc_bytes: int
    ) -> tuple[ProbeBuffers, ProbeEffort]:
        """The buffers (made on first use) and how hard to probe: fully in the first round of
        a process, a short round once the buffers are resident and the probes traced."""
        if self.buffers is None or not self.buffers.matches(device, device_kind, llc_bytes):
            self.buffers = None
            self.buffers = ProbeBuffers(device, device_kind, llc_bytes)
        return self.buffers, (WARM if self.buffers.rounds else FULL)

    def preflight(
        self, config: BenchConfig, device_kind: str, llc_bytes: int, device: str | None = None
    ) -> MemoryEstimate:
        """The memory preflight, crediting what this worker already holds for this very run;
        inputs kept for anything else are dropped first, so they never hold memory it needs.
        `device`: the run's first device, when the caller set up the devices itself."""
        copies = memory.cold_copies(config, llc_bytes)
        device = device or (self.setup.devices[0] if self.setup else None)
        held = 0
        if device is None or self.inputs_key != InputsKey.of(config, copies, device):
            self.forget_inputs()
        elif self.inputs is not None:
            held = self.inputs.held_bytes
        buffers = self.buffers is not None and self.buffers.llc_bytes == llc_bytes
        return memory.preflight(
            config, device_kind, llc_bytes, already_held=held, probe_buffers_held=buffers
        )

    def inputs_for(
        self, config: BenchConfig, device: str, copies: int, keep_host: bool
    ) -> tuple[Inputs, bool]:
        """The inputs and float64 reference for `config`, and whether they were reused."""
        key = InputsKey.of(config, copies, device)
        held = self.inputs
        if held is not None and self.inputs_key == key and (held.host_timed or not keep_host):
            return held, True
        self.forget_inputs()  # the old set is freed before the new one is made
        inputs = prepare(config, device, copies, keep_host=keep_host)
        if self.keep_inputs:
            self.inputs, self.inputs_key = inputs, key
        return inputs, False

    def prewarm(self, replicas: int, threads: int | None) -> None:
        """Before any request, on a CPU: the threads, the devices and the probe buffers, so
        the first run spends its time measuring. Nothing is timed here."""
        self.threads(threads)
        setup = self.devices(replicas)
        self.probe_buffers(setup.devices[0], setup.kind, last_level_cache_bytes()[0])

    def prewarm_probes(self) -> None:
        """After `prewarm`, in the machine's queue: one full round of the memory and cache
        probes, its readings dropped (no run's ceiling comes from it). What the full round is
        for, buffers resident, probes traced, the fastest kernel found, is then done, so the
        first run probes with the short round a warm worker's later runs take."""
        if self.setup is None or self.buffers is None:
            return
        probe_round(self.buffers, "prewarm", FULL)
        LevelProber(self.setup.kind, *cache_levels()).probe("prewarm")

    def prewarm_inputs(self, expected: BenchConfig) -> None:
        """After `prewarm`: the inputs of the run `expected` (the dashboard's settings as the
        page opened), made while its user reads the page, and reused if the run asks for the
        same; inputs that would not fit beside that run are not made (`PreflightError`)."""
        if self.setup is None or not self.keep_inputs:
            return
        llc_bytes, device = last_level_cache_bytes()[0], self.setup.devices[0]
        self.preflight(expected, self.setup.kind, llc_bytes, device)
        copies = memory.cold_copies(expected, llc_bytes)
        self.inputs_for(expected, device, copies, keeps_host_inputs(expected))

    def prewarm_functions(self, expected: BenchConfig) -> None:
        """After `prewarm_inputs`: each catalogue graph strategy of the run `expected` (mode
        single), built, traced and called once on those inputs, and kept as a run's would be
        (`kept_builder`): that run's first calls are then warm ones, and its results say so.
        Nothing here is timed; a strategy that fails is left to the run, which says why in its
        own words. A user's kernel is never called outside a run's harness."""
        inputs, setup, key = self.inputs, self.setup, self.inputs_key
        if inputs is None or setup is None or key is None or expected.mode != "single":
            return
        device = setup.devices[0]
        if key != InputsKey.of(expected, key.copies, device):
            return  # the inputs made were not that run's
        build = self.kept_builder(builder_with(None), expected, device)
        for name in expected.strategies:
            info = strategy_info(name)
            if info.kind != "graph" or info.user:
                continue
            for xla in (False, True) if expected.xla and info.supports_xla else (False,):
                try:
                    with tf.device(device):
                        fn = build(name, xla=xla, dataset_batch=expected.dataset_batch)
                        sync_all(fn(*inputs.timed[0]))
                except Exception:  # noqa: BLE001 - the run meets the same failure and says it
                    continue

    def kept_builder(self, build: Builder, config: BenchConfig, device: str) -> Builder:
        """`build`, keeping each traced function (a graph kernel's) it makes for the next run
        of the same problem in a kept worker (a one-shot process builds afresh); another
        problem drops them all."""
        self.reused = set()
        if not self.keep_inputs:
            return build
        key = (config.matrices, config.dim, config.columns, config.dtype, config.mode)
        key += (config.replicas, config.dataset_batch, device)
        if key != self.functions_key:
            self.functions, self.functions_key = {}, key

        def kept(strategy: str, **options: Any) -> Any:
            if strategy_info(strategy).kind != "graph":  # nothing traced: nothing to keep
                return build(strategy, **options)
            name = (strategy, tuple(sorted(options.items())))
            if name in self.functions:
                self.reused.add(variant_name(strategy, "xla" if options.get("xla") else ""))
            else:
                self.functions[name] = build(strategy, **options)
            return self.functions[name]

        return kept

    def forget_inputs(self) -> None:
        self.inputs = None
        self.inputs_key = None
