"""Sweep page: run a grid in the worker, then the scaling views, crossover map and cost fit."""

from __future__ import annotations

import streamlit as st

from dashboard.components import page_jobs
from dashboard.components.charts import chart
from dashboard.components.devices import device_kind
from dashboard.components.plain import plain
from dashboard.components.progress import job_progress
from dashboard.components.store import history
from dashboard.figures import ceilings as ceiling_figures
from dashboard.figures import sweep as sweep_figures
from dashboard.report import sweep_report
from dashboard.services import worker
from dashboard.services.job_status import JobStatus
from dashboard.tables.sweep import sweep_tables
from dashboard.text.progress import sweep_progress_text
from engine.catalogue.catalog import interactive_strategies, strategy_names
from engine.run_settings.config import default_of, field_setting
from engine.run_settings.fields import ConfigError
from engine.run_settings.sweep import MAX_LIST_CHARS, SweepSpec

AXES = (  # (field, widget label, example values): every other setting is the base config's
    ("matrices", "Matrices B (comma-separated)", "10,100,1000,10000"),
    ("dim", "Rows m (comma-separated)", "16,64,256"),
    ("cols", "Columns n (empty: square)", ""),
    ("dtype", "dtypes", "float32"),
    ("mode", "Modes", "single"),
    ("cache", "Cache states", "warm"),
    ("xla", "XLA (true, false or both)", "false"),
)


def describe(status: JobStatus) -> str:
    if status.state == "queued":
        return f"Waiting in the queue: position {status.queue_position}."
    return sweep_progress_text(status)


def fraction(status: JobStatus) -> float:
    return min(1.0, status.points_done / max(1, status.points_total))


def collect(status: JobStatus) -> None:
    st.session_state["sweep_outcome"] = (status.state, status.message, status.sweep_id)


def number(name: str, label: str, column) -> int:
    setting = field_setting(name)
    assert setting.limits is not None
    lo, hi = (int(v) for v in setting.limits)
    return column.number_input(label, lo, hi, default_of(name), key=f"sweep_{name}")


st.title("Sweeps")
st.caption(
    "A grid over any settings: give several comma-separated values to make an axis. Every "
    "finished point is stored as it completes; starting the same sweep again resumes it."
)
page_jobs.adopt("sweep_job")  # a reloaded page finds its sweep again
with st.form("sweep_form"):
    raw: dict = {}
    columns = st.columns(3)
    for index, (name, label, example) in enumerate(AXES):
        text = columns[index % 3].text_input(label, example, max_chars=MAX_LIST_CHARS)
        raw[name] = text or None
    raw["strategies"] = st.multiselect(
        "Strategies", strategy_names(), list(interactive_strategies())
    )
    columns = st.columns(4)
    raw["replicas"] = number("replicas", "Replicas (modes other than single)", columns[0])
    raw["repeats"] = number("repeats", "Samples per point", columns[1])
    raw["warmup"] = number("warmup", "Warm-up calls", columns[2])
    raw["label"] = columns[3].text_input("Label", "", max_chars=field_setting("label").max_chars)
    gaps = st.number_input(
        "Fill gaps: run only this many of the points, those the history predicts least (0: all)",
        0,
        100_000,
        0,
        key="sweep_fill_gaps",
        help="The points whose prediction from this machine's history says least (none made, "
        "or the widest interval) are the ones a next question on this grid most needs.",
    )
    submitted = st.form_submit_button(
        "Run sweep", type="primary", disabled="sweep_job" in st.session_state
    )
if submitted:
    try:
        spec = SweepSpec.from_raw(raw)
        page_jobs.start("sweep_job", worker.start_sweep(spec, device_kind(), int(gaps)))
        st.session_state.pop("sweep_outcome", None)
    except ConfigError as error:
        st.error(plain(f"Sweep refused: {error}"))
job_progress("sweep_job", describe, fraction, collect, "Cancel sweep")
state, message, finished_id = st.session_state.get("sweep_outcome", (None, "", ""))
if state == "cancelled":
    st.warning(plain(message))
elif state and state != "done":
    st.error(plain(message))

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
tables = sweep_tables(runs)
points = tables["points"]
peak = max((r.peak_bytes_per_s or 0) for r in runs) / 1e9 or None
st.markdown("### Crossover map")
chart(sweep_figures.crossover_map(tables["cells"]), "crossover")
st.dataframe(tables["cells_view"], hide_index=True, width="stretch")
st.markdown("### Scaling")
left, right = st.columns(2)
chart(sweep_figures.scaling(points, "matrices", "median_s", peak), "s1", left)
chart(sweep_figures.scaling(points, "matrices", "gbytes_per_s", peak), "s2", right)
chart(sweep_figures.scaling(points, "cols", "median_s", peak), "s3", left)
chart(sweep_figures.scaling(points, "cols", "gbytes_per_s", peak), "s4", right)
st.markdown("### Across the cache levels")
chart(ceiling_figures.sweep_staircase(points, tables["levels"]), "levels")
for line in ceiling_figures.spill_lines(points, tables["levels"]):
    st.caption(plain(line))
st.markdown("### Fixed overhead and per-byte cost")
chart(sweep_figures.cost_fit(points, tables["fits"]), "fit")
st.dataframe(tables["fits_view"], hide_index=True, width="stretch")
st.download_button(
    "HTML report",
    lambda: sweep_report(runs, names[chosen]),
    f"matvec-sweep-{chosen}.html",
    "text/html",
    key="sweep_report",
)
