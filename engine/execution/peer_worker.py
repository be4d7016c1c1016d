"""One peer framework's variants, in a process of its own (`-m engine.execution.peer_worker`).

Started by the run (`peers.py`) with a request on stdin: the config, the variants, the number
of cold-cache input sets and the thread count every framework gets. It limits its CPU affinity
to that many cores *before* the framework starts its thread pools, makes the engine's inputs
(same seed, same streams: bit for bit what TensorFlow gets), puts them on the framework's
device, and prepares, samples and checks each variant through the one path every framework
takes (`variant.py`), interleaved with the others of its framework. It imports TensorFlow only
to measure a user's TensorFlow kernel.

Protocol on stdout (one JSON object per line): `{"event": ...}` progress events, then one
`{"peer_result": {...}}`. Everything else the framework prints goes to stderr, so it cannot
corrupt the protocol.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from engine.execution.host_replicas import prepare_host_replicas
from engine.execution.sampling import fixed_plan, race_plan, take_samples
from engine.harness.recording import Prepared
from engine.harness.runtime import Runtime
from engine.harness.variant import (
    PlacedInputs,
    failing_sample,
    kernel_function,
    prepare_variant,
)
from engine.measure.correctness import CHECK_STREAM, make_inputs, reference
from engine.measure.host_bandwidth import (
    PROBE_BUDGET_S,
    PROBE_MIN_BLOCK_S,
    PROBE_REPEATS,
    PROBE_WARMUP,
)
from engine.measure.peak import Probe
from engine.measure.timing import Kernel, time_kernel
from engine.measure.trace_analysis import profile_calls
from engine.measure.uncertainty import DEFAULT_RATIO_LOG_SD, NoiseFloor
from engine.process.parent_watch import die_with_parent
from engine.results.codec import result_to_dict
from engine.results.events import Event, Phase, VariantStarted
from engine.results.formatting import one_line
from engine.results.parts import ProfileSummary
from engine.spec.catalog import ONE_THREAD, is_known, strategy_info, variant_name
from engine.spec.config import BenchConfig

RESULT_KEY = "peer_result"
TOKEN_KEY = "token"  # the run's per-process token, on every protocol line


def limit_cpus(threads: int) -> int:
    """Keep this process on `threads` of the cores it may use; returns how many it has."""
    if not hasattr(os, "sched_getaffinity"):
        return threads
    allowed = sorted(os.sched_getaffinity(0))
    if threads < len(allowed):
        os.sched_setaffinity(0, allowed[:threads])
    return len(os.sched_getaffinity(0))


def load_runtime(framework: str, dtype: str, threads: int) -> Runtime:
    module = importlib.import_module(f"engine.backends.{framework}.runtime")
    return module.make_runtime(dtype, threads)


def place_inputs(
    runtime: Runtime, config: BenchConfig, copies: int, keep_host: bool = False
) -> PlacedInputs:
    """The engine's input sets on the framework's device, and the check set with its reference.
    `keep_host`: a user kernel's process keeps each set's A on the host to check its timed
    calls against."""
    shape = (config.matrices, config.rows, config.columns, config.dtype, config.seed)
    timed, kept, transfer_s = [], [], 0.0
    for stream in range(copies):
        host = make_inputs(*shape, stream=stream)
        start = time.perf_counter()
        timed.append(runtime.put(host))
        if stream == 0:
            transfer_s = time.perf_counter() - start
        if keep_host:
            kept.append(host[0])
    check_host = make_inputs(*shape, stream=CHECK_STREAM)
    placed_check = runtime.put(check_host)
    return PlacedInputs(timed, placed_check, reference(*check_host), transfer_s, kept)


def prepare_peer_variant(
    runtime: Runtime,
    config: BenchConfig,
    inputs: PlacedInputs,
    variant: tuple[str, str],
    run_device_kind: str,
) -> Prepared:
    strategy, option = variant

    how = "" if option == ONE_THREAD else option  # the thread count is the process's

    def build() -> Callable[..., Any]:
        return runtime.build(kernel_function(strategy), strategy_info(strategy).build or how)

    return prepare_variant(
        runtime, config, inputs, variant, build=build, run_device_kind=run_device_kind
    )


def prepare_split_variant(
    runtime: Runtime, config: BenchConfig, inputs: PlacedInputs, variant: tuple[str, str]
) -> Prepared:
    """Modes replicated and sharded: the batch split over replicas (`host_replicas.py`)."""
    strategy, option = variant

    def build() -> Callable[..., Any]:
        return runtime.build(kernel_function(strategy), strategy_info(strategy).build or option)

    return prepare_host_replicas(
        runtime, config, inputs.timed, inputs.check, inputs.reference, variant, build
    )


def profile_in_process(runtime: Runtime, item: Prepared) -> ProfileSummary | None:
    """The variant's profile with its framework's own profiler, where it has one; a failed
    profile never costs the timings."""
    result = item.result
    if item.sampler is None or result.status != "ok":
        return None  # nothing ran to profile: the variant's own status says why
    if not hasattr(runtime, "profile"):
        return ProfileSummary("unsupported", error=f"no profiler hook for {runtime.framework}")
    calls = profile_calls(result.median_s)
    try:
        return runtime.profile(item.sampler.kernel.call, calls)  # type: ignore[attr-defined]
    except Exception as error:  # noqa: BLE001 - a failed profile never costs the timings
        return ProfileSummary("failed", error=one_line(error))


def timed_read(runtime: Runtime, read: Callable[[], Any]) -> Any:
    """A device probe's timing: the memory probe's effort, synchronised by the runtime."""
    return time_kernel(
        Kernel(call=lambda _i: read(), sync=runtime.sync),
        warmup=PROBE_WARMUP,
        repeats=PROBE_REPEATS,
        budget_s=PROBE_BUDGET_S,
        min_block_s=PROBE_MIN_BLOCK_S,
    )


def device_probes(runtime: Runtime, buffer_bytes: int, when: str) -> list[dict[str, Any]]:
    """The read bandwidth of the framework's own device, when it is an accelerator: the
    ceiling its results are placed against (a CPU framework's is the host's NumPy probe).
    Across several JAX processes, on a CPU too: all of them read at once, and the ceiling is
    the sum of their rates (their results are every process's work over the slowest's time,
    which one process's probe does not bound)."""
    processes = int(getattr(runtime, "processes", 1))
    if not hasattr(runtime, "probe_buffer") or (runtime.device_kind == "CPU" and processes == 1):
        return []
    elements = buffer_bytes // 4
    buffer = runtime.probe_buffer(elements)  # type: ignore[attr-defined]
    read = runtime.probe_read()  # type: ignore[attr-defined]
    if processes > 1:
        runtime.barrier(f"probe {when}")  # type: ignore[attr-defined]
    timing = timed_read(runtime, lambda: read(buffer))
    median = timing.measurement.median_s
    rate = elements * 4 / median
    kernel = f"{runtime.framework} sum over {elements * 4 / 2**20:.0f} MiB float32"
    extra: dict[str, Any] = {"method": runtime.framework, "device_kind": runtime.device_kind}
    if processes > 1:
        rates = [float(r) for r in runtime.every_process([rate])[:, 0]]  # type: ignore[attr-defined]
        rate, kernel = sum(rates), f"{kernel} in each of {processes} processes at once"
        extra["per_process_bytes_per_s"] = rates
    return [
        Probe(
            kernel=kernel,
            when=when,
            bandwidth_bytes_per_s=rate,
            samples_s=timing.measurement.samples_s,
            calls_per_sample=timing.measurement.calls_per_sample,
            extra=extra,
        ).to_dict()
    ]


# A device L2 probe reads its buffer this many bytes per launch, at least, through a view that
# repeats it (stride 0): one launch of a cache-sized buffer would time the launch, not the L2.
L2_READ_PER_LAUNCH = 256 * 2**20


def device_l2_probes(runtime: Runtime, when: str) -> list[dict[str, Any]]:
    """The read bandwidth of the accelerator's L2 (`l2_cache_bytes`, `probe_view`), over a
    buffer of half its size read many times in one launch; tagged with its level and size.
    None where the runtime cannot say its L2's size (JAX) or runs on the host."""
    if runtime.device_kind == "CPU" or not hasattr(runtime, "l2_cache_bytes"):
        return []
    size = runtime.l2_cache_bytes()  # type: ignore[attr-defined]
    if not size or size <= 0 or size > 2**40:
        return []
    elements = max(1, size // 2 // 4)
    buffer = runtime.probe_buffer(elements)  # type: ignore[attr-defined]
    times = max(1, L2_READ_PER_LAUNCH // (elements * 4))
    view = runtime.probe_view(buffer, times)  # type: ignore[attr-defined]
    read = runtime.probe_read()  # type: ignore[attr-defined]
    timing = timed_read(runtime, lambda: read(view))
    return [
        Probe(
            kernel=f"{runtime.framework} sum over a {elements * 4 / 2**20:.1f} MiB float32 "
            f"buffer read {times} times in one launch",
            when=when,
            bandwidth_bytes_per_s=elements * 4 * times / timing.measurement.median_s,
            samples_s=timing.measurement.samples_s,
            calls_per_sample=timing.measurement.calls_per_sample,
            extra={
                "method": runtime.framework,
                "device_kind": runtime.device_kind,
                "level": "L2",
                "level_bytes": int(size),
            },
        ).to_dict()
    ]


def run(request: dict[str, Any], write: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Measure the request's variants; returns the `peer_result` object."""
    config = BenchConfig.from_raw(request["config"])
    framework = request["framework"]
    variants = [(str(s), str(o)) for s, o in request["variants"]]
    threads = limit_cpus(int(request["threads"]))
    run_kind = str(request.get("device_kind", "CPU"))
    split = config.mode != "single"  # the batch split over replicas: the cores shared out
    framework_threads = max(1, threads // config.replicas) if split else threads

    def emit(event: Event) -> None:
        write(event.to_dict())

    start = time.perf_counter()
    threads_before = set(threading.enumerate())
    emit(Phase(f"starting {framework}"))
    if split:  # before the framework starts: a runtime may lay replicas over devices
        os.environ["MATVEC_REPLICAS"] = str(config.replicas)
    runtime = load_runtime(framework, config.dtype, framework_threads)
    started_s = time.perf_counter() - start
    probe_bytes = int(request.get("probe_bytes", 256 * 2**20))
    probes = device_probes(runtime, probe_bytes, "before") + device_l2_probes(runtime, "before")
    emit(Phase(f"inputs ({framework})"))
    user = any(is_user_kernel(name) for name, _ in variants)  # a user kernel's own process
    inputs = place_inputs(runtime, config, int(request["copies"]), keep_host=user)
    prepared = []
    for variant in variants:
        emit(VariantStarted(variant_name(*variant)))
        if split:
            prepared.append(prepare_split_variant(runtime, config, inputs, variant))
        else:
            prepared.append(prepare_peer_variant(runtime, config, inputs, variant, run_kind))
    emit(Phase(f"sampling ({framework}, {config.order})"))
    floor = NoiseFloor(ratio_log_sd=float(request.get("ratio_log_sd", DEFAULT_RATIO_LOG_SD)))
    record = take_samples(
        prepared,
        # several JAX processes: each takes the same samples, so every one reaches each
        # variant's collectives (its check, its merged record) at the same point
        plan=fixed_plan(config)
        if getattr(runtime, "processes", 1) > 1
        else race_plan(config, floor),
        order=config.order,
        seed=config.seed,
        emit=emit,
        on_failure=failing_sample(runtime.classify),
    )
    for item in prepared:
        if item.sampler is not None and item.finish is not None:
            item.finish(item.sampler.timing(config.repeats, item.result.stop_reason))
    if config.profile:
        emit(Phase(f"profiles ({framework})"))
        for item in prepared:
            item.result.profile = profile_in_process(runtime, item)
    if user:  # what a user kernel's process left running is the kernel's doing
        note_threads_left(prepared, threads_before)
    results = [result_to_dict(item.result, None) for item in prepared]
    environment = runtime.environment()
    memory = runtime.memory_stats()  # the peak covers the inputs and every variant's calls
    if memory:
        environment["device_memory"] = memory
    for item in prepared:  # free the device's inputs (held by the kernels) before the probe
        item.sampler = item.finish = None
    del inputs
    probes += device_probes(runtime, probe_bytes, "after") + device_l2_probes(runtime, "after")
    return {
        "framework": framework,
        "probes": probes,
        "results": results,
        "environment": environment,
        "sampling": record.to_dict(),
        "startup_s": started_s,
        "wall_s": time.perf_counter() - start,
    }


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


def is_user_kernel(name: str) -> bool:
    """Whether a requested variant is a user's kernel (registered when the config was read)."""
    return is_known(name) and strategy_info(name).user


def protocol_stream() -> IO[str]:
    """Our own copy of stdout for the protocol; fd 1 then points at stderr for everyone else."""
    stream = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return stream


def main() -> int:
    die_with_parent()
    out = protocol_stream()

    request = json.load(sys.stdin)
    token = str(request.pop(TOKEN_KEY, ""))  # this run's: on every line, before any kernel loads

    def write(data: dict[str, Any]) -> None:
        out.write(json.dumps({**data, TOKEN_KEY: token}, allow_nan=False) + "\n")
        out.flush()

    try:
        write({RESULT_KEY: run(request, write)})
    except ImportError as error:
        write({RESULT_KEY: {"import_error": one_line(error)}})
    except Exception as error:  # noqa: BLE001 - said to the parent in one line, not a traceback
        write({RESULT_KEY: {"error": one_line(error)}})
    except SystemExit as stop:  # a framework that calls sys.exit while it loads, or a kernel
        user = any(is_user_kernel(name) for name, _ in request.get("variants", []))
        who = "the kernel" if user else "the framework"
        write({RESULT_KEY: {"error": f"{who} ended the process (sys.exit({stop.code}))"}})
    return 0


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    os._exit(code)  # every result is written: no thread a kernel left may hold the process
