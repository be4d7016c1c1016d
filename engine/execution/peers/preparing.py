"""What a peer process does around a variant's samples: a kept process's early start
(`prestart`: the framework loaded and the run's inputs drawn while the run's own process imports
TensorFlow, so nothing timed ever runs beside it; what it placed then was not timed alone, so
its `transfer_s` is not reported), each variant built, warmed and checked
(`prepare_peer_variant`), and what is taken once every sample is (`after_samples`: a GPU's
graph and flushed forms, the profile)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from typing import Any

from engine.analysis.history_prior import Prior
from engine.catalogue.catalog import ONE_THREAD, strategy_info, variant_name
from engine.execution.peers.inputs import kept_inputs
from engine.execution.peers.kept import KEPT, KEPT_FUNCTION
from engine.execution.peers.request import PeerRequest, RequestRefused
from engine.execution.peers.runtime import limit_cpus, load_runtime
from engine.execution.plan.phase_order import PhaseOrder
from engine.execution.replicas.device import SplitVariant
from engine.execution.replicas.host import prepare_host_replicas
from engine.harness import capabilities
from engine.harness.capabilities import PreloadsCompiler
from engine.harness.recording import Prepared
from engine.harness.runtime import Runtime
from engine.harness.variant import PlacedInputs, kernel_function, prepare_variant
from engine.measure.trace_analysis import profile_calls
from engine.results.events import Event, Phase
from engine.results.formatting import one_line
from engine.results.parts import ProfileSummary
from engine.run_settings.config import BenchConfig


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


def prepare_peer_variant(
    runtime: Runtime,
    request: PeerRequest,
    inputs: PlacedInputs,
    variant: tuple[str, str],
    priors: Mapping[str, Prior],
    own_ceiling: bool = False,
) -> Prepared:
    """One variant built, called, warmed and checked; one the history shows far slower than
    the best here (`priors`) is prepared for its one confirming block, in a single process.
    `own_ceiling`: the process probed its own device (an accelerator), its results' ceiling.
    In modes replicated and sharded the batch is split over replicas (`prepare_split_variant`)."""
    if request.config.mode != "single":
        return prepare_split_variant(runtime, request.config, inputs, variant)
    strategy, option = variant
    name = variant_name(*variant)
    one = capabilities.process_count(runtime) <= 1
    confirm = priors[name].median_s if name in priors and one else None
    how = "" if option == ONE_THREAD else option  # the thread count is the process's

    config = request.config
    shape = (config.matrices, config.dim, config.columns, config.dtype, config.threads)
    reused: list[bool] = []

    def build() -> Callable[..., Any]:
        def make() -> Callable[..., Any]:
            return runtime.build(kernel_function(strategy), strategy_info(strategy).build or how)

        built, kept = KEPT.build((runtime.framework, name, *shape), make)
        reused.append(kept)
        return built

    found = prepare_variant(
        runtime,
        config,
        inputs,
        variant,
        build=build,
        run_device_kind=request.device_kind,
        confirm=confirm,
        own_ceiling=own_ceiling,
    )
    if any(reused):
        found.result.notes.append(KEPT_FUNCTION)
    return found


def prepare_split_variant(
    runtime: Runtime, config: BenchConfig, inputs: PlacedInputs, variant: tuple[str, str]
) -> Prepared:
    """Modes replicated and sharded: the batch split over replicas (`replicas/host.py`)."""
    strategy, option = variant

    def build() -> Callable[..., Any]:
        return runtime.build(kernel_function(strategy), strategy_info(strategy).build or option)

    split = SplitVariant(config, inputs.timed, inputs.check, inputs.reference, variant, build)
    return prepare_host_replicas(runtime, split)


def profile_in_process(runtime: Runtime, item: Prepared) -> ProfileSummary | None:
    """The variant's profile with its framework's own profiler, where it has one; a failed
    profile never costs the timings."""
    result = item.result
    if item.sampler is None or result.status != "ok":
        return None  # nothing ran to profile: the variant's own status says why
    if not isinstance(runtime, capabilities.Profiles):
        return ProfileSummary("unsupported", error=f"no profiler hook for {runtime.framework}")
    calls = profile_calls(result.median_s)
    try:
        return runtime.profile(item.sampler.kernel.call, calls)
    except Exception as error:  # noqa: BLE001 - a failed profile never costs the timings
        return ProfileSummary("failed", error=one_line(error))


def after_samples(
    runtime: Any,
    config: BenchConfig,
    prepared: list[Prepared],
    order: PhaseOrder,
    emit: Callable[[Event], None],
) -> None:
    """What is taken of each variant once every sample is: on a GPU its graph and flushed
    forms, and with `--profile` its profile; neither touches a sample."""
    framework = runtime.framework
    if isinstance(runtime, capabilities.TimesDevice) and runtime.device_kind == "GPU":
        order.enter("device forms")
        emit(Phase(f"graph and flushed forms ({framework})"))
        for item in prepared:
            forms_in_process(runtime, item)
    if config.profile:
        order.enter("profile")
        emit(Phase(f"profiles ({framework})"))
        for item in prepared:
            item.result.profile = profile_in_process(runtime, item)


def forms_in_process(runtime: Any, item: Prepared) -> None:
    """On a GPU, the variant's call warm, as a graph replay and after an L2 flush, beside its
    samples (`measure/device_forms.py`); a user's kernel (its own streams) and a replica mode
    are not taken; a form that fails is said and never costs the timings. Says once why the
    clocks were not read, where they were not."""
    result = item.result
    note = runtime.clocks_note() if isinstance(runtime, capabilities.TimesDevice) else None
    if note and result.status == "ok":
        result.notes.append(f"clocks not read per block: {note}")
    if item.sampler is None or result.status != "ok" or result.user_kernel or result.replicas:
        return
    call = item.sampler.kernel.call
    try:
        result.device_forms = runtime.device_forms(lambda: call(0))
    except Exception as error:  # noqa: BLE001 - a failed form never costs the timings
        result.notes.append(f"graph and flushed forms not taken: {one_line(error)}")
