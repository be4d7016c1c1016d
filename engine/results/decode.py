"""The validating parser of the results JSON (schema_version 1): a file's text or object back
into the model, each field checked and the path of the first bad one named (`ResultsRejected`),
so what loads can be rendered by every page and report. Derived statistics and rates in a file
are ignored: the model derives them from the samples again. `codec.py` writes what this reads.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, TypeVar

from engine.catalogue.catalog import split_variant
from engine.machine.load import MachineLoad
from engine.measure.memory import MemoryEstimate
from engine.measure.peak import MEMORY
from engine.measure.racing import STOP_REASONS
from engine.measure.uncertainty import NoiseFloor
from engine.results.attestation import FIELD as ATTESTATION
from engine.results.attestation import is_attested
from engine.results.claims import check_claims
from engine.results.codec import (
    MAX_RESULTS,
    RUN_FIELDS,
    RUN_ID,
    SCHEMA_VERSION,
    STATUSES,
    TIMING_PHASES,
)
from engine.results.model import RunRecord, StrategyResult
from engine.results.parts import (
    MAX_SAMPLE_S,
    MIN_SAMPLE_S,
    DistributionSummary,
    Environment,
    ProfileSummary,
    ReplicaTiming,
    read_block_clocks,
    read_device_forms,
    read_level,
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
from engine.results.time_split import TIMING_SPLIT
from engine.run_settings.config import MODES, BenchConfig, config_fields
from engine.run_settings.fields import ConfigError, reading_stored_results, shown

Run = TypeVar("Run", bound=RunRecord)


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
        read.each("samples_s", lambda v, p: check_number(v, p, MIN_SAMPLE_S, MAX_SAMPLE_S))
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
        rewarm_s=read.number("rewarm_s", None, high=MAX_SAMPLE_S * 1e3),
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
        device_levels=tuple(
            level
            for level in read.each("device_levels", read_level, [])
            if level.level != MEMORY and level.bytes and level.bandwidth_bytes_per_s
        ),
        bytes_padded=read.integer("bytes_padded", None, low=1),
        work_multiplier=read.integer("work_multiplier", 1, low=1, high=1_000_000),
        notes=read.texts("notes", []),
        distribution=DistributionSummary.from_dict(distribution.data, distribution.path)
        if distribution
        else None,
        profile=ProfileSummary.from_dict(profile.data, profile.path) if profile else None,
        user_kernel=_user_kernel_from(read),
        accuracy_class=read.text("accuracy_class", None, max_chars=200),
        **_device_parts(read, len(samples)),
    )


def _device_parts(read: Reader, samples: int) -> dict[str, Any]:
    """A GPU result's device time, clocks and forms (docs/timing.md, "Device time"); the
    device's samples are one per timed sample or none."""
    device = tuple(
        read.each("device_samples_s", lambda v, p: check_number(v, p, 0, MAX_SAMPLE_S), [])
    )
    if device and len(device) != samples:
        raise read.reject("device_samples_s", f"must hold one time per sample ({samples})")
    forms = read.child("device_forms", None)
    return {
        "device_samples_s": device,
        "device_timer": read.text("device_timer", None, max_chars=200),
        "clocks": tuple(read.each("clocks", read_block_clocks, [])),
        "throttled_samples_s": tuple(
            read.each("throttled_samples_s", lambda v, p: check_number(v, p, 0, MAX_SAMPLE_S), [])
        ),
        "device_forms": read_device_forms(forms.data, forms.path) if forms else None,
    }


def run_from_dict(cls: type[Run], data: Any) -> Run:
    """The validating parser: raises ResultsRejected naming the path of the bad field."""
    read = Reader(data, "")
    run_id, created_at = _identity(read)
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
        "prediction",
        "speed_of_light",  # derived: computed again from the results and the ceilings
        ATTESTATION,
    )
    timings = read.child("timings", None)
    run = cls(
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
        prediction=read.mapping("prediction", None) or None,
        timings=_timings_from(timings) if timings else None,
        extra=read.extras(known),
        measured_here=is_attested(read.data),
    )
    check_claims(run)
    return run


def _identity(read: Reader) -> tuple[str, str]:
    """A file's schema version checked, and its `run_id` and `created_at` (an ISO time, not
    in the future: it would be every series' latest point)."""
    if "schema_version" not in read.data:
        raise ResultsRejected("not a results file of this tool: no schema_version")
    version = read.data["schema_version"]
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise ResultsRejected(
            f"schema_version: {version!r} is not supported (this tool reads {SCHEMA_VERSION})"
        )
    run_id = read.text("run_id", max_chars=64)
    if not RUN_ID.match(run_id):
        raise read.reject("run_id", "must be 1 to 64 letters, digits, '.', '_' or '-'")
    created_at = read.text("created_at", max_chars=64)
    try:
        created = datetime.fromisoformat(created_at)
    except ValueError:
        raise read.reject("created_at", f"must be an ISO 8601 time, got {created_at!r}") from None
    if created.tzinfo is None:
        created = created.replace(tzinfo=timezone.utc)
    if created > datetime.now(timezone.utc) + FUTURE_SLACK:
        raise read.reject("created_at", f"{created_at} is in the future")
    return run_id, created_at


def run_from_json(cls: type[Run], text: str | bytes) -> Run:
    """Decode and validate results JSON text; raises ResultsRejected."""
    data = load_json(text)
    if not isinstance(data, dict):
        raise ResultsRejected("not a results file: the top level must be an object")
    try:
        return run_from_dict(cls, data)
    except RecursionError:
        raise ResultsRejected("not a results file: JSON nested too deeply") from None


def _timings_from(read: Reader) -> dict[str, float]:
    found = {name: read.number(name, 0.0, high=MAX_SAMPLE_S * 1e3) for name in TIMING_PHASES}
    found["total_s"] = read.number("total_s", high=MAX_SAMPLE_S * 1e3)
    for name in TIMING_SPLIT:  # absent in files from before it existed
        if read.data.get(name) is not None:
            found[name] = read.number(name, high=MAX_SAMPLE_S * 1e3)
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


# What a JSON value of each kind of setting must be: a file is data, not the loosely typed
# text of a command line or a link ("200" for a number is refused, naming the field).
JSON_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "int": ((int,), "an integer"),
    "optional_int": ((int, type(None)), "an integer or null"),
    "seconds": ((int, float), "a number"),
    "bool": ((bool,), "true or false"),
    "choice": ((str,), "text"),
    "text": ((str,), "text"),
    "strategies": ((list,), "a list of names"),
    "kernels": ((list,), "a list of kernels"),
}


FUTURE_SLACK = timedelta(days=1)  # clocks of two machines disagree by less than this


def _check_config_types(values: dict[str, Any]) -> None:
    for item, setting in config_fields():
        if item.name not in values:
            continue
        value, (allowed, wanted) = values[item.name], JSON_TYPES[setting.kind]
        wrong_bool = isinstance(value, bool) and bool not in allowed
        if wrong_bool or not isinstance(value, allowed):
            raise ResultsRejected(f"config.{item.name}: must be {wanted}, got {shown(value)}")


def _config_from(read: Reader | None) -> tuple[BenchConfig, int]:
    assert read is not None
    values = dict(read.data)
    _check_config_types(values)
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
        tool_cpu_s=read.number("tool_cpu_s", 0.0, high=1e9),
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
