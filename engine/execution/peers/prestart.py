"""A kept peer process's start before its run measures (`peer_pool.PeerPool.prestart`).

A one-shot run starts JAX's and PyTorch's processes one after another, each importing its
framework and drawing its inputs while nothing else runs (seconds each: docs/timing.md,
"Figures behind the code"). None of that is timed,
so a kept process does it while the run's own process imports TensorFlow, and the run measures
only once every process has answered (`PeerPool.settle`): nothing timed ever runs beside it.
What it placed while others started was not timed alone, so its `transfer_s` is not reported.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from engine.catalogue.catalog import strategy_info
from engine.execution.peers.inputs import kept_inputs
from engine.execution.peers.kept import KEPT
from engine.execution.peers.request import PeerRequest, RequestRefused
from engine.execution.peers.runtime import limit_cpus, load_runtime
from engine.harness.capabilities import PreloadsCompiler


def prestart(request: PeerRequest) -> dict[str, Any]:
    """Load the framework (and its compiler, where a variant asks for it) and draw the run's
    inputs, kept for the request that follows; nothing is called or timed."""
    if not KEPT.keeping or request.config.mode != "single":
        raise RequestRefused("prestart: only a kept process of a single-mode run starts early")
    config, start = request.config, time.perf_counter()
    runtime = load_runtime(request.framework, config.dtype, limit_cpus(request.threads))
    if isinstance(runtime, PreloadsCompiler) and any(
        strategy_info(name).compiler for name, _ in request.variants
    ):
        runtime.preload_compiler()
    _, reused = kept_inputs(runtime, config, request.copies, keep_host=False)
    if not reused and KEPT.inputs is not None:  # placed beside other starts: not a timing
        KEPT.inputs = dataclasses.replace(KEPT.inputs, transfer_s=None)
    return {"framework": request.framework, "prestart_s": time.perf_counter() - start}
