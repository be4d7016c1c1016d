"""The smaller pieces of a result: replica timings, the distribution summary, the environment,
and the readers of the peak and its probes (`engine.measure.peak` holds those). Each
`from_dict` or `read_*` validates its part of a results file."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from engine.machine.gpu_clocks import BlockClocks
from engine.measure.device_forms import DeviceForms
from engine.measure.peak import MEMORY, LevelCeiling, Peak, Probe
from engine.results.reader import MAX_COUNT, Reader, check_number

MAX_SAMPLE_S = 1e6  # a sample of over 11 days per call is a corrupt file, not a measurement
# No call of a whole batch, on any device, returns in under a nanosecond (a launch alone takes
# microseconds): a shorter sample is a forged file, refused with its path.
MIN_SAMPLE_S = 1e-9
DEVICE_KINDS: tuple[str, ...] = ("CPU", "GPU", "TPU")


def finite_or_none(value: float | None) -> float | None:
    """JSON has no inf or NaN; an infinite error (nothing written) is stored as null."""
    return value if value is not None and math.isfinite(value) else None


@dataclass(frozen=True)
class ReplicaTiming:
    replica: int
    device: str
    matrices: int
    median_s: float | None
    bytes_per_s: float | None = None

    @classmethod
    def from_dict(cls, data: Any, path: str) -> ReplicaTiming:
        read = Reader(data, path)
        return cls(
            replica=read.integer("replica", high=1_000_000),
            device=read.text("device", max_chars=500),
            matrices=read.integer("matrices"),
            median_s=read.number("median_s", None, high=MAX_SAMPLE_S, positive=True),
            bytes_per_s=read.number("bytes_per_s", None, positive=True),
        )


@dataclass(frozen=True)
class DistributionSummary:
    """How a distributed variant ran: the tf.distribute strategy, shards, step time, balance."""

    strategy: str
    replicas_in_sync: int
    shard_sizes: tuple[int, ...]
    step_s: float | None
    workers: int = 1
    padded: bool = False
    padding_rows: int = 0
    load_imbalance: float | None = None
    gather: str | None = None
    replicated_step_s: float | None = None
    speedup_over_replicated: float | None = None
    api: str | None = None  # the tf.data distribution API (dataset strategy)
    global_batch: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["shard_sizes"] = list(self.shard_sizes)
        return {k: v for k, v in data.items() if v is not None}

    @classmethod
    def from_dict(cls, data: Any, path: str) -> DistributionSummary:
        read = Reader(data, path)
        return cls(
            strategy=read.text("strategy", max_chars=200),
            replicas_in_sync=read.integer("replicas_in_sync", low=1, high=1_000_000),
            shard_sizes=tuple(
                read.each("shard_sizes", lambda v, p: int(check_number(v, p, 0, MAX_COUNT)), [])
            ),
            step_s=read.number("step_s", None, high=MAX_SAMPLE_S),
            workers=read.integer("workers", 1, low=1, high=1_000_000),
            padded=read.boolean("padded", False),
            padding_rows=read.integer("padding_rows", 0),
            load_imbalance=read.number("load_imbalance", None),
            gather=read.text("gather", None),
            replicated_step_s=read.number("replicated_step_s", None, high=MAX_SAMPLE_S),
            speedup_over_replicated=read.number("speedup_over_replicated", None),
            api=read.text("api", None),
            global_batch=read.integer("global_batch", None, low=1),
        )


def read_probe(data: Any, path: str) -> Probe:
    """Validate one peak-bandwidth probe of a results file (or a peer's report)."""
    read = Reader(data, path)
    known = ("kernel", "when", "bandwidth_bytes_per_s", "samples_s", "calls_per_sample")
    return Probe(
        kernel=read.text("kernel", max_chars=500),
        when=read.text("when", "", max_chars=100),
        bandwidth_bytes_per_s=read.number("bandwidth_bytes_per_s", positive=True),
        samples_s=tuple(
            read.each("samples_s", lambda v, p: check_number(v, p, 0, MAX_SAMPLE_S), [])
        ),
        calls_per_sample=read.integer("calls_per_sample", None, low=1),
        extra=read.extras(known),
    )


CACHE_LEVEL_NAMES = ("L1", "L2", "L3", "L4")


def read_level(data: Any, path: str) -> LevelCeiling:
    """Validate one entry of `peak.levels`: a cache level, or memory's (derived again)."""
    read = Reader(data, path)
    known = ("level", "bytes", "bandwidth_bytes_per_s", "probes", "own_bytes_per_s")
    level = read.choice("level", (*CACHE_LEVEL_NAMES, MEMORY))
    return LevelCeiling(
        level=level,
        bytes=read.integer("bytes", None, low=1) if level != MEMORY else None,
        bandwidth_bytes_per_s=read.number("bandwidth_bytes_per_s", None, positive=True),
        probes=tuple(read.each("probes", read_probe, [])),
        extra=read.extras(known),
        own_bytes_per_s=read.number("own_bytes_per_s", None, positive=True),
    )


def read_peak(data: Any, path: str) -> Peak:
    """Validate a results file's `peak`. Its `levels` keep their caches only, smallest first
    (memory's is the peak itself); a file without them reads as memory only."""
    read = Reader(data, path)
    known = (
        "bandwidth_bytes_per_s",
        "method",
        "device",
        "buffer_bytes",
        "probes",
        "levels",
        "own_bytes_per_s",
    )
    levels = [
        level
        for level in read.each("levels", read_level, [])
        if level.level != MEMORY and level.bytes and level.bandwidth_bytes_per_s
    ]
    return Peak(
        bandwidth_bytes_per_s=read.number("bandwidth_bytes_per_s", None, positive=True),
        method=read.text("method", ""),
        device=read.text("device", None, max_chars=500),
        buffer_bytes=read.integer("buffer_bytes", None),
        probes=tuple(read.each("probes", read_probe, [])),
        extra=read.extras(known),
        levels=tuple(sorted(levels, key=lambda level: level.bytes or 0)),
        own_bytes_per_s=read.number("own_bytes_per_s", None, positive=True),
    )


ENVIRONMENT_TEXT = ("numpy", "python", "platform", "hostname", "cpu_model")
ENVIRONMENT_TEXT_EXTRA = ("last_level_cache_source",)


@dataclass(frozen=True)
class Environment:
    """The machine context stored beside the numbers, so runs from two machines compare."""

    device_kind: str
    devices: tuple[str, ...] = ()
    available_devices: tuple[str, ...] = ()
    replicas: int | None = None
    numpy: str | None = None
    python: str | None = None
    platform: str | None = None
    hostname: str | None = None
    cpu_model: str | None = None
    cpu_count: int | None = None
    cpu_affinity_count: int | None = None
    last_level_cache_bytes: int | None = None
    last_level_cache_source: str | None = None
    threads: dict[str, Any] = field(default_factory=dict)
    flags: dict[str, Any] = field(default_factory=dict)
    build: dict[str, Any] = field(default_factory=dict)
    device_notes: tuple[str, ...] = ()
    # Every framework that ran, TensorFlow among them: version, device, threads and (for a
    # process of its own) its start and wall times, by framework folder name.
    frameworks: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # fields this version does not know

    @property
    def tensorflow(self) -> str | None:
        """TensorFlow's version where it ran (the results' `environment.tensorflow`)."""
        return self.framework_version("tensorflow")

    def framework_version(self, name: str) -> str | None:
        found = self.frameworks.get(name)
        version = found.get("version") if isinstance(found, dict) else None
        return str(version) if version is not None else None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for item in fields(self):
            if item.name == "extra":
                continue
            value = getattr(self, item.name)
            data[item.name] = list(value) if isinstance(value, tuple) else value
        # The first rounds' field, kept: TensorFlow's version, or null where it did not run.
        return {"tensorflow": self.tensorflow, **data, **self.extra}

    @classmethod
    def from_dict(cls, data: Any, path: str) -> Environment:
        read = Reader(data, path)
        known = {item.name for item in fields(cls)} - {"extra"}
        values: dict[str, Any] = {"device_kind": read.choice("device_kind", DEVICE_KINDS)}
        for name in (*ENVIRONMENT_TEXT, *ENVIRONMENT_TEXT_EXTRA):
            values[name] = read.text(name, None, max_chars=2_000)
        for name in ("devices", "available_devices", "device_notes"):
            values[name] = tuple(read.texts(name, []))
        for name in ("replicas", "cpu_count", "cpu_affinity_count", "last_level_cache_bytes"):
            values[name] = read.integer(name, None)
        for name in ("threads", "flags", "build", "frameworks"):
            values[name] = read.mapping(name, {})
        # A file from before TensorFlow was one of `frameworks` names it at the top only.
        tensorflow = read.text("tensorflow", None, max_chars=2_000)
        if tensorflow is not None:  # the entry `frameworks` has, where it has one, wins
            values["frameworks"] = {"tensorflow": {"version": tensorflow}, **values["frameworks"]}
        return cls(**values, extra=read.extras(known | {"tensorflow"}))


PROFILE_STATUSES = ("ok", "failed", "unsupported")


@dataclass(frozen=True)
class ProfiledOp:
    name: str
    type: str
    count_per_call: float
    self_s_per_call: float

    @classmethod
    def from_dict(cls, data: Any, path: str) -> ProfiledOp:
        read = Reader(data, path)
        return cls(
            name=read.text("name", max_chars=500),
            type=read.text("type", max_chars=200),
            count_per_call=read.number("count_per_call", high=1e9),
            self_s_per_call=read.number("self_s_per_call", high=MAX_SAMPLE_S),
        )


@dataclass(frozen=True)
class ProfileSummary:
    """A variant's profile by its framework's profiler, captured after its samples
    (docs/profiling.md)."""

    status: str  # ok | failed | unsupported
    error: str | None = None
    calls: int | None = None
    ops_per_call: float | None = None
    op_time_s: float | None = None  # per call: time some op ran on a compute thread
    host_time_s: float | None = None  # per call: the rest (Python, dispatch, idle)
    wall_s: float | None = None  # per call, while profiling
    top_ops: tuple[ProfiledOp, ...] = ()
    tracing_count: int | None = None
    retraced: bool = False
    peak_memory_bytes: int | None = None
    memory_note: str | None = None
    trace_file: str | None = None  # Perfetto / chrome://tracing JSON, relative to the JSON
    tensorboard_dir: str | None = None  # the XSpace for TensorBoard's profile plugin
    # A fresh function's first call taken apart: total_s, tracing_s, compile_s, execution_s.
    first_call: dict[str, float] | None = None
    # Each profiled call's op time and wall time (seconds, in the order called), and which
    # time the op time is (`measure/host_and_device.py` gives their intervals).
    op_samples_s: tuple[float, ...] = ()
    wall_samples_s: tuple[float, ...] = ()
    op_source: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["top_ops"] = [asdict(op) for op in self.top_ops]
        data["op_samples_s"] = list(self.op_samples_s)
        data["wall_samples_s"] = list(self.wall_samples_s)
        return data

    @classmethod
    def from_dict(cls, data: Any, path: str) -> ProfileSummary:
        read = Reader(data, path)
        return cls(
            status=read.choice("status", PROFILE_STATUSES),
            error=read.text("error", None),
            calls=read.integer("calls", None, low=1, high=1_000_000),
            ops_per_call=read.number("ops_per_call", None, high=1e12),
            op_time_s=read.number("op_time_s", None, high=MAX_SAMPLE_S),
            host_time_s=read.number("host_time_s", None, high=MAX_SAMPLE_S),
            wall_s=read.number("wall_s", None, high=MAX_SAMPLE_S),
            top_ops=tuple(read.each("top_ops", ProfiledOp.from_dict, [])),
            tracing_count=read.integer("tracing_count", None, high=1_000_000),
            retraced=read.boolean("retraced", False),
            peak_memory_bytes=read.integer("peak_memory_bytes", None, high=2**62),
            memory_note=read.text("memory_note", None),
            trace_file=read.text("trace_file", None, max_chars=1_000),
            tensorboard_dir=read.text("tensorboard_dir", None, max_chars=1_000),
            first_call=_first_call_from(read.child("first_call", None)),
            op_samples_s=_times(read, "op_samples_s"),
            wall_samples_s=_times(read, "wall_samples_s"),
            op_source=read.text("op_source", None),
        )


def _times(read: Reader, name: str) -> tuple[float, ...]:
    """A list of times per call (seconds, each 0 to `MAX_SAMPLE_S`), empty where absent."""
    return tuple(read.each(name, lambda v, p: check_number(v, p, 0, MAX_SAMPLE_S), []))


FIRST_CALL_PARTS = ("total_s", "tracing_s", "compile_s", "execution_s")


def _first_call_from(read: Reader | None) -> dict[str, float] | None:
    if read is None:
        return None
    return {name: read.number(name, high=MAX_SAMPLE_S) for name in FIRST_CALL_PARTS}


def read_block_clocks(data: Any, path: str) -> BlockClocks:
    read = Reader(data, path)
    return BlockClocks(
        sm_mhz=read.integer("sm_mhz", None, high=100_000),
        memory_mhz=read.integer("memory_mhz", None, high=100_000),
        temperature_c=read.integer("temperature_c", None, high=1_000),
        power_w=read.number("power_w", None, high=1e6),
        reasons=tuple(read.texts("reasons", [])),
        throttled=read.boolean("throttled", False),
    )


def read_device_forms(data: Any, path: str) -> DeviceForms:
    read = Reader(data, path)
    return DeviceForms(
        warm_s=_times(read, "warm_s"),
        graph_s=_times(read, "graph_s"),
        flushed_s=_times(read, "flushed_s"),
        flush_bytes=read.integer("flush_bytes", None, low=1),
        timer=read.text("timer", max_chars=200),
        notes=tuple(read.texts("notes", [])),
    )
