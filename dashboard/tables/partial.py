"""The results of a run that is still going: the variants finished so far, the samples so far
of those still sampling, the rest pending.

Each finished variant arrives as the worker's `variant_result` event; it is read with the same
validating parser as a results file, so what is shown while the run goes on is what the final
file will hold. The roofline and the verdict wait for the end of the run: the peak bandwidth
is measured again after the strategies.
"""

from __future__ import annotations

import statistics

import pandas as pd

from dashboard.tables import run as data
from engine.catalogue.catalog import framework_label
from engine.measure.peak import Peak
from engine.measure.uncertainty import median_ci
from engine.results.decode import result_from_dict
from engine.results.formatting import format_interval, format_seconds
from engine.results.model import StrategyResult
from engine.results.parts import Environment
from engine.results.reader import ResultsRejected
from engine.results.run_result import RunResult
from engine.run_settings.config import BenchConfig

PENDING = "pending"


def finished_results(config: BenchConfig, streamed: dict[str, dict]) -> list[StrategyResult]:
    """Each streamed result that parses; one that does not is left pending, never shown."""
    found = []
    for variant, entry in streamed.items():
        try:
            found.append(result_from_dict(entry, f"results.{variant}", config))
        except ResultsRejected:
            continue
    return found


def provisional_run(config: BenchConfig, streamed: dict[str, dict]) -> RunResult:
    """A run holding only what has finished, with no peak yet."""
    return RunResult(
        run_id="",
        created_at="",
        environment=Environment(device_kind=""),
        config=config,
        peak=Peak(None, "measured again when the run is complete"),
        results=finished_results(config, streamed),
    )


def sampling_label(times: list[float], of: int) -> str:
    return f"sampling {len(times)}/{of}"


def partial_table(
    config: BenchConfig,
    variants: tuple[str, ...],
    streamed: dict[str, dict],
    running: dict[str, list[float]] | None = None,
) -> pd.DataFrame:
    """The summary table of what has finished, then for the rest either the median of the
    samples so far (marked as such: no interval, no verdict yet) or pending, in run order."""
    running = running or {}
    run = provisional_run(config, streamed)
    done = data.display_table(data.summary(run)) if run.results else pd.DataFrame()
    rows = {row["strategy"]: row for row in done.to_dict("records")}
    columns = list(done.columns) if not done.empty else ["strategy", "framework", "status"]
    table = []
    for variant in (*variants, *(v for v in rows if v not in variants)):
        row = rows.get(variant)
        if row is None:
            row = {column: "" for column in columns}
            row.update(strategy=variant, framework=framework_label(variant), status=PENDING)
            times = running.get(variant)
            if times:
                row["status"] = sampling_label(times, config.repeats)
                if "median" in row:
                    row["median"] = f"{format_seconds(statistics.median(times))} so far"
                if "95% CI" in row and len(times) >= 2:  # an interval once it has one
                    row["95% CI"] = format_interval(median_ci(times))
        table.append(row)
    return pd.DataFrame(table, columns=columns)


def partial_samples(
    config: BenchConfig, streamed: dict[str, dict], running: dict[str, list[float]] | None = None
) -> pd.DataFrame:
    """Every sample of the finished variants, and those so far of the ones still sampling
    (named "variant (so far)"), in the columns the latency chart reads."""
    finished = data.samples(provisional_run(config, streamed))
    rows = [
        {"variant": f"{variant} (so far)", "ms": seconds * 1e3, "correct": True}
        for variant, times in (running or {}).items()
        if variant not in streamed
        for seconds in times
    ]
    if not rows:
        return finished
    return pd.concat([finished, pd.DataFrame(rows)], ignore_index=True)
