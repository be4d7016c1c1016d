"""One runtime's contract, run in a process of its own (as the engine runs it).
Usage: python -m tests.engine.backends.runtime_probe FRAMEWORK; prints one JSON object."""

from __future__ import annotations

import json
import sys

import numpy as np

from engine.catalogue.catalog import strategies, strategy_info
from engine.execution.peers.worker import load_runtime
from engine.harness.variant import kernel_function
from engine.measure.correctness import check, fill, make_inputs, poisoned_output, reference
from engine.results.formatting import classify_error

SHAPES = [(5, 3, 3), (7, 4, 9), (1, 6, 6), (9, 1, 1), (4, 1, 5), (3, 8, 1), (1, 1, 1)]
DTYPES = ("float32", "float64", "float16", "bfloat16")


def same_bits(placed: np.ndarray, host: np.ndarray) -> bool:
    if host.dtype.name == "bfloat16":
        return bool(np.array_equal(placed.astype(np.float32), host.astype(np.float32)))
    return placed.dtype == host.dtype and placed.tobytes() == host.tobytes()


def built(runtime, name: str, build: str):
    """The callable a run times: the catalogue's TensorFlow strategies are built by their kind
    (graph or eager) in the run's own process; every other kernel by its runtime."""
    if runtime.framework == "tensorflow":
        from engine.backends.tensorflow.build import build_kernel

        return build_kernel(name, dataset_batch=4)
    return runtime.build(kernel_function(name), build)


def main() -> None:
    framework = sys.argv[1]
    names = [s.name for s in strategies() if s.framework == framework]
    report: dict = {
        "framework": framework,
        "cases": [],
        "refused": {},
        "kernel_refusals": [],
        "bad_option": None,
    }
    for dtype in DTYPES:
        runtime = load_runtime(framework, dtype, threads=1)
        reason = runtime.unsupported(dtype)
        if reason:
            report["refused"][dtype] = reason
            continue
        for shape in SHAPES:
            host = make_inputs(*shape, dtype, seed=3, stream=1)
            placed = runtime.put(host)
            bits = all(same_bits(runtime.to_host(p), h) for p, h in zip(placed, host, strict=True))
            bits = bits and same_bits(runtime.to_host(runtime.put_array(host[1])), host[1])
            for name in names:
                build, storage = strategy_info(name).build, strategy_info(name).storage
                if build and (dtype != "float32" or shape != SHAPES[0]):
                    continue  # a compiled point: once, compiling takes seconds per shape
                if storage and dtype != "float32":
                    continue  # reduced precision narrows float32 inputs, nothing else
                fn = built(runtime, name, build)
                try:
                    output = fn(*(runtime.store(placed, storage) if storage else placed))
                    runtime.sync(output)
                except Exception as error:
                    report["kernel_refusals"].append(
                        {"strategy": name, "dtype": dtype, "status": classify_error(error)}
                    )
                    continue
                out = poisoned_output(shape[0], shape[1])
                problem = fill(out, runtime.to_host(output))
                result = check(out, reference(*host), storage or dtype, shape[2])
                report["cases"].append(
                    {
                        "strategy": name,
                        "dtype": dtype,
                        "shape": list(shape),
                        "bits": bits,
                        "correct": problem is None and result.correct,
                        "message": problem or result.message,
                    }
                )
    try:  # TensorFlow has an xla variant; no framework has a "no-such" one
        runtime.build(kernel_function(names[0]), "xla" if framework != "tensorflow" else "no-such")
    except ValueError as error:
        report["bad_option"] = str(error)
    report["device_kind"] = runtime.device_kind
    report["memory"] = runtime.memory_stats()
    report["classified"] = runtime.classify(RuntimeError("dtype bfloat16 is not supported here"))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
