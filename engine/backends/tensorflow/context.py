"""What every executor shares: the run's context, a blank result, timing and checking a variant.

Each mode's executor (single, distributed, dataset) is a function
`(RunContext, strategy, option) -> Prepared`: it builds the kernel, places what it needs, makes
the variant's `Sampler` (first call, warm-up, autorange) and checks the output; the
orchestrator then takes the timed samples of all variants (interleaved or in sequence) and
calls each `finish(timing)`. The TensorFlow context and sampler are here; the framework-free parts
(blank result, timing copy, output check) are in `recording.py`, shared with the peer worker.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.backends.tensorflow.build import Builder
from engine.backends.tensorflow.devices import DeviceSetup
from engine.backends.tensorflow.placement import Inputs
from engine.backends.tensorflow.sync import sync_all
from engine.harness.recording import (
    Prepared,
    blank_result,
    check_outputs,
    record_timing,
    to_host,
)
from engine.measure.timing import Kernel, Sampler
from engine.results.events import Progress
from engine.run_settings.config import BenchConfig

__all__ = [
    "Executor",
    "Prepared",
    "RunContext",
    "blank_result",
    "check_outputs",
    "make_sampler",
    "record_timing",
    "to_host",
]


@dataclass
class RunContext:
    config: BenchConfig
    setup: DeviceSetup
    inputs: Inputs
    build: Builder
    emit: Progress
    distribution: Any = None  # the tf.distribute.Strategy of modes replicated and sharded
    shared: dict[Any, Any] = field(default_factory=dict)  # placements the variants share
    # The variants the history shows far slower than the best here, each with its time per
    # call there: one block confirms each (`execution/sampling/confirmation.py`); the single mode's
    # executor reads it.
    confirming: Mapping[str, float] = field(default_factory=dict)


Executor = Callable[[RunContext, str, str], Prepared]


def make_sampler(
    ctx: RunContext,
    call: Callable[[int], Any],
    *,
    budget_s: float | None = None,
    fixed_calls: int | None = None,
) -> Sampler:
    """First call, warm-up and autorange of `call(i)` (input set i), synced on the device."""
    config = ctx.config
    return Sampler(
        Kernel(call=call, sync=sync_all),
        warmup=config.warmup,
        budget_s=config.time_budget_s if budget_s is None else budget_s,
        fixed_calls=fixed_calls,
    )
