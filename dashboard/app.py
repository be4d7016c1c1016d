"""Entry point: `streamlit run dashboard/app.py`. Routes the pages; imports no TensorFlow."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `streamlit run` puts only dashboard/ on the path
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

st.set_page_config(page_title="Batched MatVec Profiler", page_icon="🧮", layout="wide")

VIEWS = Path(__file__).parent / "views"
pages = [
    st.Page(VIEWS / "run_page.py", title="Run", icon="⏱️", default=True, url_path="run"),
    st.Page(VIEWS / "sweep_page.py", title="Sweeps", icon="📈", url_path="sweeps"),
    st.Page(VIEWS / "history_page.py", title="History", icon="🗂️", url_path="history"),
    st.Page(VIEWS / "compare_page.py", title="Compare", icon="⚖️", url_path="compare"),
]
st.navigation(pages).run()
