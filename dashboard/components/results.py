"""Rendering of one run's results: shared by the Run page and the History page.

The text comes from the validating parser, so anything shown here has been checked; user and
file text (labels, errors, warnings) is still shown as plain text, never as Markdown.
"""

from __future__ import annotations

import streamlit as st

from dashboard.components.charts import chart
from dashboard.components.plain import plain, with_code
from dashboard.report import run_report
from dashboard.run_view import NO_SOURCE, RunView, build
from dashboard.tables.why import WHICH_TIME_IS_WHICH
from dashboard.text.controls import in_page_words
from engine.results.formatting import sentence
from engine.results.run_result import RunResult
from engine.storage.profiles import stored_trace


@st.cache_data(show_spinner=False, max_entries=8)
def parse_result(text: str) -> RunResult:
    return RunResult.from_json(text)


@st.cache_data(show_spinner=False, max_entries=8)
def report_html(text: str) -> str:
    return run_report(parse_result(text))


def show_results(text: str, key: str = "run") -> None:
    view = build(parse_result(text))
    result = view.result
    st.subheader("Results")
    if result.config.label:
        st.text(result.config.label)
    st.caption(plain(view.heading))
    if view.took:
        st.caption(plain(view.took))
    for warning in result.warnings:
        st.info(with_code(sentence(in_page_words(warning))))

    show_answer(view)
    if view.search is not None:
        show_search(view)

    st.markdown("### Summary")
    st.dataframe(
        view.table,
        hide_index=True,
        width="stretch",
        column_config={"note": st.column_config.TextColumn("note", width="large")},
    )
    for line in view.failures:
        st.error(with_code(line))
    for line in view.notes:
        st.caption(with_code(line))

    if not view.distribution.empty:
        st.markdown("### Distribution")
        st.dataframe(view.distribution, hide_index=True, width="stretch")
    st.markdown("### Charts")
    for name, figure in view.figures.items():
        chart(figure, f"{key}_chart_{name}")

    if not view.profiles.empty:
        show_why(view, key)

    show_share(view, text, key)


def show_answer(view: RunView) -> None:
    """The fastest way (or why there is none), with the code to copy, and in a tie the
    simplest's code too."""
    st.markdown("### The fastest way")
    if view.winner is None:
        st.error(view.answer)
        return
    st.markdown(view.answer)
    if view.code:
        st.code(view.code, language="python")
    else:
        st.caption(NO_SOURCE)
    if view.simplest:
        st.caption(plain(f"The simplest of the tied strategies, {view.simplest}:"))
        st.code(view.simplest_code or NO_SOURCE, language="python")
    if view.light:
        st.caption(plain(view.light))
    if view.prediction:  # the history's word before measuring, apart from the measured answer
        st.caption(plain(f"Before measuring, {view.prediction}."))


def show_share(view: RunView, text: str, key: str) -> None:
    """The run's downloads: its JSON, its samples, its HTML report."""
    st.markdown("### Share")
    stem = f"matvec-{view.result.run_id[:8]}"
    cols = st.columns(3)
    cols[0].download_button(
        "Results JSON", text, f"{stem}.json", "application/json", key=f"{key}_json"
    )
    cols[1].download_button(
        "Samples CSV",
        lambda: view.samples.to_csv(index=False),
        f"{stem}.csv",
        "text/csv",
        key=f"{key}_csv",
    )
    cols[2].download_button(
        "HTML report", lambda: report_html(text), f"{stem}.html", "text/html", key=f"{key}_report"
    )
    st.caption("The page link reproduces these settings: copy it from the address bar.")


def show_search(view: RunView) -> None:
    """A search's answer: the best point of each framework, and every point with its ratio
    to the best and why it stopped."""
    st.markdown("### The search")
    best = view.best_per_framework
    if best:
        st.markdown(
            plain(
                "Best point per framework: "
                + ", ".join(f"{framework}: {variant}" for framework, variant in best.items())
            )
        )
    st.dataframe(view.search, hide_index=True, width="stretch")


def show_why(view: RunView, key: str) -> None:
    """The profiler's evidence: time in ops vs outside, ops per call, top ops, the traces."""
    result = view.result
    st.markdown("### Why (profiled)")
    st.caption(WHICH_TIME_IS_WHICH)
    st.dataframe(view.profile_table, hide_index=True, width="stretch")
    for name, figure in view.why_figures.items():
        chart(figure, f"{key}_why_{name}")
    if not view.top_ops.empty:
        st.markdown("Top ops per variant (by self time)")
        st.dataframe(view.top_ops, hide_index=True, width="stretch")
    traces = [
        (variant, path)
        for variant in view.profiles["variant"]
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
