"""Run page: settings in the sidebar, a run in a worker process, then charts and the winner."""

from __future__ import annotations

import json

import streamlit as st

from dashboard.components import controls, devices
from dashboard.components.plain import plain
from dashboard.components.progress import job_progress
from dashboard.components.results import parse_result, show_results
from dashboard.services.links import config_from_settings
from dashboard.services.worker import Job, JobStatus
from engine.results.model import RunResult
from engine.results.reader import ResultsRejected
from engine.spec.fields import ConfigError


def collect(status: JobStatus) -> None:
    """Move a finished job's outcome into the session (once); of a group, its last run."""
    st.session_state["last_outcome"] = (status.state, status.message)
    st.session_state.pop("group_note", None)
    if status.state == "done" and status.result_path:
        with open(status.result_path, encoding="utf-8") as handle:
            text = handle.read()
        group = group_of(text)
        if group is not None:
            group_id, runs = group
            st.session_state["group_note"] = (
                f"{len(runs)} repetitions in fresh processes, stored as group {group_id}; "
                "shown: the last. Compare them on the Compare page."
            )
            text = json.dumps(runs[-1])
        st.session_state["result_text"] = text


def group_of(text: str) -> tuple[str, list] | None:
    """(group id, run objects) when the worker wrote a group file, else None."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get("runs"), list) and data["runs"]:
        return str(data.get("group_id", "")), data["runs"]
    return None


def start_run(settings: dict) -> None:
    try:
        config = config_from_settings(settings)
    except ConfigError as error:
        st.session_state["last_outcome"] = ("refused", str(error))
        return
    st.session_state["job"] = Job.for_run(config, st.session_state.get("repetitions", 1))
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
    "How fast can TensorFlow compute y[i] = A[i]·x[i] for many small matrices? "
    "Every strategy timed honestly (synchronised, repeated) and checked against float64."
)
for notice in controls.seed_from_url():
    st.warning(plain(notice))
settings = controls.render()
st.sidebar.number_input(
    "Repetitions (fresh processes)",
    min_value=1,
    max_value=20,
    key="repetitions",
    help="Repeat the whole measurement in new processes, stored as one group: the spread "
    "between processes is what makes comparisons honest.",
)

job: Job | None = st.session_state.get("job")
if job is not None and (status := job.status()).finished:
    st.session_state.pop("job")
    collect(status)
    job = None
current = current_result()
devices.render(
    current.peak_bytes_per_s if current else None, current.peak.method if current else ""
)
if st.button("Run benchmark", type="primary", disabled=job is not None, key="run"):
    start_run(settings)
    st.rerun()
job_progress("job", describe, overall_fraction, collect, "Cancel run")
show_outcome()
if "group_note" in st.session_state:
    st.info(plain(st.session_state["group_note"]))
if current is not None:
    show_results(st.session_state["result_text"])
