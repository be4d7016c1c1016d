"""A real `streamlit run` server on localhost and Debian's headless Chromium via Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.server import streamlit_server
from tests.conftest import ROOT

ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture(scope="session")
def history_path(tmp_path_factory) -> Path:
    """The SQLite history the e2e server (and its workers) read and write."""
    return tmp_path_factory.mktemp("history") / "history.sqlite3"


@pytest.fixture(scope="session")
def server(tmp_path_factory, history_path) -> Iterator[str]:
    queue = tmp_path_factory.mktemp("queue")
    log_path = tmp_path_factory.mktemp("server") / "streamlit.log"
    env = {"MATVEC_QUEUE_DIR": str(queue), "MATVEC_HISTORY": str(history_path)}
    with open(log_path, "w") as log:
        try:
            with streamlit_server(log=log, **env) as url:
                yield url
        except RuntimeError as error:
            pytest.fail(f"{error}: {log_path.read_text()}")


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    yield page
    context.close()


def settled(page, timeout_ms: int = 60_000) -> None:
    """Wait until the app's script run is over (Streamlit's running indicator is gone): a click
    during a rerun lands on an element the rerun replaces, and is lost."""
    page.locator('[data-testid="stStatusWidgetRunningIcon"]').wait_for(
        state="hidden", timeout=timeout_ms
    )
