"""A peer process's inputs: the engine's input sets placed on its framework's device, with the
check set and its float64 reference, drawn for each request, or in a kept process
(`peers/kept.py`) reused from its last request of the same problem."""

from __future__ import annotations

import time

from engine.execution.peers.kept import KEEP_INPUTS_SHARE, KEPT
from engine.harness import capabilities
from engine.harness.runtime import Runtime
from engine.harness.variant import PlacedInputs
from engine.machine.host import available_bytes
from engine.measure.correctness import CHECK_STREAM, check_stream, make_inputs, reference
from engine.measure.memory import input_set_bytes
from engine.run_settings.config import BenchConfig


def place_inputs(
    runtime: Runtime, config: BenchConfig, copies: int, keep_host: bool = False
) -> PlacedInputs:
    """The engine's input sets on the framework's device, and the check's with its reference:
    the first timed set itself, or where the process runs a user's kernel (`keep_host`), a
    fresh set (`correctness.check_stream`). `keep_host`: such a process keeps each set's A on
    the host to check its timed calls against."""
    shape = (config.matrices, config.dim, config.columns, config.dtype, config.seed)
    timed, kept, transfer_s = [], [], 0.0
    for stream in range(copies):
        host = make_inputs(*shape, stream=stream)
        start = time.perf_counter()
        timed.append(runtime.put(host))
        if stream == 0:
            transfer_s, first_host = time.perf_counter() - start, host
        if keep_host:
            kept.append(host[0])
    if check_stream(keep_host) == 0:  # the catalogue's strategies: the first timed set
        return PlacedInputs(timed, timed[0], reference(*first_host), transfer_s, kept)
    check_host = make_inputs(*shape, stream=CHECK_STREAM)
    placed_check = runtime.put(check_host)
    return PlacedInputs(timed, placed_check, reference(*check_host), transfer_s, kept)


def kept_inputs(
    runtime: Runtime, config: BenchConfig, copies: int, keep_host: bool
) -> tuple[PlacedInputs, bool]:
    """`place_inputs`, or a kept process's set of the same problem from its last request (then
    True: `peers/kept.py`; a user kernel's process never keeps)."""
    key = (runtime.framework, config.matrices, config.dim, config.columns, config.dtype)
    key += (config.seed, copies, capabilities.process_count(runtime))

    def fits() -> bool:
        held = input_set_bytes(config) * copies + config.matrices * config.dim * 8  # check shared
        free, _ = available_bytes("CPU")
        return free is not None and held <= KEEP_INPUTS_SHARE * free

    if keep_host:
        return place_inputs(runtime, config, copies, keep_host=True), False
    return KEPT.placed(key, lambda: place_inputs(runtime, config, copies), fits)
