"""Run page: settings in the sidebar, a run in a worker process, then charts and the winner."""

from __future__ import annotations

import streamlit as st

from dashboard.components import controls, devices, kernels, page_jobs
from dashboard.components.partial import SNAPSHOT_KEY, show_partial
from dashboard.components.plain import plain
from dashboard.components.progress import job_progress
from dashboard.components.results import parse_result, show_results
from dashboard.services import worker
from dashboard.services.job_status import JobStatus
from dashboard.services.links import config_from_settings
from dashboard.services.worker import Job, WarmJob
from dashboard.text.progress import describe_run, run_fraction
from engine.machine.words import counted
from engine.results.parse import read_run_group
from engine.results.reader import ResultsRejected
from engine.results.run_result import RunResult
from engine.run_settings.fields import ConfigError


def collect(status: JobStatus) -> None:
    """Move a finished job's outcome into the session (once); of a group, its last run."""
    st.session_state["last_outcome"] = (status.state, status.message)
    st.session_state.pop("group_note", None)
    st.session_state.pop(SNAPSHOT_KEY, None)
    if status.state != "done" or not status.result_path:
        return
    try:
        runs = read_run_group(status.result_path)  # a results file, or a group file
    except ResultsRejected as error:
        st.session_state["last_outcome"] = ("failed", f"The worker's results: {error}")
        return
    if len(runs) > 1:
        st.session_state["group_note"] = (
            f"{counted(len(runs), 'repetition')} in fresh processes, stored as group "
            f"{runs[-1].group_id}; "
            "shown: the last. Compare them on the Compare page."
        )
    st.session_state["result_text"] = runs[-1].to_json()


def start_run(settings: dict, kernels: list[str]) -> None:
    try:
        config = config_from_settings(settings, kernels)
    except ConfigError as error:
        st.session_state["last_outcome"] = ("refused", str(error))
        return
    repetitions = st.session_state.get("repetitions", 1)
    page_jobs.start("job", worker.start_run(config, repetitions, devices.device_kind()))
    st.session_state.pop("last_outcome", None)


def prewarm(settings: dict) -> None:
    """Start the warm worker for these settings' layout while the user is still choosing (once
    the page has drawn), so the first run does not wait for TensorFlow to start; it holds no
    device until a run."""
    try:
        config = config_from_settings(settings)
    except ConfigError:
        return
    worker.POOL.prewarm_later(config, accelerator=devices.device_kind() != "CPU")


def running_results(status: JobStatus) -> None:
    job = st.session_state.get("job")
    show_partial(status, getattr(job, "config", None))


def show_outcome() -> None:
    state, message = st.session_state.get("last_outcome", (None, ""))
    if state == "refused":
        st.error(plain(f"Run refused: {message}"))
    elif state == "cancelled":
        st.warning(plain(message))
    elif state in ("died", "failed"):
        st.error(plain(message))


def current_result() -> RunResult | None:
    text = st.session_state.get("result_text")
    if text is None:
        return None
    try:
        return parse_result(text)
    except ResultsRejected as error:
        st.error(plain(f"The worker's results could not be read: {error}"))
        st.session_state.pop("result_text")
        return None


st.title("Batched MatVec Profiler")
st.caption(
    "How fast can y[i] = A[i]·x[i] be computed for many small matrices, with TensorFlow, "
    "JAX, PyTorch or NumPy? Every way timed honestly (synchronised, repeated, raced) and "
    "checked against float64."
)
for notice in controls.seed_from_url():
    st.warning(plain(notice))
settings = controls.render()
chosen_kernels = kernels.chooser()
st.sidebar.number_input(
    "Repetitions (fresh processes)",
    min_value=1,
    max_value=20,
    key="repetitions",
    help="Repeat the whole measurement in new processes, stored as one group: the spread "
    "between processes is what makes comparisons honest.",
)

page_jobs.adopt("job")  # a reloaded page finds its run again
job: Job | WarmJob | None = st.session_state.get("job")
if job is not None and (status := job.status()).finished:
    page_jobs.finish("job")
    collect(status)
    job = None
current = current_result()
devices.render(
    current.peak_bytes_per_s if current else None, current.peak.method if current else ""
)
if st.button("Run benchmark", type="primary", disabled=job is not None, key="run"):
    start_run(settings, chosen_kernels)
    st.rerun()
if job is None:
    prewarm(settings)
job_progress("job", describe_run, run_fraction, collect, "Cancel run", running_results)
show_outcome()
if "group_note" in st.session_state:
    st.info(plain(st.session_state["group_note"]))
if current is not None:
    show_results(st.session_state["result_text"])
