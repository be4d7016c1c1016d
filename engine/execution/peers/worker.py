"""One peer framework's variants, in a process of its own (`-m engine.execution.peers.worker`).

Started by the run (`peers/parent.py`) with a request on stdin (`PeerRequest` in
`peers/request.py`: the config, the variants, the number of cold-cache input sets, the thread
count every framework gets ...), validated before the framework is imported. It limits its CPU
affinity to that many cores *before* the framework starts its thread pools, makes the engine's
inputs (same seed, same streams: bit for bit what TensorFlow gets), puts them on the
framework's device, and prepares, samples and checks each variant through the one path every
framework takes (`variant.py`), interleaved with the others of its framework. It imports
TensorFlow only to measure a user's TensorFlow kernel.

Protocol on stdout (one JSON object per line): `{"event": ...}` progress events, then one
`{"peer_result": {...}}`. Everything else the framework prints goes to stderr, so it cannot
corrupt the protocol. With `--keep` (`peers/pool.py`: a warm worker's, a sweep's) it serves a
request a line until stdin closes, keeping its runtime and built functions (`peers/kept.py`);
it refuses a user's kernel, which always runs in a process of its own.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from engine.catalogue.catalog import is_known, strategy_info, variant_name
from engine.catalogue.strategy_info import declared_call, framework_info
from engine.execution.peers.device_probes import device_l2_probes, device_probes
from engine.execution.peers.inputs import kept_inputs
from engine.execution.peers.kept import KEPT
from engine.execution.peers.preparing import after_samples, prepare_peer_variant, prestart
from engine.execution.peers.request import PeerRequest, RequestRefused
from engine.execution.peers.runtime import limit_cpus, load_runtime
from engine.execution.plan.phase_order import PhaseOrder
from engine.execution.sampling.loop import fixed_plan, race_plan, take_samples
from engine.harness import capabilities
from engine.harness.recording import Prepared
from engine.harness.variant import (
    failing_sample,
)
from engine.measure.uncertainty import NoiseFloor
from engine.process.descendants import adopt_orphans, end_descendants
from engine.process.parent_watch import die_with_parent
from engine.results.codec import result_to_dict
from engine.results.events import Event, Phase, VariantStarted
from engine.results.formatting import one_line

RESULT_KEY = "peer_result"
TOKEN_KEY = "token"  # the run's per-process token, on every protocol line


def run(request: PeerRequest, write: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Measure the request's variants, phase by phase (`phase_order.PHASES`); returns the
    `peer_result` object."""
    config, framework, variants = request.config, request.framework, list(request.variants)
    threads = limit_cpus(request.threads)
    split = config.mode != "single"  # the batch split over replicas: the cores shared out
    framework_threads = max(1, threads // config.replicas) if split else threads
    order = PhaseOrder()

    def emit(event: Event) -> None:
        write(event.to_dict())

    start = time.perf_counter()
    threads_before = set(threading.enumerate())
    order.enter("start")
    emit(Phase(f"starting {framework}"))
    lay_out = framework_info(framework).lay_out_replicas
    if split and lay_out:  # before the framework starts: a runtime may lay replicas over devices
        declared_call(lay_out, config.replicas)
    runtime = load_runtime(framework, config.dtype, framework_threads)
    started_s = time.perf_counter() - start
    order.enter("probe")
    probe_bytes = request.probe_bytes
    memory_before = device_probes(runtime, probe_bytes, "before")  # an accelerator's own
    probes = memory_before + device_l2_probes(runtime, "before")
    order.enter("place")
    emit(Phase(f"inputs ({framework})"))
    user = any(is_user_kernel(name) for name, _ in variants)  # a user kernel's own process
    inputs, inputs_reused = kept_inputs(runtime, config, request.copies, keep_host=user)
    priors = dict(request.priors)
    elsewhere = {name: list(samples) for name, samples in request.elsewhere.items()}
    if not elsewhere and {variant_name(*v) for v in variants} <= set(priors):
        priors = {}  # nothing here to judge a confirming block against
    order.enter("prepare")
    prepared = []
    for variant in variants:
        emit(VariantStarted(variant_name(*variant)))
        prepared.append(
            prepare_peer_variant(runtime, request, inputs, variant, priors, bool(memory_before))
        )
    order.enter("sample")
    emit(Phase(f"sampling ({framework}, {config.order})"))
    record = sampled(runtime, request, prepared, priors, elsewhere, emit)
    order.enter("finish")
    for item in prepared:
        if item.sampler is not None and item.finish is not None:
            item.finish(item.sampler.timing(config.repeats, item.result.stop_reason))
    after_samples(runtime, config, prepared, order, emit)
    order.enter("release")
    environment = released(runtime, prepared, threads_before if user else None)
    del inputs
    order.enter("probe again")
    probes += device_probes(runtime, probe_bytes, "after") + device_l2_probes(runtime, "after")
    order.enter("record")
    return {
        "framework": framework,
        "probes": probes,
        "results": [result_to_dict(item.result, None) for item in prepared],
        "environment": environment,
        "sampling": {**record.to_dict(), "phases": order.to_list()},
        "startup_s": started_s,
        "wall_s": time.perf_counter() - start,
        "runs_before": KEPT.served - 1,  # a kept process's earlier requests (0: a fresh one)
        "inputs_reused": inputs_reused,  # drawn by its last request: `peers/kept.py`
    }


def released(
    runtime: Any, prepared: list[Prepared], threads_before: set[threading.Thread] | None
) -> dict[str, Any]:
    """This process's environment (with the device memory its variants used at most), and the
    device's inputs freed before the probe after; `threads_before`: a user kernel's process,
    whose threads and processes left running are the kernel's doing, said and ended."""
    if threads_before is not None:
        note_threads_left(prepared, threads_before)
        note_processes_ended(prepared, end_descendants())
    environment = runtime.environment()
    memory = runtime.memory_stats()  # the peak covers the inputs and every variant's calls
    if memory:
        environment["device_memory"] = memory
    for item in prepared:  # the kernels hold the device's inputs
        item.sampler = item.finish = None
    return environment


def sampled(
    runtime: Any,
    request: PeerRequest,
    prepared: list[Prepared],
    priors: dict[str, Any],
    elsewhere: dict[str, list[float]],
    emit: Callable[[Event], None],
) -> Any:
    """This process's variants sampled: raced as the run's own are, except in a run of several
    JAX processes, where each takes the same samples, so every one reaches each variant's
    collectives (its check, its merged record) at the same point."""
    config = request.config
    floor = NoiseFloor(request.between_run_log_sd, request.ratio_log_sd)
    several = capabilities.process_count(runtime) > 1
    return take_samples(
        prepared,
        plan=fixed_plan(config) if several else race_plan(config, floor),
        order=config.order,
        seed=config.seed,
        emit=emit,
        on_failure=failing_sample(runtime.classify),
        priors=priors,
        elsewhere=elsewhere,
    )


def note_threads_left(prepared: list[Prepared], before: set[threading.Thread]) -> None:
    """Threads started since the process began and still running: a kernel that computes in
    the background is not timed whole. Each result says so; they never hold the process,
    which ends without waiting for them (`os._exit` below)."""
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    if not left:
        return
    names = ", ".join(sorted(t.name for t in left)[:5])
    for item in prepared:
        item.result.warnings.append(
            f"left {len(left)} thread(s) running after its calls ({names}): work it does in "
            "the background is not in the timed calls; the process ended without waiting"
        )


def note_processes_ended(prepared: list[Prepared], ended: list[str]) -> None:
    """Processes the kernel started and left running, escaped from its process group or
    not (`process/descendants.py`), ended with its variant: each result names them."""
    if not ended:
        return
    shown = ", ".join(ended[:5]) + (f" and {len(ended) - 5} more" if len(ended) > 5 else "")
    for item in prepared:
        item.result.warnings.append(
            f"left {len(ended)} process(es) running after its calls ({shown}): they were "
            "ended with its variant"
        )


def is_user_kernel(name: str) -> bool:
    """Whether a requested variant is a user's kernel (registered when the config was read)."""
    return is_known(name) and strategy_info(name).user


def protocol_stream() -> IO[str]:
    """Our own copy of stdout for the protocol; fd 1 then points at stderr for everyone else."""
    stream = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return stream


KEEP_FLAG = "--keep"  # serve a request a line, keeping runtimes and functions between them


def main() -> int:
    die_with_parent()
    adopt_orphans()  # whatever a kernel starts stays below this process, escaped or not
    out = protocol_stream()
    if KEEP_FLAG not in sys.argv[1:]:
        answer(json.load(sys.stdin), out)
        return 0
    KEPT.keeping = True
    for line in sys.stdin:  # a request a line, until the parent closes stdin (or ends)
        if line.strip():
            answer(json.loads(line), out)
    return 0


def answer(request: Any, out: IO[str]) -> None:
    """Measure one request and write its lines, its result last."""
    if not isinstance(request, dict):
        request = {}
    token = str(request.pop(TOKEN_KEY, ""))  # this run's: on every line, before any kernel loads

    def write(data: dict[str, Any]) -> None:
        out.write(json.dumps({**data, TOKEN_KEY: token}, allow_nan=False) + "\n")
        out.flush()

    try:
        parsed = PeerRequest.from_dict(request)  # registers a user's kernel, not yet loaded
        if KEPT.keeping and any(is_user_kernel(name) for name, _ in parsed.variants):
            raise RequestRefused("variants: a user's kernel runs in a process of its own")
        if parsed.prestart:
            write({RESULT_KEY: prestart(parsed)})
            return
        KEPT.served += 1
        write({RESULT_KEY: run(parsed, write)})
    except RequestRefused as error:  # before the framework is imported: the field, in words
        write({RESULT_KEY: {"error": f"request refused: {error}"}})
    except ImportError as error:
        write({RESULT_KEY: {"import_error": one_line(error)}})
    except Exception as error:  # noqa: BLE001 - said to the parent in one line, not a traceback
        write({RESULT_KEY: {"error": one_line(error)}})
    except SystemExit as stop:  # a framework that calls sys.exit while it loads, or a kernel
        user = any(is_user_kernel(name) for name, _ in request.get("variants", []))
        who = "the kernel" if user else "the framework"
        write({RESULT_KEY: {"error": f"{who} ended the process (sys.exit({stop.code}))"}})


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    os._exit(code)  # every result is written: no thread a kernel left may hold the process
