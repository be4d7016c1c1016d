"""Run several configs with one replica layout in one fresh process (the layout is fixed at
TensorFlow start-up).
Usage: python -m tests.engine.execution.distributed_probe REPLICAS MODE B[,B...]
Prints one JSON list of results dicts."""

import json
import sys

from engine.backends.tensorflow.devices import setup_devices
from engine.execution.runner import run_benchmark
from engine.results.parts import Peak
from engine.spec.catalog import strategies
from engine.spec.config import BenchConfig

STRATEGIES = tuple(s.name for s in strategies() if s.distribution)


# The distributed tests check sharding and gathering, not the ceiling: no peak probes.
NO_PEAK = Peak(None, "not measured (tests of distribution)")
XLA_LAYOUTS = (2,)  # +xla is the same sharding code on every layout: compiled on one


def main() -> None:
    replicas, mode, sizes = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    setup = setup_devices(replicas)
    runs = []
    for matrices in map(int, sizes.split(",")):
        config = BenchConfig(
            matrices=matrices,
            dim=5,
            cols=3,
            mode=mode,
            replicas=replicas,
            xla=replicas in XLA_LAYOUTS or mode != "sharded",
            strategies=STRATEGIES,
            warmup=0,
            repeats=2,
            dataset_batch=2,
            time_budget_s=5,
        )
        runs.append(run_benchmark(config, setup=setup, peak=NO_PEAK).to_dict())
    print(json.dumps(runs))


if __name__ == "__main__":
    main()
