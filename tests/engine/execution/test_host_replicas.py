"""Modes replicated and sharded for the frameworks other than TensorFlow: the batch split over
host threads in the framework's own process, checked whole, with the per-replica record
TensorFlow's distributed runs have."""

from __future__ import annotations

import numpy as np

from engine.backends.numpy.runtime import NumpyRuntime
from engine.execution.replicas.device import SplitVariant
from engine.execution.replicas.host import prepare_host_replicas
from engine.measure.correctness import CHECK_STREAM, make_inputs, reference
from engine.run_settings.config import BenchConfig


def prepared_for(mode: str, replicas: int, matrices: int = 10, kernel=None):
    config = BenchConfig.from_raw(
        {
            "strategies": ["numpy"],
            "matrices": matrices,
            "dim": 4,
            "cols": 3,
            "mode": mode,
            "replicas": replicas,
            "repeats": 3,
            "warmup": 1,
            "time_budget_s": 1,
        }
    )
    runtime = NumpyRuntime("float32", 1)
    shape = (config.matrices, config.dim, config.columns, config.dtype, config.seed)
    timed = [runtime.put(make_inputs(*shape, stream=0))]
    check_host = make_inputs(*shape, stream=CHECK_STREAM)
    calls = []

    def build():
        def matvec(a, x):
            calls.append(len(a))
            return (kernel or np.matmul)(a, x[:, :, None])[:, :, 0]

        return matvec

    item = prepare_host_replicas(
        runtime,
        SplitVariant(
            config, timed, runtime.put(check_host), reference(*check_host), ("numpy", ""), build
        ),
    )
    return item, calls


def finished(item):
    for _ in range(3):
        item.sampler.sample()
    item.finish(item.sampler.timing(3))
    return item.result


def test_sharded_splits_an_uneven_batch_as_evenly_as_possible_and_says_so():
    item, calls = prepared_for("sharded", 3)
    result = finished(item)
    assert result.status == "ok" and result.correct
    assert set(calls) == {4, 3}  # 10 matrices: 4 + 3 + 3, each replica its slice only
    assert result.distribution.shard_sizes == (4, 3, 3)
    assert result.distribution.replicas_in_sync == 3 and result.work_multiplier == 1
    assert [r.matrices for r in result.replicas] == [4, 3, 3]
    assert all(r.median_s > 0 and r.device.startswith("host thread") for r in result.replicas)
    assert result.distribution.load_imbalance >= 1.0
    assert any("do not split evenly over 3 replicas: shards of 3 to 4" in n for n in result.notes)


def test_replicated_computes_the_whole_batch_on_every_replica_and_checks_each():
    item, calls = prepared_for("replicated", 2)
    result = finished(item)
    assert result.status == "ok" and result.correct and set(calls) == {10}
    assert result.work_multiplier == 2
    assert any("every replica computed all 10 matrices" in n for n in result.notes)


def test_a_slice_computed_wrong_makes_the_whole_variant_wrong():
    def wrong_on_the_short_slice(a, x):
        return np.matmul(a, x) + (1.0 if len(a) == 4 else 0.0)  # 9 matrices: 5 + 4

    item, _ = prepared_for("sharded", 2, matrices=9, kernel=wrong_on_the_short_slice)
    assert item.result.status == "ok" and not item.result.correct
