"""Memory preflight: estimate every byte a run will hold and refuse it before allocating.

Runs before TensorFlow is imported, so an impossible configuration fails in milliseconds with
the estimate and the limit, instead of dying in the allocator halfway through a run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.catalogue.catalog import strategy_info
from engine.machine.host import available_bytes
from engine.machine.settings import read
from engine.measure.correctness import (
    DRAW_BLOCK_ELEMENTS,
    REFERENCE_CHUNK_ELEMENTS,
    check_stream,
    draw_threads,
)
from engine.run_settings.config import BenchConfig

# Cold cache: enough input copies that the rotating footprint is this many times the LLC.
COLD_FOOTPRINT_LLC_MULTIPLE = 4
MAX_COLD_COPIES = 64
# Streaming buffer for the peak-bandwidth measurement: several times the LLC, at least 256 MiB.
BANDWIDTH_LLC_MULTIPLE = 4
MIN_BANDWIDTH_BUFFER_BYTES = 256 * 2**20
MAX_BANDWIDTH_BUFFER_BYTES = 2 * 2**30


class PreflightError(ValueError):
    """The run would not fit; `str()` names the estimate and the limit."""


def input_set_bytes(config: BenchConfig) -> int:
    m, n = config.dim, config.columns
    return config.itemsize * config.matrices * (m * n + n)


def working_set_bytes(config: BenchConfig, mode: str, copies: int = 1) -> int:
    """The inputs a result's calls read in turn, all replicas together: replicated, a full
    set each; sharded and single, one set split among them; cold, every rotated copy (the
    rotation makes it 4x the last-level cache, so it reads memory). Against a level's
    capacity for the run's CPUs it is each replica's share against its share of the cache."""
    replicas = config.replicas if mode == "replicated" else 1
    return input_set_bytes(config) * replicas * max(1, copies)


def cold_copies(config: BenchConfig, llc_bytes: int) -> int:
    if config.cache == "warm":
        return 1
    wanted = COLD_FOOTPRINT_LLC_MULTIPLE * llc_bytes / max(1, input_set_bytes(config))
    return int(min(MAX_COLD_COPIES, max(2, math.ceil(wanted))))


PROBE_BYTES_VARIABLE = "MATVEC_PROBE_BUFFER_BYTES"
MIN_CONFIGURED_PROBE_BYTES = 2**20


def bandwidth_buffer_bytes(llc_bytes: int) -> int:
    """The read probes' buffer: 4x the last-level cache (at least 256 MiB, at most 2 GiB), so
    they read memory, not cache; or `$MATVEC_PROBE_BUFFER_BYTES` (`configured_probe_bytes`)."""
    configured = configured_probe_bytes()
    if configured is not None:
        return configured
    wanted = max(MIN_BANDWIDTH_BUFFER_BYTES, BANDWIDTH_LLC_MULTIPLE * llc_bytes)
    return int(min(MAX_BANDWIDTH_BUFFER_BYTES, wanted))


def configured_probe_bytes() -> int | None:
    """`$MATVEC_PROBE_BUFFER_BYTES` (1 MiB to 2 GiB), else None. A quick run's setting (the
    test suite's: a run's probes then take milliseconds, not a second); a buffer that fits in
    the cache measures the cache, and every run that used one says so (`probe_size_warning`).
    An invalid value is refused (ConfigError naming it), never replaced."""
    value = read(PROBE_BYTES_VARIABLE)
    return value if isinstance(value, int) else None


def probe_size_warning(llc_bytes: int) -> str | None:
    """The run's warning when its probes read a buffer too small to leave the cache."""
    size = configured_probe_bytes()
    if size is None or size >= BANDWIDTH_LLC_MULTIPLE * llc_bytes:
        return None
    return (
        f"the ceiling was read over a {size / 2**20:.0f} MiB buffer (${PROBE_BYTES_VARIABLE}), "
        f"less than {BANDWIDTH_LLC_MULTIPLE}x the {llc_bytes / 2**20:.0f} MiB last-level cache: "
        "it is the cache's bandwidth, not memory's, and roofline fractions are against it"
    )


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes a run holds at its peak, by part, and the device limit it was checked against."""

    parts: dict[str, int]
    limit_bytes: int | None = None  # what the device had free (None: could not be read)
    limit_source: str = ""

    @property
    def total_bytes(self) -> int:
        return sum(self.parts.values())

    def describe(self) -> str:
        return ", ".join(f"{name} {format_bytes(size)}" for name, size in self.parts.items())


def estimate(config: BenchConfig, llc_bytes: int) -> MemoryEstimate:
    """Bytes of inputs, outputs and reference held at once during a run (the probe buffers are
    added by `preflight`)."""
    set_bytes = input_set_bytes(config)
    copies = cold_copies(config, llc_bytes)
    host = any(strategy_info(name).runs_on_host for name in config.strategies)
    # Replicated holds N full copies; sharded also times a replicated baseline for its speedup.
    holders = config.replicas if config.mode != "single" else 1
    out_bytes = config.matrices * config.dim * config.itemsize
    ref_bytes = config.matrices * config.dim * 8
    # One host set waits to be placed; inputs are drawn a block at a time per thread, and the
    # reference casts one chunk at a time into reused float64 buffers.
    staging = set_bytes + draw_threads() * DRAW_BLOCK_ELEMENTS * 4
    staging += 2 * REFERENCE_CHUNK_ELEMENTS * 8
    parts = {
        "timed inputs": set_bytes * copies * holders,
        "host copies for host strategies": set_bytes * copies if host else 0,
        # the check reads the first timed set, or where a user's kernel is in the run, a
        # fresh set, on the host and placed (`correctness.check_stream`)
        "check inputs": 2 * set_bytes if check_stream(bool(config.kernels)) else 0,
        "staging": staging,
        "outputs": 4 * out_bytes * holders,
        "reference and check buffers": 3 * ref_bytes,
    }
    return MemoryEstimate({k: v for k, v in parts.items() if v})


def preflight(
    config: BenchConfig,
    device_kind: str,
    llc_bytes: int,
    already_held: int = 0,
    probe_buffers_held: bool = False,
) -> MemoryEstimate:
    """Raise PreflightError when the estimate exceeds what the device has available.

    `already_held`: bytes of this run's inputs a warm worker holds already (what is free does
    not count them). The probe buffers stay allocated for the second probe, so they are part of
    the estimate, unless a warm worker holds them already (`probe_buffers_held`).
    """
    parts = estimate(config, llc_bytes).parts
    if not probe_buffers_held:
        probe = bandwidth_buffer_bytes(llc_bytes) * (2 if device_kind == "CPU" else 1)
        parts = {**parts, "bandwidth probe buffers": probe}
    limit, source = available_bytes(device_kind)
    needed = MemoryEstimate(parts, limit, source)
    if limit is not None and needed.total_bytes > limit + already_held:
        raise PreflightError(
            f"memory: this run needs an estimated {format_bytes(needed.total_bytes)} "
            f"({needed.describe()}) but only {format_bytes(limit + already_held)} is free "
            f"({source}); reduce matrices, dim or cols, or use cache=warm"
        )
    return needed


def format_bytes(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(size) < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{int(size)} B"
        size /= 1024
    return f"{size:.1f} TiB"
