"""Modes `replicated` and `sharded` over a framework's own devices, for a runtime that lays
arrays over several (`replica_devices`, `place_over`, `put_on`, `device_parts`): JAX, with a
`NamedSharding` over N devices (on a CPU host, N host devices from XLA's flag), one compiled
program running on all of them at once.

`sharded`: the batch along the devices, padded with zero rows to equal shards where B is not a
multiple of N (the padding is dropped before the check, and said); `replicated`: the whole
batch on every device, N times the necessary work. The timed step is one call of the compiled
kernel and a sync; the output stays laid out over the devices. Each replica is also timed
alone on its own device: the per-replica record every distributed run has.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.harness.capabilities import PlacesOverDevices, process_count
from engine.harness.recording import Prepared, blank_result, check_outputs, record_timing
from engine.harness.replica_record import rate_of, replicated_note, time_alone
from engine.measure import sharding
from engine.measure.timing import Kernel, Sampler, Timing
from engine.results.formatting import one_line
from engine.results.parts import DistributionSummary, ReplicaTiming
from engine.run_settings.config import BenchConfig


def shards_for(config: BenchConfig, padded: bool) -> list[sharding.Shard]:
    if config.mode == "replicated":
        return sharding.replicated_shards(config.matrices, config.replicas)
    if padded:
        return sharding.padded_shards(config.matrices, config.replicas)
    return sharding.even_shards(config.matrices, config.replicas)


@dataclass(frozen=True)
class SplitVariant:
    """One variant to split over replicas, whichever way (threads of the host, or a
    framework's own devices): its config, the placed input sets it is timed on and checked
    with, their float64 reference, and how its function is built."""

    config: BenchConfig
    timed: Sequence[tuple[Any, Any]]
    check: tuple[Any, Any]
    reference: np.ndarray
    variant: tuple[str, str]
    build: Callable[[], Callable[..., Any]]

    def parts(self) -> tuple[BenchConfig, Sequence[Any], tuple[Any, Any], np.ndarray, Any]:
        """(config, timed, check, reference, build): what both ways of splitting read."""
        return self.config, self.timed, self.check, self.reference, self.build


def prepare_over_devices(runtime: Any, devices: list[Any], split: SplitVariant) -> Prepared:
    """Build, first-call, warm up and check one variant laid out over `devices`."""
    config, timed, check, reference, build = split.parts()
    strategy, option = split.variant
    result = blank_result(config, strategy, option, "ok")
    try:
        fn = build()
        placed = [runtime.place_over(pair, devices, config.mode) for pair in timed]
        padding = placed[0][1]
        sets = [pair for pair, _ in placed]

        def step(i: int) -> Any:
            return fn(*sets[i % len(sets)])

        with runtime.placement():
            sampler = Sampler(
                Kernel(call=step, sync=runtime.sync),
                warmup=config.warmup,
                budget_s=config.time_budget_s,
            )
            (check_a, check_x), _ = runtime.place_over(check, devices, config.mode)
            output = fn(check_a, check_x)
            runtime.sync(output)
        if config.mode == "replicated":
            candidates = runtime.device_parts(output)  # every device's own copy
        else:
            candidates = [runtime.to_host(output)[: config.matrices]]
        check_outputs(result, candidates, reference, config, convert=np.asarray)
    except Exception as error:  # noqa: BLE001 - one variant's failure keeps the others
        result.status, result.error = runtime.classify(error), one_line(error)  # type: ignore[assignment]
        return Prepared(result)
    shards = shards_for(config, padded=bool(padding))

    def finish(timing: Timing) -> None:
        timing = slowest_process(runtime, timing)
        record_timing(result, timing, 0.0)
        result.replicas = each_alone(runtime, devices, config, fn, shards, timed[0])
        describe(result, config, shards, padding, timing, len(devices), processes(runtime))

    return Prepared(result, sampler, finish)


def each_alone(
    runtime: Any,
    devices: list[Any],
    config: BenchConfig,
    fn: Callable[..., Any],
    shards: list[sharding.Shard],
    pair: tuple[Any, Any],
) -> list[ReplicaTiming]:
    """Each replica's own time on its own device, with its own slice, not waiting for the
    others."""
    a, x = pair
    timings = []
    over_devices = isinstance(runtime, PlacesOverDevices)
    for shard, device in zip(shards, devices):
        if over_devices and not runtime.is_local(
            device
        ):  # another process's: it times that one, and says
            timings.append(ReplicaTiming(shard.replica, str(device), shard.matrices, None))
            continue
        mine = runtime.put_on((a[shard.start : shard.stop], x[shard.start : shard.stop]), device)
        call = lambda mine=mine: fn(*mine)  # noqa: E731
        timings.append(time_alone(config, shard, str(device), call, runtime.sync, len(shards)))
    if not over_devices:
        return timings
    medians = runtime.gather_floats([t.median_s for t in timings])  # every process's, in one list
    return [
        dataclasses.replace(t, median_s=m, bytes_per_s=rate_of(config, t.matrices, m))
        for t, m in zip(timings, medians)
    ]


def slowest_process(runtime: Any, timing: Timing) -> Timing:
    """Across several processes, each block's time is the slowest process's: each times
    only its own devices' part of the step, and the step is done when the last one is.
    (Every process takes the same samples: fixed sampling.)"""
    if not isinstance(runtime, PlacesOverDevices) or runtime.processes == 1:
        return timing
    merged = runtime.gather_floats(list(timing.measurement.samples_s))
    samples = tuple(m if m is not None else s for m, s in zip(merged, timing.measurement.samples_s))
    return dataclasses.replace(
        timing, measurement=dataclasses.replace(timing.measurement, samples_s=samples)
    )


def processes(runtime: Any) -> int:
    """The framework's processes in this run (several on JAX's multi-process path)."""
    return process_count(runtime)


def describe(
    result: Any,
    config: BenchConfig,
    shards: list[sharding.Shard],
    padding: int,
    timing: Timing,
    devices: int,
    process_count: int = 1,
) -> None:
    result.work_multiplier = devices if config.mode == "replicated" else 1
    if config.mode == "replicated":
        result.notes.append(replicated_note(config, devices))
    if process_count > 1:
        result.notes.append(
            f"{process_count} processes, {devices} devices: each block's time is the "
            "slowest process's (each times its own devices' part); the replicas are every "
            "process's, each timed by its own"
        )
    if padding:
        result.notes.append(
            f"{config.matrices:,} matrices do not split evenly over {devices} devices: "
            f"{padding} zero rows padded to equal shards and dropped before the check"
        )
    result.distribution = DistributionSummary(
        strategy="NamedSharding over the framework's devices"
        + (f" in {process_count} processes" if process_count > 1 else ""),
        replicas_in_sync=devices,
        shard_sizes=tuple(s.matrices for s in shards),
        step_s=timing.measurement.median_s,
        padded=bool(padding),
        padding_rows=padding,
        load_imbalance=sharding.load_imbalance(
            [r.median_s for r in result.replicas if r.median_s is not None]
        ),
        gather="none in the step: the output stays laid out over the devices",
    )
