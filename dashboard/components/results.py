"""Rendering of one run's results: shared by the Run page and the History page.

The text comes from the validating parser, so anything shown here has been checked; user and
file text (labels, errors, warnings) is still shown as plain text, never as Markdown.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.components.charts import chart
from dashboard.components.plain import plain
from dashboard.figures import run as charts
from dashboard.figures import why as why_charts
from dashboard.report import run_report
from dashboard.tables import run as data
from dashboard.tables import why as why_data
from dashboard.tables.search import search_table
from dashboard.text.explain import answer_for
from engine.results.formatting import grouped_notes, took_line
from engine.results.model import RunResult
from engine.results.search import search_summary
from engine.storage.profiles import stored_trace


@st.cache_data(show_spinner=False, max_entries=8)
def parse_result(text: str) -> RunResult:
    return RunResult.from_json(text)


@st.cache_data(show_spinner=False, max_entries=8)
def report_html(text: str) -> str:
    return run_report(parse_result(text))


def show_results(text: str, key: str = "run") -> None:
    result = parse_result(text)
    config = result.config
    summary = data.summary(result)
    samples = data.samples(result)
    replicas = data.replicas(result)
    chosen = result.winner_dict()
    best = data.winner(summary, chosen)
    profiles = why_data.profiles(result)
    st.subheader("Results")
    if config.label:
        st.text(config.label)
    st.caption(
        plain(
            f"{config.matrices:,} matrices of {config.rows}×{config.columns} {config.dtype} · "
            f"{config.mode} · cache {config.cache} · {result.environment.device_kind} · "
            f"run {result.run_id[:8]}"
        )
    )
    took = took_line(result.timings, result.worker)
    if took:
        st.caption(plain(took))
    for warning in result.warnings:
        st.info(plain(warning))

    st.markdown("### The fastest way")
    if best is None:
        st.error("No strategy produced a correct result in this run.")
    else:
        st.markdown(answer_for(result, best, chosen, profiles))
        source = result.code_for(best["variant"])
        if source:
            st.code(source, language="python")
        else:
            st.caption("This version of the tool does not have that strategy's source.")

    if config.search:
        show_search(result)

    st.markdown("### Summary")
    table = data.display_table(summary)
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        column_config={"note": st.column_config.TextColumn("note", width="large")},
    )
    if not table.empty:
        for _, row in table[table["status"] != "ok"].iterrows():
            st.error(plain(f"{row['strategy']}: {row['status']} — {row['note']}"))
        # The note cells are cut to the column's width: each note in full, like ones grouped.
        ok = table[(table["status"] == "ok") & (table["note"].fillna("") != "")]
        for line in grouped_notes(zip(ok["strategy"], ok["note"])):
            st.caption(plain(line))

    steps = data.distribution(result)
    if not steps.empty:
        st.markdown("### Distribution")
        st.dataframe(data.display_distribution(steps), hide_index=True, width="stretch")
    figures = charts.all_figures(summary, samples, replicas, result.peak_bytes_per_s, steps)
    st.markdown("### Charts")
    for name, figure in figures.items():
        if name == "replicas" and replicas.empty:
            continue
        chart(figure, f"{key}_chart_{name}")

    if not profiles.empty:
        show_why(result, profiles, key)

    st.markdown("### Share")
    stem = f"matvec-{result.run_id[:8]}"
    cols = st.columns(3)
    cols[0].download_button(
        "Results JSON", text, f"{stem}.json", "application/json", key=f"{key}_json"
    )
    cols[1].download_button(
        "Samples CSV",
        lambda: samples.to_csv(index=False),
        f"{stem}.csv",
        "text/csv",
        key=f"{key}_csv",
    )
    cols[2].download_button(
        "HTML report", lambda: report_html(text), f"{stem}.html", "text/html", key=f"{key}_report"
    )
    st.caption("The page link reproduces these settings: copy it from the address bar.")


def show_search(result: RunResult) -> None:
    """A search's answer: the best point of each framework, and every point with its ratio
    to the best and why it stopped."""
    summary = search_summary(result)
    st.markdown("### The search")
    best = summary["best_per_framework"]
    if best:
        st.markdown(
            plain(
                "Best point per framework: "
                + ", ".join(f"{framework}: {variant}" for framework, variant in best.items())
            )
        )
    st.dataframe(search_table(summary), hide_index=True, width="stretch")


def show_why(result: RunResult, profiles: pd.DataFrame, key: str) -> None:
    """The profiler's evidence: time in ops vs outside, ops per call, top ops, the traces."""
    st.markdown("### Why (profiled)")
    st.caption(why_data.WHICH_TIME_IS_WHICH)
    st.dataframe(why_data.display_profiles(profiles), hide_index=True, width="stretch")
    for name, figure in why_charts.why_figures(profiles).items():
        chart(figure, f"{key}_why_{name}")
    ops = why_data.top_ops(result)
    if not ops.empty:
        st.markdown("Top ops per variant (by self time)")
        st.dataframe(ops, hide_index=True, width="stretch")
    traces = [
        (variant, path)
        for variant in profiles["variant"]
        if (path := stored_trace(result.run_id, variant)) is not None
    ]
    if traces:
        st.caption("Traces open in https://ui.perfetto.dev and chrome://tracing.")
        cols = st.columns(min(4, len(traces)))
        for index, (variant, path) in enumerate(traces):
            cols[index % len(cols)].download_button(
                f"Trace: {variant}",
                path.read_bytes,
                f"matvec-{result.run_id[:8]}-{variant}.trace.json.gz",
                "application/gzip",
                key=f"{key}_trace_{variant}",
            )
    else:
        st.caption("The trace files of this run are not on this machine.")
