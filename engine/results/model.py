"""The result model: what was measured, typed end to end, and nothing else.

A `StrategyResult` keeps the raw samples; every statistic and every rate is derived from them
(and from the counters and the run's measured peak) in one place, `derived()`. What is done
with a run lives above it and reads it: the winner policy (`verdict.py`), the JSON codec and
its validating parser (`codec.py`), the pandas frames (`frames.py`); `run_result.py` gathers
them into the public `RunResult`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from engine.catalogue.catalog import code_to_copy, is_known
from engine.machine.load import MachineLoad
from engine.measure import roofline
from engine.measure.host_and_device import PROFILED_CALLS, TIMED_BLOCKS, TimeSplit, time_split
from engine.measure.memory import MemoryEstimate, working_set_bytes
from engine.measure.peak import MEMORY, LevelCeiling, Peak
from engine.measure.stats import Measurement
from engine.measure.uncertainty import NoiseFloor, median_ci
from engine.results.parts import (
    BlockClocks,
    DeviceForms,
    DistributionSummary,
    Environment,
    ProfileSummary,
    ReplicaTiming,
)
from engine.run_settings.config import BenchConfig

Status = Literal["ok", "failed", "unsupported", "skipped"]
STAT_FIELDS: tuple[str, ...] = ("median_s", "mean_s", "min_s", "p5_s", "p95_s", "iqr_s", "std_s")
RATE_FIELDS: tuple[str, ...] = (
    "gflops_per_s",
    "gbytes_per_s",
    "matrices_per_s",
    "roofline_fraction",
)
DERIVED_FIELDS = STAT_FIELDS + RATE_FIELDS


@dataclass
class StrategyResult:
    strategy: str
    variant: str
    mode: str
    status: Status
    matrices: int
    flops: int
    bytes: int
    error: str | None = None
    first_call_s: float | None = None
    transfer_s: float | None = None
    dispatch_s: float | None = None
    # Untimed calls before its turns, in total (`Sampler.rewarm`): where a run's time went.
    rewarm_s: float | None = None
    calls_per_sample: int | None = None
    samples_s: tuple[float, ...] = ()
    max_rel_error: float | None = None
    rel_error_norm: float | None = None
    max_abs_error: float | None = None
    tolerance: float | None = None
    correct: bool = False
    replicas: list[ReplicaTiming] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    budget_exhausted: bool = False
    stop_reason: str | None = None  # why sampling stopped: precise, eliminated, budget, ...
    # The read bandwidth of the device this result ran on, when it is not the run's own (a
    # peer on a GPU beside a host run): its roofline is placed against this instead.
    ceiling_bytes_per_s: float | None = None
    # ... and that device's caches measured there (a GPU's L2), smallest first: a warm working
    # set that fits one is placed against it.
    device_levels: tuple[LevelCeiling, ...] = ()
    # On a TPU: the bytes moved with XLA's (8, 128) tile padding; its roofline is given too.
    bytes_padded: int | None = None
    work_multiplier: int = 1  # replicated mode does N× the necessary work
    notes: list[str] = field(default_factory=list)
    distribution: DistributionSummary | None = None  # modes replicated and sharded
    profile: ProfileSummary | None = None  # --profile: captured after the samples
    # A user's kernel (`--kernel`): name, path, function, framework, source and sha256, so
    # the result renders where the file is not.
    user_kernel: dict[str, str] | None = None
    # Reduced precision ("bfloat16 storage, float32 accumulation"): an accuracy class of its
    # own, never a candidate for the requested dtype's answer. None: the requested dtype's.
    accuracy_class: str | None = None
    # On a GPU: the device's own time of each timed block (seconds per call, one per sample,
    # CUDA events around the block), and which timer that is (docs/timing.md, "Device time").
    device_samples_s: tuple[float, ...] = ()
    device_timer: str | None = None
    # On an NVIDIA GPU: the clocks each timed block ran at (`measure/clocks.py`), in order,
    # and the samples of blocks taken while it throttled, left out of `samples_s`.
    clocks: tuple[BlockClocks, ...] = ()
    throttled_samples_s: tuple[float, ...] = ()
    # On a GPU: the launch-free (graph replay) and flushed-L2 forms of its call, beside the
    # plain warm one (`measure/device_forms.py`).
    device_forms: DeviceForms | None = None

    @property
    def measurement(self) -> Measurement | None:
        if not self.samples_s or not self.calls_per_sample:
            return None
        return Measurement(tuple(self.samples_s), self.calls_per_sample)

    @property
    def median_s(self) -> float | None:
        m = self.measurement
        return m.median_s if m else None

    def time_split(self) -> TimeSplit | None:
        """Host time beside op (or device) time and the difference, call by call
        (`measure/host_and_device.py`): the device's timer of the timed blocks where it ran,
        else the profiler's calls."""
        if self.device_samples_s and len(self.device_samples_s) == len(self.samples_s):
            timer = self.device_timer or "the device's timer"
            return time_split(self.samples_s, self.device_samples_s, timer, TIMED_BLOCKS)
        profile = self.profile
        if profile is None or profile.status != "ok" or not profile.op_samples_s:
            return None
        if len(profile.op_samples_s) != len(profile.wall_samples_s):
            return None
        source = profile.op_source or "the profiler's op time"
        return time_split(profile.wall_samples_s, profile.op_samples_s, source, PROFILED_CALLS)

    def derived(
        self,
        peak_bytes_per_s: float | None,
        level: LevelCeiling | None = None,
        memory: LevelCeiling | None = None,
    ) -> dict[str, Any]:
        """Every statistic and rate, from the samples, the counters and the peak: the one
        place they are computed (the JSON, the tables and the charts all read this).
        `level`: the ceiling of the level its working set lives in (`RunRecord.ceiling_of`);
        `memory`: memory's, whose reading `roofline_source` names (`RunRecord.memory_of`)."""
        m = self.measurement
        stats: dict[str, Any] = m.summary() if m else dict.fromkeys(STAT_FIELDS)
        rates = roofline.rates(
            self.flops, self.bytes, self.matrices, stats["median_s"], peak_bytes_per_s
        )
        interval = list(median_ci(self.samples_s)) if m else None
        padded: dict[str, Any] = {}
        if self.bytes_padded:
            padded_rates = roofline.rates(
                self.flops, self.bytes_padded, self.matrices, stats["median_s"], peak_bytes_per_s
            )
            padded = {"roofline_fraction_padded": padded_rates["roofline_fraction"]}
        light = level.bandwidth_bytes_per_s if level else peak_bytes_per_s
        split = self.time_split()
        forms = self.device_forms
        memory_bps = memory.bandwidth_bytes_per_s if memory else peak_bytes_per_s
        own_level = {
            "device_form_times": forms.summary(self.bytes, light, memory_bps) if forms else None,
            "speed_of_light_s": self.bytes / light if light else None,
            "time_split": split.to_dict() if split else None,
            "ceiling_level": level.level if level else None,
            "ceiling_fraction": roofline.fraction(
                self.bytes, stats["median_s"], level.bandwidth_bytes_per_s if level else None
            ),
            "ceiling_source": level.source if level else None,
            "roofline_source": memory.source if memory else None,
        }
        return {**stats, **rates, "median_ci_s": interval, **padded, **own_level}


@dataclass
class RunRecord:
    """One run: its settings, machine, ceiling and every variant's result (the public
    `RunResult` adds the verdict, the JSON and the frames)."""

    run_id: str
    created_at: str
    environment: Environment
    config: BenchConfig
    peak: Peak
    results: list[StrategyResult]
    warnings: list[str] = field(default_factory=list)
    cold_copies: int = 1  # input sets rotated through (cache=cold)
    memory: MemoryEstimate | None = None  # the preflight's estimate and the limit checked
    sampling: dict[str, Any] | None = None  # order, seed and the executed rounds
    machine_load: MachineLoad | None = None  # how busy the machine was meanwhile
    noise_floor: NoiseFloor = field(default_factory=NoiseFloor)  # used for ties
    group_id: str | None = None  # repetitions of one measurement share a group
    # What the history predicted before the run measured (`analysis/prediction.py`), with its
    # `outcome` once measured; never read as a measurement. None: no prediction was asked.
    prediction: dict[str, Any] | None = None
    timings: dict[str, float] | None = None  # wall seconds of each phase (TIMING_PHASES)
    extra: dict[str, Any] = field(default_factory=dict)  # top-level fields this version lacks
    # True for a run this tool measured here: by the orchestrator, or read back from a file
    # whose attestation verifies (results/attestation.py). Anything else is a report.
    measured_here: bool = False

    @property
    def reported_by(self) -> str | None:
        """None for a run measured here; else the machine the file names (its claim)."""
        if self.measured_here:
            return None
        return self.environment.hostname or "an unnamed machine"

    @property
    def peak_bytes_per_s(self) -> float | None:
        return self.peak.bandwidth_bytes_per_s

    def ceiling_of(self, result: StrategyResult) -> LevelCeiling | None:
        """The ceiling `result` is placed against: its own device's memory where it ran on
        another device; else the run's level its working set lives in (memory for a file
        without levels); None without any ceiling."""
        if result.ceiling_bytes_per_s:
            held = self.working_set_of(result)
            own = (*result.device_levels, LevelCeiling(MEMORY, None, result.ceiling_bytes_per_s))
            return next(lv for lv in own if lv.bytes is None or held <= lv.bytes)
        if not self.peak.bandwidth_bytes_per_s:
            return None
        return self.peak.ceiling_for(self.working_set_of(result))

    def speed_of_light(self) -> dict[str, Any] | None:
        """The problem's speed of light on the run's own device: the bytes a call must move
        over the ceiling of the level its working set lives in, as a time (None without a
        ceiling). Each result's `ceiling_fraction` is its time as a fraction of it; a result
        on another device has its own `speed_of_light_s`."""
        own = next(
            (r for r in self.results if not r.ceiling_bytes_per_s and r.accuracy_class is None),
            None,
        )
        level = self.ceiling_of(own) if own is not None else None
        if own is None or level is None or not level.bandwidth_bytes_per_s:
            return None
        return {
            "time_s": own.bytes / level.bandwidth_bytes_per_s,
            "bytes": own.bytes,
            "level": level.level,
            "bytes_per_s": level.bandwidth_bytes_per_s,
            "source": level.source,
        }

    def memory_of(self, result: StrategyResult) -> LevelCeiling | None:
        """Memory's ceiling `result`'s roofline fraction is of: its own device's where it ran
        on another device, else the run's; None without one."""
        if result.ceiling_bytes_per_s:
            return LevelCeiling(MEMORY, None, result.ceiling_bytes_per_s)
        return self.peak.ceilings()[-1] if self.peak.bandwidth_bytes_per_s else None

    def working_set_of(self, result: StrategyResult) -> int:
        """The bytes `result`'s calls read in turn (`memory.working_set_bytes`)."""
        return working_set_bytes(self.config, result.mode, self.cold_copies)

    @property
    def label(self) -> str:
        return self.config.label

    @property
    def worker(self) -> dict[str, Any]:
        """`sampling.worker`: whether a warm worker ran this and reused its inputs ({} if not
        recorded)."""
        found = (self.sampling or {}).get("worker")
        return found if isinstance(found, dict) else {}

    def code_for(self, variant: str) -> str | None:
        """The code to copy for a variant: the catalogue's, else a user kernel's stored source
        (so a run with a user kernel shows it where the file is not)."""
        code = code_to_copy(variant) if is_known(variant) else None
        if code:
            return code
        entry = next((r for r in self.results if r.variant == variant and r.user_kernel), None)
        return entry.user_kernel["source"] if entry and entry.user_kernel else None
