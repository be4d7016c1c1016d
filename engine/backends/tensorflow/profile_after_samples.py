"""`--profile`: each variant's profile, taken after all samples so no sample is perturbed.

The profile is a few more calls of the very kernel the samples timed (the sampler's own call
and sync, on the same input sets); a profile that fails is recorded on its variant with the
reason and never touches the timings. Peers are profiled by their own frameworks' tools, not
TensorFlow's: they say `unsupported`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from engine.backends.tensorflow.errors import one_line
from engine.backends.tensorflow.profile import (
    ProfilerUnavailable,
    profile_first_call,
    profile_kernel,
)
from engine.catalogue.catalog import strategy_info
from engine.harness.recording import Prepared
from engine.measure.trace_analysis import profile_calls
from engine.results.parts import ProfiledOp, ProfileSummary
from engine.storage.profiles import variant_dir


def profile_variant(
    item: Prepared, device: str, run_id: str, fresh: Callable[[], Any] | None = None
) -> ProfileSummary | None:
    """The variant's profile; `fresh` makes and calls a new copy of its function once, for
    the first call's split (None: not taken apart in this mode)."""
    result = item.result  # a peer's is taken in its own process (peers/preparing.py)
    if strategy_info(result.strategy).runs_on_host:
        return ProfileSummary("unsupported", error="NumPy runs outside TensorFlow: no ops to see")
    if item.sampler is None or result.status != "ok":
        return None  # nothing ran to profile: the variant's own status says why
    try:
        folder = variant_dir(run_id, result.variant)
        calls = profile_calls(result.median_s)
        summary, trace, memory, note = profile_kernel(item.sampler.kernel, device, folder, calls)
        split = None
        if fresh is not None:
            found = profile_first_call(fresh, item.sampler.kernel.sync, device, folder / "first")
            split = asdict(found)
    except ProfilerUnavailable as error:
        return ProfileSummary("unsupported", error=str(error))
    except Exception as error:  # noqa: BLE001 - a failed profile never costs the timings
        return ProfileSummary("failed", error=one_line(error))
    return ProfileSummary(
        "ok",
        calls=summary.calls,
        ops_per_call=summary.ops_per_call,
        op_time_s=summary.op_time_s,
        host_time_s=summary.host_time_s,
        wall_s=summary.wall_s,
        top_ops=tuple(ProfiledOp(**asdict(op)) for op in summary.top_ops),
        tracing_count=summary.tracing_count,
        retraced=summary.retraced,
        peak_memory_bytes=memory,
        memory_note=note,
        trace_file=str(trace),
        tensorboard_dir=str(folder),
        first_call=split,
        op_samples_s=summary.op_samples_s,
        wall_samples_s=summary.wall_samples_s,
        op_source=summary.op_source,
    )
