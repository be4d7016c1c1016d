"""Entry point: `streamlit run dashboard/app.py` (or `app.run()`). Routes the pages.

Pages live in views/ (one file each, thin); their pieces are in components/ (Streamlit),
figures/, tables/, text/ and report/ (pure). Nothing in the dashboard imports TensorFlow:
runs happen in a worker process (services/worker.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `streamlit run` puts only dashboard/ on the path
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

VIEWS = Path(__file__).parent / "views"
PAGES = (
    ("run.py", "Run", "⏱️", "run"),
    ("sweeps.py", "Sweeps", "📈", "sweeps"),
    ("history.py", "History", "🗂️", "history"),
    ("compare.py", "Compare", "⚖️", "compare"),
)


def run() -> None:
    st.set_page_config(page_title="Batched MatVec Profiler", page_icon="🧮", layout="wide")
    pages = [
        st.Page(VIEWS / file, title=title, icon=icon, url_path=path, default=index == 0)
        for index, (file, title, icon, path) in enumerate(PAGES)
    ]
    st.navigation(pages).run()


if __name__ == "__main__":
    run()
