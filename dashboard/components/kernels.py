"""The user kernels this dashboard offers: only those named when it was started
(`matvec-profiler dashboard --kernel PATH.py:FUNCTION`), chosen by name on the Run page.

The browser picks among names; the paths and the code stay on the server's side.
"""

from __future__ import annotations

import os

import streamlit as st

from dashboard.components.plain import plain
from engine.run_settings.fields import ConfigError
from engine.run_settings.user_kernels import DASHBOARD_KERNELS_VARIABLE as KERNELS_VARIABLE
from engine.run_settings.user_kernels import parse_kernel_spec


@st.cache_resource(show_spinner=False)
def offered() -> tuple[dict[str, str], tuple[str, ...]]:
    """name -> spec of each kernel named at start, and the problems of those that are not
    usable any more (the file was moved since)."""
    found: dict[str, str] = {}
    problems: list[str] = []
    for line in os.environ.get(KERNELS_VARIABLE, "").splitlines():
        if not line.strip():
            continue
        try:
            kernel = parse_kernel_spec(line)
        except ConfigError as error:
            problems.append(str(error))
            continue
        found[kernel.name] = kernel.spec
    return found, tuple(problems)


def chooser() -> list[str]:
    """The sidebar's pick of the offered kernels; returns the chosen ones' specs."""
    found, problems = offered()
    for problem in problems:
        st.sidebar.caption(plain(f"Kernel not offered: {problem}"))
    if not found:
        return []
    chosen = st.sidebar.multiselect(
        "Your kernels",
        list(found),
        key="user_kernels",
        help="named when the dashboard was started (--kernel); measured beside the strategies",
    )
    return [found[name] for name in chosen if name in found]
