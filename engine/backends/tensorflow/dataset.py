"""The `dataset` strategy across replicas: the two tf.data distribution APIs, side by side.

`experimental_distribute_dataset` splits each global batch across replicas (the slow path of the
original question); `distribute_datasets_from_function` builds one pipeline per input worker
that yields per-replica batches. Both feed a per-replica batched matvec every step and the
outputs are concatenated back into the original order and checked like any other result.
"""

from __future__ import annotations

from typing import Any

from engine.backends.tensorflow.context import (
    Prepared,
    RunContext,
    blank_result,
    check_outputs,
    make_sampler,
    record_timing,
)
from engine.backends.tensorflow.kernels import batched_matvec
from engine.backends.tensorflow.loader import tf
from engine.machine.cluster import worker_count
from engine.measure.timing import Timing
from engine.results.parts import DistributionSummary, ReplicaTiming


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


def run_dataset(ctx: RunContext, strategy_name: str, option: str) -> Prepared:
    config = ctx.config
    result = blank_result(config, strategy_name, option, "ok")
    if config.mode != "sharded" or worker_count() > 1:
        result.status = "skipped"
        result.error = (
            "dataset is distributed only in mode sharded on one host: a tf.data pipeline "
            "splits the batch, it cannot replicate it"
        )
        return Prepared(result)
    strategy = ctx.distribution
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
    sampler = make_sampler(ctx, lambda i: compute(datasets[i % len(datasets)]))
    rows = [0] * replicas
    check_data = build_dataset(strategy, *ctx.inputs.check_device, global_batch, option)
    check_outputs(result, [compute(check_data, rows)], ctx.inputs.reference, config)

    def finish(timing: Timing) -> None:
        # The pipeline moves data inside every step: that is its cost, so no separate transfer.
        record_timing(result, timing, 0.0)
        result.replicas = [
            ReplicaTiming(replica=r, device=d, matrices=rows[r], median_s=None)
            for r, d in enumerate(ctx.setup.devices)
        ]
        result.notes.append("host->device input transfer happens inside every timed step")
        result.distribution = DistributionSummary(
            strategy=type(strategy).__name__,
            replicas_in_sync=replicas,
            api="distribute_datasets_from_function"
            if option == "from_function"
            else "experimental_distribute_dataset",
            global_batch=global_batch,
            step_s=timing.measurement.median_s,
            shard_sizes=tuple(rows),
        )

    return Prepared(result, sampler, finish)
