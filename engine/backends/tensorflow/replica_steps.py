"""tf.distribute pieces: the strategy for the devices, placing shards, the timed step.

`replicated`: `strategy.run` on the full batch, every replica computing everything (the classic
mistake, kept to show its cost); `sharded`: each replica's rows placed on its device once with
`experimental_distribute_values_from_function`, and the step gathers the outputs back into one
(B, m) tensor in the original order.
"""

from __future__ import annotations

from typing import Any

from engine.backends.tensorflow.devices import DeviceSetup
from engine.backends.tensorflow.loader import tf
from engine.machine.cluster import worker_count
from engine.measure import sharding


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


def local_pairs(strategy: tf.distribute.Strategy, a: Any, x: Any) -> list[tuple[Any, Any]]:
    """This host's (A, x) shard of each replica, out of the distributed values."""
    return list(zip(strategy.experimental_local_results(a), strategy.experimental_local_results(x)))
