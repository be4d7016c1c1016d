"""Modes `replicated` and `sharded` for every framework but TensorFlow, in its own process.

TensorFlow distributes with `tf.distribute` (`backends/tensorflow/replica_modes.py`); NumPy,
JAX and PyTorch on a CPU host split the batch over N replicas that are threads of the
framework's process, each calling the kernel on its slice with the process's cores shared out
between them (its BLAS or intra-op pool held to cores / N threads, set when the runtime starts,
`peers/worker.py`). NumPy's
and PyTorch's kernels and JAX's compiled calls release the GIL, so the slices run at once.

`sharded`: replica k computes matrices [start_k, stop_k) (sizes differ by at most one; an
uneven batch says so). `replicated`: every replica computes the whole batch, N times the
necessary work, as `strategy.run` does. The timed step is every replica's call, each synced on
its thread, and waits for the last; the slices stay where each replica computed them (the
check joins them on the host, outside the timed step). Each replica is also timed alone on its
slice: the per-replica record TensorFlow's distributed runs have (time, imbalance, bytes).

On a GPU (PyTorch, CuPy) each replica is one GPU of its own: its slice is copied there before
any timing, and its thread calls the kernel with that device current and waits for that device
alone (`Lane`). A runtime offers it with `replica_gpus(count)` (None where fewer GPUs than
replicas are here: the variant then says how many it needs), `put_on`, `on_device` and
`sync_device`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from engine.catalogue.catalog import strategy_info
from engine.execution.replicas.device import SplitVariant, prepare_over_devices
from engine.harness.capabilities import PlacesOverDevices, PlacesPerGpu
from engine.harness.recording import Prepared, blank_result, check_outputs, record_timing
from engine.harness.replica_record import replicated_note, time_alone
from engine.harness.runtime import Runtime
from engine.measure import sharding
from engine.measure.timing import Kernel, Sampler, Timing
from engine.results.formatting import one_line
from engine.results.parts import DistributionSummary, ReplicaTiming
from engine.run_settings.config import BenchConfig

STRATEGY = "host threads"
GPU_STRATEGY = "one GPU per replica, each driven by a host thread"


class Lane:
    """Where one replica runs: a host thread on the process's own arrays (`device` None), or a
    host thread driving a GPU of its own."""

    def __init__(self, runtime: Runtime, replica: int, device: Any = None) -> None:
        self.runtime, self.replica, self.device = runtime, replica, device

    @property
    def name(self) -> str:
        if self.device is None:
            return f"host thread {self.replica} ({self.runtime.framework})"
        return f"{self.device} ({self.runtime.framework})"

    def place(self, pair: tuple[Any, Any]) -> tuple[Any, Any]:
        """Its slice where it runs: on its GPU (a copy, finished), or as it is."""
        if self.device is None:
            return pair
        put_on = self.runtime.put_on  # type: ignore[attr-defined]
        return put_on(pair[0], self.device), put_on(pair[1], self.device)

    def scope(self) -> Any:
        if self.device is None:
            return contextlib.nullcontext()
        return self.runtime.on_device(self.device)  # type: ignore[attr-defined]

    def sync(self, output: Any) -> None:
        if self.device is None:
            self.runtime.sync(output)
        else:
            self.runtime.sync_device(self.device)  # type: ignore[attr-defined]

    def call(self, fn: Callable[..., Any], pair: tuple[Any, Any]) -> Any:
        with self.scope():
            out = fn(*pair)
            self.sync(out)
        return out


def shards_for(config: BenchConfig) -> list[sharding.Shard]:
    if config.mode == "replicated":
        return sharding.replicated_shards(config.matrices, config.replicas)
    return sharding.even_shards(config.matrices, config.replicas)


def sliced(pair: tuple[Any, Any], shard: sharding.Shard) -> tuple[Any, Any]:
    """Replica k's inputs: a slice along the batch (a view where the framework has them)."""
    a, x = pair
    if shard.start == 0 and shard.stop == len(a):
        return a, x
    return a[shard.start : shard.stop], x[shard.start : shard.stop]


def why_not(strategy: str) -> str | None:
    """Why this variant runs in mode single only (None: it can be split)."""
    info = strategy_info(strategy)
    if info.user:
        return "a user's kernel runs in mode single (there every timed call gets fresh inputs)"
    if info.storage:
        return f"a {info.storage} storage point runs in mode single"
    if not info.distributable:
        return f"{info.framework_info.label} runs in mode single only: its replicas are not built"
    return None


def replica_devices(runtime: Runtime, count: int) -> list[Any] | None:
    """The runtime's own devices to lay `count` replicas over, where it has them (JAX)."""
    return runtime.replica_devices(count) if isinstance(runtime, PlacesOverDevices) else None


def replica_gpus(runtime: Runtime, count: int) -> list[Any] | None:
    """One GPU per replica, where the runtime drives several (PyTorch, CuPy) and `count` are
    here; None otherwise."""
    return runtime.replica_gpus(count) if isinstance(runtime, PlacesPerGpu) else None


def prepare_host_replicas(runtime: Runtime, split: SplitVariant) -> Prepared:
    """Build, first-call, warm up and check one variant split over `config.replicas` threads
    (or laid over the framework's own devices, where it has them)."""
    config, timed, check, reference, build = split.parts()
    strategy, option = split.variant
    result = blank_result(config, strategy, option, "ok")
    reason = runtime.unsupported(config.dtype) or why_not(strategy)
    devices = None if reason else replica_devices(runtime, config.replicas)
    if devices:  # the framework lays arrays over devices of its own (JAX): one program on all
        return prepare_over_devices(runtime, devices, split)
    gpus = None if reason else replica_gpus(runtime, config.replicas)
    if not reason and runtime.device_kind != "CPU" and gpus is None:
        reason = (
            f"{runtime.framework} on the {runtime.device_kind}: {config.replicas} replicas need "
            f"{config.replicas} devices, and fewer are here; run it in mode single"
            if isinstance(runtime, PlacesOverDevices | PlacesPerGpu)
            else f"{runtime.framework} on the {runtime.device_kind}: one device per replica "
            "is not built for it yet; run it in mode single"
        )
    if reason:
        result.status, result.error = "unsupported", reason
        return Prepared(result)
    shards = shards_for(config)
    lanes = [Lane(runtime, s.replica, gpus[i] if gpus else None) for i, s in enumerate(shards)]
    pool = ThreadPoolExecutor(max_workers=len(shards), thread_name_prefix="replica")
    try:
        fn = build()

        def step(pairs: list[tuple[Any, Any]]) -> list[Any]:
            return list(pool.map(lambda lane, pair: lane.call(fn, pair), lanes, pairs))

        def placed(pair: tuple[Any, Any]) -> list[tuple[Any, Any]]:
            return [lane.place(sliced(pair, s)) for lane, s in zip(lanes, shards)]

        sets = [placed(pair) for pair in timed]
        kernel = Kernel(call=lambda i: step(sets[i % len(sets)]), sync=lambda _out: None)
        with runtime.placement():
            sampler = Sampler(kernel, warmup=config.warmup, budget_s=config.time_budget_s)
            parts = step(placed(check))
        hosts = [runtime.to_host(part) for part in parts]
        candidates = hosts if config.mode == "replicated" else [np.concatenate(hosts)]
        check_outputs(result, candidates, reference, config, convert=np.asarray)
    except Exception as error:  # noqa: BLE001 - one variant's failure keeps the others
        pool.shutdown(wait=False)
        result.status, result.error = runtime.classify(error), one_line(error)  # type: ignore[assignment]
        return Prepared(result)

    def finish(timing: Timing) -> None:
        record_timing(result, timing, 0.0)
        with runtime.placement():
            result.replicas = each_alone(config, fn, shards, lanes, sets[0])
        pool.shutdown(wait=True)
        describe(result, config, shards, timing, GPU_STRATEGY if gpus else STRATEGY)

    return Prepared(result, sampler, finish)


def each_alone(
    config: BenchConfig,
    fn: Callable[..., Any],
    shards: list[sharding.Shard],
    lanes: list[Lane],
    pairs: list[tuple[Any, Any]],
) -> list[ReplicaTiming]:
    """Each replica's own time on its slice, not waiting for the others."""
    return [
        time_alone(
            config,
            shard,
            lane.name,
            lambda pair=pair, lane=lane: lane.call(fn, pair),
            lambda _out: None,  # the call waited for its own device
            len(shards),
        )
        for shard, lane, pair in zip(shards, lanes, pairs)
    ]


def describe(
    result: Any,
    config: BenchConfig,
    shards: list[sharding.Shard],
    timing: Timing,
    strategy: str = STRATEGY,
) -> None:
    """The run's distribution record and the notes a reader needs."""
    replicas = len(shards)
    sizes = tuple(s.matrices for s in shards)
    result.work_multiplier = replicas if config.mode == "replicated" else 1
    if config.mode == "replicated":
        result.notes.append(replicated_note(config, replicas))
    elif len(set(sizes)) > 1:
        result.notes.append(
            f"{config.matrices:,} matrices do not split evenly over {replicas} replicas: "
            f"shards of {min(sizes):,} to {max(sizes):,}"
        )
    result.distribution = DistributionSummary(
        strategy=strategy,
        replicas_in_sync=replicas,
        shard_sizes=sizes,
        step_s=timing.measurement.median_s,
        load_imbalance=sharding.load_imbalance(
            [r.median_s for r in result.replicas if r.median_s is not None]
        ),
        gather="none in the step: each slice stays where its replica computed it",
    )
