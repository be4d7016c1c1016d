"""What a prediction reads from the history (`analysis/prediction.py`): this machine's runs of
a problem's kind at any shape, and how its earlier predictions fared (the `runs` table's
`prediction_confirmed` and `prediction_error`, written with each run)."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

from engine.analysis.prediction import TrackRecord, track_record
from engine.results.reader import ResultsRejected
from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig
from engine.storage.run_rows import PROBLEM_COLUMNS, REPORTED, problem_of

# The columns of a problem's kind, at any shape: what a prediction's runs share.
FAMILY_COLUMNS = ("dtype", "mode", "replicas", "cache")


def readable(row: tuple[bytes, ...]) -> RunResult | None:
    """A stored run's payload, or None when this version cannot read it (a run stored by
    another version): one unreadable neighbour never stops a comparison of others."""
    try:
        return RunResult.from_json(zlib.decompress(row[0]).decode("utf-8"))
    except (ResultsRejected, zlib.error, UnicodeDecodeError):
        return None


class PredictionReads:
    """The history's reads for a prediction (a part of `History`, which gives `_query` and
    `dialect`)."""

    _query: Any
    dialect: Any

    def family_runs(
        self, config: BenchConfig, hostname: str | None, device_kind: str, limit: int
    ) -> list[RunResult]:
        """The newest `limit` stored runs on this machine and device of `config`'s kind of
        problem at any shape (its dtype, mode, replicas and cache): what a prediction of it is
        made from (`analysis/prediction.py`)."""
        return self._family("hostname = ?", hostname, config, device_kind, limit)

    def kind_runs(
        self,
        config: BenchConfig,
        hostname: str | None,
        device_kind: str,
        same_kind: Callable[[RunResult], bool],
        limit: int,
    ) -> list[RunResult]:
        """The newest `limit` runs of `config`'s kind of problem that other machines stored
        themselves (a team store; never a reported run), those `same_kind` keeps (the same
        processor or devices): what a prediction reads where this machine has none."""
        found = self._family(
            f"hostname <> ? AND source <> '{REPORTED}'", hostname, config, device_kind, limit
        )
        return [run for run in found if same_kind(run)]

    def newest_run(self, hostname: str | None, device_kind: str) -> RunResult | None:
        """This machine's newest run on the device, any problem: what names its devices."""
        rows = self._query(
            f"SELECT payload FROM runs WHERE hostname = ? AND device_kind = ? AND source <> "
            f"'{REPORTED}' ORDER BY created_at DESC, {self.dialect.order_key} DESC LIMIT 1",
            (hostname or "", device_kind),
        )
        found = [run for run in map(readable, rows) if run is not None]
        return found[0] if found else None

    def _family(
        self, whose: str, hostname: str | None, config: BenchConfig, device_kind: str, limit: int
    ) -> list[RunResult]:
        same = " AND ".join(f"{column} = ?" for column in FAMILY_COLUMNS)
        values = dict(zip(PROBLEM_COLUMNS, problem_of(config), strict=True))
        rows = self._query(
            f"SELECT payload FROM runs WHERE {whose} AND device_kind = ? AND {same} "
            f"ORDER BY created_at DESC, {self.dialect.order_key} DESC LIMIT ?",
            (hostname or "", device_kind, *(values[c] for c in FAMILY_COLUMNS), limit),
        )
        return [found for found in map(readable, rows) if found is not None]

    def prediction_records(self) -> list[dict[str, Any]]:
        """Per machine (hostname, device kind): how its runs' predictions fared, made and
        confirmed and the median time error (`history predictions`); none for a store from
        before predictions were kept."""
        rows = self._query(
            "SELECT hostname, device_kind, prediction_confirmed, prediction_error FROM runs "
            "WHERE prediction_confirmed IS NOT NULL ORDER BY hostname, device_kind"
        )
        found: dict[tuple[str, str], list[tuple[bool, float | None]]] = {}
        for hostname, kind, confirmed, error in rows:
            found.setdefault((hostname or "", kind or ""), []).append((bool(confirmed), error))
        return [
            {"hostname": host, "device_kind": kind, **track_record(outcomes).to_dict()}
            for (host, kind), outcomes in found.items()
        ]

    def prediction_record(self, hostname: str | None, device_kind: str) -> TrackRecord:
        """This machine's record of predictions (`analysis/prediction.py`)."""
        rows = self._query(
            "SELECT prediction_confirmed, prediction_error FROM runs WHERE hostname = ? AND "
            "device_kind = ? AND prediction_confirmed IS NOT NULL",
            (hostname or "", device_kind),
        )
        return track_record((bool(confirmed), error) for confirmed, error in rows)
