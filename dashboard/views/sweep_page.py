"""Sweep page: run a grid in the worker, then the scaling views, crossover map and cost fit."""

from __future__ import annotations

import streamlit as st

from dashboard import history_charts, history_data
from dashboard.report import sweep_report
from dashboard.settings import sweep_args
from dashboard.store import history
from dashboard.worker import Job, JobStatus
from engine.catalog import FAST_STRATEGIES, STRATEGY_NAMES
from engine.config import ConfigError

POLL_S = 0.5


def describe(status: JobStatus) -> str:
    if status.state == "queued":
        return f"Waiting in the queue: position {status.queue_position}."
    eta = f", about {status.eta_s:.0f} s left" if status.eta_s is not None else ""
    return (
        f"Point {min(status.points_done + 1, max(1, status.points_total))} of "
        f"{status.points_total}{eta} · {status.variant or status.phase or 'starting'} · "
        f"{status.elapsed_s:.0f} s elapsed"
    )


@st.fragment(run_every=POLL_S)
def sweep_progress() -> None:
    job: Job | None = st.session_state.get("sweep_job")
    if job is None:
        return
    status = job.status()
    if status.finished:
        st.session_state.pop("sweep_job")
        st.session_state["sweep_outcome"] = (status.state, status.message, status.sweep_id)
        st.rerun()
    total = max(1, status.points_total)
    st.progress(min(1.0, status.points_done / total), text=describe(status))
    if st.button("Cancel sweep", key="cancel_sweep"):
        job.cancel()
        st.rerun()


st.title("Sweeps")
st.caption(
    "A grid over B, n, dtype and mode. Every finished point is stored as it completes; "
    "starting the same sweep again resumes it."
)
with st.form("sweep_form"):
    cols = st.columns(3)
    matrices = cols[0].text_input("Matrices B (comma-separated)", "10,100,1000,10000")
    dims = cols[1].text_input("Rows m (comma-separated)", "16,64,256")
    columns = cols[2].text_input("Columns n (empty: square)", "")
    cols = st.columns(3)
    dtypes = cols[0].text_input("dtypes", "float32")
    modes = cols[1].text_input("Modes", "single")
    replicas = cols[2].number_input("Replicas", 1, 1024, 1)
    strategies = st.multiselect("Strategies", STRATEGY_NAMES, list(FAST_STRATEGIES))
    cols = st.columns(3)
    repeats = cols[0].number_input("Samples per point", 1, 100_000, 10)
    warmup = cols[1].number_input("Warm-up calls", 0, 10_000, 2)
    label = cols[2].text_input("Label", "")
    submitted = st.form_submit_button(
        "Run sweep", type="primary", disabled="sweep_job" in st.session_state
    )
if submitted:
    raw = {
        "matrices": matrices,
        "dim": dims,
        "cols": columns or None,
        "dtype": dtypes,
        "mode": modes,
        "strategies": strategies,
        "replicas": replicas,
        "repeats": repeats,
        "warmup": warmup,
        "label": label,
    }
    try:
        st.session_state["sweep_job"] = Job.for_sweep(sweep_args(raw))
        st.session_state.pop("sweep_outcome", None)
    except ConfigError as error:
        st.error(f"Sweep refused: {error}")
sweep_progress()
state, message, finished_id = st.session_state.get("sweep_outcome", (None, "", ""))
if state == "cancelled":
    st.warning(message)
elif state and state != "done":
    st.error(message)

sweeps = history().list_sweeps()
if sweeps.empty:
    st.info("No sweeps stored yet.")
    st.stop()
names = {
    row.sweep_id: f"{row.created_at[:16].replace('T', ' ')} · {row.label or 'no label'} · "
    f"{row.done}/{row.points} points"
    for row in sweeps.itertuples()
}
ids = list(names)
chosen = st.selectbox(
    "Stored sweep",
    ids,
    index=ids.index(finished_id) if finished_id in ids else 0,
    format_func=names.get,
    key="sweep_choice",
)
runs = history().sweep_runs(chosen)
if not runs:
    st.info("This sweep has no finished points yet.")
    st.stop()
tables = history_data.sweep_tables(runs)
points = tables["points"]
peak = max((r.peak_bytes_per_s or 0) for r in runs) / 1e9 or None
st.markdown("### Crossover map")
st.plotly_chart(history_charts.crossover_map(tables["cells"]), width="stretch", key="crossover")
st.dataframe(tables["cells_view"], hide_index=True, width="stretch")
st.markdown("### Scaling")
left, right = st.columns(2)
left.plotly_chart(history_charts.scaling(points, "matrices", "median_s", peak), key="s1")
right.plotly_chart(history_charts.scaling(points, "matrices", "gbytes_per_s", peak), key="s2")
left.plotly_chart(history_charts.scaling(points, "cols", "median_s", peak), key="s3")
right.plotly_chart(history_charts.scaling(points, "cols", "gbytes_per_s", peak), key="s4")
st.markdown("### Fixed overhead and per-byte cost")
st.plotly_chart(history_charts.cost_fit(points, tables["fits"]), width="stretch", key="fit")
st.dataframe(tables["fits_view"], hide_index=True, width="stretch")
st.download_button(
    "HTML report",
    lambda: sweep_report(runs, names[chosen]),
    f"matvec-sweep-{chosen}.html",
    "text/html",
    key="sweep_report",
)
