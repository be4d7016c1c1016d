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

from dashboard.components.plain import plain  # noqa: E402
from dashboard.components.server_check import (  # noqa: E402
    name_the_server_to_its_children,
    refuse_unsafe_server,
)
from engine.machine.settings import check_environment  # noqa: E402
from engine.run_settings.fields import ConfigError  # noqa: E402
from engine.storage.history_file import HistoryUnavailable  # noqa: E402

VIEWS = Path(__file__).parent / "views"
# The tab's icon is a file served by this server: a `:material/...:` page icon makes every
# page ask fonts.gstatic.com for it, and the tool works offline.
ICON = Path(__file__).parent / "static" / "icon.png"
# Material icons ship with Streamlit's own fonts: emoji drew as empty boxes on machines
# without an emoji font (seen in headless Chromium on Debian).
PAGES = (
    ("run.py", "Run", ":material/timer:", "run"),
    ("sweeps.py", "Sweeps", ":material/grid_on:", "sweeps"),
    ("history.py", "History", ":material/history:", "history"),
    ("compare.py", "Compare", ":material/compare_arrows:", "compare"),
)


def run() -> None:
    st.set_page_config(page_title="Batched MatVec Profiler", page_icon=str(ICON), layout="wide")
    refuse_unsafe_server()
    name_the_server_to_its_children()
    try:
        check_environment()  # a documented variable with a bad value: named, as the CLI does
    except ConfigError as error:
        st.error(plain(f"{error}. Fix it and start the dashboard again."), icon=":material/error:")
        st.stop()
    pages = [
        st.Page(
            VIEWS / file,
            title=title,
            icon=icon,
            url_path="home" if index == 0 else path,  # the default page is served at /
            default=index == 0,
        )
        for index, (file, title, icon, path) in enumerate(PAGES)
    ]

    def run_alias() -> None:
        """`/run` (the Run page's own name) opens the Run page with the link's settings."""
        kept = {key: st.query_params.get_all(key) for key in st.query_params}
        st.switch_page(pages[0], query_params=kept)

    alias = st.Page(run_alias, title="Run", url_path=PAGES[0][3], visibility="hidden")
    try:
        st.navigation([*pages, alias]).run()
    except HistoryUnavailable as error:  # every page reads it: say what is wrong, in one line
        st.error(
            plain(
                f"{error}. Fix or move that file (or start that server), or point "
                "MATVEC_HISTORY at another store, then reload the page."
            ),
            icon=":material/error:",
        )


if __name__ == "__main__":
    run()
