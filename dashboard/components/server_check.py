"""The app's check of its own server at start (services/server_safety.py holds the rule)."""

from __future__ import annotations

import os
import sys

import streamlit as st
from streamlit import config
from streamlit.runtime import Runtime

from dashboard.services.server_safety import refusal, unsafe_settings
from engine.machine.own_processes import SERVER_VARIABLE

CHECKED = (
    "server.address",
    "server.allowedHosts",
    "server.enableXsrfProtection",
    "browser.gatherUsageStats",
)


def serving() -> bool:
    """True under a real server (AppTest runs the app with a stand-in Runtime and no socket)."""
    return Runtime.exists() and type(Runtime.instance()) is Runtime


def server_problems() -> list[str]:
    if not serving():
        return []
    options = {name: (config.get_option(name), config.get_where_defined(name)) for name in CHECKED}
    return unsafe_settings(options)


def name_the_server_to_its_children() -> None:
    """Under a real server: every process it starts from now on (a run's worker, the device
    probe) is told the server's pid and port, so a run counts the server and the browser
    showing the page as the tool's own load, not other processes' (engine/machine/
    own_processes.py)."""
    if serving() and SERVER_VARIABLE not in os.environ:
        os.environ[SERVER_VARIABLE] = f"{os.getpid()}:{config.get_option('server.port')}"


@st.cache_resource(show_spinner=False)
def said_on_console(message: str) -> bool:
    """Once per server: the console that started it hears why the pages refuse to show."""
    print(f"matvec-profiler: {message}", file=sys.stderr, flush=True)
    return True


def refuse_unsafe_server() -> None:
    """Stop the page, saying why, when the server is less safe than the docs say."""
    problems = server_problems()
    if problems:
        message = refusal(problems)
        said_on_console(message)
        st.error(message, icon=":material/gpp_bad:")
        st.stop()
