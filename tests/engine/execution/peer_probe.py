"""Run in a process of its own by test_peers.py: one peer framework's runtime and kernels on
random shapes (rectangular, B = 1) and every dtype, checked against the float64 reference.

Prints one JSON list of cases. A process per framework, never beside TensorFlow: that is how
the product runs them too.
"""

import json
import sys

import numpy as np

from engine.catalogue.catalog import strategies, strategy_info
from engine.execution.peers.worker import load_runtime
from engine.harness.variant import kernel_function
from engine.measure.correctness import check, fill, make_inputs, poisoned_output, reference

DTYPES = ("float32", "float16", "bfloat16", "float64")


def shapes() -> list[tuple[int, int, int]]:
    rng = np.random.default_rng(1234)
    drawn = [tuple(int(v) for v in rng.integers(1, 40, size=3)) for _ in range(6)]
    return [(1, 6, 6), (9, 1, 1), (4, 1, 5), (3, 8, 1), (7, 4, 9), *drawn]


def bitwise_equal(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.tobytes() == b.tobytes()


def main(framework: str) -> None:
    cases = []
    for dtype in DTYPES:
        runtime = load_runtime(framework, dtype, threads=1)
        # Compiled points (torch.compile) compile per shape for seconds: their contract runs
        # once, in tests/engine/backends/test_runtime_contract.py.
        names = [s.name for s in strategies() if s.framework == framework and not s.build]
        for shape in shapes() if dtype == "float32" else [(6, 5, 7)]:
            host = make_inputs(*shape, dtype, seed=11, stream=5)
            placed = runtime.put(host)
            same = all(
                bitwise_equal(runtime.to_host(p).astype(h.dtype), h) for p, h in zip(placed, host)
            )
            for name in names:
                storage = strategy_info(name).storage  # reduced precision: float32 narrowed
                if storage and dtype != "float32":
                    continue
                case = {"name": name, "shape": shape, "dtype": dtype, "inputs_bitwise": same}
                reason = runtime.unsupported(dtype)
                if reason:
                    cases.append({**case, "unsupported": reason})
                    continue
                fn = runtime.build(kernel_function(name), "")
                output = fn(*(runtime.store(placed, storage) if storage else placed))
                runtime.sync(output)
                buffer = poisoned_output(shape[0], shape[1])
                mismatch = fill(buffer, runtime.to_host(output))
                result = check(buffer, reference(*host), storage or dtype, shape[2])
                cases.append(
                    {
                        **case,
                        "correct": result.correct and not mismatch,
                        "message": mismatch or result.message,
                        "device": runtime.device_kind,
                    }
                )
    print(json.dumps(cases))


if __name__ == "__main__":
    main(sys.argv[1])
