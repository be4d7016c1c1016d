"""Run page: settings in the sidebar, a run in a worker process, then charts and the winner."""

from __future__ import annotations

import time

import streamlit as st

from dashboard import controls, devices_panel
from dashboard.results_view import parse_result, show_results
from dashboard.settings import config_from_settings
from dashboard.worker import Job, JobStatus
from engine.config import ConfigError
from engine.results import RunResult

POLL_S = 0.5


def collect(job: Job, status: JobStatus) -> None:
    """Move a finished job's outcome into the session (once)."""
    st.session_state.pop("job", None)
    st.session_state["last_outcome"] = (status.state, status.message)
    if status.state == "done" and status.result_path:
        with open(status.result_path, encoding="utf-8") as handle:
            st.session_state["result_text"] = handle.read()


def start_run(settings: dict) -> None:
    try:
        config = config_from_settings(settings)
    except ConfigError as error:
        st.session_state["last_outcome"] = ("refused", str(error))
        return
    st.session_state["job"] = Job.for_run(config)
    st.session_state.pop("last_outcome", None)


def describe(status: JobStatus) -> str:
    if status.state == "queued":
        return (
            f"Waiting in the queue: position {status.queue_position} "
            "(another run is using this machine; runs never overlap)."
        )
    if status.variant:
        sample = f", sample {status.sample}/{status.samples}" if status.samples else ""
        return (
            f"Running {status.variant} ({status.variant_index}/{status.variant_count})"
            f"{sample} · {status.elapsed_s:.1f} s elapsed"
        )
    return f"{status.phase or 'Starting worker'}… · {status.elapsed_s:.1f} s elapsed"


def overall_fraction(status: JobStatus) -> float:
    """Variants done plus the current one's share of samples, over all variants."""
    if not status.variant_count:
        return 0.0
    current = status.sample / status.samples if status.samples else 0.0
    done = max(0, status.variant_index - 1) + current
    return min(1.0, done / status.variant_count)


@st.fragment(run_every=POLL_S)
def progress_panel() -> None:
    job: Job | None = st.session_state.get("job")
    if job is None:
        return
    status = job.status()
    if status.finished:
        collect(job, status)
        st.rerun()
    st.progress(overall_fraction(status), text=describe(status))
    if st.button("Cancel run", type="secondary", key="cancel"):
        job.cancel()
        time.sleep(0.1)
        st.rerun()


def show_outcome() -> None:
    state, message = st.session_state.get("last_outcome", (None, ""))
    if state == "refused":
        st.error(f"Run refused: {message}")
    elif state == "cancelled":
        st.warning(message)
    elif state in ("died", "failed"):
        st.error(message)


st.title("Batched MatVec Profiler")
st.caption(
    "How fast can TensorFlow compute y[i] = A[i]·x[i] for many small matrices? "
    "Every strategy timed honestly (synchronised, repeated) and checked against float64."
)
for notice in controls.seed_from_url():
    st.warning(notice)
settings = controls.render()

current: RunResult | None = (
    parse_result(st.session_state["result_text"]) if "result_text" in st.session_state else None
)
devices_panel.render(
    current.peak_bytes_per_s if current else None,
    current.peak.get("method", "") if current else "",
)

job: Job | None = st.session_state.get("job")
if job is not None and (status := job.status()).finished:
    collect(job, status)
    job = None
if st.button("Run benchmark", type="primary", disabled=job is not None, key="run"):
    start_run(settings)
    st.rerun()
progress_panel()
show_outcome()
if "result_text" in st.session_state:
    show_results(st.session_state["result_text"])
