"""The Streamlit side of `services/page_jobs.py`: a page's job is kept in the server's
registry under a token in the page's URL (`?job=…`, `?sweep_job=…`), so a reload finds it."""

from __future__ import annotations

from typing import Any

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dashboard.services.page_jobs import PAGE_JOBS


def session_id() -> str:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else ""


def is_active(session: str) -> bool:
    return Runtime.exists() and Runtime.instance().is_active_session(session)


def start(job_key: str, job: Any) -> None:
    """Keep `job` as this page's, under a token in its URL."""
    token = PAGE_JOBS.own(job, session_id())
    st.session_state[job_key] = job
    st.session_state[f"{job_key}_token"] = token
    st.query_params[job_key] = token
    PAGE_JOBS.watch(is_active)


def adopt(job_key: str) -> None:
    """On a page that has no job: the one its URL names, if it still runs (a reload)."""
    if st.session_state.get(job_key) is not None:
        return
    token = st.query_params.get(job_key)
    job = PAGE_JOBS.adopt(token, session_id()) if token else None
    if job is None:
        if token:
            del st.query_params[job_key]
        return
    st.session_state[job_key] = job
    st.session_state[f"{job_key}_token"] = token


def finish(job_key: str) -> None:
    """The page's job is over (collected or cancelled): forget it everywhere."""
    st.session_state.pop(job_key, None)
    PAGE_JOBS.drop(st.session_state.pop(f"{job_key}_token", None))
    if job_key in st.query_params:
        del st.query_params[job_key]
