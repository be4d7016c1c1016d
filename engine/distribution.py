"""The same batched matvec under tf.distribute, done right, with a per-replica breakdown.

`replicated`: `strategy.run` on the full batch, every replica computing everything (the classic
mistake, kept to show its cost); every replica's output is read out of the PerReplica with
`experimental_local_results` and checked. `sharded`: the batch split across replicas once,
outside the timed region, with `experimental_distribute_values_from_function`; the timed step
includes gathering the outputs back into one (B, m) tensor in the original order.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

import numpy as np
import tensorflow as tf

from engine import correctness, roofline, sharding
from engine.catalog import strategy_info
from engine.device_sync import sync_all
from engine.devices import DeviceSetup, task_index, worker_count
from engine.kernels import GRAPH_KERNELS
from engine.results import ReplicaTiming, StrategyResult
from engine.timing import Kernel, time_kernel

if TYPE_CHECKING:
    from engine.runner import RunContext

# The per-replica solo timings and the replicated baseline are context, not the headline:
# fewer samples keep a distributed run's wall time reasonable.
CONTEXT_REPEATS = 10
UNREACHABLE_BUDGET_S = 1e9
# Exercise the TPU's padded equal-shape shards on any device (used by the tests on CPU).
FORCE_PADDING_VARIABLE = "MATVEC_FORCE_PADDED_SHARDS"


def make_strategy(setup: DeviceSetup) -> tf.distribute.Strategy:
    """TPUStrategy on TPU (all cores of the slice), else MirroredStrategy over the replicas.

    Multi-worker runs build MultiWorkerMirroredStrategy earlier, before TensorFlow starts.
    """
    if setup.kind == "TPU":
        return tf.distribute.TPUStrategy(setup.tpu_resolver)
    # CPU devices have no NCCL; reducing through one device works everywhere.
    cross_device = None if setup.kind == "GPU" else tf.distribute.ReductionToOneDevice()
    return tf.distribute.MirroredStrategy(list(setup.devices), cross_device_ops=cross_device)


def shard_layout(mode: str, matrices: int, replicas: int, pad: bool) -> list[sharding.Shard]:
    if mode == "replicated":
        return sharding.replicated_shards(matrices, replicas)
    return (sharding.padded_shards if pad else sharding.even_shards)(matrices, replicas)


def distribute(strategy: tf.distribute.Strategy, shards: list[sharding.Shard], tensor: Any) -> Any:
    """Place each replica's rows on its own device, once (padded with zeros where required)."""

    def value_fn(context: tf.distribute.experimental.ValueContext) -> tf.Tensor:
        shard = shards[context.replica_id_in_sync_group]
        part = tensor[shard.start : shard.stop]
        if shard.padding:
            pad = [[0, shard.padding]] + [[0, 0]] * (len(tensor.shape) - 1)
            part = tf.pad(part, pad)
        return tf.identity(part)

    return strategy.experimental_distribute_values_from_function(value_fn)


def make_step(
    strategy: tf.distribute.Strategy, kernel: Any, mode: str, matrices: int, gather_device: str
) -> Any:
    """One timed step: every replica's kernel, then (sharded) the gather into (B, m)."""
    multi_worker = worker_count() > 1

    def replica_fn(a: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
        if a.shape[0] == 0:  # B < N: an empty shard has nothing to launch (XLA cannot)
            return tf.zeros((0, a.shape[1]), a.dtype)
        return kernel(a, x)

    @tf.function
    def step(a: Any, x: Any) -> Any:
        outputs = strategy.run(replica_fn, args=(a, x))
        if mode == "replicated":
            return strategy.experimental_local_results(outputs)
        if multi_worker:
            return strategy.gather(outputs, axis=0)[:matrices]
        with tf.device(gather_device):
            return tf.concat(strategy.experimental_local_results(outputs), axis=0)[:matrices]

    return step


def check_outputs(
    mode: str, outputs: Any, reference: np.ndarray, dtype: str, cols: int
) -> tuple[correctness.Check, list[str]]:
    """Sharded: the gathered (B, m) tensor. Replicated: every replica's own full output."""
    candidates = list(outputs) if mode == "replicated" else [outputs]
    checks: list[correctness.Check] = []
    problems: list[str] = []
    for index, output in enumerate(candidates):
        buffer = correctness.poisoned_output(*reference.shape)
        mismatch = correctness.fill(buffer, np.asarray(output))
        if mismatch:
            problems.append(f"replica {index}: {mismatch}" if mode == "replicated" else mismatch)
        checks.append(correctness.check(buffer, reference, dtype, cols))
    worst = max(checks, key=lambda c: (not c.correct, c.max_rel_error))
    return worst, problems


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
        work = roofline.traffic_bytes(shard.matrices, config.rows, config.columns, config.itemsize)
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


def run_distributed(ctx: RunContext, strategy_name: str, option: str) -> StrategyResult:
    from engine.runner import apply_check, blank_result

    config = ctx.config
    result = blank_result(config, strategy_name, option, "ok")
    if not strategy_info(strategy_name).distributable:
        result.status = "skipped"
        result.error = f"{strategy_name} has no tf.distribute form; run it in mode single"
        return result
    if strategy_name == "dataset":
        from engine.distributed_dataset import run_dataset

        return run_dataset(ctx, result, option)

    strategy = ctx.strategy
    replicas = strategy.num_replicas_in_sync
    pad = ctx.setup.kind == "TPU" or bool(os.environ.get(FORCE_PADDING_VARIABLE))
    shards = shard_layout(config.mode, config.matrices, replicas, pad)
    kernel = tf.function(GRAPH_KERNELS[strategy_name], jit_compile=option == "xla")
    step = make_step(strategy, kernel, config.mode, config.matrices, ctx.setup.devices[0])
    start = time.perf_counter()
    distributed = [
        (distribute(strategy, shards, a), distribute(strategy, shards, x))
        for a, x in ctx.inputs.timed
    ]
    sync_all()
    transfer_s = (time.perf_counter() - start) / len(distributed)
    lockstep = worker_count() > 1
    timing = time_kernel(
        Kernel(call=lambda i: step(*distributed[i % len(distributed)]), sync=sync_all),
        warmup=config.warmup,
        repeats=config.repeats,
        budget_s=UNREACHABLE_BUDGET_S if lockstep else config.time_budget_s,
        fixed_calls=1 if lockstep else None,
        on_sample=lambda done, total: ctx.emit(
            {"event": "sample", "variant": result.variant, "sample": done, "of": total}
        ),
    )
    check_a = distribute(strategy, shards, ctx.inputs.check_device[0])
    check_x = distribute(strategy, shards, ctx.inputs.check_device[1])
    check, problems = check_outputs(
        config.mode, step(check_a, check_x), ctx.inputs.reference, config.dtype, config.columns
    )
    apply_check(result, check)
    result.warnings.extend(f"incorrect: {p}" for p in problems)

    first_a, first_x = distributed[0]
    local = list(
        zip(
            strategy.experimental_local_results(first_a),
            strategy.experimental_local_results(first_x),
        )
    )
    first_local = task_index() * len(local)  # multi-worker: this host's replicas
    replica_times = time_replicas_alone(
        ctx, kernel, shards[first_local : first_local + len(local)], local
    )
    result.first_call_s = timing.first_call_s
    result.transfer_s = transfer_s
    result.dispatch_s = timing.dispatch_s
    result.calls_per_sample = timing.measurement.calls_per_sample
    result.samples_s = timing.measurement.samples_s
    result.warnings.extend(timing.warnings)
    result.budget_exhausted = timing.budget_exhausted
    result.replicas = replica_times
    result.work_multiplier = replicas if config.mode == "replicated" else 1
    summary: dict[str, Any] = {
        "strategy": type(strategy).__name__,
        "replicas_in_sync": replicas,
        "workers": worker_count(),
        "shard_sizes": [s.matrices for s in shards],
        "padded": pad,
        "padding_rows": sum(s.padding for s in shards),
        "step_s": timing.measurement.median_s,
        "load_imbalance": sharding.load_imbalance([r.median_s for r in replica_times]),
        "gather": "strategy.gather (all-gather)"
        if lockstep
        else f"concat of experimental_local_results on {ctx.setup.devices[0]}",
    }
    if config.mode == "replicated":
        result.notes.append(
            f"every replica computed all {config.matrices:,} matrices: {replicas}x the "
            "necessary work (rates count the necessary work once)"
        )
    elif not lockstep:
        summary.update(replicated_baseline(ctx, kernel, timing.measurement.median_s))
    if pad and summary["padding_rows"]:
        result.notes.append(
            f"TPU needs equal shard shapes: {summary['padding_rows']} zero rows padded "
            "and dropped after the gather"
        )
    result.distribution = summary
    return result


def replicated_baseline(ctx: RunContext, kernel: Any, sharded_step_s: float) -> dict[str, Any]:
    """Time the replicated step of the same kernel, for the sharded-over-replicated speedup."""
    config = ctx.config
    strategy = ctx.strategy
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
