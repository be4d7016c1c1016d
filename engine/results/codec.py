"""The results JSON codec (schema_version 1): a run and its entries to JSON, and back through
the validating parser.

Writing derives every statistic and rate from the raw samples (`StrategyResult.derived`) at
that moment; reading validates each field and names the path of the first bad one
(`ResultsRejected`), so what loads can be rendered by every page and report. A run is read
into the class it is given (the public `RunResult`, which is a `RunRecord`).
"""

from __future__ import annotations

import re
from dataclasses import asdict, fields
from datetime import datetime
from typing import Any, TypeVar

from engine.machine.load import MachineLoad
from engine.measure.memory import MemoryEstimate
from engine.measure.racing import STOP_REASONS
from engine.measure.uncertainty import CONFIDENCE, MEDIAN_CI_METHOD, NoiseFloor
from engine.results.model import RunRecord, StrategyResult
from engine.results.parts import (
    MAX_SAMPLE_S,
    DistributionSummary,
    Environment,
    ProfileSummary,
    ReplicaTiming,
    finite_or_none,
    read_peak,
)
from engine.results.reader import (
    MAX_COUNT,
    MISSING,
    Reader,
    ResultsRejected,
    check_number,
    load_json,
)
from engine.results.search import search_summary
from engine.results.verdict import run_reduced_precision, run_winner_record
from engine.spec.catalog import split_variant
from engine.spec.config import MODES, BenchConfig
from engine.spec.fields import ConfigError, reading_stored_results

Run = TypeVar("Run", bound=RunRecord)

SCHEMA_VERSION = 1
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


def result_to_dict(entry: StrategyResult, peak_bytes_per_s: float | None) -> dict[str, Any]:
    """One results entry: the raw samples and counters, and everything derived from them."""
    own = {f.name: getattr(entry, f.name) for f in fields(entry)}
    own["samples_s"] = list(entry.samples_s)
    own["replicas"] = [asdict(r) for r in entry.replicas]
    own["warnings"] = list(entry.warnings)
    own["notes"] = list(entry.notes)
    own["distribution"] = entry.distribution.to_dict() if entry.distribution else None
    own["profile"] = entry.profile.to_dict() if entry.profile else None
    for name in ("max_rel_error", "rel_error_norm", "max_abs_error"):
        own[name] = finite_or_none(own[name])  # an unwritten output has error inf
    merged = {**own, **entry.derived(entry.ceiling_bytes_per_s or peak_bytes_per_s)}
    ordered = {name: merged[name] for name in RESULT_FIELDS}
    extras = {k: v for k, v in merged.items() if k not in ordered}
    return {**ordered, **extras}


def result_from_dict(data: Any, path: str, config: BenchConfig | None = None) -> StrategyResult:
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
    return StrategyResult(
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
        accuracy_class=read.text("accuracy_class", None, max_chars=200),
    )


def run_to_dict(run: RunRecord) -> dict[str, Any]:
    """The results JSON of a run (docs/results-json.md), winner and search summary included."""
    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "run_id": run.run_id,
        "created_at": run.created_at,
        "environment": run.environment.to_dict(),
        "config": {**run.config.to_dict(), "cold_copies": run.cold_copies},
        "peak": run.peak.to_dict(),
        "results": [result_to_dict(r, run.peak_bytes_per_s) for r in run.results],
        "warnings": list(run.warnings),
    }
    data["winner"] = run_winner_record(run)
    reduced = run_reduced_precision(run)
    if reduced is not None:
        data["reduced_precision"] = reduced
    if run.config.search:
        data["search"] = search_summary(run)
    data["uncertainty"] = {
        "confidence": CONFIDENCE,
        "median_ci": MEDIAN_CI_METHOD,
        "noise_floor": floor_dict(run.noise_floor),
    }
    if run.sampling is not None:
        data["sampling"] = run.sampling
    if run.machine_load is not None:
        load = run.machine_load
        data["machine_load"] = {
            "load_at_start": list(load.load_at_start) if load.load_at_start else None,
            "other_cpu_s": load.other_cpu_s,
            "other_cpu_fraction": load.other_cpu_fraction,
            "wall_s": load.wall_s,
            "cores": load.cores,
        }
    if run.group_id is not None:
        data["group_id"] = run.group_id
    if run.timings is not None:
        data["timings"] = dict(run.timings)
    if run.memory is not None:
        data["memory_estimate"] = {
            "total_bytes": run.memory.total_bytes,
            "parts": dict(run.memory.parts),
            "limit_bytes": run.memory.limit_bytes,
            "limit_source": run.memory.limit_source,
        }
    return {**data, **run.extra}


def run_from_dict(cls: type[Run], data: Any) -> Run:
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
        raise read.reject("created_at", f"must be an ISO 8601 time, got {created_at!r}") from None
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
        "reduced_precision",
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
        peak=read_peak(*_required(read, "peak")),
        results=[
            result_from_dict(entry, f"results[{i}]", config) for i, entry in enumerate(results)
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


def run_from_json(cls: type[Run], text: str | bytes) -> Run:
    """Decode and validate results JSON text; raises ResultsRejected."""
    data = load_json(text)
    if not isinstance(data, dict):
        raise ResultsRejected("not a results file: the top level must be an object")
    try:
        return run_from_dict(cls, data)
    except RecursionError:
        raise ResultsRejected("not a results file: JSON nested too deeply") from None


# Where a run's wall time went, in order (docs/results-json.md). `startup_s` is starting the
# framework and the devices; `total_s` covers everything, so the phases sum to at most it.
TIMING_PHASES = ("startup_s", "peers_s", "peak_s", "inputs_s", "variants_s", "profile_s")


def _timings_from(read: Reader) -> dict[str, float]:
    found = {name: read.number(name, 0.0, high=MAX_SAMPLE_S * 1e3) for name in TIMING_PHASES}
    found["total_s"] = read.number("total_s", high=MAX_SAMPLE_S * 1e3)
    return found


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


def floor_dict(floor: NoiseFloor) -> dict[str, Any]:
    """`uncertainty.noise_floor`: the two spreads and their source (a run's floor is the
    machine's; the per-variant spreads only a comparison reads from the history are left out
    when there are none)."""
    data: dict[str, Any] = {
        "between_run_log_sd": floor.between_run_log_sd,
        "ratio_log_sd": floor.ratio_log_sd,
        "source": floor.source,
    }
    if floor.variant_log_sd:
        data["variant_log_sd"] = dict(floor.variant_log_sd)
    return data


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
