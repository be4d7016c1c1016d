"""The results of a running run, drawn inside the progress fragment as they come.

The snapshot shown changes at most every REDRAW_S (or when a variant finishes): the browser
redraws the chart only when its data changes, and on a machine with few cores a chart redrawn
at every poll would take CPU from the measurement it is showing.
"""

from __future__ import annotations

import time

import streamlit as st

from dashboard.components.plain import plain
from dashboard.figures import run as charts
from dashboard.services.job_status import JobStatus
from dashboard.tables import partial
from engine.run_settings.config import BenchConfig

REDRAW_S = 2.0
SNAPSHOT_KEY = "partial_snapshot"


def snapshot(status: JobStatus) -> JobStatus:
    """The status to draw: the last one shown, unless REDRAW_S passed or a result came."""
    now = time.monotonic()
    shown = st.session_state.get(SNAPSHOT_KEY)
    if shown is not None:
        shown_at, shown_status = shown
        same_results = set(shown_status.results) == set(status.results)
        same_run = shown_status.variants == status.variants
        if same_run and same_results and now - shown_at < REDRAW_S:
            return shown_status
    st.session_state[SNAPSHOT_KEY] = (now, status)
    return status


FIRST_LOOK = (
    "First look: {names} measured in a process of its own while the worker starts TensorFlow, "
    "beside that start, so slower or noisier than it may be. TensorFlow's variants join when "
    "it is ready, and the run measures every variant again: its answer comes from its own "
    "record, not from this look."
)


def show_first_look(look: JobStatus, config: BenchConfig) -> None:
    """A warm run's first look (`services/first_look.py`), in the run's table: its variants'
    samples or results so far, the run's others pending."""
    st.markdown("### Results so far")
    names = ", ".join(look.variants) or "NumPy's variants"
    st.caption(FIRST_LOOK.format(names=names))
    table = partial.partial_table(config, tuple(config.strategies), look.results, look.running)
    st.dataframe(table, hide_index=True, width="stretch")


def show_partial(status: JobStatus, config: BenchConfig | None) -> None:
    """The summary table and latency chart so far; before the run's first sample, its first
    look's, if it has one; otherwise nothing."""
    if status.prediction and not status.finished:  # the history's word, until the run's own
        st.info(plain(status.prediction), icon=":material/history:")
    if config is None or not (status.results or status.running):
        st.session_state.pop(SNAPSHOT_KEY, None)
        look = status.first_look
        if config is not None and look is not None and (look.results or look.running):
            show_first_look(look, config)
        return
    shown = snapshot(status)
    done, total = len(shown.results), max(len(shown.variants), len(shown.results))
    st.markdown("### Results so far")
    st.caption(
        f"{done} of {total} variant(s) finished; the others show their samples so far (a "
        "median with no interval yet) or are pending. The intervals, the roofline and the "
        "verdict come with the complete run: the peak bandwidth is measured again after the "
        "strategies."
    )
    if status.provisional and not status.finished:
        st.text(f"{status.provisional.capitalize()}: the run's answer comes from its whole record.")
    table = partial.partial_table(config, shown.variants, shown.results, shown.running)
    st.dataframe(table, hide_index=True, width="stretch")
    samples = partial.partial_samples(config, shown.results, shown.running)
    st.plotly_chart(charts.latency_distribution(samples), width="stretch", key="partial_latency")
