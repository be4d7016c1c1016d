"""A run's row in the history: the indexed columns that say which problem it measured and
which variant won, what a listing shows, and how a filter becomes SQL. The payload (the
whole results JSON) is the record; these columns only find and list it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig
from engine.storage.schema import SQLITE, Dialect

# The indexed columns that say which problem a run measured, in `problem_of`'s order.
PROBLEM_COLUMNS = ("matrices", "dim", "cols", "dtype", "mode", "replicas", "cache")

# What a listing shows, in order (the History page and `python -m engine history`).
DISPLAY_COLUMNS: tuple[str, ...] = (
    "created_at",
    "label",
    "device_kind",
    "matrices",
    "dim",
    "cols",
    "dtype",
    "mode",
    "best_variant",
    "best_median_s",
    "source",
    "run_id",
)
LIST_COLUMNS = (
    "run_id, created_at, label, device_kind, hostname, matrices, dim, cols, dtype, mode, "
    "replicas, cache, strategies, best_variant, best_median_s, peak_bytes_per_s, sweep_id, source, "
    "group_id"
)


# A run's row as `History.add_run` stores it, in its order.
REPORTED = "reported"  # `source` of a run stored without this machine's attestation
RUN_ROW_COLUMNS = (
    "run_id",
    "created_at",
    "label",
    "device_kind",
    "hostname",
    "devices",
    *PROBLEM_COLUMNS,
    "strategies",
    "best_variant",
    "best_median_s",
    "peak_bytes_per_s",
    "sweep_id",
    "point_key",
    "source",
    "payload",
    "group_id",
    "prediction_confirmed",
    "prediction_error",
)
# A measured ceiling's row, in `ceiling_rows`' order.
CEILING_COLUMNS = (
    "run_id",
    "hostname",
    "device_kind",
    "created_at",
    "level",
    "bytes",
    "bandwidth_bytes_per_s",
)


def problem_of(config: BenchConfig) -> tuple[Any, ...]:
    """The values of `PROBLEM_COLUMNS` for a run's config."""
    return (
        config.matrices,
        config.dim,
        config.columns,
        config.dtype,
        config.mode,
        config.replicas,
        config.cache,
    )


def ceiling_rows(run: RunResult) -> list[tuple[Any, ...]]:
    """A run's measured ceilings, one row a level (none for a run without a ceiling), each
    what the run's own probes read (never a session's best it was placed against); `bytes`
    is a cache's capacity, or for memory the probe's buffer: a ceiling read over another
    buffer (`MATVEC_PROBE_BUFFER_BYTES`) is another measurement, never compared with it."""
    env = run.environment
    return [
        (
            run.run_id,
            env.hostname or "",
            env.device_kind,
            run.created_at,
            level.level,
            level.bytes or run.peak.buffer_bytes,
            level.own,
        )
        for level in run.peak.ceilings()
        if level.own
    ]


def prediction_of(result: RunResult) -> tuple[int | None, float | None]:
    """The values of the prediction's columns: whether it was confirmed, its time error
    (None, None: the run made none)."""
    found = (result.prediction or {}).get("outcome") or {}
    if not result.measured_here or "confirmed" not in found:  # a file's claim counts for none
        return None, None
    return int(bool(found["confirmed"])), found.get("time_error")


def best_of(result: RunResult) -> tuple[str | None, float | None]:
    """The run's own winner and its median, for listing without parsing the payload: the
    same answer the Run page, the report and the JSON's `winner` give (not a second idea of
    "best" such as the lowest median, which a tie within the noise can reorder)."""
    chosen = result.winner()
    if chosen is None:
        return None, None
    entry = next(r for r in result.results if r.variant == chosen.variant)
    return chosen.variant, entry.median_s


@dataclass(frozen=True)
class RunFilter:
    device_kind: str | None = None
    label_contains: str | None = None
    since: str | None = None  # ISO date or datetime, inclusive
    until: str | None = None  # ISO date or datetime, inclusive of that day
    sweep_id: str | None = None
    limit: int = 10_000


def condition_of(where: RunFilter, dialect: Dialect = SQLITE) -> tuple[str, list[Any]]:
    """The WHERE clause (with its leading space, or "") and parameters of a filter."""
    clauses, params = [], []
    if where.device_kind:
        clauses.append("device_kind = ?")
        params.append(where.device_kind)
    if where.label_contains:
        clauses.append(dialect.contains("label"))
        params.append(where.label_contains)
    if where.since:
        clauses.append("created_at >= ?")
        params.append(where.since)
    if where.until:
        clauses.append("substr(created_at, 1, 10) <= ?")
        params.append(where.until[:10])
    if where.sweep_id:
        clauses.append("sweep_id = ?")
        params.append(where.sweep_id)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params
