"""The live progress of a worker job, shared by the Run and Sweeps pages.

Only the progress bar refreshes itself (a fragment every POLL_S); the Cancel button is drawn
outside it, so the browser never replaces the button under a click, and its work happens in
its `on_click` callback, which Streamlit runs before the next script run.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from dashboard.components import page_jobs
from dashboard.services.job_status import JobStatus
from dashboard.services.worker import Job, WarmJob

POLL_S = 0.5


def _cancel(job_key: str) -> None:
    job: Job | WarmJob | None = st.session_state.get(job_key)
    if job is not None:
        job.cancel()


def job_progress(
    job_key: str,
    describe: Callable[[JobStatus], str],
    fraction: Callable[[JobStatus], float],
    on_finish: Callable[[JobStatus], None],
    cancel_label: str,
    while_running: Callable[[JobStatus], None] | None = None,
) -> None:
    """Draw the job under `job_key` in session state, refreshing until it finishes;
    `while_running` draws what the job has produced so far, under the bar."""

    @st.fragment(run_every=POLL_S)
    def panel() -> None:
        job: Job | WarmJob | None = st.session_state.get(job_key)
        if job is None:
            return
        status = job.status()
        if status.finished:
            page_jobs.finish(job_key)
            on_finish(status)
            st.rerun()
        st.progress(fraction(status), text=describe(status))
        if while_running is not None:
            while_running(status)

    if st.session_state.get(job_key) is None:
        return
    st.button(cancel_label, key=f"{job_key}_cancel", on_click=_cancel, args=(job_key,))
    panel()
