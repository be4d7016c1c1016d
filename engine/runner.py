"""Run a BenchConfig: devices, preflight, peak bandwidth, inputs, then each strategy variant.

Each variant runs inside its own try: a strategy that fails (out of memory, dtype unsupported on
the device, an XLA compile error) is recorded with its status and message and the others go on.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np
import tensorflow as tf

from engine import correctness, memory, roofline
from engine.bandwidth import measure_probes, peak_from
from engine.catalog import strategy_info, variant_name
from engine.config import BenchConfig
from engine.device_sync import sync_all
from engine.devices import DeviceSetup, setup_devices, worker_count
from engine.environment import capture
from engine.kernels import build_kernel
from engine.placement import Inputs, prepare
from engine.results import RunResult, StrategyResult
from engine.timing import Kernel, time_kernel

Progress = Callable[[dict[str, Any]], None]
Builder = Callable[..., Callable[..., Any]]
ERROR_MAX_CHARS = 500


def plan_variants(config: BenchConfig) -> list[tuple[str, str]]:
    """(strategy, option) pairs in catalogue order; +xla right after its plain variant.

    Distributed runs of `dataset` also try distribute_datasets_from_function beside
    experimental_distribute_dataset: the two tf.data APIs of the original question.
    """
    variants: list[tuple[str, str]] = []
    for name in config.strategies:
        variants.append((name, ""))
        if config.xla and strategy_info(name).supports_xla:
            variants.append((name, "xla"))
        if name == "dataset" and config.mode == "sharded":
            variants.append((name, "from_function"))
    return variants


NOISE_PREFIXES = ("Graph execution error", "Detected at node", "Stack trace", "File ", "[[", "in ")


def one_line(error: BaseException) -> str:
    """TensorFlow errors carry pages of graph context; users need the line that says why."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    useful = [line for line in lines if not line.startswith(NOISE_PREFIXES)]
    first = (useful or lines or [""])[0]
    return f"{type(error).__name__}: {first}"[:ERROR_MAX_CHARS]


def classify(error: BaseException) -> str:
    if isinstance(error, (tf.errors.NotFoundError, tf.errors.UnimplementedError)):
        return "unsupported"
    text = str(error).lower()
    if "no registered" in text or "not supported" in text or "unsupported" in text:
        return "unsupported"
    return "failed"


def to_host(output: Any) -> np.ndarray:
    return output.numpy() if hasattr(output, "numpy") else np.asarray(output)


def blank_result(config: BenchConfig, strategy: str, option: str, status: str) -> StrategyResult:
    m, n = config.rows, config.columns
    return StrategyResult(
        strategy=strategy,
        variant=variant_name(strategy, option),
        mode=config.mode,
        status=status,  # type: ignore[arg-type]
        matrices=config.matrices,
        flops=roofline.flops(config.matrices, m, n),
        bytes=roofline.traffic_bytes(config.matrices, m, n, config.itemsize),
    )


def apply_check(result: StrategyResult, check: correctness.Check) -> None:
    result.max_rel_error = check.max_rel_error
    result.rel_error_norm = check.rel_error_norm
    result.max_abs_error = check.max_abs_error
    result.tolerance = check.tolerance
    result.correct = check.correct
    if check.message:
        result.warnings.append(f"incorrect: {check.message}")


def run_single(
    config: BenchConfig,
    strategy: str,
    option: str,
    inputs: Inputs,
    device: str,
    builder: Builder,
    emit: Progress,
) -> StrategyResult:
    result = blank_result(config, strategy, option, "ok")
    on_host = strategy == "numpy"
    sets = inputs.host_timed if on_host else inputs.timed
    fn = builder(strategy, xla=option == "xla", dataset_batch=config.dataset_batch)
    with tf.device(device):
        timing = time_kernel(
            Kernel(call=lambda i: fn(*sets[i % len(sets)]), sync=sync_all),
            warmup=config.warmup,
            repeats=config.repeats,
            budget_s=config.time_budget_s,
            on_sample=lambda done, total: emit(
                {"event": "sample", "variant": result.variant, "sample": done, "of": total}
            ),
        )
        emit({"event": "phase", "variant": result.variant, "phase": "check"})
        output = fn(*(inputs.check_host if on_host else inputs.check_device))
    buffer = correctness.poisoned_output(config.matrices, config.rows)
    mismatch = correctness.fill(buffer, to_host(output))
    apply_check(result, correctness.check(buffer, inputs.reference, config.dtype, config.columns))
    if mismatch:
        result.warnings.append(f"incorrect: {mismatch}")
    result.first_call_s = timing.first_call_s
    result.transfer_s = 0.0 if on_host else inputs.transfer_s
    result.dispatch_s = timing.dispatch_s
    result.calls_per_sample = timing.measurement.calls_per_sample
    result.samples_s = timing.measurement.samples_s
    result.warnings.extend(timing.warnings)
    result.budget_exhausted = timing.budget_exhausted
    return result


@dataclass
class RunContext:
    config: BenchConfig
    setup: DeviceSetup
    inputs: Inputs
    builder: Builder
    emit: Progress
    strategy: Any = None  # tf.distribute.Strategy for modes replicated and sharded


def run_variant(ctx: RunContext, strategy: str, option: str) -> StrategyResult:
    variant = variant_name(strategy, option)
    ctx.emit({"event": "variant", "variant": variant, "phase": "start"})
    try:
        if ctx.config.mode == "single":
            result = run_single(
                ctx.config,
                strategy,
                option,
                ctx.inputs,
                ctx.setup.devices[0],
                ctx.builder,
                ctx.emit,
            )
        else:
            from engine.distribution import run_distributed

            result = run_distributed(ctx, strategy, option)
    except Exception as error:  # noqa: BLE001 - one strategy's failure must not lose the others
        result = blank_result(ctx.config, strategy, option, classify(error))
        result.error = one_line(error)
    ctx.emit({"event": "variant", "variant": variant, "phase": "done", "status": result.status})
    return result


def run_benchmark(
    config: BenchConfig,
    progress: Progress | None = None,
    builders: Mapping[str, Builder] | None = None,
    setup: DeviceSetup | None = None,
    peak: dict[str, Any] | None = None,
) -> RunResult:
    """Measure every variant of `config`; raises PreflightError/DeviceError before any work."""
    emit = progress or (lambda _event: None)
    llc_bytes, llc_source = memory.last_level_cache_bytes()
    distributed = None
    if config.mode != "single" and worker_count() > 1:
        # Collectives must be configured before TensorFlow initialises its context.
        distributed = tf.distribute.MultiWorkerMirroredStrategy()
    setup = setup or setup_devices(config.replicas)
    estimate = memory.preflight(config, setup.kind, llc_bytes)
    if config.mode != "single" and distributed is None:
        from engine.distribution import make_strategy

        distributed = make_strategy(setup)
    environment = capture(setup, llc_bytes, llc_source)
    variants = plan_variants(config)
    emit({"event": "start", "variants": [variant_name(s, x) for s, x in variants]})

    device = setup.devices[0]
    probes: list[dict[str, Any]] = []
    if peak is None:
        emit({"event": "phase", "phase": "peak bandwidth"})
        probes = measure_probes(device, llc_bytes, "before")

    emit({"event": "phase", "phase": "inputs"})
    copies = memory.cold_copies(config, llc_bytes)
    inputs = prepare(config, setup.devices[0], copies, keep_host="numpy" in config.strategies)

    def builder(strategy: str, **options: Any) -> Callable[..., Any]:
        custom = (builders or {}).get(strategy)
        return (custom or build_kernel)(strategy, **options)

    ctx = RunContext(config, setup, inputs, builder, emit, distributed)
    results = [run_variant(ctx, strategy, option) for strategy, option in variants]
    del ctx, inputs  # free the inputs before the second bandwidth probe
    if peak is None:
        emit({"event": "phase", "phase": "peak bandwidth (again)"})
        probes += measure_probes(device, llc_bytes, "after")
        peak = peak_from(probes, device, llc_bytes)
    run_warnings = [f"memory estimate {memory.format_bytes(estimate.total_bytes)}"]
    if estimate.limit_bytes is None:
        run_warnings.append(f"memory preflight could not check the limit: {estimate.limit_source}")
    set_bytes = memory.input_set_bytes(config)
    if config.cache == "warm" and set_bytes < llc_bytes:
        run_warnings.append(
            f"warm cache: the inputs ({memory.format_bytes(set_bytes)}) fit in the last-level "
            f"cache ({memory.format_bytes(llc_bytes)}), so rates above the DRAM roofline are "
            "possible; use cache=cold for DRAM-bound numbers"
        )
    config_dict = {**config.to_dict(), "cold_copies": copies}
    emit({"event": "done"})
    return RunResult(
        run_id=uuid.uuid4().hex,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        environment=environment,
        config=config_dict,
        peak=peak,
        results=results,
        warnings=run_warnings,
    )
