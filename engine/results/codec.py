"""The results JSON (schema_version 1): its fields in contract order, and a run and its entries
written to it. Writing derives every statistic and rate from the raw samples
(`StrategyResult.derived`) at that moment, and the winner from the verdict; `decode.py` reads
it back through the validating parser.
"""

from __future__ import annotations

import re
from dataclasses import asdict, fields
from typing import Any

from engine.catalogue.catalog import is_known, strategy_info
from engine.measure.peak import LevelCeiling
from engine.measure.uncertainty import CONFIDENCE, MEDIAN_CI_METHOD, NoiseFloor
from engine.results.attestation import FIELD as ATTESTATION
from engine.results.attestation import attest
from engine.results.model import RunRecord, StrategyResult
from engine.results.parts import finite_or_none
from engine.results.search import search_summary
from engine.results.verdict import run_reduced_precision, run_winner_record

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


def framework_of(entry: StrategyResult) -> str | None:
    """The framework folder a result ran in: its strategy's, a user kernel's own, else None
    (a name from another catalogue)."""
    if entry.user_kernel:
        return entry.user_kernel.get("framework")
    return strategy_info(entry.strategy).framework if is_known(entry.strategy) else None


def result_to_dict(
    entry: StrategyResult,
    peak_bytes_per_s: float | None,
    level: LevelCeiling | None = None,
    memory: LevelCeiling | None = None,
) -> dict[str, Any]:
    """One results entry: the raw samples and counters, and everything derived from them
    (`level`: the ceiling it is placed against, `RunRecord.ceiling_of`; `memory`, memory's,
    `RunRecord.memory_of`)."""
    own = {f.name: getattr(entry, f.name) for f in fields(entry)}
    own["samples_s"] = list(entry.samples_s)
    own["replicas"] = [asdict(r) for r in entry.replicas]
    own["warnings"] = list(entry.warnings)
    own["notes"] = list(entry.notes)
    own["distribution"] = entry.distribution.to_dict() if entry.distribution else None
    own["profile"] = entry.profile.to_dict() if entry.profile else None
    own["device_levels"] = [level.to_dict() for level in entry.device_levels]
    own["device_samples_s"] = list(entry.device_samples_s)
    own["throttled_samples_s"] = list(entry.throttled_samples_s)
    own["clocks"] = [clocks.to_dict() for clocks in entry.clocks]
    own["device_forms"] = entry.device_forms.to_dict() if entry.device_forms else None
    own["framework"] = framework_of(entry)
    for name in ("max_rel_error", "rel_error_norm", "max_abs_error"):
        own[name] = finite_or_none(own[name])  # an unwritten output has error inf
    rate_of = entry.ceiling_bytes_per_s or peak_bytes_per_s
    merged = {**own, **entry.derived(rate_of, level, memory)}
    ordered = {name: merged[name] for name in RESULT_FIELDS}
    extras = {k: v for k, v in merged.items() if k not in ordered}
    return {**ordered, **extras}


def run_entries(run: RunRecord) -> list[dict[str, Any]]:
    """Every result of a run as its JSON entry, each against its own ceiling, with the working
    set that placed it there."""
    return [
        {
            **result_to_dict(r, run.peak_bytes_per_s, run.ceiling_of(r), run.memory_of(r)),
            "working_set_bytes": run.working_set_of(r),
        }
        for r in run.results
    ]


def run_to_dict(run: RunRecord) -> dict[str, Any]:
    """The results JSON of a run (docs/results-json.md), winner and search summary included."""
    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "run_id": run.run_id,
        "created_at": run.created_at,
        "environment": run.environment.to_dict(),
        "config": {**run.config.to_dict(), "cold_copies": run.cold_copies},
        "peak": run.peak.to_dict(),
        "results": run_entries(run),
        "warnings": list(run.warnings),
    }
    data["winner"] = run_winner_record(run)
    data["speed_of_light"] = run.speed_of_light()
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
            "tool_cpu_s": load.tool_cpu_s,
            "tool_cpu_fraction": load.tool_cpu_fraction,
            "wall_s": load.wall_s,
            "cores": load.cores,
        }
    if run.group_id is not None:
        data["group_id"] = run.group_id
    if run.prediction is not None:
        data["prediction"] = run.prediction
    if run.timings is not None:
        data["timings"] = dict(run.timings)
    if run.memory is not None:
        data["memory_estimate"] = {
            "total_bytes": run.memory.total_bytes,
            "parts": dict(run.memory.parts),
            "limit_bytes": run.memory.limit_bytes,
            "limit_source": run.memory.limit_source,
        }
    data = {**data, **run.extra}
    if run.measured_here:
        stamp = attest(data, run.environment.hostname)
        if stamp is not None:
            data[ATTESTATION] = stamp
    return data


# Where a run's wall time went, in order (docs/results-json.md). `startup_s` is starting the
# framework and the devices; `total_s` covers everything, so the phases sum to at most it.
TIMING_PHASES = ("startup_s", "peers_s", "peak_s", "inputs_s", "variants_s", "profile_s")


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
