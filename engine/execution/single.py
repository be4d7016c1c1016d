"""Mode `single`: one device (or the host, for host strategies), inputs placed once."""

from __future__ import annotations

from engine.backends.tensorflow.loader import tf
from engine.execution.base import (
    Prepared,
    RunContext,
    blank_result,
    check_outputs,
    make_sampler,
    record_timing,
)
from engine.results.events import Phase
from engine.spec.catalog import strategy_info


def run_single(ctx: RunContext, strategy: str, option: str) -> Prepared:
    config, inputs = ctx.config, ctx.inputs
    result = blank_result(config, strategy, option, "ok")
    on_host = strategy_info(strategy).runs_on_host
    sets = inputs.host_timed if on_host else inputs.timed
    fn = ctx.build(strategy, xla=option == "xla", dataset_batch=config.dataset_batch)
    # The runner takes the samples inside the same device scope (no per-call overhead).
    with tf.device(ctx.setup.devices[0]):
        sampler = make_sampler(ctx, lambda i: fn(*sets[i % len(sets)]))
        ctx.emit(Phase("check", result.variant))
        output = fn(*(inputs.check_host if on_host else inputs.check_device))
    check_outputs(result, [output], inputs.reference, config)
    transfer_s = 0.0 if on_host else inputs.transfer_s
    return Prepared(result, sampler, lambda timing: record_timing(result, timing, transfer_s))
