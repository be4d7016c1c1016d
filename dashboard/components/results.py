"""Rendering of one run's results: shared by the Run page and the History page.

The text comes from the validating parser, so anything shown here has been checked; user and
file text (labels, errors, warnings) is still shown as plain text, never as Markdown.
"""

from __future__ import annotations

import streamlit as st

from dashboard.components.plain import plain
from dashboard.figures import run as charts
from dashboard.report import run_report
from dashboard.tables import run as data
from dashboard.text.explain import fastest_way
from engine.results.model import RunResult
from engine.spec.catalog import code_to_copy


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
    for warning in result.warnings:
        st.info(plain(warning))

    st.markdown("### The fastest way")
    if best is None:
        st.error("No strategy produced a correct result in this run.")
    else:
        st.markdown(fastest_way(best, chosen, config, result.peak_bytes_per_s))
        source = code_to_copy(best["variant"])
        if source:
            st.code(source, language="python")
        else:
            st.caption("This version of the tool does not have that strategy's source.")

    st.markdown("### Summary")
    table = data.display_table(summary)
    st.dataframe(table, hide_index=True, width="stretch")
    if not table.empty:
        for _, row in table[table["status"] != "ok"].iterrows():
            st.error(plain(f"{row['strategy']}: {row['status']} — {row['note']}"))

    steps = data.distribution(result)
    if not steps.empty:
        st.markdown("### Distribution")
        st.dataframe(data.display_distribution(steps), hide_index=True, width="stretch")
    figures = charts.all_figures(summary, samples, replicas, result.peak_bytes_per_s, steps)
    st.markdown("### Charts")
    for name, figure in figures.items():
        if name == "replicas" and replicas.empty:
            continue
        st.plotly_chart(figure, width="stretch", key=f"{key}_chart_{name}")

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
