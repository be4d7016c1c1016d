"""Mode `single`: one device (or the host, for host strategies), inputs placed once.

The catalogue's TensorFlow strategies take the path every framework takes
(`variant.prepare_variant`), with TensorFlow as the runtime of the run's own process: the
device the run set up and the inputs it placed once, shared by every variant.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.backends.tensorflow.context import Prepared, RunContext
from engine.backends.tensorflow.runtime import TensorflowRuntime
from engine.catalogue.catalog import strategy_info, variant_name
from engine.harness.variant import PlacedInputs, prepare_variant


def run_single(ctx: RunContext, strategy: str, option: str) -> Prepared:
    config, inputs, setup = ctx.config, ctx.inputs, ctx.setup
    on_host = strategy_info(strategy).runs_on_host
    placed = PlacedInputs(
        timed=inputs.host_timed if on_host else inputs.timed,
        check=inputs.check_host if on_host else inputs.check_device,
        reference=inputs.reference,
        transfer_s=0.0 if on_host else inputs.transfer_s,
    )
    runtime = TensorflowRuntime.in_run(config.dtype, setup.devices[0], setup.kind)

    def build() -> Callable[..., Any]:
        return ctx.build(strategy, xla=option == "xla", dataset_batch=config.dataset_batch)

    return prepare_variant(
        runtime,
        config,
        placed,
        (strategy, option),
        build=build,
        run_device_kind=setup.kind,
        emit=ctx.emit,
        confirm=ctx.confirming.get(variant_name(strategy, option)),
    )
