"""Run history: every run and sweep point, durable and comparable, in an SQLite file (the
embedded default) or on a PostgreSQL server (a team's store), through the same statements.

SQLite's WAL journaling (and PostgreSQL's MVCC) lets readers (the dashboard's History page)
work while a writer (a run or a sweep) commits; each run is one transaction, so a process
killed mid-write leaves either the whole run or nothing. The full results JSON is stored
zlib-compressed beside indexed columns for listing and filtering, so the History page never
parses JSON to draw its table. Every row carries its machine (hostname, device kind), so a
team's series never mix machines.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pandas as pd

from engine.analysis.calibration import observed_floor, same_measurement
from engine.machine.words import counted
from engine.measure.uncertainty import NoiseFloor
from engine.results.formatting import reported_words
from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig
from engine.storage.prediction_reads import PredictionReads, readable
from engine.storage.run_rows import (
    CEILING_COLUMNS,
    LIST_COLUMNS,
    PROBLEM_COLUMNS,
    REPORTED,
    RUN_ROW_COLUMNS,
    RunFilter,
    best_of,
    ceiling_rows,
    condition_of,
    prediction_of,
    problem_of,
)
from engine.storage.store import frame_of, open_store

LIKE_RUNS = 20
# The columns of a problem's kind, at any shape: what a prediction's runs share.
FAMILY_COLUMNS = (
    "dtype",
    "mode",
    "replicas",
    "cache",
)  # the newest runs of one measurement its observed floor is read from


class History(PredictionReads):
    """Every run, sweep and calibration of one store, read and written by the same statements
    whatever kind of database keeps it (`store.Store`)."""

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False) -> None:
        """`path`: an SQLite file, or a database URL (`postgresql://user@host/db`) for a
        team's store; None: MATVEC_HISTORY, else the user's own file. `read_only`: list and
        compare an existing store without writing to it."""
        self.store = open_store(path, read_only=read_only)
        self.name, self.dialect = self.store.name, self.store.dialect

    def _connect(self) -> AbstractContextManager[Any]:
        return self.store.connect()

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._connect() as conn:
            return list(conn.execute(sql, params).fetchall())

    def add_run(
        self,
        result: RunResult,
        *,
        sweep_id: str | None = None,
        point_key: str | None = None,
        source: str = "local",
    ) -> bool:
        """Store one run in one transaction; False when its run_id is already stored."""
        config, env = result.config, result.environment
        best_variant, best_median = best_of(result)
        # a run this tool did not measure here (an edited file, another machine's) is a
        # report: every listing says so (`list_runs`), and no series of this machine takes it
        source = source if result.measured_here else REPORTED
        row = (
            result.run_id,
            result.created_at,
            config.label,
            env.device_kind,
            env.hostname,
            json.dumps(list(env.devices)),
            *problem_of(config),
            len(result.results),
            best_variant,
            best_median,
            result.peak_bytes_per_s,
            sweep_id,
            point_key,
            source,
            zlib.compress(result.to_json(indent=None).encode("utf-8"), 6),
            result.group_id,
            *prediction_of(result),
        )
        ceilings = ceiling_rows(result)
        with self._connect() as conn:
            conn.execute(self.dialect.begin)
            try:
                cursor = conn.execute(
                    self.dialect.insert("runs", RUN_ROW_COLUMNS, ignore_duplicate=True), row
                )
                stored = cursor.rowcount == 1
                if stored and ceilings:
                    conn.executemany(
                        self.dialect.insert("ceilings", CEILING_COLUMNS, ignore_duplicate=False),
                        ceilings,
                    )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return stored

    def has_run(self, run_id: str) -> bool:
        with self._connect() as conn:
            row = conn.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return row is not None

    def get_run(self, run_id: str) -> RunResult | None:
        with self._connect() as conn:
            row = conn.execute("SELECT payload FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            return None
        return RunResult.from_json(zlib.decompress(row[0]).decode("utf-8"))

    def delete_run(self, run_id: str) -> bool:
        with self._connect() as conn:
            conn.execute("DELETE FROM ceilings WHERE run_id = ?", (run_id,))
            return conn.execute("DELETE FROM runs WHERE run_id = ?", (run_id,)).rowcount == 1

    def machine_ceilings(
        self, hostname: str | None, device_kind: str, limit: int = 30, since: str = ""
    ) -> dict[tuple[str, int | None], list[float]]:
        """Each level's ceiling in this machine's newest `limit` stored runs (newest first;
        `since`: only runs made at or after that ISO time), by (level, bytes: its capacity,
        or memory's probe buffer), each as the run's own probes read it: what a run's own
        ceilings are judged against (`analysis/ceiling_drift.py`) and a session's best is
        read from (`analysis/session_ceiling.py`)."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT level, bytes, bandwidth_bytes_per_s FROM ceilings WHERE run_id IN "
                "(SELECT run_id FROM ceilings WHERE hostname = ? AND device_kind = ? "
                "AND created_at >= ? GROUP BY run_id ORDER BY max(created_at) DESC "
                "LIMIT ?) ORDER BY created_at DESC",
                (hostname or "", device_kind, since, limit),
            ).fetchall()
        found: dict[tuple[str, int | None], list[float]] = {}
        for level, size, bandwidth in rows:
            found.setdefault((level, size), []).append(bandwidth)
        return found

    def list_runs(self, where: RunFilter | None = None) -> pd.DataFrame:
        """Newest first, at most `where.limit`; reads only the indexed columns, never the
        payloads (`count_runs` says how many match in all)."""
        where = where or RunFilter()
        condition, params = condition_of(where, self.dialect)
        sql = f"SELECT {LIST_COLUMNS} FROM runs{condition}"
        sql += " ORDER BY created_at DESC, run_id LIMIT ?"
        with self._connect() as conn:
            frame = frame_of(conn.execute(sql, [*params, where.limit]))
        reported = frame["source"] == REPORTED
        frame.loc[reported, "source"] = [
            reported_words(host or "an unnamed machine") for host in frame.loc[reported, "hostname"]
        ]
        return frame

    def count_runs(self, where: RunFilter | None = None) -> int:
        """How many stored runs match `where`, whatever its limit."""
        condition, params = condition_of(where or RunFilter(), self.dialect)
        with self._connect() as conn:
            return conn.execute(f"SELECT count(*) FROM runs{condition}", params).fetchone()[0]

    def device_kinds(self) -> list[str]:
        with self._connect() as conn:
            rows = conn.execute("SELECT DISTINCT device_kind FROM runs ORDER BY 1").fetchall()
        return [r[0] for r in rows if r[0]]

    def count(self) -> int:
        with self._connect() as conn:
            return conn.execute("SELECT count(*) FROM runs").fetchone()[0]

    def group_runs(self, group_id: str) -> list[RunResult]:
        """The runs of one repetition group, in the order they were stored."""
        with self._connect() as conn:
            rows = conn.execute(
                f"SELECT payload FROM runs WHERE group_id = ? ORDER BY {self.dialect.order_key}",
                (group_id,),
            ).fetchall()
        return [RunResult.from_json(zlib.decompress(r[0]).decode("utf-8")) for r in rows]

    # Noise floors -------------------------------------------------------------------------
    def add_noise_floor(
        self,
        hostname: str,
        device_kind: str,
        floor: NoiseFloor,
        runs: int,
        group_id: str | None,
        config: dict[str, Any],
    ) -> None:
        with self._connect() as conn:
            conn.execute(
                "INSERT INTO noise_floors (hostname, device_kind, created_at, "
                "between_run_log_sd, ratio_log_sd, runs, group_id, config) VALUES "
                f"(?, ?, {self.dialect.now}, ?, ?, ?, ?, ?)",
                (
                    hostname,
                    device_kind,
                    floor.between_run_log_sd,
                    floor.ratio_log_sd,
                    runs,
                    group_id,
                    json.dumps(config, sort_keys=True),
                ),
            )

    def floor_of(self, run: RunResult) -> NoiseFloor | None:
        """The floor a comparison of `run` is judged with: the spreads the runs of the same
        measurement in this history show (`observed_floor`, each at its 95% upper bound for
        the runs it was read from), never narrower than this machine's calibration where it
        has one; the calibration alone where the history has too few runs; None (the
        default) where it has neither."""
        env = run.environment
        calibrated = self.noise_floor(env.hostname, env.device_kind)
        like = self.like_runs(run)
        source = (
            f"observed over {counted(len(like), 'run')} of this measurement on {env.hostname} "
            f"({env.device_kind}), at the 95% upper bound of each spread"
        )
        observed = observed_floor(like, source, bound=True)
        if observed is None:
            return calibrated
        if calibrated is None:
            return observed
        least = calibrated.between_run_log_sd
        return NoiseFloor(
            between_run_log_sd=max(observed.between_run_log_sd, least),
            ratio_log_sd=max(observed.ratio_log_sd, calibrated.ratio_log_sd),
            source=f"{observed.source}, and at least the {calibrated.source}",
            variant_log_sd=tuple((name, max(sd, least)) for name, sd in observed.variant_log_sd),
        )

    def like_runs(self, run: RunResult, limit: int = LIKE_RUNS) -> list[RunResult]:
        """`run` and the newest stored runs of the same measurement (`same_measurement`), at
        most `limit` in all: what the machine's spread between processes is read from."""
        env = run.environment
        stored = self.problem_runs(run.config, env.hostname, env.device_kind, 2 * limit, run.run_id)
        return [r for r in (run, *stored) if same_measurement(run, r)][:limit]

    def problem_runs(
        self,
        config: BenchConfig,
        hostname: str | None,
        device_kind: str,
        limit: int,
        other_than: str = "",
    ) -> list[RunResult]:
        """The newest `limit` stored runs of `config`'s problem (`PROBLEM_COLUMNS`) on this
        machine and device, newest first (`other_than`: a run id left out)."""
        same = " AND ".join(f"{column} = ?" for column in PROBLEM_COLUMNS)
        rows = self._query(
            f"SELECT payload FROM runs WHERE hostname = ? AND device_kind = ? AND {same} "
            f"AND run_id != ? ORDER BY created_at DESC, {self.dialect.order_key} DESC LIMIT ?",
            (hostname or "", device_kind, *problem_of(config), other_than, limit),
        )
        return [found for found in map(readable, rows) if found is not None]

    def noise_floor(self, hostname: str | None, device_kind: str | None) -> NoiseFloor | None:
        """The newest calibration of this machine and device, if any."""
        with self._connect() as conn:
            row = conn.execute(
                "SELECT between_run_log_sd, ratio_log_sd, runs, created_at FROM noise_floors "
                "WHERE hostname = ? AND device_kind = ? "
                f"ORDER BY created_at DESC, {self.dialect.order_key} DESC LIMIT 1",
                (hostname or "", device_kind or ""),
            ).fetchone()
        if row is None:
            return None
        return NoiseFloor(
            between_run_log_sd=row[0],
            ratio_log_sd=row[1],
            source=(
                f"calibrated on {hostname} ({device_kind}) at {row[3]} "
                f"from {counted(row[2], 'run')}"
            ),
        )

    # Sweeps -----------------------------------------------------------------------------
    def add_sweep(
        self, sweep_id: str, created_at: str, label: str, spec: dict[str, Any], points: int
    ) -> None:
        with self._connect() as conn:
            conn.execute(
                self.dialect.insert(
                    "sweeps",
                    ("sweep_id", "created_at", "label", "spec", "points"),
                    ignore_duplicate=True,
                ),
                (sweep_id, created_at, label, json.dumps(spec, sort_keys=True), points),
            )

    def done_points(self, sweep_id: str) -> set[str]:
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT point_key FROM runs WHERE sweep_id = ?", (sweep_id,)
            ).fetchall()
        return {r[0] for r in rows}

    def all_runs(self, label_contains: str | None = None) -> list[RunResult]:
        """Every stored run this version can read (label filter as `list_runs`'s), oldest
        first: what series over time are read from (`analysis/change_points.py`)."""
        condition, params = condition_of(RunFilter(label_contains=label_contains), self.dialect)
        order = f"ORDER BY created_at, {self.dialect.order_key}"
        rows = self._query(f"SELECT payload FROM runs{condition} {order}", params)
        return [run for run in map(readable, rows) if run is not None]

    def sweep_runs(self, sweep_id: str) -> list[RunResult]:
        rows = self._query(
            f"SELECT payload FROM runs WHERE sweep_id = ? ORDER BY {self.dialect.order_key}",
            (sweep_id,),
        )
        return [RunResult.from_json(zlib.decompress(r[0]).decode("utf-8")) for r in rows]

    def list_sweeps(self) -> pd.DataFrame:
        with self._connect() as conn:
            return frame_of(
                conn.execute(
                    "SELECT s.sweep_id, s.created_at, s.label, s.points, "
                    "(SELECT count(*) FROM runs r WHERE r.sweep_id = s.sweep_id) AS done "
                    "FROM sweeps s ORDER BY s.created_at DESC"
                )
            )
