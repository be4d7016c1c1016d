"""Results: what was measured, serialisable to the schema_version 1 JSON of DESIGN.md.

A `StrategyResult` keeps the raw samples; every statistic and rate in the JSON is derived from
them (and from the counters and the run's measured peak) at serialisation time.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from engine import roofline
from engine.stats import Measurement

SCHEMA_VERSION = 1
Status = Literal["ok", "failed", "unsupported", "skipped"]
STATUSES: tuple[str, ...] = ("ok", "failed", "unsupported", "skipped")

# Contract order of the per-variant fields (DESIGN.md); extras follow.
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


@dataclass(frozen=True)
class ReplicaTiming:
    replica: int
    device: str
    matrices: int
    median_s: float | None
    bytes_per_s: float | None = None


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
    work_multiplier: int = 1  # replicated mode does N× the necessary work
    notes: list[str] = field(default_factory=list)
    distribution: dict[str, Any] | None = None  # step time, imbalance, shards (modes != single)

    @property
    def measurement(self) -> Measurement | None:
        if not self.samples_s or not self.calls_per_sample:
            return None
        return Measurement(tuple(self.samples_s), self.calls_per_sample)

    def stats(self) -> dict[str, float | None]:
        m = self.measurement
        return m.summary() if m else dict.fromkeys(STAT_FIELDS)

    def to_dict(self, peak_bytes_per_s: float | None) -> dict[str, Any]:
        stats = self.stats()
        derived = roofline.rates(
            self.flops, self.bytes, self.matrices, stats["median_s"], peak_bytes_per_s
        )
        own = asdict(self)
        own["samples_s"] = list(self.samples_s)
        own["max_rel_error"] = _finite_or_none(self.max_rel_error)
        own["rel_error_norm"] = _finite_or_none(self.rel_error_norm)
        own["max_abs_error"] = _finite_or_none(self.max_abs_error)
        merged = {**own, **stats, **derived}
        ordered = {name: merged[name] for name in RESULT_FIELDS}
        extras = {k: v for k, v in merged.items() if k not in ordered}
        return {**ordered, **extras}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StrategyResult:
        names = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in names}
        values["samples_s"] = tuple(float(s) for s in data.get("samples_s") or ())
        values["replicas"] = [ReplicaTiming(**r) for r in data.get("replicas") or ()]
        values.setdefault("matrices", _matrices_from(data))
        return cls(**values)


def _finite_or_none(value: float | None) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return value


def _matrices_from(data: Mapping[str, Any]) -> int:
    per_s, median = data.get("matrices_per_s"), data.get("median_s")
    if per_s and median:
        return round(per_s * median)
    return 0


@dataclass
class RunResult:
    run_id: str
    created_at: str
    environment: dict[str, Any]
    config: dict[str, Any]
    peak: dict[str, Any]
    results: list[StrategyResult]
    warnings: list[str] = field(default_factory=list)

    @property
    def peak_bytes_per_s(self) -> float | None:
        return self.peak.get("bandwidth_bytes_per_s")

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "run_id": self.run_id,
            "created_at": self.created_at,
            "environment": self.environment,
            "config": self.config,
            "peak": self.peak,
            "results": [r.to_dict(self.peak_bytes_per_s) for r in self.results],
            "warnings": list(self.warnings),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def write_json(self, path: str | Path) -> None:
        """Write atomically: a reader never sees a half-written file."""
        target = Path(path)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_text(self.to_json(), encoding="utf-8")
        tmp.replace(target)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunResult:
        return cls(
            run_id=data["run_id"],
            created_at=data["created_at"],
            environment=dict(data["environment"]),
            config=dict(data["config"]),
            peak=dict(data["peak"]),
            results=[StrategyResult.from_dict(r) for r in data["results"]],
            warnings=list(data.get("warnings") or []),
        )

    @classmethod
    def from_json(cls, text: str) -> RunResult:
        return cls.from_dict(json.loads(text))

    def summary_frame(self) -> pd.DataFrame:
        """One row per strategy variant, with every contract field but the raw samples."""
        rows = []
        for entry in self.to_dict()["results"]:
            row = {k: v for k, v in entry.items() if k not in ("samples_s", "replicas")}
            row["warnings"] = "; ".join(entry["warnings"])
            row["notes"] = "; ".join(entry["notes"])
            rows.append(row)
        return pd.DataFrame(rows)

    def samples_frame(self) -> pd.DataFrame:
        """Tidy: one row per timing sample (seconds per call), labelled with the run's config."""
        rows = []
        for result in self.results:
            for index, seconds in enumerate(result.samples_s):
                rows.append(
                    {
                        "run_id": self.run_id,
                        "label": self.config.get("label", ""),
                        "device_kind": self.environment.get("device_kind"),
                        "strategy": result.strategy,
                        "variant": result.variant,
                        "mode": result.mode,
                        "dtype": self.config.get("dtype"),
                        "matrices": self.config.get("matrices"),
                        "dim": self.config.get("dim"),
                        "cols": self.config.get("cols"),
                        "cache": self.config.get("cache"),
                        "sample": index,
                        "calls_per_sample": result.calls_per_sample,
                        "seconds": seconds,
                        "correct": result.correct,
                    }
                )
        return pd.DataFrame(rows)
