"""Modes `replicated` and `sharded` for graph kernels, with a per-replica breakdown.

`replicated`: `strategy.run` on the full batch, every replica computing everything; every
replica's output is read out of the PerReplica with `experimental_local_results` and checked.
`sharded`: the batch split across replicas once, outside the timed region; the timed step
includes gathering the outputs back into one (B, m) tensor in the original order.
"""

from __future__ import annotations

import os
import time
from typing import Any

from engine.backends.tensorflow.context import (
    Prepared,
    RunContext,
    blank_result,
    check_outputs,
    make_sampler,
    record_timing,
)
from engine.backends.tensorflow.loader import tf
from engine.backends.tensorflow.replica_steps import (
    distribute,
    local_pairs,
    make_step,
    shard_layout,
)
from engine.backends.tensorflow.sync import sync_all
from engine.machine.cluster import task_index, worker_count
from engine.measure import roofline, sharding
from engine.measure.timing import Kernel, Timing, time_kernel
from engine.results.parts import DistributionSummary, ReplicaTiming

# The per-replica solo timings and the replicated baseline are context, not the headline:
# fewer samples keep a distributed run's wall time reasonable.
CONTEXT_REPEATS = 10
UNREACHABLE_BUDGET_S = 1e9
# Exercise the TPU's padded equal-shape shards on any device (used by the tests on CPU).
FORCE_PADDING_VARIABLE = "MATVEC_FORCE_PADDED_SHARDS"


def time_replicas_alone(
    ctx: RunContext, kernel: Any, shards: list[sharding.Shard], per_replica: list[tuple[Any, Any]]
) -> list[ReplicaTiming]:
    """Each replica's own compute time on its own device, not waiting for the others."""
    config = ctx.config
    timings = []
    for shard, (a, x), device in zip(shards, per_replica, ctx.setup.devices):
        if shard.padded_size == 0:
            timings.append(ReplicaTiming(shard.replica, device, 0, None))
            continue
        with tf.device(device):
            timing = time_kernel(
                Kernel(call=lambda _i, a=a, x=x: kernel(a, x), sync=sync_all),
                warmup=1,
                repeats=min(config.repeats, CONTEXT_REPEATS),
                budget_s=config.time_budget_s / max(1, len(shards)),
            )
        median = timing.measurement.median_s
        work = roofline.traffic_bytes(shard.matrices, config.dim, config.columns, config.itemsize)
        timings.append(
            ReplicaTiming(
                replica=shard.replica,
                device=device,
                matrices=shard.matrices,
                median_s=median,
                bytes_per_s=work / median if shard.matrices and median > 0 else None,
            )
        )
    return timings


def placed_inputs(ctx: RunContext, shards: list[sharding.Shard]) -> tuple[list, float]:
    """The timed input sets laid out over the replicas, once per run for all variants."""
    key = ("placed", tuple(shards))
    if key not in ctx.shared:
        start = time.perf_counter()
        placed = [
            (distribute(ctx.distribution, shards, a), distribute(ctx.distribution, shards, x))
            for a, x in ctx.inputs.timed
        ]
        sync_all()
        ctx.shared[key] = (placed, (time.perf_counter() - start) / len(placed))
    return ctx.shared[key]


def run_distributed(ctx: RunContext, strategy_name: str, option: str) -> Prepared:
    config = ctx.config
    result = blank_result(config, strategy_name, option, "ok")
    strategy = ctx.distribution
    replicas = strategy.num_replicas_in_sync
    pad = ctx.setup.kind == "TPU" or bool(os.environ.get(FORCE_PADDING_VARIABLE))
    shards = shard_layout(config.mode, config.matrices, replicas, pad)
    kernel = ctx.build(strategy_name, xla=option == "xla", dataset_batch=config.dataset_batch)
    gather_device = ctx.setup.devices[0]
    step = make_step(strategy, kernel, config.mode, config.matrices, gather_device)
    placed, transfer_s = placed_inputs(ctx, shards)
    lockstep = worker_count() > 1
    sampler = make_sampler(
        ctx,
        lambda i: step(*placed[i % len(placed)]),
        budget_s=UNREACHABLE_BUDGET_S if lockstep else None,
        fixed_calls=1 if lockstep else None,
    )
    check_a = distribute(strategy, shards, ctx.inputs.check_device[0])
    check_x = distribute(strategy, shards, ctx.inputs.check_device[1])
    outputs = step(check_a, check_x)
    candidates = list(outputs) if config.mode == "replicated" else [outputs]
    check_outputs(result, candidates, ctx.inputs.reference, config)

    def finish(timing: Timing) -> None:
        record_timing(result, timing, transfer_s)
        local = local_pairs(strategy, *placed[0])
        first_local = task_index() * len(local)  # multi-worker: this host's replicas
        replica_times = time_replicas_alone(
            ctx, kernel, shards[first_local : first_local + len(local)], local
        )
        result.replicas = replica_times
        result.work_multiplier = replicas if config.mode == "replicated" else 1
        padding_rows = sum(s.padding for s in shards)
        baseline: dict[str, float | None] = {}
        if config.mode == "replicated":
            result.notes.append(
                f"every replica computed all {config.matrices:,} matrices: {replicas}x the "
                "necessary work (rates count the necessary work once)"
            )
        elif not lockstep:
            baseline = replicated_baseline(ctx, kernel, timing.measurement.median_s)
        if pad and padding_rows:
            result.notes.append(
                f"TPU needs equal shard shapes: {padding_rows} zero rows padded "
                "and dropped after the gather"
            )
        result.distribution = DistributionSummary(
            strategy=type(strategy).__name__,
            replicas_in_sync=replicas,
            workers=worker_count(),
            shard_sizes=tuple(s.matrices for s in shards),
            padded=pad,
            padding_rows=padding_rows,
            step_s=timing.measurement.median_s,
            load_imbalance=sharding.load_imbalance([r.median_s for r in replica_times]),
            gather="strategy.gather (all-gather)"
            if lockstep
            else f"concat of experimental_local_results on {gather_device}",
            **baseline,
        )

    return Prepared(result, sampler, finish)


def replicated_baseline(
    ctx: RunContext, kernel: Any, sharded_step_s: float
) -> dict[str, float | None]:
    """Time the replicated step of the same kernel, for the sharded-over-replicated speedup."""
    config = ctx.config
    strategy = ctx.distribution
    shards = shard_layout("replicated", config.matrices, strategy.num_replicas_in_sync, False)
    step = make_step(strategy, kernel, "replicated", config.matrices, ctx.setup.devices[0])
    a, x = ctx.inputs.timed[0]
    full_a, full_x = distribute(strategy, shards, a), distribute(strategy, shards, x)
    timing = time_kernel(
        Kernel(call=lambda _i: step(full_a, full_x), sync=sync_all),
        warmup=1,
        repeats=min(config.repeats, CONTEXT_REPEATS),
        budget_s=config.time_budget_s,
    )
    replicated_s = timing.measurement.median_s
    return {
        "replicated_step_s": replicated_s,
        "speedup_over_replicated": replicated_s / sharded_step_s if sharded_step_s else None,
    }
