"""The ceiling: read probes timed on the run's device, and the results' `peak`, the best of them,
whichever framework (or none) took them. `engine.results.parts` reads them back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.measure.memory import bandwidth_buffer_bytes


@dataclass(frozen=True)
class Probe:
    """One peak-bandwidth probe: a read kernel timed on the run's device."""

    kernel: str
    when: str  # "before" or "after" the strategies
    bandwidth_bytes_per_s: float
    samples_s: tuple[float, ...] = ()
    calls_per_sample: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "when": self.when,
            "bandwidth_bytes_per_s": self.bandwidth_bytes_per_s,
            "samples_s": list(self.samples_s),
            "calls_per_sample": self.calls_per_sample,
            **self.extra,
        }


MEMORY = "memory"
# Every warning of a ceiling that moved from the machine's history has these words
# (`analysis/ceiling_drift.py`); the CLI shows those under its ceilings line.
CEILING_MOVED = "ceiling moved:"


@dataclass(frozen=True)
class LevelCeiling:
    """Read bandwidth of one cache level (`bytes`: its capacity for the run's CPUs), measured
    over a buffer that fits it; memory's is the peak itself (`Peak.ceilings`)."""

    level: str
    bytes: int | None
    bandwidth_bytes_per_s: float | None
    probes: tuple[Probe, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    # This run's own best where the ceiling is the session's (`analysis/session_ceiling.py`):
    # what the history keeps and judges a moved ceiling by; None where they are the same.
    own_bytes_per_s: float | None = None

    @property
    def own(self) -> float | None:
        """What this run's own probes read for this level."""
        return self.own_bytes_per_s or self.bandwidth_bytes_per_s

    @property
    def source(self) -> str:
        """Which reading this ceiling is, in words every sentence about a fraction of it
        carries: this run's own probes, or this machine's best within the hour with this
        run's own figure beside it (`analysis/session_ceiling.py`)."""
        if self.own_bytes_per_s:
            return (
                "this machine's best within the hour; this run's own probes read "
                f"{self.own_bytes_per_s / 1e9:.1f} GB/s"
            )
        return "this run's own probes"

    def to_dict(self) -> dict[str, Any]:
        data = {
            "level": self.level,
            "bytes": self.bytes,
            "bandwidth_bytes_per_s": self.bandwidth_bytes_per_s,
            "probes": [p.to_dict() for p in self.probes],
        }
        if self.own_bytes_per_s is not None:
            data["own_bytes_per_s"] = self.own_bytes_per_s
        return {**data, **self.extra}


@dataclass(frozen=True)
class Peak:
    """The ceiling: read bandwidth measured on the same device in the same run. `levels`:
    the caches' own ceilings, smallest first (memory's is `bandwidth_bytes_per_s`)."""

    bandwidth_bytes_per_s: float | None
    method: str
    device: str | None = None
    buffer_bytes: int | None = None
    probes: tuple[Probe, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    levels: tuple[LevelCeiling, ...] = ()
    own_bytes_per_s: float | None = None  # as `LevelCeiling.own_bytes_per_s`, for memory

    def ceilings(self) -> tuple[LevelCeiling, ...]:
        """Every level's ceiling, smallest first, memory last."""
        memory = LevelCeiling(
            MEMORY, None, self.bandwidth_bytes_per_s, self.probes, {}, self.own_bytes_per_s
        )
        return (*self.levels, memory)

    def ceiling_for(self, working_set_bytes: int) -> LevelCeiling:
        """The level a working set is read from: the smallest that holds it (a cold run's
        rotated copies hold several times the last-level cache: memory)."""
        for level in self.levels:
            if level.bytes is not None and working_set_bytes <= level.bytes:
                return level
        return self.ceilings()[-1]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "bandwidth_bytes_per_s": self.bandwidth_bytes_per_s,
            "method": self.method,
        }
        if self.device is not None:
            data["device"] = self.device
        if self.buffer_bytes is not None:
            data["buffer_bytes"] = self.buffer_bytes
        if self.own_bytes_per_s is not None:
            data["own_bytes_per_s"] = self.own_bytes_per_s
        if self.probes:
            data["probes"] = [p.to_dict() for p in self.probes]
        if self.levels:
            data["levels"] = [level.to_dict() for level in self.ceilings()]
        return {**data, **self.extra}


def peak_from(probes: list[Probe], device: str, llc_bytes: int) -> Peak:
    """The results JSON `peak` object: the best probe median, with every probe kept."""
    best = max(probes, key=lambda p: p.bandwidth_bytes_per_s)
    size = bandwidth_buffer_bytes(llc_bytes)
    methods = sorted({str(p.extra.get("method", "tensorflow")) for p in probes})
    return Peak(
        bandwidth_bytes_per_s=best.bandwidth_bytes_per_s,
        method=(
            f"best median of {len(probes)} synchronised read probes ({', '.join(methods)}; "
            f"{best.kernel} was best, {best.when} the strategies) over a "
            f"{size / 2**20:.0f} MiB float32 buffer on {device}, "
            f"{size / max(1, llc_bytes):.1f}x the last-level cache"
        ),
        device=device,
        buffer_bytes=size,
        probes=tuple(probes),
    )
