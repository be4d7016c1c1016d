"""The result model: what was measured, typed end to end, serialisable to schema_version 1.

A `StrategyResult` keeps the raw samples; every statistic and every rate in the JSON is derived
from them (and from the counters and the run's measured peak) in one place, `derived()`, at
serialisation time. Each class's `from_dict` is the validating parser of its part of the file
(see `engine.results.reader`): what loads can be rendered by every page and report.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from engine.machine.load import MachineLoad
from engine.measure import roofline
from engine.measure.memory import MemoryEstimate
from engine.measure.racing import STOP_REASONS
from engine.measure.stats import Measurement
from engine.measure.uncertainty import (
    CONFIDENCE,
    MEDIAN_CI_METHOD,
    RATIO_CI_METHOD,
    NoiseFloor,
    Winner,
    median_ci,
    winner_and_ties,
)
from engine.results.files import write_text_atomically
from engine.results.parts import (
    MAX_SAMPLE_S,
    DistributionSummary,
    Environment,
    Peak,
    ProfileSummary,
    ReplicaTiming,
    finite_or_none,
)
from engine.results.reader import (
    MAX_COUNT,
    MISSING,
    Reader,
    ResultsRejected,
    check_number,
    load_json,
)
from engine.spec.catalog import code_to_copy, is_known, split_variant, strategy_info
from engine.spec.config import MODES, BenchConfig
from engine.spec.fields import ConfigError, reading_stored_results

SCHEMA_VERSION = 1
Status = Literal["ok", "failed", "unsupported", "skipped"]
STATUSES: tuple[str, ...] = ("ok", "failed", "unsupported", "skipped")
MAX_RESULTS = 1_000
RUN_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")

# Contract order of the per-variant fields; extras follow.
RESULT_FIELDS: tuple[str, ...] = (
    "strategy",
    "variant",
    "mode",
    "status",
    "error",
    "first_call_s",
    "transfer_s",
    "dispatch_s",
    "calls_per_sample",
    "samples_s",
    "median_s",
    "mean_s",
    "min_s",
    "p5_s",
    "p95_s",
    "iqr_s",
    "std_s",
    "flops",
    "bytes",
    "gflops_per_s",
    "gbytes_per_s",
    "matrices_per_s",
    "roofline_fraction",
    "max_rel_error",
    "correct",
    "replicas",
)
RUN_FIELDS: tuple[str, ...] = (
    "schema_version",
    "run_id",
    "created_at",
    "environment",
    "config",
    "peak",
    "results",
)
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
    # On a TPU: the bytes moved with XLA's (8, 128) tile padding; its roofline is given too.
    bytes_padded: int | None = None
    work_multiplier: int = 1  # replicated mode does N× the necessary work
    notes: list[str] = field(default_factory=list)
    distribution: DistributionSummary | None = None  # modes replicated and sharded
    profile: ProfileSummary | None = None  # --profile: captured after the samples
    # A user's kernel (`--kernel`): name, path, function, framework, source and sha256, so
    # the result renders where the file is not.
    user_kernel: dict[str, str] | None = None

    @property
    def measurement(self) -> Measurement | None:
        if not self.samples_s or not self.calls_per_sample:
            return None
        return Measurement(tuple(self.samples_s), self.calls_per_sample)

    @property
    def median_s(self) -> float | None:
        m = self.measurement
        return m.median_s if m else None

    def derived(self, peak_bytes_per_s: float | None) -> dict[str, float | None]:
        """Every statistic and rate, from the samples, the counters and the peak: the one
        place they are computed (the JSON, the tables and the charts all read this)."""
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
        return {**stats, **rates, "median_ci_s": interval, **padded}

    def to_dict(self, peak_bytes_per_s: float | None) -> dict[str, Any]:
        own = {f.name: getattr(self, f.name) for f in fields(self)}
        own["samples_s"] = list(self.samples_s)
        own["replicas"] = [asdict(r) for r in self.replicas]
        own["warnings"] = list(self.warnings)
        own["notes"] = list(self.notes)
        own["distribution"] = self.distribution.to_dict() if self.distribution else None
        own["profile"] = self.profile.to_dict() if self.profile else None
        for name in ("max_rel_error", "rel_error_norm", "max_abs_error"):
            own[name] = finite_or_none(own[name])  # an unwritten output has error inf
        merged = {**own, **self.derived(self.ceiling_bytes_per_s or peak_bytes_per_s)}
        ordered = {name: merged[name] for name in RESULT_FIELDS}
        extras = {k: v for k, v in merged.items() if k not in ordered}
        return {**ordered, **extras}

    @classmethod
    def from_dict(cls, data: Any, path: str, config: BenchConfig | None = None) -> StrategyResult:
        """Validate one results entry; derived statistics and rates in it are ignored."""
        read = Reader(data, path)
        strategy = read.text("strategy", max_chars=200)
        variant = read.text("variant", max_chars=200)
        if split_variant(variant)[0] != strategy:
            raise read.reject("variant", f"{variant!r} is not a variant of {strategy!r}")
        if config is not None and strategy not in config.strategies:
            raise read.reject("strategy", f"{strategy!r} is not among config.strategies")
        samples = tuple(
            read.each("samples_s", lambda v, p: check_number(v, p, 0, MAX_SAMPLE_S, positive=True))
        )
        calls = read.integer("calls_per_sample", None, low=1, high=MAX_COUNT)
        if samples and calls is None:
            raise read.reject("calls_per_sample", "must be an integer of at least 1 with samples")
        matrices = read.integer("matrices", config.matrices if config else MISSING, low=1)
        distribution = read.child("distribution", None)
        profile = read.child("profile", None)
        return cls(
            strategy=strategy,
            variant=variant,
            mode=read.choice("mode", MODES),
            status=read.choice("status", STATUSES),  # type: ignore[arg-type]
            matrices=matrices,
            flops=read.integer("flops", low=1),
            bytes=read.integer("bytes", low=1),
            error=read.text("error", None),
            first_call_s=read.number("first_call_s", None, high=MAX_SAMPLE_S),
            transfer_s=read.number("transfer_s", None, high=MAX_SAMPLE_S),
            dispatch_s=read.number("dispatch_s", None, high=MAX_SAMPLE_S),
            calls_per_sample=calls,
            samples_s=samples,
            max_rel_error=read.number("max_rel_error", None),
            rel_error_norm=read.number("rel_error_norm", None),
            max_abs_error=read.number("max_abs_error", None),
            tolerance=read.number("tolerance", None),
            correct=read.boolean("correct"),
            replicas=read.each("replicas", ReplicaTiming.from_dict),
            warnings=read.texts("warnings", []),
            budget_exhausted=read.boolean("budget_exhausted", False),
            stop_reason=None
            if read.data.get("stop_reason") is None
            else read.choice("stop_reason", STOP_REASONS),
            ceiling_bytes_per_s=read.number("ceiling_bytes_per_s", None, high=1e15),
            bytes_padded=read.integer("bytes_padded", None, low=1),
            work_multiplier=read.integer("work_multiplier", 1, low=1, high=1_000_000),
            notes=read.texts("notes", []),
            distribution=DistributionSummary.from_dict(distribution.data, distribution.path)
            if distribution
            else None,
            profile=ProfileSummary.from_dict(profile.data, profile.path) if profile else None,
            user_kernel=_user_kernel_from(read),
        )


@dataclass
class RunResult:
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
    timings: dict[str, float] | None = None  # wall seconds of each phase (TIMING_PHASES)
    extra: dict[str, Any] = field(default_factory=dict)  # top-level fields this version lacks

    @property
    def peak_bytes_per_s(self) -> float | None:
        return self.peak.bandwidth_bytes_per_s

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

    def winner(self) -> Winner | None:
        """The fastest correct variant and those not distinguishable from it (ties)."""
        candidates = tuple(
            (r.variant, tuple(r.samples_s), process_of(r.strategy))
            for r in self.results
            if r.status == "ok" and r.correct and r.samples_s
        )
        return _winner_of(candidates, self.effective_floor, self.config.seed)

    @property
    def effective_floor(self) -> NoiseFloor:
        """The floor ties are judged with: the machine's, widened when it was busy."""
        load = self.machine_load.other_cpu_fraction if self.machine_load else None
        return self.noise_floor.under_load(load)

    def winner_dict(self) -> dict[str, Any] | None:
        found = self.winner()
        if found is None:
            return None
        group = [found.variant, *found.tied_with]
        simplest = min(
            group,
            key=lambda v: (strategy_info(v).simplicity if is_known(v) else 99, group.index(v)),
        )
        return {
            "variant": found.variant,
            "tied_with": list(found.tied_with),
            "margin": found.margin,
            "ratios": {
                name: {"ratio": r.ratio, "ratio_ci": [r.low, r.high]}
                for name, r in found.ratios.items()
            },
            "simplest": simplest,
            "simplest_reason": strategy_info(simplest).simplicity_reason
            if is_known(simplest)
            else "",
            "method": RATIO_CI_METHOD,
        }

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "run_id": self.run_id,
            "created_at": self.created_at,
            "environment": self.environment.to_dict(),
            "config": {**self.config.to_dict(), "cold_copies": self.cold_copies},
            "peak": self.peak.to_dict(),
            "results": [r.to_dict(self.peak_bytes_per_s) for r in self.results],
            "warnings": list(self.warnings),
        }
        data["winner"] = self.winner_dict()
        if self.config.search:
            from engine.results.search import search_summary  # it reads this model

            data["search"] = search_summary(self)
        data["uncertainty"] = {
            "confidence": CONFIDENCE,
            "median_ci": MEDIAN_CI_METHOD,
            "noise_floor": asdict(self.noise_floor),
        }
        if self.sampling is not None:
            data["sampling"] = self.sampling
        if self.machine_load is not None:
            load = self.machine_load
            data["machine_load"] = {
                "load_at_start": list(load.load_at_start) if load.load_at_start else None,
                "other_cpu_s": load.other_cpu_s,
                "other_cpu_fraction": load.other_cpu_fraction,
                "wall_s": load.wall_s,
                "cores": load.cores,
            }
        if self.group_id is not None:
            data["group_id"] = self.group_id
        if self.timings is not None:
            data["timings"] = dict(self.timings)
        if self.memory is not None:
            data["memory_estimate"] = {
                "total_bytes": self.memory.total_bytes,
                "parts": dict(self.memory.parts),
                "limit_bytes": self.memory.limit_bytes,
                "limit_source": self.memory.limit_source,
            }
        return {**data, **self.extra}

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def write_json(self, path: str | Path) -> None:
        """Write atomically: a reader never sees a half-written file."""
        write_text_atomically(path, self.to_json())

    @classmethod
    def from_dict(cls, data: Any) -> RunResult:
        """The validating parser: raises ResultsRejected naming the path of the bad field."""
        read = Reader(data, "")
        if "schema_version" not in read.data:
            raise ResultsRejected("not a results file of this tool: no schema_version")
        if read.data["schema_version"] != SCHEMA_VERSION or isinstance(
            read.data["schema_version"], bool
        ):
            raise ResultsRejected(
                f"schema_version: {read.data['schema_version']!r} is not supported (this tool "
                f"reads {SCHEMA_VERSION})"
            )
        run_id = read.text("run_id", max_chars=64)
        if not RUN_ID.match(run_id):
            raise read.reject("run_id", "must be 1 to 64 letters, digits, '.', '_' or '-'")
        created_at = read.text("created_at", max_chars=64)
        try:
            datetime.fromisoformat(created_at)
        except ValueError:
            raise read.reject(
                "created_at", f"must be an ISO 8601 time, got {created_at!r}"
            ) from None
        config, cold_copies = _config_from(read.child("config"))
        results = read.items("results", max_items=MAX_RESULTS)
        memory = read.child("memory_estimate", None)
        uncertainty = read.child("uncertainty", None)
        floor = uncertainty.child("noise_floor", None) if uncertainty else None
        load = read.child("machine_load", None)
        group = read.text("group_id", None, max_chars=64)
        if group is not None and not RUN_ID.match(group):
            raise read.reject("group_id", "must be 1 to 64 letters, digits, '.', '_' or '-'")
        known = (
            *RUN_FIELDS,
            "warnings",
            "memory_estimate",
            "winner",
            "search",
            "uncertainty",
            "sampling",
            "machine_load",
            "group_id",
            "timings",
        )
        timings = read.child("timings", None)
        return cls(
            run_id=run_id,
            created_at=created_at,
            environment=Environment.from_dict(*_required(read, "environment")),
            config=config,
            peak=Peak.from_dict(*_required(read, "peak")),
            results=[
                StrategyResult.from_dict(entry, f"results[{i}]", config)
                for i, entry in enumerate(results)
            ],
            warnings=read.texts("warnings", []),
            cold_copies=cold_copies,
            memory=_memory_from(memory) if memory else None,
            sampling=read.mapping("sampling", None) or None,
            machine_load=_load_from(load) if load else None,
            noise_floor=_floor_from(floor) if floor else NoiseFloor(),
            group_id=group,
            timings=_timings_from(timings) if timings else None,
            extra=read.extras(known),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> RunResult:
        """Decode and validate results JSON text; raises ResultsRejected."""
        data = load_json(text)
        if not isinstance(data, dict):
            raise ResultsRejected("not a results file: the top level must be an object")
        try:
            return cls.from_dict(data)
        except RecursionError:
            raise ResultsRejected("not a results file: JSON nested too deeply") from None

    # Frames -----------------------------------------------------------------------------
    def summary_frame(self) -> Any:
        """One row per strategy variant, with every contract field but the raw samples."""
        import pandas as pd

        rows = []
        for entry in self.to_dict()["results"]:
            row = {k: v for k, v in entry.items() if k not in ("samples_s", "replicas")}
            row["warnings"] = "; ".join(entry["warnings"])
            row["notes"] = "; ".join(entry["notes"])
            rows.append(row)
        return pd.DataFrame(rows)

    def samples_frame(self) -> Any:
        """Tidy: one row per timing sample (seconds per call), labelled with the run's config."""
        import pandas as pd

        config = self.config
        rows = [
            {
                "run_id": self.run_id,
                "label": config.label,
                "device_kind": self.environment.device_kind,
                "strategy": result.strategy,
                "variant": result.variant,
                "mode": result.mode,
                "dtype": config.dtype,
                "matrices": config.matrices,
                "dim": config.rows,
                "cols": config.columns,
                "cache": config.cache,
                "sample": index,
                "calls_per_sample": result.calls_per_sample,
                "seconds": seconds,
                "correct": result.correct,
            }
            for result in self.results
            for index, seconds in enumerate(result.samples_s)
        ]
        return pd.DataFrame(rows)


# Where a run's wall time went, in order (docs/results-json.md). `startup_s` is starting the
# framework and the devices; `total_s` covers everything, so the phases sum to at most it.
TIMING_PHASES = ("startup_s", "peers_s", "peak_s", "inputs_s", "variants_s", "profile_s")


def _timings_from(read: Reader) -> dict[str, float]:
    found = {name: read.number(name, 0.0, high=MAX_SAMPLE_S * 1e3) for name in TIMING_PHASES}
    found["total_s"] = read.number("total_s", high=MAX_SAMPLE_S * 1e3)
    return found


def process_of(strategy: str) -> str:
    """Where a strategy's samples were taken: the run's own process, or its peer framework's."""
    if is_known(strategy) and strategy_info(strategy).in_own_process:
        return strategy_info(strategy).process
    return ""


@functools.lru_cache(maxsize=256)
def _winner_of(
    candidates: tuple[tuple[str, tuple[float, ...], str], ...], floor: NoiseFloor, seed: int
) -> Winner | None:
    """The bootstrap behind `RunResult.winner`, computed once per set of samples: the JSON,
    the CLI table, the page and the report all ask for it."""
    samples = {name: s for name, s, _ in candidates}
    processes = {name: process for name, _, process in candidates}
    return winner_and_ties(samples, floor, seed=seed, processes=processes)


def _required(read: Reader, name: str) -> tuple[Any, str]:
    """A required object's data and path (Reader.child refuses it missing or not an object)."""
    child = read.child(name)
    assert child is not None
    return child.data, child.path


USER_KERNEL_KEYS = ("name", "path", "function", "framework", "sha256", "source")


def _user_kernel_from(read: Reader) -> dict[str, str] | None:
    """A user kernel's record: six short texts, the source at most 256 KiB."""
    entry = read.child("user_kernel", None)
    if entry is None:
        return None
    return {
        key: entry.text(key, max_chars=262_144 if key == "source" else 4096)
        for key in USER_KERNEL_KEYS
    }


def _config_from(read: Reader | None) -> tuple[BenchConfig, int]:
    assert read is not None
    values = dict(read.data)
    cold = Reader(values, "config").integer("cold_copies", 1, low=1, high=10_000)
    values.pop("cold_copies", None)
    values.setdefault("order", "sequential")  # written before interleaving existed
    try:
        with reading_stored_results():
            return BenchConfig.from_raw(values), cold
    except ConfigError as error:
        raise ResultsRejected(f"config.{error}") from None


def _floor_from(read: Reader) -> NoiseFloor:
    return NoiseFloor(
        between_run_log_sd=read.number("between_run_log_sd", high=10.0),
        ratio_log_sd=read.number("ratio_log_sd", high=10.0),
        source=read.text("source", "", max_chars=500),
    )


def _load_from(read: Reader) -> MachineLoad:
    start = read.items("load_at_start", None, max_items=3)
    return MachineLoad(
        load_at_start=tuple(check_number(v, f"{read.path}.load_at_start", 0, 1e6) for v in start)
        if start
        else None,
        other_cpu_s=read.number("other_cpu_s", high=1e9),
        wall_s=read.number("wall_s", high=1e9),
        cores=read.integer("cores", low=1, high=1_000_000),
    )


def _memory_from(read: Reader) -> MemoryEstimate:
    parts = read.mapping("parts", {})
    checked = {
        str(name): int(Reader({"b": size}, f"{read.path}.parts.{name}").integer("b"))
        for name, size in parts.items()
    }
    return MemoryEstimate(
        checked, read.integer("limit_bytes", None), read.text("limit_source", "", max_chars=500)
    )
