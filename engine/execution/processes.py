"""Which process runs a framework's variants: decided here, once, for every run.

- JAX, PyTorch and CuPy: always a process of their own, started before TensorFlow takes the
  device (JAX preallocates a GPU; a TPU has one owner at a time; two frameworks' thread pools
  in one process fight).
- NumPy: inside TensorFlow's run when TensorFlow is here (it needs no device, and shares the
  host inputs TensorFlow's run already holds); in a process of its own through the same
  prepare -> sample -> check path as the peers when TensorFlow is not, and in modes
  replicated and sharded (its batch split over threads, `host_replicas.py`).
- TensorFlow: the run's own process, with its distributed and dataset executors.
"""

from __future__ import annotations

from engine.spec.catalog import PEER_FRAMEWORKS


def runs_in_own_process(framework: str, tensorflow_here: bool, mode: str = "single") -> bool:
    if framework in PEER_FRAMEWORKS:
        return True
    return framework == "numpy" and (not tensorflow_here or mode != "single")
