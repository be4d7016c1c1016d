"""One run's view: everything the Run page, the HTML report and the notebook show, built once.

The three read the same `RunView` (the answer, the code, the tables, the charts, the notes), so
they cannot drift apart; each only lays it out in its own medium. The verdict is read once per
run (`RunResult.winner_dict`) and every part of the view is drawn from that one record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from dashboard.figures import run as charts
from dashboard.figures import why as why_charts
from dashboard.tables import run as data
from dashboard.tables import why as why_data
from dashboard.tables.search import search_table
from dashboard.text.controls import in_page_words
from dashboard.text.explain import answer_for
from engine.analysis.prediction import prediction_words
from engine.results.codec import run_entries
from engine.results.formatting import grouped_notes, reported_words, sentence
from engine.results.run_result import RunResult
from engine.results.search import search_summary
from engine.results.summary import speed_of_light_line, took_line

NO_CORRECT_RESULT = "No strategy produced a correct result in this run."
NO_SOURCE = "This version of the tool does not have that strategy's source."


@dataclass
class RunView:
    """A run as its readers see it; plain text and frames are escaped by whoever lays them out."""

    result: RunResult
    heading: str  # shape · mode · cache · device · run id
    took: str | None  # where the run's time went
    winner: dict[str, Any] | None  # the one verdict record every part reads
    answer: str  # Markdown, engine-written
    code: str | None  # the fastest measured's code to copy, None when there is none
    summary: pd.DataFrame  # one row per variant, with speedups (the charts read it)
    table: pd.DataFrame  # the summary as displayed
    failures: list[str]  # one line per variant that did not measure correctly
    notes: list[str]  # each note of a correct variant in full, grouped
    samples: pd.DataFrame
    replicas: pd.DataFrame
    distribution: pd.DataFrame  # displayed; empty when the run was not distributed
    search: pd.DataFrame | None  # the search's points, None for a plain run
    best_per_framework: dict[str, str]
    profiles: pd.DataFrame  # one row per profiled variant; empty when nothing was profiled
    profile_table: pd.DataFrame  # the profiles as displayed
    top_ops: pd.DataFrame
    # plotly Figures in page order; one with nothing to draw carries its reason (`empty_reason`)
    figures: dict[str, Any]
    why_figures: dict[str, Any] = field(default_factory=dict)
    # In a tie whose simplest is not the fastest measured: its name and code, shown after.
    simplest: str | None = None
    simplest_code: str | None = None
    # What the history predicted before the run measured, and how it fared: the history's
    # word, shown apart from the measured answer (None: no prediction was asked).
    prediction: str | None = None
    # The problem's speed of light on the run's device, and the winner's share of it.
    light: str | None = None


def build(result: RunResult) -> RunView:
    """The view of `result`: every number in it comes from the run's record and its verdict."""
    config = result.config
    summary = data.summary(result)
    samples = data.samples(result)
    replicas = data.replicas(result)
    steps = data.distribution(result)
    chosen = result.winner_dict()
    best = data.winner(summary, chosen)
    profiles = why_data.profiles(result)
    if best is None:
        answer, code = NO_CORRECT_RESULT, None
    else:
        answer = answer_for(result, best, chosen, profiles)
        code = result.code_for(best["variant"])
    simplest = chosen["simplest"] if chosen and chosen["simplest"] != chosen["variant"] else None
    table = data.display_table(summary)
    failures, notes = _failures_and_notes(table)
    figures = charts.all_figures(
        summary, samples, replicas, result.peak_bytes_per_s, steps, data.levels(result)
    )
    found = search_summary(result) if config.search else None
    return RunView(
        result=result,
        heading=(
            f"{config.matrices:,} matrices of {config.dim}×{config.columns} {config.dtype} · "
            f"{config.mode} · cache {config.cache} · {result.environment.device_kind} · "
            f"run {result.run_id[:8]}"
            + (f" · {reported_words(result.reported_by)}" if result.reported_by else "")
        ),
        took=in_page_words(took_line(result.timings, result.worker)),
        winner=chosen,
        answer=answer,
        code=code,
        simplest=simplest,
        simplest_code=result.code_for(simplest) if simplest else None,
        prediction=prediction_words(result.prediction) if result.prediction else None,
        light=light_words(result, chosen),
        summary=summary,
        table=table,
        failures=failures,
        notes=notes,
        samples=samples,
        replicas=replicas,
        distribution=data.display_distribution(steps) if not steps.empty else steps,
        search=search_table(found) if found else None,
        best_per_framework=dict(found["best_per_framework"]) if found else {},
        profiles=profiles,
        profile_table=profiles if profiles.empty else why_data.display_profiles(profiles),
        top_ops=why_data.top_ops(result) if not profiles.empty else pd.DataFrame(),
        figures=figures,
        why_figures=why_charts.why_figures(profiles) if not profiles.empty else {},
    )


def light_words(result: RunResult, chosen: dict[str, Any] | None) -> str | None:
    """The speed of light line (`summary.speed_of_light_line`), as a sentence that points at
    each variant's share of it."""
    entries = run_entries(result)
    line = speed_of_light_line(result.speed_of_light(), entries, (chosen or {}).get("variant"))
    return f"{sentence(line)} (each variant's share: % roofline)." if line else None


def _failures_and_notes(table: pd.DataFrame) -> tuple[list[str], list[str]]:
    """A line per failed or wrong variant, and each correct variant's note in full (a table
    cell cuts notes to the column's width), grouped where variants share one."""
    if table.empty:
        return [], []
    failures = [
        f"{row['strategy']}: {row['status']} — {row['note']}"
        for _, row in table[table["status"] != "ok"].iterrows()
    ]
    ok = table[(table["status"] == "ok") & (table["note"].fillna("") != "")]
    return failures, grouped_notes(zip(ok["strategy"], ok["note"]))
