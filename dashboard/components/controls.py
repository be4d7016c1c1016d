"""Sidebar controls generated from the field table, seeded from the URL, mirrored back into it.

Seeding is idempotent: every script run fills in whatever widget state is missing from the
link (or the defaults), so a click during the page's first run can never reset the other
settings to the widgets' bare defaults.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard.components.devices import device_kind
from dashboard.components.plain import plain
from dashboard.services.links import (
    PAGE_JOB_PARAMS,
    defaults,
    params_from_settings,
    settings_from_params,
)
from engine.catalogue.catalog import (
    framework_label,
    install_hints,
    missing_frameworks,
    run_framework,
    strategy_info,
)
from engine.run_settings.config import browser_fields
from engine.run_settings.fields import ConfigError, Setting

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
# Settings only the run's own framework's strategies read (TensorFlow's +xla and tf.data
# batch): not drawn where it is not installed, so no control does nothing.
RUN_FRAMEWORK_ONLY = ("xla", "dataset_batch")
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


def _number_widget(name: str, setting: Setting, help_text: str, disabled: bool) -> str | None:
    """A number typed as text and read by the field table, so `1e12` or `20000000` is named
    under its box and refused (Streamlit's number box turned `1e12` into 1 without a word,
    and kept the old value in force for one over its maximum). The valid value is kept under
    the setting's key; returns the typed text when it is not valid."""
    key, text_key = _key(name), f"{_key(name)}_text"
    current = st.session_state.get(key)
    if text_key not in st.session_state or st.session_state.get(f"{key}_shown") != current:
        st.session_state[text_key] = setting.to_text(current)  # set by a link or another box
        st.session_state[f"{key}_shown"] = current
    typed = st.text_input(setting.label, key=text_key, help=help_text, disabled=disabled)
    try:
        value = setting.parse(name, typed)
    except ConfigError as error:
        st.error(plain(f"{setting.label}: {error.message_part}"), icon=":material/error:")
        return typed
    st.session_state[key] = st.session_state[f"{key}_shown"] = value
    return None


def _widget(name: str, setting: Setting, disabled: bool = False) -> str | None:
    """Draw one setting's control; the typed text of a number that is not valid, else None."""
    key = _key(name)
    help_text = HELP_EXTRA.get(name, setting.help)
    if setting.kind in ("int", "optional_int", "seconds"):
        return _number_widget(name, setting, help_text, disabled)
    if setting.kind == "choice" and len(setting.options()) <= 2:
        st.radio(setting.label, setting.options(), key=key, horizontal=True, help=help_text)
    elif setting.kind == "choice":
        st.selectbox(setting.label, setting.options(), key=key, help=help_text)
    elif setting.kind == "strategies":
        # Catalogue order groups them by framework: TensorFlow, NumPy, then the peers.
        # What is installed here, and whatever a link chose (its run says what is missing).
        chosen = st.session_state.get(key) or []
        offered = [n for n in setting.options() if strategy_info(n).installed or n in chosen]
        st.multiselect(
            setting.label,
            offered,
            key=key,
            help=help_text,
            format_func=lambda name: f"{name} · {framework_label(name)}",
        )
        missing = missing_frameworks()
        if missing:
            # Each hint is the engine's own Markdown: its commands render as code, and a link
            # inside a code span is never cut at a backtick.
            hints = install_hints(missing, device_kind())
            told = "; ".join(f"{plain(names)} — {hint}" for names, hint in hints)
            st.caption(f"Not installed here: {told}")
    elif setting.kind == "bool":
        st.checkbox(setting.label, key=key, help=help_text)
    else:
        st.text_input(setting.label, key=key, max_chars=setting.max_chars or None, help=help_text)
    return None


def _columns_widget(setting: Setting) -> str | None:
    """n: a 'square' switch, and the number when the matrices are rectangular."""
    if st.checkbox("Square (n = m)", key="square_cols"):
        st.session_state[_key("cols")] = None
        return None
    if st.session_state.get(_key("cols")) is None:
        st.session_state[_key("cols")] = st.session_state[_key("dim")]
    return _widget("cols", setting)


def render() -> dict[str, Any]:
    """Draw the controls; return the current settings and mirror them into the URL."""
    table = {item.name: setting for item, setting in browser_fields()}
    placed = {name for names in SECTIONS.values() for name in names}
    sections = {**SECTIONS, "Label": tuple(name for name in table if name not in placed)}
    invalid: dict[str, str] = {}  # name -> typed text that is not a valid value
    run = run_framework()
    hidden = () if run is None or run.installed else RUN_FRAMEWORK_ONLY
    with st.sidebar:
        for title, names in sections.items():
            st.header(title)
            for name in (name for name in names if name not in hidden):
                if name == "cols":
                    typed = _columns_widget(table[name])
                elif name == "replicas":
                    single = st.session_state.get(_key("mode")) == "single"
                    if single:
                        st.session_state[_key("replicas")] = 1
                    typed = _widget(name, table[name], disabled=single)
                else:
                    typed = _widget(name, table[name])
                if typed is not None:
                    invalid[name] = typed
    start = defaults()
    valid = {name: st.session_state.get(_key(name), start[name]) for name in start}
    wanted = params_from_settings(valid)  # the link keeps the last valid values
    wanted.update({k: st.query_params[k] for k in PAGE_JOB_PARAMS if k in st.query_params})
    if query_params() != {k: [v] for k, v in wanted.items()}:
        st.query_params.from_dict(wanted)
    return {**valid, **invalid}  # a run with an invalid value is refused, naming it
