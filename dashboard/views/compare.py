"""Compare page: two or more stored runs side by side, with significance on the raw samples."""

from __future__ import annotations

import streamlit as st

from dashboard.components.charts import chart
from dashboard.components.plain import plain
from dashboard.components.store import history, run_choices
from dashboard.figures.compare import compare_medians, ratio_points
from dashboard.report import comparison_report
from dashboard.tables.compare import comparison_notes, comparison_table
from dashboard.text.controls import in_page_words
from dashboard.text.explain import comparison_method
from engine.analysis.compare import (
    compare_runs,
    environments,
    floor_for,
    mismatch_warnings,
    run_label,
    sides_of,
)
from engine.analysis.sensitivity import run_seconds, sensitivity_sentence

st.title("Compare runs")
st.caption("Pick two or more runs (say, a laptop CPU and a Colab TPU).")
choices = run_choices()
if "compare_runs" in st.session_state:
    st.session_state["compare_select"] = [
        r for r in st.session_state.pop("compare_runs") if r in choices
    ]
elif "compare_select" not in st.session_state:
    linked = st.query_params.get("runs", "")
    st.session_state["compare_select"] = [r for r in linked.split(",") if r in choices]
selected = st.multiselect(
    "Runs",
    list(choices),
    format_func=lambda r: choices[r],
    key="compare_select",
    select_all=False,  # Enter on a filter must not add every run that matches it
)
if selected:
    st.query_params["runs"] = ",".join(selected)
if len(selected) < 2:
    st.info("Choose at least two runs to compare." if choices else "No stored runs yet.")
    st.stop()

runs = [history().get_run(run_id) for run_id in selected]
runs = [r for r in runs if r is not None]
baseline = st.selectbox(
    "Baseline", range(len(runs)), format_func=lambda i: run_label(runs[i]), key="baseline"
)
floor = floor_for(sides_of(runs), history().floor_of)
frame = compare_runs(runs, baseline, floor=floor)
st.caption(comparison_method(floor, frame.attrs["margin"]))
st.dataframe(comparison_table(frame), hide_index=True, width="stretch")
for note in [*mismatch_warnings(runs), *comparison_notes(frame)]:
    st.warning(plain(note), icon="⚠️")
sensitivity = sensitivity_sentence(frame, run_seconds(runs))
if sensitivity:
    st.caption(plain(in_page_words(sensitivity)))
chart(ratio_points(frame, frame.attrs["margin"]), "compare_ratios")
chart(compare_medians(frame), "compare_chart")
st.markdown("### Environments")
st.dataframe(environments(runs), hide_index=True, width="stretch")
st.download_button(  # made now (a fraction of a second), so a click always finds it
    "HTML report",
    comparison_report(runs, baseline, floor),
    "matvec-comparison.html",
    "text/html",
    key="compare_report",
)
