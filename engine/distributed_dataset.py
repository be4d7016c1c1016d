"""The `dataset` strategy across replicas: the two tf.data distribution APIs, side by side.

`experimental_distribute_dataset` splits each global batch across replicas (the slow path of the
original question); `distribute_datasets_from_function` builds one pipeline per input worker
that yields per-replica batches. Both feed a per-replica batched matvec every step and the
outputs are concatenated back into the original order and checked like any other result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import tensorflow as tf

from engine import correctness
from engine.device_sync import sync_all
from engine.kernels import batched_matvec
from engine.results import ReplicaTiming, StrategyResult
from engine.timing import Kernel, time_kernel

if TYPE_CHECKING:
    from engine.runner import RunContext


def build_dataset(strategy: tf.distribute.Strategy, a: Any, x: Any, global_batch: int, option: str):
    if option == "from_function":

        def dataset_fn(context: tf.distribute.InputContext) -> tf.data.Dataset:
            per_replica = context.get_per_replica_batch_size(global_batch)
            dataset = tf.data.Dataset.from_tensor_slices((a, x))
            dataset = dataset.shard(context.num_input_pipelines, context.input_pipeline_id)
            return dataset.batch(per_replica)

        return strategy.distribute_datasets_from_function(dataset_fn)
    dataset = tf.data.Dataset.from_tensor_slices((a, x)).batch(global_batch)
    return strategy.experimental_distribute_dataset(dataset)


def run_dataset(ctx: RunContext, result: StrategyResult, option: str) -> StrategyResult:
    from engine.devices import worker_count
    from engine.runner import apply_check

    config = ctx.config
    if config.mode != "sharded" or worker_count() > 1:
        result.status = "skipped"
        result.error = (
            "dataset is distributed only in mode sharded on one host: a tf.data pipeline "
            "splits the batch, it cannot replicate it"
        )
        return result
    strategy = ctx.strategy
    replicas = strategy.num_replicas_in_sync
    global_batch = config.dataset_batch * replicas  # dataset_batch is per replica
    step = tf.function(lambda a, x: strategy.run(batched_matvec, args=(a, x)))
    gather_device = ctx.setup.devices[0]

    def compute(datasets: Any, rows_per_replica: list[int] | None = None) -> tf.Tensor:
        pieces = []
        for a, x in datasets:
            outputs = strategy.experimental_local_results(step(a, x))
            pieces.extend(outputs)
            if rows_per_replica is not None:
                for replica, output in enumerate(outputs):
                    rows_per_replica[replica] += int(output.shape[0])
        with tf.device(gather_device):
            return tf.concat(pieces, axis=0)

    datasets = [build_dataset(strategy, a, x, global_batch, option) for a, x in ctx.inputs.timed]
    timing = time_kernel(
        Kernel(call=lambda i: compute(datasets[i % len(datasets)]), sync=sync_all),
        warmup=config.warmup,
        repeats=config.repeats,
        budget_s=config.time_budget_s,
        on_sample=lambda done, total: ctx.emit(
            {"event": "sample", "variant": result.variant, "sample": done, "of": total}
        ),
    )
    rows = [0] * replicas
    check_data = build_dataset(strategy, *ctx.inputs.check_device, global_batch, option)
    output = compute(check_data, rows)
    buffer = correctness.poisoned_output(config.matrices, config.rows)
    mismatch = correctness.fill(buffer, np.asarray(output))
    apply_check(
        result, correctness.check(buffer, ctx.inputs.reference, config.dtype, config.columns)
    )
    if mismatch:
        result.warnings.append(f"incorrect: {mismatch}")
    result.first_call_s = timing.first_call_s
    result.transfer_s = 0.0  # the pipeline moves data inside every step: that is its cost
    result.dispatch_s = timing.dispatch_s
    result.calls_per_sample = timing.measurement.calls_per_sample
    result.samples_s = timing.measurement.samples_s
    result.warnings.extend(timing.warnings)
    result.replicas = [
        ReplicaTiming(replica=r, device=d, matrices=rows[r], median_s=None)
        for r, d in enumerate(ctx.setup.devices)
    ]
    result.notes.append("host->device input transfer happens inside every timed step")
    result.distribution = {
        "strategy": type(strategy).__name__,
        "replicas_in_sync": replicas,
        "api": "distribute_datasets_from_function"
        if option == "from_function"
        else "experimental_distribute_dataset",
        "global_batch": global_batch,
        "step_s": timing.measurement.median_s,
        "shard_sizes": rows,
    }
    return result
