"""What every variant's result goes through, in any framework: a blank result, the timing
copied into it, and the poison/fill/check sequence against the float64 reference.

Framework-free on purpose: the TensorFlow executors and the peer worker (JAX, PyTorch, each in
a process of its own) share it, so every framework's numbers are recorded and checked alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.catalogue.catalog import is_known, strategy_info, variant_name
from engine.measure import correctness, roofline
from engine.measure.timing import Sampler, Timing
from engine.results.model import Status, StrategyResult
from engine.run_settings.config import BenchConfig


@dataclass
class Prepared:
    """A variant ready to sample (`sampler`), or already final (`sampler` is None)."""

    result: StrategyResult
    sampler: Sampler | None = None
    finish: Callable[[Timing], None] | None = None  # after sampling: record and add context
    shown: bool = False  # already on the page (a peer's, before TensorFlow started)
    elsewhere: bool = False  # measured in a process of its own (a peer's): final here
    # The scope each of its sampling blocks runs in (a user kernel's time limit), if any.
    guard: Callable[[], AbstractContextManager[Any]] | None = None
    # Prepared at its first turn, not before the sampling: a confirming variant's (the history
    # shows it far slower), whose check call (seconds, for an eager loop) then waits until the
    # others have their first samples on the page. Its result is a placeholder until then.
    deferred: Callable[[], Prepared] | None = None

    def take(self, ready: Prepared) -> None:
        """Become `ready` (this variant, prepared now), in place: whoever holds this item
        (the run's list, its finished map) sees the prepared variant."""
        self.result, self.sampler, self.finish = ready.result, ready.sampler, ready.finish
        self.guard, self.deferred = ready.guard, None


@dataclass(frozen=True)
class Preparing:
    """What the run's own process is asked to prepare (`OwnProcess.prepare`): the variants of
    `config`, those another process measured already (`ready`, kept as they are), where it
    says so (`emit`), and the variants the history shows far slower than the best here, at
    their time per call (`confirming`: one block confirms each)."""

    config: Any
    variants: list[tuple[str, str]]
    ready: Mapping[tuple[str, str], Prepared]
    emit: Any
    confirming: Mapping[str, float] = field(default_factory=dict)


STORAGE_ITEMSIZE = {"bfloat16": 2, "float16": 2}


def blank_result(config: BenchConfig, strategy: str, option: str, status: Status) -> StrategyResult:
    m, n = config.dim, config.columns
    storage = strategy_info(strategy).storage if is_known(strategy) else ""
    result = StrategyResult(
        strategy=strategy,
        variant=variant_name(strategy, option),
        mode=config.mode,
        status=status,
        matrices=config.matrices,
        flops=roofline.flops(config.matrices, m, n),
        bytes=roofline.traffic_bytes(
            config.matrices, m, n, config.itemsize, STORAGE_ITEMSIZE.get(storage)
        ),
    )
    if storage:
        result.accuracy_class = strategy_info(strategy).accuracy_class
        result.notes.append(
            f"reduced precision: its inputs are stored as {storage} and summed in float32, "
            f"checked against {storage}'s tolerance: an accuracy class of its own, never the "
            f"answer for {config.dtype}"
        )
    return result


def mark_tpu_padding(result: StrategyResult, config: BenchConfig) -> None:
    """On a TPU: the bytes XLA's tile padding really moves, and the note that says so."""
    if result.bytes_padded is not None:
        return  # marked where it was prepared
    m, n = config.dim, config.columns
    result.bytes_padded = roofline.tpu_padded_bytes(config.matrices, m, n, config.itemsize)
    result.notes.append(roofline.tpu_padding_note(config.matrices, m, n, config.itemsize))


def record_timing(result: StrategyResult, timing: Timing, transfer_s: float | None) -> None:
    """Copy a finished timing into the result: samples are the truth, kept raw."""
    result.first_call_s = timing.first_call_s
    result.transfer_s = transfer_s
    result.dispatch_s = timing.dispatch_s
    result.calls_per_sample = timing.measurement.calls_per_sample
    result.samples_s = timing.measurement.samples_s
    result.warnings.extend(timing.warnings)
    result.budget_exhausted = timing.budget_exhausted
    result.rewarm_s = timing.rewarm_s
    result.device_samples_s = timing.device_samples
    result.device_timer = timing.device_timer if timing.device_samples else None
    result.clocks = timing.clocks
    result.throttled_samples_s = timing.throttled_samples


def to_host(output: Any) -> np.ndarray:
    return output.numpy() if hasattr(output, "numpy") else np.asarray(output)


def check_outputs(
    result: StrategyResult,
    outputs: list[Any],
    reference: np.ndarray,
    config: BenchConfig,
    convert: Callable[[Any], np.ndarray] = to_host,
    dtype: str | None = None,
) -> None:
    """Check each full output (replicated mode has one per replica; the worst one counts).

    Each is copied into a NaN-poisoned (B, m) buffer, so unwritten vectors and wrong shapes
    are caught rather than broadcast or averaged away.
    """
    checks: list[correctness.Check] = []
    for index, output in enumerate(outputs):
        buffer = correctness.poisoned_output(*reference.shape)
        mismatch = correctness.fill(buffer, convert(output))
        if mismatch:
            where = f"replica {index}: " if len(outputs) > 1 else ""
            result.warnings.append(f"incorrect: {where}{mismatch}")
        checks.append(correctness.check(buffer, reference, dtype or config.dtype, config.columns))
    worst = max(checks, key=lambda c: (not c.correct, c.max_rel_error))
    result.max_rel_error = worst.max_rel_error
    result.rel_error_norm = worst.rel_error_norm
    result.max_abs_error = worst.max_abs_error
    result.tolerance = worst.tolerance
    result.correct = worst.correct
    if worst.message:
        result.warnings.append(f"incorrect: {worst.message}")


NOT_STARTED = "the run was interrupted before this variant started"
WHILE_PREPARED = "the run was interrupted while this variant was prepared (first calls, warm-up)"


def interrupted_warning(results: Sequence[StrategyResult]) -> str:
    """What an interrupted run says of its variants, counted from their results."""
    done = sum(1 for r in results if r.stop_reason not in (None, "interrupted"))
    kept = sum(1 for r in results if r.stop_reason == "interrupted")
    skipped = sum(1 for r in results if r.status == "skipped")
    return (
        f"interrupted (SIGINT): {done} of {len(results)} variants had finished, {kept} keep "
        f"the samples they had (stop_reason interrupted), {skipped} were not measured (skipped)"
    )


def not_started(config: BenchConfig, variant: tuple[str, str], why: str = NOT_STARTED) -> Prepared:
    """A variant the run was interrupted before: it says so, and nothing was measured."""
    result = blank_result(config, *variant, "skipped")  # type: ignore[arg-type]
    result.error = why
    return Prepared(result)


def stop_unfinished(item: Prepared) -> None:
    """A variant still being sampled when the run was interrupted: it keeps its samples
    (`interrupted`), or, with none yet, says it never got one."""
    if item.deferred is not None:  # its turn never came, or came and was interrupted
        item.result.status = "skipped"
        item.result.error = WHILE_PREPARED
        item.deferred = None
        return
    if item.sampler is None or item.result.stop_reason is not None:
        return
    if item.sampler.samples:
        item.result.stop_reason = "interrupted"
        return
    item.result.status = "skipped"
    item.result.error = "the run was interrupted before this variant's first sample"
    item.sampler = item.finish = None
