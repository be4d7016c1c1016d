"""Sidebar controls generated from the field table, seeded from the URL, mirrored back into it.

Seeding is idempotent: every script run fills in whatever widget state is missing from the
link (or the defaults), so a click during the page's first run can never reset the other
settings to the widgets' bare defaults.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard.components.plain import plain
from dashboard.services.links import defaults, params_from_settings, settings_from_params
from engine.spec.catalog import (
    framework_label,
    install_hints,
    missing_frameworks,
)
from engine.spec.config import browser_fields
from engine.spec.fields import Setting

PREFIX = "setting_"
SECTIONS: dict[str, tuple[str, ...]] = {
    "Problem": ("matrices", "dim", "cols", "dtype"),
    "Strategies": ("strategies", "xla", "search", "search_budget_s", "search_threads"),
    "Devices": ("mode", "replicas", "threads"),
    "Timing": (
        "cache",
        "sampling",
        "precision",
        "order",
        "warmup",
        "repeats",
        "seed",
        "time_budget_s",
        "dataset_batch",
    ),
    "Why": ("profile",),
}
HELP_EXTRA = {
    "strategies": "python_loop and dataset are the slow classics: add them to see why. "
    "The JAX and PyTorch peers each run in a process of their own, on the same inputs.",
    "search": "Search mode: every installed framework's points (expressions, compilers, batch "
    "splits) are added to the strategies and raced; the answer names the best point per "
    "framework and overall, with the code to copy.",
}


def _key(name: str) -> str:
    return PREFIX + name


def query_params() -> dict[str, list[str]]:
    """Every URL parameter with all its values (repeats are honoured, not dropped)."""
    return {key: st.query_params.get_all(key) for key in st.query_params}


def seed_from_url() -> list[str]:
    """Fill in missing widget state from the link; the link's notices, parsed once."""
    if "url_notices" not in st.session_state:
        parsed = settings_from_params(query_params())
        st.session_state["url_settings"] = parsed.settings
        st.session_state["url_notices"] = parsed.notices
    seeded: dict[str, Any] = st.session_state["url_settings"]
    for name, value in seeded.items():
        if _key(name) not in st.session_state:
            st.session_state[_key(name)] = value
    if "square_cols" not in st.session_state:
        st.session_state["square_cols"] = st.session_state[_key("cols")] is None
    return st.session_state["url_notices"]


def _widget(name: str, setting: Setting, disabled: bool = False) -> None:
    key = _key(name)
    help_text = HELP_EXTRA.get(name, setting.help)
    if setting.kind in ("int", "optional_int"):
        assert setting.limits is not None
        lo, hi = (int(v) for v in setting.limits)
        st.number_input(
            setting.label,
            min_value=lo,
            max_value=hi,
            step=1,
            key=key,
            help=help_text,
            disabled=disabled,
        )
    elif setting.kind == "seconds":
        assert setting.limits is not None
        lo, hi = setting.limits
        st.number_input(setting.label, min_value=lo, max_value=hi, key=key, help=help_text)
    elif setting.kind == "choice" and len(setting.options()) <= 2:
        st.radio(setting.label, setting.options(), key=key, horizontal=True, help=help_text)
    elif setting.kind == "choice":
        st.selectbox(setting.label, setting.options(), key=key, help=help_text)
    elif setting.kind == "strategies":
        # Catalogue order groups them by framework: TensorFlow, NumPy, then the peers.
        st.multiselect(
            setting.label,
            setting.options(),
            key=key,
            help=help_text,
            format_func=lambda name: f"{name} · {framework_label(name)}",
        )
        missing = missing_frameworks()
        if missing:
            # Each hint is the engine's own Markdown: its commands render as code, and a link
            # inside a code span is never cut at a backtick.
            told = "; ".join(f"{plain(names)} — {hint}" for names, hint in install_hints(missing))
            st.caption(f"Not installed here: {told}")
    elif setting.kind == "bool":
        st.checkbox(setting.label, key=key, help=help_text)
    else:
        st.text_input(setting.label, key=key, max_chars=setting.max_chars or None, help=help_text)


def _columns_widget(setting: Setting) -> None:
    """n: a 'square' switch, and the number when the matrices are rectangular."""
    if st.checkbox("Square (n = m)", key="square_cols"):
        st.session_state[_key("cols")] = None
        return
    if st.session_state.get(_key("cols")) is None:
        st.session_state[_key("cols")] = st.session_state[_key("dim")]
    _widget("cols", setting)


def render() -> dict[str, Any]:
    """Draw the controls; return the current settings and mirror them into the URL."""
    table = {item.name: setting for item, setting in browser_fields()}
    placed = {name for names in SECTIONS.values() for name in names}
    sections = {**SECTIONS, "Label": tuple(name for name in table if name not in placed)}
    with st.sidebar:
        for title, names in sections.items():
            st.header(title)
            for name in names:
                if name == "cols":
                    _columns_widget(table[name])
                elif name == "replicas":
                    single = st.session_state.get(_key("mode")) == "single"
                    if single:
                        st.session_state[_key("replicas")] = 1
                    _widget(name, table[name], disabled=single)
                else:
                    _widget(name, table[name])
    start = defaults()
    settings = {name: st.session_state.get(_key(name), start[name]) for name in start}
    wanted = params_from_settings(settings)
    if query_params() != {k: [v] for k, v in wanted.items()}:
        st.query_params.from_dict(wanted)
    return settings
