"""The results of a running run, drawn inside the progress fragment as each variant finishes."""

from __future__ import annotations

import streamlit as st

from dashboard.figures import run as charts
from dashboard.services.worker import JobStatus
from dashboard.tables import partial
from engine.spec.config import BenchConfig


def show_partial(status: JobStatus, config: BenchConfig | None) -> None:
    """The summary table and latency chart so far; nothing before the first result."""
    if config is None or not status.results:
        return
    done, total = len(status.results), max(len(status.variants), len(status.results))
    st.markdown("### Results so far")
    st.caption(
        f"{done} of {total} variant(s) finished; the rest are pending. The roofline and the "
        "verdict come with the complete run: the peak bandwidth is measured again after the "
        "strategies."
    )
    table = partial.partial_table(config, status.variants, status.results)
    st.dataframe(table, hide_index=True, width="stretch")
    samples = partial.partial_samples(config, status.results)
    st.plotly_chart(charts.latency_distribution(samples), width="stretch", key="partial_latency")
