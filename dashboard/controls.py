"""Sidebar controls, seeded from the URL once per session and mirrored back into it."""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard.settings import DEFAULTS, params_from_settings, settings_from_params
from engine.catalog import STRATEGY_NAMES
from engine.config import CACHE_STATES, DTYPES, INT_LIMITS, MODES

PREFIX = "setting_"


def _key(name: str) -> str:
    return PREFIX + name


def seed_from_url() -> list[str]:
    """First run of a session: URL parameters become the widget state. Returns notices."""
    if st.session_state.get("settings_seeded"):
        return st.session_state.get("url_notices", [])
    parsed = settings_from_params(st.query_params.to_dict())
    for name, value in parsed.settings.items():
        st.session_state[_key(name)] = value
    st.session_state["square_cols"] = parsed.settings["cols"] is None
    st.session_state["settings_seeded"] = True
    st.session_state["url_notices"] = parsed.notices
    return parsed.notices


def _int_input(label: str, name: str, help_text: str | None = None, **kwargs: Any) -> None:
    lo, hi = INT_LIMITS[name]
    st.number_input(
        label, min_value=lo, max_value=hi, step=1, key=_key(name), help=help_text, **kwargs
    )


def render() -> dict[str, Any]:
    """Draw the controls; return the current settings and mirror them into the URL."""
    with st.sidebar:
        st.header("Problem")
        _int_input("Matrices (B)", "matrices", "How many independent matrix-vector products.")
        _int_input("Rows (m = dim)", "dim")
        square = st.checkbox("Square (n = m)", key="square_cols")
        if square:
            st.session_state[_key("cols")] = None
        else:
            if st.session_state.get(_key("cols")) is None:
                st.session_state[_key("cols")] = st.session_state[_key("dim")]
            _int_input("Columns (n)", "cols", "Rectangular m×n matrices.")
        st.selectbox("dtype", DTYPES, key=_key("dtype"))
        st.header("Strategies")
        st.multiselect(
            "Strategies",
            STRATEGY_NAMES,
            key=_key("strategies"),
            help="python_loop and dataset are the slow classics: add them to see why.",
        )
        st.checkbox("Add +xla variants (jit_compile=True)", key=_key("xla"))
        st.header("Devices")
        mode = st.selectbox("Distribution mode", MODES, key=_key("mode"))
        if mode == "single":
            st.session_state[_key("replicas")] = 1
        _int_input("Replicas", "replicas", disabled=mode == "single")
        st.header("Timing")
        st.radio(
            "Cache",
            CACHE_STATES,
            key=_key("cache"),
            horizontal=True,
            help="cold rotates input copies larger than the last-level cache",
        )
        _int_input("Warm-up calls", "warmup")
        _int_input("Samples (repeats)", "repeats")
        _int_input("Seed", "seed")
        st.number_input(
            "Time budget per strategy (s)",
            min_value=0.1,
            max_value=86_400.0,
            key=_key("time_budget_s"),
        )
        st.text_input(
            "Run label", key=_key("label"), max_chars=200, placeholder="e.g. laptop, Colab TPU v2"
        )
    settings = {name: st.session_state.get(_key(name), DEFAULTS[name]) for name in DEFAULTS}
    wanted = params_from_settings(settings)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)
    return settings
