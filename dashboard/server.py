"""The dashboard's front door: `streamlit run dashboard/server.py` (what the README and
`matvec-profiler dashboard` start). It serves the pages of `app.py` through Streamlit's ASGI
app with the Host check on every route (`services/host_check.py`), where Streamlit checks only
its WebSocket. `streamlit run dashboard/app.py` still serves the same pages, without that
check on the other routes."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `streamlit run` puts only dashboard/ on the path
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402
from streamlit.web.server.starlette.starlette_websocket import is_host_allowed  # noqa: E402

from dashboard.services.host_check import HostCheck  # noqa: E402

app = st.App("app.py", middleware=[Middleware(HostCheck, allowed=is_host_allowed)])
