"""A first look while the warm worker starts: the run's NumPy variants, measured at once in a
process that needs no TensorFlow, shown as provisional until the run's own samples come.

A page clicked as the server starts waits for its worker to import TensorFlow (3-7 s here)
before anything is measured. NumPy is up in a fraction of a second, so its variants are
measured meanwhile by a one-shot `run` of their own (`--no-history`: nothing of it is stored
or learned from; `--no-ceiling`: no probe, a second of work a look does not need). It waits
its turn in the machine's queue like any run, at a lower priority (nice 10), and ends when the
worker says it is ready, so the worker's run never waits for it and is measured alone; it runs
beside TensorFlow's import (the worker's, the tool's own load), which
is why the page calls it a first look and the run measures every variant again: the run's
answer comes from the run's record only.
"""

from __future__ import annotations

import dataclasses

from engine.catalogue.catalog import strategy_info
from engine.run_settings.config import BenchConfig

# The look runs below the worker's priority: on a machine with few cores the worker's
# TensorFlow import, the page and the look share them, and the look must not delay the run.
FIRST_LOOK_NICENESS = 10
# Frameworks whose variants start in a fraction of a second: a first look that had to import
# JAX or PyTorch (1.5-3 s here) would compete with TensorFlow's import for the same cores.
ALREADY_UP = ("numpy",)


def first_look_config(config: BenchConfig) -> BenchConfig | None:
    """The run of `config`'s variants that need no framework start (the catalogue's NumPy
    ones; never a user's kernel, which runs only in its own run), or None when there are none
    or the run is not a single-device one. No profile and no history: it is only a look."""
    if config.mode != "single" or config.replicas != 1:
        return None
    infos = [strategy_info(name) for name in config.strategies]
    names = tuple(info.name for info in infos if info.framework in ALREADY_UP and not info.user)
    if not names or names == tuple(config.strategies):
        return None  # nothing to look at, or the run itself is no more than the look
    return dataclasses.replace(config, strategies=names, kernels=(), profile=False)
