"""One run inline in Jupyter or Colab: the same answer, code, table and charts as the Run page
and the report, built by the same functions (no Streamlit here).

Engine-written text (the fastest-way answer) is shown as Markdown; anything that came from a
user or a file (the label, errors, warnings) is shown as plain text or inside the table, which
pandas escapes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from dashboard.figures import run as charts
from dashboard.figures import why as why_charts
from dashboard.tables import run as data
from dashboard.tables import why as why_data
from dashboard.text.explain import answer_for
from engine.results.model import RunResult


@dataclass
class RunView:
    """Everything `show` displays, built without a notebook (tests read it)."""

    heading: str
    answer: str  # Markdown, engine-written
    code: str | None
    table: pd.DataFrame
    replicas: pd.DataFrame
    figures: dict[str, Any]  # plotly Figures, in page order
    notes: list[str]  # plain text: warnings, failures


def build(result: RunResult) -> RunView:
    config = result.config
    summary = data.summary(result)
    replicas = data.replicas(result)
    steps = data.distribution(result)
    chosen = result.winner_dict()
    best = data.winner(summary, chosen)
    figures = charts.all_figures(
        summary, data.samples(result), replicas, result.peak_bytes_per_s, steps
    )
    if replicas.empty:
        figures.pop("replicas")
    profiles = why_data.profiles(result)
    if not profiles.empty:
        figures.update(why_charts.why_figures(profiles))
    table = data.display_table(summary)
    failures = table if table.empty else table[table["status"] != "ok"]
    notes = [*result.warnings]
    notes += [
        f"{row['strategy']}: {row['status']} — {row['note']}" for _, row in failures.iterrows()
    ]
    heading = (
        f"{config.matrices:,} matrices of {config.rows}×{config.columns} {config.dtype} · "
        f"{config.mode} · {result.environment.device_kind} · run {result.run_id[:8]}"
    )
    if best is None:
        answer, code = "No strategy produced a correct result in this run.", None
    else:
        answer = answer_for(result, best, chosen, why_data.profiles(result))
        code = result.code_for(best["variant"])
    return RunView(heading, answer, code, table, replicas, figures, notes)


def show(result: RunResult) -> RunView:
    """Display the run in the notebook (IPython's display); returns what was shown (the
    notebook helper `engine.notebook.show` returns nothing, so a cell does not echo it)."""
    from IPython.display import Markdown, display

    view = build(result)
    print(view.heading)
    if result.config.label:
        print(result.config.label)
    display(Markdown("### The fastest way\n\n" + view.answer))
    if view.code:
        display(Markdown(f"```python\n{view.code}\n```"))
    for note in view.notes:
        print(note)
    display(view.table)
    if not view.replicas.empty:
        display(view.replicas)  # the per-replica read-out
    for figure in view.figures.values():
        figure.show()
    return view
