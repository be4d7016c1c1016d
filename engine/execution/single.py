"""Mode `single`: one device (or the host, for host strategies), inputs placed once."""

from __future__ import annotations

import tensorflow as tf

from engine.execution.base import (
    RunContext,
    blank_result,
    check_outputs,
    record_timing,
    time_variant,
)
from engine.results.events import Phase
from engine.results.model import StrategyResult
from engine.spec.catalog import strategy_info


def run_single(ctx: RunContext, strategy: str, option: str) -> StrategyResult:
    config, inputs = ctx.config, ctx.inputs
    result = blank_result(config, strategy, option, "ok")
    on_host = strategy_info(strategy).runs_on_host
    sets = inputs.host_timed if on_host else inputs.timed
    fn = ctx.build(strategy, xla=option == "xla", dataset_batch=config.dataset_batch)
    with tf.device(ctx.setup.devices[0]):
        timing = time_variant(ctx, result, lambda i: fn(*sets[i % len(sets)]))
        ctx.emit(Phase("check", result.variant))
        output = fn(*(inputs.check_host if on_host else inputs.check_device))
    check_outputs(result, [output], inputs.reference, config)
    record_timing(result, timing, 0.0 if on_host else inputs.transfer_s)
    return result
