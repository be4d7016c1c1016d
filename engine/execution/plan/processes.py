"""Which process runs a framework's variants: decided here, once, for every run, from the
process policy its folder declares (`FrameworkInfo.process`):

- "own" (JAX, PyTorch, CuPy): always a process of its own, started before TensorFlow takes
  the device;
- "host" (NumPy): inside the run's own framework process when there is one (TensorFlow's) and
  the mode is single (it needs no device, and shares the host inputs that process holds); in a
  process of its own through the same prepare -> sample -> check path as the others when there
  is none, and in modes replicated and sharded (its batch split over threads,
  `replicas/host.py`);
- "run" (TensorFlow): the run's own process, with its distributed and dataset executors.
"""

from __future__ import annotations

from engine.catalogue.catalog import framework_info


def runs_in_own_process(framework: str, run_framework_here: bool, mode: str = "single") -> bool:
    policy = framework_info(framework).process
    if policy == "own":
        return True
    return policy == "host" and (not run_framework_here or mode != "single")
