"""Run several configs with one replica layout in one fresh process (the layout is fixed at
TensorFlow start-up, and starting it is most of a small run's time).
Usage: python -m tests.engine.execution.distributed_probe REPLICAS MODE:B[,B...] [MODE:B...]
MODE is `sharded`, `replicated` or `padded` (sharded into the TPU's padded equal shards).
Prints one JSON object: each MODE:B... argument's list of results dicts."""

import json
import os
import sys

from engine.backends.tensorflow.devices import setup_devices
from engine.backends.tensorflow.replica_modes import FORCE_PADDING_VARIABLE
from engine.catalogue.catalog import strategies
from engine.execution.run.orchestrator import run_benchmark
from engine.measure.peak import Peak
from engine.run_settings.config import BenchConfig

STRATEGIES = tuple(s.name for s in strategies() if s.distribution)


# The distributed tests check sharding and gathering, not the ceiling: no peak probes.
NO_PEAK = Peak(None, "not measured (tests of distribution)")
XLA_LAYOUTS = (2,)  # +xla is the same distribution code on every layout and mode: compiled once
# Every strategy on the first size of the two-replica layout's sharded case; every other size,
# layout and mode (B < N, remainders, three and four replicas, padding, replicated) takes one
# graph strategy and the dataset, the two ways a batch is split or repeated: each strategy's
# kernel is the same code whatever B, N and the mode are, and tracing every one again is most
# of a probe's time.
EVERY_STRATEGY_LAYOUTS = (2,)
EDGE_STRATEGIES = ("batched_matvec", "dataset")


def run_all(setup, replicas: int, mode: str, sizes: str) -> list[dict]:
    runs = []
    for index, matrices in enumerate(map(int, sizes.split(","))):
        config = BenchConfig(
            matrices=matrices,
            dim=5,
            cols=3,
            mode=mode,
            replicas=replicas,
            xla=index == 0 and replicas in XLA_LAYOUTS and mode == "sharded",
            strategies=STRATEGIES
            if index == 0 and replicas in EVERY_STRATEGY_LAYOUTS and mode == "sharded"
            else EDGE_STRATEGIES,
            warmup=0,
            repeats=2,
            dataset_batch=2,
            time_budget_s=5,
        )
        runs.append(run_benchmark(config, setup=setup, peak=NO_PEAK).to_dict())
    return runs


def main() -> None:
    replicas = int(sys.argv[1])
    setup = setup_devices(replicas)
    found = {}
    for case in sys.argv[2:]:
        mode, sizes = case.split(":")
        if mode == "padded":
            os.environ[FORCE_PADDING_VARIABLE] = "1"
        found[case] = run_all(setup, replicas, "sharded" if mode == "padded" else mode, sizes)
        os.environ.pop(FORCE_PADDING_VARIABLE, None)
    print(json.dumps(found))


if __name__ == "__main__":
    main()
