"""Modes `replicated` and `sharded` for every framework but TensorFlow, in its own process.

TensorFlow distributes with `tf.distribute` (`distributed.py`); NumPy, JAX and PyTorch on a
CPU host split the batch over N replicas that are threads of the framework's process, each
calling the kernel on its slice with the process's cores shared out between them (its BLAS or
intra-op pool held to cores / N threads, set when the runtime starts, `peer_worker.py`). NumPy's
and PyTorch's kernels and JAX's compiled calls release the GIL, so the slices run at once.

`sharded`: replica k computes matrices [start_k, stop_k) (sizes differ by at most one; an
uneven batch says so). `replicated`: every replica computes the whole batch, N times the
necessary work, as `strategy.run` does. The timed step is every replica's call, each synced on
its thread, and waits for the last; the slices stay where each replica computed them (the
check joins them on the host, outside the timed step). Each replica is also timed alone on its
slice: the per-replica record TensorFlow's distributed runs have (time, imbalance, bytes).

One device per replica on a multi-GPU box is not built: on an accelerator the variant says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from engine.execution.device_replicas import prepare_over_devices
from engine.harness.recording import Prepared, blank_result, check_outputs, record_timing
from engine.harness.replica_record import replicated_note, time_alone
from engine.harness.runtime import Runtime
from engine.measure import sharding
from engine.measure.timing import Kernel, Sampler, Timing
from engine.results.formatting import one_line
from engine.results.parts import DistributionSummary, ReplicaTiming
from engine.spec.catalog import strategy_info
from engine.spec.config import BenchConfig

STRATEGY = "host threads"


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
    found = getattr(runtime, "replica_devices", None)
    return found(count) if found is not None else None


def prepare_host_replicas(
    runtime: Runtime,
    config: BenchConfig,
    timed: Sequence[tuple[Any, Any]],
    check: tuple[Any, Any],
    reference: np.ndarray,
    variant: tuple[str, str],
    build: Callable[[], Callable[..., Any]],
) -> Prepared:
    """Build, first-call, warm up and check one variant split over `config.replicas` threads."""
    strategy, option = variant
    result = blank_result(config, strategy, option, "ok")
    reason = runtime.unsupported(config.dtype) or why_not(strategy)
    devices = None if reason else replica_devices(runtime, config.replicas)
    if devices:  # the framework lays arrays over devices of its own (JAX): one program on all
        return prepare_over_devices(
            runtime, devices, config, timed, check, reference, variant, build
        )
    if not reason and runtime.device_kind != "CPU":
        reason = (
            f"{runtime.framework} on the {runtime.device_kind}: {config.replicas} replicas need "
            f"{config.replicas} devices, and fewer are here; run it in mode single"
            if hasattr(runtime, "replica_devices")
            else f"{runtime.framework} on the {runtime.device_kind}: one device per replica "
            "is not built for it yet; run it in mode single"
        )
    if reason:
        result.status, result.error = "unsupported", reason
        return Prepared(result)
    shards = shards_for(config)
    pool = ThreadPoolExecutor(max_workers=len(shards), thread_name_prefix="replica")
    try:
        fn = build()

        def on_its_thread(pair: tuple[Any, Any]) -> Any:
            out = fn(*pair)
            runtime.sync(out)
            return out

        def step(pairs: list[tuple[Any, Any]]) -> list[Any]:
            return list(pool.map(on_its_thread, pairs))

        sets = [[sliced(pair, shard) for shard in shards] for pair in timed]
        kernel = Kernel(call=lambda i: step(sets[i % len(sets)]), sync=lambda _out: None)
        with runtime.placement():
            sampler = Sampler(kernel, warmup=config.warmup, budget_s=config.time_budget_s)
            parts = step([sliced(check, shard) for shard in shards])
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
            result.replicas = each_alone(runtime, config, fn, shards, sets[0])
        pool.shutdown(wait=True)
        describe(result, config, shards, timing)

    return Prepared(result, sampler, finish)


def each_alone(
    runtime: Runtime,
    config: BenchConfig,
    fn: Callable[..., Any],
    shards: list[sharding.Shard],
    pairs: list[tuple[Any, Any]],
) -> list[ReplicaTiming]:
    """Each replica's own time on its slice, not waiting for the others."""
    return [
        time_alone(
            config,
            shard,
            f"host thread {shard.replica} ({runtime.framework})",
            lambda pair=pair: fn(*pair),
            runtime.sync,
            len(shards),
        )
        for shard, pair in zip(shards, pairs)
    ]


def describe(
    result: Any, config: BenchConfig, shards: list[sharding.Shard], timing: Timing
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
        strategy=STRATEGY,
        replicas_in_sync=replicas,
        shard_sizes=sizes,
        step_s=timing.measurement.median_s,
        load_imbalance=sharding.load_imbalance(
            [r.median_s for r in result.replicas if r.median_s is not None]
        ),
        gather="none in the step: each slice stays where its replica computed it",
    )
